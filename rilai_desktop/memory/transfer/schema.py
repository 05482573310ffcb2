"""The memory export format, version 1, as pydantic models (docs/memory-export.md).

One JSON file, ``rilai-memory.json``, holds every entry a person's memory has (minus the
paused ones); the category pages travel beside it as ``categories/<name>.md`` and a
readable ``memory.md`` says the same in prose. The models are strict (unknown keys and
wrong types are refused) because import writes what they accept straight into the tables:
a hand-edited or truncated file must fail with a message that names the field, never
half-import. Embeddings are not part of the format: import recomputes them with the
installed embedder, so a file stays readable and does not tie memory to one model.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from rilai_desktop.contracts.agent import KnowledgeBaseName
from rilai_desktop.contracts.memory import UserFactCategory
from rilai_desktop.memory.relationship.checks import (
    MAX_FACT_CHARS,
    MAX_NOTES_CHARS,
    MAX_SUMMARY_CHARS,
    MAX_TITLE_CHARS,
)
from rilai_desktop.memory.types import CATEGORY_NAME

FORMAT = "rilai-memory"
VERSION = 1
JSON_NAME = "rilai-memory.json"
READABLE_NAME = "memory.md"
CATEGORIES_DIR = "categories"


def counts_text(counts: dict[str, int]) -> str:
    """``{"items": 3, "user_facts": 1, "goals": 0}`` -> "3 items, 1 user facts"."""
    return ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items() if n) or "nothing"


EntryKind = Literal["item", "fact", "episode", "goal"]
Text = Annotated[str, Field(min_length=1)]
Unit = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


def _category_name(value: str) -> str:
    if len(value) > 64 or not CATEGORY_NAME.match(value):
        raise ValueError("a category name is snake_case, 1-64 characters (a-z, 0-9, _)")
    return value


CategoryName = Annotated[str, AfterValidator(_category_name)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ExportedSource(_Strict):
    """Where items came from: a conversation (or document, note) memory was made from.

    Only its description travels: ``metadata`` keeps the session, the title, the date and
    the turns' ids and speakers, never the turns' words (the per-turn records among the
    items carry the person's own words, and a paused one is left out)."""

    source_id: Text
    type: Literal["conversation", "document", "config", "feedback"]
    created_at: AwareDatetime
    content_hash: Text
    metadata: dict[str, Any] = Field(default_factory=dict)


class ExportedItem(_Strict):
    """An extracted memory item, or a per-turn record (``kind`` ``"turn"``)."""

    item_id: Text
    text: Annotated[str, Field(min_length=1, max_length=1_000_000)]
    kind: Text
    category: CategoryName | None = None
    slot: str | None = None
    speaker: str | None = None
    confidence: Unit
    importance: Literal["low", "normal", "high"] = "normal"
    created_at: AwareDatetime
    valid_at: AwareDatetime
    invalid_at: AwareDatetime | None = None
    invalidated_by: str | None = None
    reinforcement_count: int = Field(default=0, ge=0)
    last_reinforced_at: AwareDatetime | None = None
    source_id: Text
    source_turn_ids: list[str] = Field(default_factory=list)
    dates: list[Any] = Field(default_factory=list)


class ExportedFact(_Strict):
    """A user fact: what Rilai believes about the person, with its evidence."""

    id: Text
    text: Annotated[str, Field(min_length=1, max_length=MAX_FACT_CHARS)]
    category: UserFactCategory
    confidence: Unit
    source: str
    first_observed: AwareDatetime
    last_confirmed: AwareDatetime
    evidence_count: int = Field(default=1, ge=1)


class ExportedEpisode(_Strict):
    id: Text
    text: Annotated[str, Field(min_length=1, max_length=MAX_SUMMARY_CHARS)]
    timestamp: AwareDatetime
    emotions: list[str] = Field(default_factory=list)
    participants: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    importance: Unit = 0.5
    turn_id: int = Field(default=0, ge=0)
    session_id: str = ""


class ExportedGoal(_Strict):
    """A goal, or an open thread Rilai means to come back to."""

    id: Text
    kind: Literal["goal", "open_thread"] = "goal"
    text: Annotated[str, Field(min_length=1, max_length=MAX_TITLE_CHARS)]
    status: Literal["open", "done", "dropped"] = "open"
    deadline: AwareDatetime | None = None
    notes: Annotated[str, Field(max_length=MAX_NOTES_CHARS)] = ""
    source_turn_ids: list[str] = Field(default_factory=list)
    created_at: AwareDatetime
    updated_at: AwareDatetime


class ExportedCategory(_Strict):
    """A category; its page is the file ``categories/<name>.md`` beside the JSON."""

    category_id: Text
    name: CategoryName
    description: Annotated[str, Field(min_length=10, max_length=500)]
    file: Text
    summary: str | None = None
    updated_at: AwareDatetime
    last_consolidated_at: AwareDatetime | None = None

    @model_validator(mode="after")
    def _file_is_its_page(self) -> ExportedCategory:
        if self.file != f"{CATEGORIES_DIR}/{self.name}.md":
            raise ValueError(f"file must be {CATEGORIES_DIR}/{self.name}.md")
        return self


class EntryRef(_Strict):
    kind: EntryKind
    entry_id: Text


class ExportedKBPoint(_Strict):
    """A knowledge-base document: its text is in ``payload`` (``content`` or ``text``)."""

    kb: KnowledgeBaseName
    id: Annotated[str, Field(min_length=1, max_length=200)]
    payload: dict[str, str]

    @model_validator(mode="after")
    def _has_text(self) -> ExportedKBPoint:
        if not (self.payload.get("content") or self.payload.get("text") or "").strip():
            raise ValueError("payload has no content or text to embed")
        return self


class MemoryExport(_Strict):
    """The whole of ``rilai-memory.json``."""

    format: Literal["rilai-memory"]
    version: Literal[1]
    exported_at: AwareDatetime
    app_version: str
    embedding_model: str
    sources: list[ExportedSource] = Field(default_factory=list)
    items: list[ExportedItem] = Field(default_factory=list)
    user_facts: list[ExportedFact] = Field(default_factory=list)
    episodes: list[ExportedEpisode] = Field(default_factory=list)
    goals: list[ExportedGoal] = Field(default_factory=list)
    categories: list[ExportedCategory] = Field(default_factory=list)
    pinned: list[EntryRef] = Field(default_factory=list)
    knowledge_bases: list[ExportedKBPoint] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> MemoryExport:
        for name, ids in (
            ("sources", [s.source_id for s in self.sources]),
            ("items", [i.item_id for i in self.items]),
            ("user_facts", [f.id for f in self.user_facts]),
            ("episodes", [e.id for e in self.episodes]),
            ("goals", [g.id for g in self.goals]),
            ("categories", [c.name for c in self.categories]),
            ("knowledge_bases", [f"{p.kb}/{p.id}" for p in self.knowledge_bases]),
        ):
            twice = [k for k, n in Counter(ids).items() if n > 1]
            if twice:
                raise ValueError(f"{name}: {twice[0]!r} appears more than once")
        sources = {s.source_id for s in self.sources}
        for i, item in enumerate(self.items):
            if item.source_id not in sources:
                raise ValueError(f"items[{i}].source_id {item.source_id!r} is not in sources")
        known = self.entry_ids()
        for i, ref in enumerate(self.pinned):
            if ref.entry_id not in known[ref.kind]:
                raise ValueError(f"pinned[{i}]: no {ref.kind} {ref.entry_id!r} in this file")
        return self

    def entry_ids(self) -> dict[str, set[str]]:
        return {
            "item": {i.item_id for i in self.items},
            "fact": {f.id for f in self.user_facts},
            "episode": {e.id for e in self.episodes},
            "goal": {g.id for g in self.goals},
        }

    def counts(self) -> dict[str, int]:
        return {
            "sources": len(self.sources),
            "items": len(self.items),
            "user_facts": len(self.user_facts),
            "episodes": len(self.episodes),
            "goals": len(self.goals),
            "categories": len(self.categories),
            "pinned": len(self.pinned),
            "knowledge_bases": len(self.knowledge_bases),
        }
