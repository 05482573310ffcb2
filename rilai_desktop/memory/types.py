"""Seed 003's data shapes: Resource, MemoryItem, MemoryCategory, RetrievalResult, MemoryStats.

Pydantic models (validated on construction) with the seed's field names. Ours beside them:
``MemoryItem.source_turn_ids`` (the turns an item came from), ``kind`` (what the extractor
saw: preference, boundary, commitment...), ``reinforcement_count`` and ``valid_at`` /
``invalid_at`` (a contradicted fact is invalidated, not deleted). This module is light (no
numpy, faiss or sqlite) so the turn can import it.
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

RESOURCE_TYPES = ("conversation", "document", "config", "feedback")
ResourceType = Literal["conversation", "document", "config", "feedback"]
Importance = Literal["low", "normal", "high"]
IMPORTANCE_LEVELS: tuple[Importance, ...] = ("low", "normal", "high")
MAX_RESOURCE_CHARS = 1_000_000
MAX_QUERY_CHARS = 10_000
CATEGORY_NAME = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*\Z")  # \Z: "$" would allow a final \n
CATEGORY_NAME_MAX = 64
CATEGORY_DESCRIPTION_MIN = 10
CATEGORY_DESCRIPTION_MAX = 500


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, validate_assignment=True)


class RetrievalMode(StrEnum):
    """Retrieval strategy selection (seed 003, 2.1)."""

    RAG = "rag"
    LLM = "llm"
    HYBRID = "hybrid"


class Resource(_Model):
    """Layer 1: raw source data."""

    resource_id: str = Field(pattern=r"^res_[0-9a-f-]{36}$")
    resource_type: ResourceType
    content: str = Field(min_length=1, max_length=MAX_RESOURCE_CHARS)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: AwareDatetime

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Resource:
        return cls.model_validate(data)


class MemoryItem(_Model):
    """Layer 2: an extracted fact with its embedding and where it came from."""

    item_id: str = Field(pattern=r"^item_[0-9a-f-]{36}$")
    content: str = Field(min_length=1)
    embedding: list[float] | None = None
    source_resource_id: str = Field(min_length=1)
    category: str | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    created_at: AwareDatetime
    importance: Importance = "normal"
    # ours
    source_turn_ids: list[str] = Field(default_factory=list)
    kind: str = "fact"
    slot: str | None = None
    reinforcement_count: int = Field(default=0, ge=0)
    valid_at: AwareDatetime | None = None
    invalid_at: AwareDatetime | None = None
    speaker: str | None = None  # a turn record's speaker (kind "turn"); None for a fact
    dates: list[dict[str, str]] = Field(default_factory=list)  # memory.dates, resolved

    @property
    def is_valid(self) -> bool:
        return self.invalid_at is None


class MemoryCategory(_Model):
    """Layer 3: aggregated markdown knowledge."""

    category_id: str = Field(pattern=r"^cat_[0-9a-f-]{36}$")
    name: str = Field(min_length=1, max_length=CATEGORY_NAME_MAX)
    description: str = Field(
        min_length=CATEGORY_DESCRIPTION_MIN, max_length=CATEGORY_DESCRIPTION_MAX
    )
    markdown_content: str
    item_ids: list[str] = Field(default_factory=list)
    updated_at: AwareDatetime

    @field_validator("name")
    @classmethod
    def _snake_case(cls, value: str) -> str:
        if not CATEGORY_NAME.match(value):
            raise ValueError("category names are snake_case: a-z, 0-9 and single underscores")
        return value


class RetrievalResult(_Model):
    """Result of a retrieval (seed 003, 6.4)."""

    items: list[MemoryItem]
    mode_used: RetrievalMode
    total_found: int = Field(ge=0)
    search_time_ms: float = Field(ge=0.0)
    confidence_scores: list[float]
    escalated: bool = False


class MemoryStats(_Model):
    """Statistics about the memory system (seed 003, 6.5)."""

    total_resources: int
    total_items: int
    total_categories: int
    vector_index_size: int
    storage_bytes: int
    resources_by_type: dict[str, int]
    items_by_category: dict[str, int]
    last_extraction_at: datetime | None
    last_consolidation_at: datetime | None


ITEM_KINDS = (
    "preference",
    "boundary",
    "biography",
    "commitment",
    "decision",
    "value",
    "goal",
    "event",
    "emotion",
    "utterance",
    "fact",
    "turn",
)
TURN_KIND = "turn"  # a turn record: the turn's own text, its speaker and its session's date
MAX_ITEM_CHARS = 2_000


class ItemDraft(_Model):
    """What an extractor proposes; the item layer dedupes, embeds and stores it.

    ``slot`` names a single-valued fact ("lives_in", "job", "pet_name"...): storing a newer
    valid item with the same slot invalidates the older ones (a contradicted fact is
    invalidated, not deleted). ``valid_at`` is when the source turn happened.
    """

    content: str = Field(min_length=1, max_length=MAX_ITEM_CHARS)
    kind: str = "fact"
    category: str | None = None
    confidence: float = Field(default=0.7, ge=0.0, le=1.0)
    importance: Importance = "normal"
    source_turn_ids: list[str] = Field(default_factory=list)
    valid_at: AwareDatetime | None = None
    slot: str | None = Field(default=None, max_length=64)
    speaker: str | None = Field(default=None, max_length=200)
    dates: list[dict[str, str]] = Field(default_factory=list)


class Turn(_Model):
    """One turn of a conversation resource."""

    id: str = Field(min_length=1)
    speaker: str
    text: str
    at: AwareDatetime | None = None
    is_user: bool = True
