"""Every memory entry as the person sees it: its text, where it came from in words, and what
they decided about it (``memory_controls``) — read on the browser's read-only connection.

Four tables hold the entries (items with the turn records, user facts, episodes,
threads/goals) and none of them says "conversation ‘…’, turn 3" by itself: an item knows
its resource (whose metadata names the session and turn, or the imported transcript's
title); an episode knows its session; a fact and a goal know only a turn number, so they
borrow the session of the item they were drawn from (the same text, by ``content_hash``).
A conversation's title is what the conversation list shows: the person's first message of
that session in the event log.

The filter is FTS5 for items (every word a quoted prefix, all required: a person's words
are never FTS5 syntax) and LIKE for the small tables. Newest first everywhere.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from rilai_desktop.memory.entries import ENTRY_KINDS, EntryKind, MemoryEntry
from rilai_desktop.memory.items import content_hash

TITLE_CHARS = 60
SAID = "what you said"  # the category a turn record shows: the person's own words
_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_ITEMS = """
SELECT i.item_id, i.content, i.category, i.kind, i.created_at, i.reinforcement_count,
       i.invalid_at, i.source_turn_ids, r.resource_type, r.metadata,
       c.paused, c.pinned, c.last_used_at
  FROM memory_items i
  LEFT JOIN memory_resources r ON r.resource_id = i.source_resource_id
  LEFT JOIN memory_controls c ON c.kind = 'item' AND c.entry_id = i.item_id
"""
_FACTS = """
SELECT f.id, f.fact, f.category, f.first_observed, f.evidence_count, f.source,
       c.paused, c.pinned, c.last_used_at
  FROM memory_user_facts f
  LEFT JOIN memory_controls c ON c.kind = 'fact' AND c.entry_id = f.id
"""
_EPISODES = """
SELECT e.id, e.summary, e.timestamp, e.session_id, e.turn_id,
       c.paused, c.pinned, c.last_used_at
  FROM memory_episodes e
  LEFT JOIN memory_controls c ON c.kind = 'episode' AND c.entry_id = e.id
"""
_GOALS = """
SELECT g.id, g.title, g.kind, g.created_at, g.source_turn_ids, g.status,
       c.paused, c.pinned, c.last_used_at
  FROM memory_goals g
  LEFT JOIN memory_controls c ON c.kind = 'goal' AND c.entry_id = g.id
"""
_ORIGIN = """
SELECT i.source_turn_ids, r.resource_type, r.metadata
  FROM memory_items i LEFT JOIN memory_resources r ON r.resource_id = i.source_resource_id
 WHERE i.content_hash = ? ORDER BY i.created_at LIMIT 1
"""
_TITLE = """
SELECT json_extract(payload, '$.user_input') FROM events
 WHERE kind = 'turn_started' AND session_id = ? ORDER BY turn_id, seq LIMIT 1
