"""The memory tables as SQLModel classes: the typed declaration of migrations 0003-0004.

The migration SQL is what creates the tables (FTS5 tables and triggers cannot be expressed
here); these classes declare the same columns, types, keys and nullability, and
``tests/memory/test_tables.py`` fails if the two ever drift apart. People's reads go
through these classes (``browse.py``, a read-only connection); writes go through
``MemoryManager`` on the shared sqlite3 connection, one transaction with the FTS5 rows, the
FAISS index and the event log (docs/architecture.md, "sqlmodel").
"""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class MemoryMeta(SQLModel, table=True):
    __tablename__ = "memory_meta"
    key: str = Field(primary_key=True)
    value: str


class MemoryResourceRow(SQLModel, table=True):
    __tablename__ = "memory_resources"
    id: int | None = Field(default=None, primary_key=True)
    resource_id: str = Field(unique=True)
    resource_type: str
    content: str
    content_hash: str
    metadata_json: str = Field(sa_column_kwargs={"name": "metadata"}, default="{}")
    created_at: str


class MemoryItemRow(SQLModel, table=True):
    __tablename__ = "memory_items"
    id: int | None = Field(default=None, primary_key=True)
    item_id: str = Field(unique=True)
    content: str
    content_hash: str
    embedding: bytes
    source_resource_id: str = Field(foreign_key="memory_resources.resource_id")
    source_turn_ids: str = "[]"
    category: str | None = None
    kind: str = "fact"
    slot: str | None = None
    confidence: float
    importance: str = "normal"
    created_at: str
    reinforcement_count: int = 0
    last_reinforced_at: str | None = None
    valid_at: str
    invalid_at: str | None = None
    invalidated_by: str | None = None
    speaker: str | None = None
    dates: str = "[]"


class MemoryCategoryRow(SQLModel, table=True):
    __tablename__ = "memory_categories"
    id: int | None = Field(default=None, primary_key=True)
    category_id: str = Field(unique=True)
    name: str = Field(unique=True)
    description: str
    markdown_content: str
    updated_at: str
    last_consolidated_at: str | None = None
    items_since_consolidation: int = 0


class ContextRow(SQLModel, table=True):
    __tablename__ = "contexts"
    id: str = Field(primary_key=True)
    type: str
    agent_id: str | None = None
    content: str
    compression: str = "gzip"
    content_hash: str | None = None
    embedding: str | None = None
    parent_ids: str | None = None
    metadata_json: str | None = Field(default=None, sa_column_kwargs={"name": "metadata"})
    created_at: str
    expires_at: str | None = None
    accessed_at: str | None = None
    access_count: int = 0


class EpisodeRow(SQLModel, table=True):
    __tablename__ = "memory_episodes"
    id: str = Field(primary_key=True)
    timestamp: str
    summary: str
    emotions: str = "[]"
    participants: str = "[]"
    tags: str = "[]"
    importance: float = 0.5
    turn_id: int = 0
    session_id: str = ""
    embedding: bytes | None = None


class UserFactRow(SQLModel, table=True):
    __tablename__ = "memory_user_facts"
    id: str = Field(primary_key=True)
    fact: str
    category: str
    confidence: float
    source: str
    first_observed: str
    last_confirmed: str
    evidence_count: int = 1
    fact_hash: str
    embedding: bytes | None = None


class GoalRow(SQLModel, table=True):
    __tablename__ = "memory_goals"
    id: str = Field(primary_key=True)
    kind: str = "goal"
    title: str
    status: str = "open"
    deadline: str | None = None
    notes: str = ""
    source_turn_ids: str = "[]"
    created_at: str
    updated_at: str


class KBPointRow(SQLModel, table=True):
    __tablename__ = "kb_points"
    kb_name: str = Field(primary_key=True)
    point_id: str = Field(primary_key=True)
    vector: bytes
    payload: str = "{}"
    updated_at: str


class MemoryControlRow(SQLModel, table=True):
    """Migration 0007: paused / pinned / last used, per entry (a projection of the log)."""

    __tablename__ = "memory_controls"
    kind: str = Field(primary_key=True)
    entry_id: str = Field(primary_key=True)
    paused: int = 0
    pinned: int = 0
    last_used_at: str | None = None
    updated_at: str


class MemoryFeedbackRow(SQLModel, table=True):
    """Migration 0007: "not relevant" for queries like this one (the query's embedding)."""

    __tablename__ = "memory_feedback"
    id: int | None = Field(default=None, primary_key=True)
    kind: str
    entry_id: str
    query_embedding: bytes
    created_at: str


TABLES: tuple[type[SQLModel], ...] = (
    MemoryMeta,
    MemoryResourceRow,
    MemoryItemRow,
    MemoryCategoryRow,
    ContextRow,
    EpisodeRow,
    UserFactRow,
    GoalRow,
    KBPointRow,
    MemoryControlRow,
    MemoryFeedbackRow,
)
