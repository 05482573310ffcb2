"""One memory entry of any kind, as the browser, the CLI and export see it (issue 20).

``MemoryEntry`` is the contract's type (Qt-free). The small reader here
(:func:`list_entries`, :func:`get_entry`) is what `rilai memory list|show` need: every
kind's rows with the person's controls beside them; the browser's richer reads build on
the same type.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rilai_desktop.memory._sql import parse_dt
from rilai_desktop.memory.controls import ENTRY_KINDS, EntryKind, check_kind

__all__ = ["EntryKind", "MemoryEntry", "get_entry", "list_entries"]


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


# per kind: SELECT id, text, category, created_at, session_id, turn_ids (json or int),
# evidence, valid, source (the columns each table has)
_SQL: dict[EntryKind, str] = {
    "item": "SELECT t.item_id, t.content, t.category, t.created_at,"
    " json_extract(r.metadata, '$.session_id'), t.source_turn_ids,"
    " 1 + t.reinforcement_count, t.invalid_at IS NULL, r.resource_type"
    " FROM memory_items t LEFT JOIN memory_resources r"
    " ON r.resource_id = t.source_resource_id",
    "fact": "SELECT t.id, t.fact, t.category, t.first_observed, NULL, '[]', t.evidence_count,"
    " 1, t.source FROM memory_user_facts t",
    "episode": "SELECT t.id, t.summary, NULL, t.timestamp, t.session_id, t.turn_id, 1, 1,"
    " 'conversation' FROM memory_episodes t",
    "goal": "SELECT t.id, t.title, t.kind, t.created_at, NULL, t.source_turn_ids, 1,"
    " t.status = 'open', 'conversation' FROM memory_goals t",
}
_TEXT = {"item": "t.content", "fact": "t.fact", "episode": "t.summary", "goal": "t.title"}
_ID = {"item": "t.item_id", "fact": "t.id", "episode": "t.id", "goal": "t.id"}


def _turns(raw: Any) -> tuple[int, ...]:
    values = [raw] if isinstance(raw, int) else json.loads(raw or "[]")
    out: list[int] = []
    for v in values:
        tail = str(v).rsplit(":", 1)[-1]
        if tail.isdigit():
            out.append(int(tail))
    return tuple(out)


def _source(kind: EntryKind, raw: Any, session: Any, turns: tuple[int, ...]) -> str:
    if kind == "fact":
        return str(raw)
    where = f"conversation {session}" if session else "a conversation"
    if raw not in (None, "conversation", "feedback"):
        where = f"{raw}" if not session else f"{raw} {session}"
    if raw == "feedback":
        where = "told to remember"
    return f"{where}, turn {', '.join(map(str, turns))}" if turns else where


def _entry(kind: EntryKind, row: Any, controls: dict[str, tuple[bool, bool, Any]]) -> MemoryEntry:
    turns = _turns(row[5])
    paused, pinned, used = controls.get(str(row[0]), (False, False, None))
    return MemoryEntry(
        kind=kind,
        entry_id=str(row[0]),
        text=str(row[1]),
        category=None if row[2] is None else str(row[2]),
        created_at=parse_dt(row[3]),
        last_used_at=parse_dt(used),
        paused=paused,
        pinned=pinned,
        source=_source(kind, row[8], row[4], turns),
        session_id=None if not row[4] else str(row[4]),
        turn_ids=turns,
        evidence_count=int(row[6]),
        valid=bool(row[7]),
    )


def _controls(conn: sqlite3.Connection, kind: EntryKind) -> dict[str, tuple[bool, bool, Any]]:
    rows = conn.execute(
        "SELECT entry_id, paused, pinned, last_used_at FROM memory_controls WHERE kind = ?",
        (kind,),
    ).fetchall()
    return {str(r[0]): (bool(r[1]), bool(r[2]), r[3]) for r in rows}


def list_entries(
    conn: sqlite3.Connection,
    kind: EntryKind | None = None,
    *,
    query: str = "",
    limit: int = 500,
    include_paused: bool = True,
) -> list[MemoryEntry]:
    """Entries of ``kind`` (every kind when None), newest first; ``query`` filters the text
    (a case-insensitive substring)."""
    kinds = ENTRY_KINDS if kind is None else (check_kind(kind),)
    out: list[MemoryEntry] = []
    for k in kinds:
        sql, args = _SQL[k], []
        if query.strip():
            sql += f" WHERE {_TEXT[k]} LIKE ? ESCAPE '\\'"
            args.append("%" + query.strip().replace("\\", "\\\\").replace("%", "\\%") + "%")
        ctl = _controls(conn, k)
        for row in conn.execute(sql, args).fetchall():
            entry = _entry(k, row, ctl)
            if include_paused or not entry.paused:
                out.append(entry)
    out.sort(key=lambda e: e.created_at.timestamp() if e.created_at else 0.0, reverse=True)
    return out[:limit]


def get_entry(conn: sqlite3.Connection, kind: EntryKind, entry_id: str) -> MemoryEntry | None:
    k = check_kind(kind)
    row = conn.execute(f"{_SQL[k]} WHERE {_ID[k]} = ?", (entry_id,)).fetchone()
    return None if row is None else _entry(k, row, _controls(conn, k))