"""


def prefix_query(text: str) -> str:
    """A person's words as an FTS5 query that cannot fail: each word a quoted prefix term,
    all required; '' when there is no word."""
    text = _CONTROL.sub(" ", text.encode("utf-8", "ignore").decode("utf-8"))
    return " ".join('"' + w.replace('"', '""') + '"*' for w in text.split())


def one_line(text: str, limit: int = TITLE_CHARS) -> str:
    flat = _SPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _dt(value: str | None) -> datetime | None:
    try:
        return None if not value else datetime.fromisoformat(value)
    except ValueError:
        return None


def _json(value: str | None, default: Any) -> Any:
    try:
        return json.loads(value) if value else default
    except ValueError:
        return default


def _turn_number(ref: object) -> int | None:
    """'session:3' or '3' -> 3."""
    tail = str(ref).rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else None


class EntryReader:
    """The entries of one database, read on ``conn`` (read-only; any thread that owns it)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._titles: dict[str, str | None] = {}

    # ── where an entry came from ──────────────────────────────────────────
    def _title(self, session_id: str) -> str | None:
        if session_id not in self._titles:
            try:
                row = self._conn.execute(_TITLE, (session_id,)).fetchone()
            except sqlite3.OperationalError:  # a memory-only database has no event log
                row = None
            title = row[0] if row and isinstance(row[0], str) and row[0].strip() else None
            self._titles[session_id] = one_line(title) if title else None
        return self._titles[session_id]

    def _where(
        self, session_id: str | None, turns: Sequence[int], fallback_title: str | None = None
    ) -> str:
        title = self._title(session_id) if session_id else None
        if title is None and fallback_title:
            return f"imported conversation “{one_line(fallback_title)}”"
        words = f"conversation “{title}”" if title else "a conversation"
        if turns:
            label = "turn" if len(turns) == 1 else "turns"
            words += f", {label} " + ", ".join(str(t) for t in sorted(set(turns)))
        return words

    def _origin(
        self, refs: Iterable[object], resource_type: str | None, meta_raw: str | None
    ) -> tuple[str, str | None, tuple[int, ...]]:
        """(source in words, session id, turn ids) from an item's turn refs and resource."""
        meta = _json(meta_raw, {})
        meta = meta if isinstance(meta, dict) else {}
        refs = list(refs)
        turns = [t for t in (_turn_number(r) for r in refs) if t is not None]
        session = meta.get("session_id")
        if not isinstance(session, str) or not session:
            session = next((str(r).rsplit(":", 1)[0] for r in refs if ":" in str(r)), None)
        if not turns and isinstance(meta.get("turn_id"), int):
            turns = [meta["turn_id"]]
        if resource_type == "conversation" or session:
            title = meta.get("title") if isinstance(meta.get("title"), str) else None
            return self._where(session, turns, title), session, tuple(turns)
        if resource_type == "feedback":
            return "you asked Rilai to remember it", None, tuple(turns)
        name = next(
            (meta[k] for k in ("name", "file", "path", "title") if isinstance(meta.get(k), str)),
            None,
        )
        if name:
            return f"file {name.rsplit('/', 1)[-1]}", None, ()
        return (f"a {resource_type}" if resource_type else "unknown"), None, ()

    def _borrowed(self, text: str, turns: Sequence[int]) -> tuple[str, str | None, tuple[int, ...]]:
        """A fact's or goal's origin: the item with the same text, else just its turns."""
        row = self._conn.execute(_ORIGIN, (content_hash(text),)).fetchone()
        if row is not None:
            return self._origin(_json(row[0], []), row[1], row[2])
        if turns:
            return self._where(None, turns), None, tuple(turns)
        return "unknown", None, ()

    # ── rows to entries ───────────────────────────────────────────────────
    def _item(self, r: tuple[Any, ...]) -> MemoryEntry:
        source, session, turns = self._origin(_json(r[7], []), r[8], r[9])
        return MemoryEntry(
            kind="item",
            entry_id=r[0],
            text=r[1],
            category=SAID if r[3] == "turn" else r[2],
            created_at=_dt(r[4]),
            last_used_at=_dt(r[12]),
            paused=bool(r[10]),
            pinned=bool(r[11]),
            source=source,
            session_id=session,
            turn_ids=turns,
            evidence_count=1 + int(r[5] or 0),
            valid=r[6] is None,
        )

    def _fact(self, r: tuple[Any, ...]) -> MemoryEntry:
        turn = _turn_number(str(r[5]).split(" ", 2)[1]) if str(r[5]).startswith("turn ") else None
        source, session, turns = self._borrowed(r[1], [turn] if turn is not None else [])
        return MemoryEntry(
            kind="fact",
            entry_id=r[0],
            text=r[1],
            category=r[2],
            created_at=_dt(r[3]),
            last_used_at=_dt(r[8]),
            paused=bool(r[6]),
            pinned=bool(r[7]),
            source=source,
            session_id=session,
            turn_ids=turns,
            evidence_count=int(r[4] or 1),
            valid=True,
        )

    def _episode(self, r: tuple[Any, ...]) -> MemoryEntry:
        session = r[3] or None
        turns = (int(r[4]),) if r[4] else ()
        return MemoryEntry(
            kind="episode",
            entry_id=r[0],
            text=r[1],
            category=None,
            created_at=_dt(r[2]),
            last_used_at=_dt(r[7]),
            paused=bool(r[5]),
            pinned=bool(r[6]),
            source=self._where(session, turns),
            session_id=session,
            turn_ids=turns,
            evidence_count=1,
            valid=True,
        )

    def _goal(self, r: tuple[Any, ...]) -> MemoryEntry:
        turns = [t for t in (_turn_number(x) for x in _json(r[4], [])) if t is not None]
        source, session, turn_ids = self._borrowed(r[1], turns)
        return MemoryEntry(
            kind="goal",
            entry_id=r[0],
            text=r[1],
            category=r[2],
            created_at=_dt(r[3]),
            last_used_at=_dt(r[8]),
            paused=bool(r[6]),
            pinned=bool(r[7]),
            source=source,
            session_id=session,
            turn_ids=turn_ids,
            evidence_count=1,
            valid=r[5] == "open",
        )

    # ── the reads ─────────────────────────────────────────────────────────
    def entries(
        self,
        kind: EntryKind | None = None,
        *,
        query: str = "",
        limit: int = 500,
        include_paused: bool = True,
    ) -> list[MemoryEntry]:
        """The entries of ``kind`` (every kind when None), newest first; ``query`` keeps
        those holding every word. Items superseded by a correction are left out; the
        open and done threads/goals are both shown (``valid`` says which is open)."""
        out: list[MemoryEntry] = []
        for k in (kind,) if kind is not None else ENTRY_KINDS:
            out.extend(self._of_kind(k, query, limit, include_paused))
        if kind is None:
            far_past = datetime.min.replace(tzinfo=None)
            out.sort(
                key=lambda e: e.created_at.replace(tzinfo=None) if e.created_at else far_past,
                reverse=True,
            )
        return out[:limit]

    def _of_kind(
        self, kind: EntryKind, query: str, limit: int, include_paused: bool
    ) -> list[MemoryEntry]:
        where: list[str] = []
        args: list[Any] = []
        if not include_paused:
            where.append("coalesce(c.paused, 0) = 0")
        words = query.split()
        if kind == "item":
            sql, order, build, column = _ITEMS, "i.created_at DESC, i.id DESC", self._item, ""
            where.append("i.invalid_at IS NULL")
            match = prefix_query(query)
            if match:
                where.append(
                    "i.id IN (SELECT rowid FROM memory_items_fts WHERE memory_items_fts MATCH ?)"
                )
                args.append(match)
        elif kind == "fact":
            sql, order, build, column = _FACTS, "f.first_observed DESC", self._fact, "f.fact"
        elif kind == "episode":
            sql, order, build, column = _EPISODES, "e.timestamp DESC", self._episode, "e.summary"
        else:
            sql, order, build, column = _GOALS, "g.created_at DESC", self._goal, "g.title"
        if column:
            for w in words:
                where.append(f"{column} LIKE ? ESCAPE '\\'")
                args.append(
                    "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                )
        text = sql + (" WHERE " + " AND ".join(where) if where else "")
        text += f" ORDER BY {order} LIMIT ?"
        rows = self._conn.execute(text, (*args, max(0, int(limit)))).fetchall()
        return [build(r) for r in rows]

    def entry(self, kind: EntryKind, entry_id: str) -> MemoryEntry | None:
        """One entry by id (a superseded item too: ``valid`` is False), or None."""
        sql, column, build = {
            "item": (_ITEMS, "i.item_id", self._item),
            "fact": (_FACTS, "f.id", self._fact),
            "episode": (_EPISODES, "e.id", self._episode),
            "goal": (_GOALS, "g.id", self._goal),
        }[kind]
        row = self._conn.execute(f"{sql} WHERE {column} = ?", (entry_id,)).fetchone()
        return None if row is None else build(row)
