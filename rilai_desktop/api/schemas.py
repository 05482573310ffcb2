"""Request and response shapes: seed 004's, field for field, and the OpenAI chat subset.

Every request model forbids unknown fields; FastAPI answers a body that does not fit with
422 and the field named (``detail[].loc``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

KnowledgeBaseName = Literal["kb_core", "kb_skills", "kb_1", "kb_2", "kb_3", "kb_4", "kb_5", "kb_6"]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AccessMemoryRequest(_Request):
    layer: int = Field(ge=1, le=7)
    key: str = Field(min_length=1, max_length=200)
    value: str | None = None


class AccessMemoryResponse(BaseModel):
    data: str
    success: bool


class SemanticSearchRequest(_Request):
    query: str = Field(max_length=10_000)
    kb_name: KnowledgeBaseName
    limit: int = Field(default=10, ge=1, le=100)
    query_vector: list[float] | None = None


class Hit(BaseModel):
    document_id: str
    score: float
    content_snippet: str


class SemanticSearchResponse(BaseModel):
    hits: list[Hit]


class Point(_Request):
    id: str = Field(min_length=1, max_length=200)
    vector: list[float]
    payload: dict[str, str] = Field(default_factory=dict)


class UpsertVectorsRequest(_Request):
    kb_name: KnowledgeBaseName
    points: list[Point] = Field(max_length=10_000)


class UpsertVectorsResponse(BaseModel):
    success: bool
    upserted_count: int


SkillName = Literal["recall", "remember", "list_categories", "get_category"]


class ExecuteActionRequest(_Request):
    skill_name: SkillName
    params: dict[str, str] = Field(default_factory=dict)
    depth: int = Field(default=0, ge=0, le=8)
    reasoning_id: str = Field(min_length=1, max_length=64)
    mock_mode: bool = False
    timeout_ms: int | None = Field(default=None, ge=1, le=600_000)


class ExecuteActionResponse(BaseModel):
    observation: str
    success: bool
    error: str


class RLMRequest(_Request):
    query: str = Field(min_length=1, max_length=100_000)
    context: str | None = Field(default=None, max_length=100_000)
    depth: int = Field(default=0, ge=0, le=8)


class RLMResponse(BaseModel):
    summary: str
    converged: bool


class ChatMessageIn(BaseModel):
    model_config = ConfigDict(extra="allow")  # name, tool_call_id, …: read and ignored

    role: Literal["system", "user", "assistant", "tool", "developer"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        parts = self.content or []
        return "".join(str(p.get("text", "")) for p in parts if p.get("type") == "text")


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, top_p, …: the companion decides

    model: str = "rilai"
    messages: list[ChatMessageIn] = Field(min_length=1)
    stream: bool = False
