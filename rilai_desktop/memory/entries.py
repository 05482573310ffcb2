"""What the person sees of one memory entry, whatever table it lives in (issue 20).

Items (turn records included), user facts, episodes and threads/goals each have their own
table and columns; the memory browser, the CLI's ``rilai memory list`` and the "why" panel
show them the same way, with where the entry came from in words and what the person
decided about it (paused, pinned; ``memory_controls``). Qt-free and SQL-free: the readers
(``entry_reader.py``) build these, the writers return them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    import sqlite3

EntryKind = Literal["item", "fact", "episode", "goal"]
ENTRY_KINDS: tuple[EntryKind, ...] = get_args(EntryKind)

PageKind = Literal["category", "journal", "knowledge_base"]


@dataclass(frozen=True)
class MemoryEntry:
    kind: EntryKind
    entry_id: str
    text: str
    category: str | None  # item category / fact category / goal kind / None
    created_at: datetime | None
    last_used_at: datetime | None  # from memory_controls
    paused: bool
    pinned: bool
    source: str  # in words: "conversation “<title>”, turn 3" or "file notes.md"
    session_id: str | None
    turn_ids: tuple[int, ...]
    evidence_count: int  # facts: evidence_count; items: 1 + reinforcement_count; else 1
    valid: bool  # items: invalid_at is None

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "entry_id": self.entry_id,
            "text": self.text,
            "category": self.category,
            "created_at": None if self.created_at is None else self.created_at.isoformat(),
            "last_used_at": None if self.last_used_at is None else self.last_used_at.isoformat(),
            "paused": self.paused,
            "pinned": self.pinned,
            "source": self.source,
            "session_id": self.session_id,
            "turn_ids": list(self.turn_ids),
            "evidence_count": self.evidence_count,
            "valid": self.valid,
        }

    @property
    def ref(self) -> tuple[EntryKind, str]:
        """The (kind, id) pair the write methods take."""
        return (self.kind, self.entry_id)


@dataclass(frozen=True)
class MemoryPage:
    """A page of memory that is a document rather than a row: a category's markdown (the
    same file the person can open on disk), a day of the journal, a knowledge base."""

    kind: PageKind
    name: str
    markdown: str
    path: Path | None
    updated_at: datetime | None


# the CLI's and the writers' reads on a connection they already hold (the browser reads
# through ``MemoryBrowser``'s read-only one); ``entry_reader.EntryReader`` does the work
def list_entries(
    conn: sqlite3.Connection,
    kind: EntryKind | None = None,
    *,
    query: str = "",
    limit: int = 500,
    include_paused: bool = True,
) -> list[MemoryEntry]:
    from rilai_desktop.memory.entry_reader import EntryReader

    return EntryReader(conn).entries(kind, query=query, limit=limit, include_paused=include_paused)


def get_entry(conn: sqlite3.Connection, kind: EntryKind, entry_id: str) -> MemoryEntry | None:
    from rilai_desktop.memory.entry_reader import EntryReader

    return EntryReader(conn).entry(kind, entry_id)
