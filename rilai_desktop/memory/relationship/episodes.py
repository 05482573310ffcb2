"""Episodes: what happened, with an embedding of the summary (``memory_episodes``)."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from rilai_desktop.contracts.memory import (
    EpisodicEvent,
)
from rilai_desktop.memory._sql import dumps, sql_errors
from rilai_desktop.memory.items import to_blob
from rilai_desktop.memory.ports import Vectors
from rilai_desktop.memory.relationship.checks import (
    MAX_SESSION_CHARS,
    MAX_SUMMARY_CHARS,
    _aware,
    _bad,
    _int,
    _labels,
    _text,
    _ts,
    _unit,
)
from rilai_desktop.memory.relationship.rows import _EPISODE_COLS, _EPISODE_FIELDS, _episode
from rilai_desktop.memory.relationship.store import RelationshipStore


class EpisodeMemory(RelationshipStore):
    """Add, read, list, edit and delete episodes."""

    def _check_episode(
        self,
        summary: Any,
        emotions: Any,
        participants: Any,
        tags: Any,
        importance: Any,
        turn_id: Any,
        session_id: Any,
        timestamp: Any,
    ) -> EpisodicEvent:
        return EpisodicEvent(
            id=str(uuid.uuid4()),
            timestamp=self._now() if timestamp is None else _aware("timestamp", timestamp),
            summary=_text("summary", summary, max_chars=MAX_SUMMARY_CHARS),
            emotions=_labels("emotions", emotions),
            participants=_labels("participants", participants),
            tags=_labels("tags", tags),
            importance=_unit("importance", importance),
            turn_id=_int("turn_id", turn_id),
            session_id=_text(
                "session_id", session_id, max_chars=MAX_SESSION_CHARS, allow_empty=True
            ),
        )

    @staticmethod
    def _insert_episode(tx: sqlite3.Connection, event: EpisodicEvent, vec: Vectors) -> None:
        tx.execute(
            f"INSERT INTO memory_episodes ({_EPISODE_COLS}, embedding)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                event.id,
                _ts(event.timestamp),
                event.summary,
                dumps(event.emotions),
                dumps(event.participants),
                dumps(event.tags),
                event.importance,
                event.turn_id,
                event.session_id,
                to_blob(vec),
            ),
        )

    def add_episode(
        self,
        summary: str,
        *,
        emotions: Sequence[str] = (),
        participants: Sequence[str] = (),
        tags: Sequence[str] = (),
        importance: float = 0.5,
        turn_id: int = 0,
        session_id: str = "",
        timestamp: datetime | None = None,
    ) -> EpisodicEvent:
        """Store an episode (with the embedding of its summary) and return it."""
        event = self._check_episode(
            summary, emotions, participants, tags, importance, turn_id, session_id, timestamp
        )
        self._ensure_model()
        vec = self._embed([event.summary])[0]
        try:
            with sql_errors("saving the episode"), self._db.transaction() as tx:
                self._insert_episode(tx, event, vec)
        finally:
            self._invalidate()
        return event

    def get_episode(self, episode_id: str) -> EpisodicEvent | None:
        with sql_errors("reading the episode"):
            row = self._db.connection.execute(
                f"SELECT {_EPISODE_COLS} FROM memory_episodes WHERE id = ?", (str(episode_id),)
            ).fetchone()
        return None if row is None else _episode(row)

    def list_episodes(self, limit: int = 50, since: datetime | None = None) -> list[EpisodicEvent]:
        """The most recent episodes first; ``since`` keeps those at or after that time."""
        limit = _int("limit", limit, minimum=1)
        sql = f"SELECT {_EPISODE_COLS} FROM memory_episodes"
        args: list[Any] = []
        if since is not None:
            sql += " WHERE timestamp >= ?"
            args.append(_ts(_aware("since", since)))
        sql += " ORDER BY timestamp DESC, rowid DESC LIMIT ?"
        args.append(limit)
        with sql_errors("listing episodes"):
            rows = self._db.connection.execute(sql, args).fetchall()
        return [_episode(r) for r in rows]

    def update_episode(self, episode_id: str, **fields: Any) -> EpisodicEvent:
        """Change some fields of an episode (re-embedding when the summary changes)."""
        unknown = sorted(set(fields) - _EPISODE_FIELDS)
        if unknown:
            raise _bad(
                f"update_episode() cannot change {', '.join(unknown)}",
                f"Fields that can change: {', '.join(sorted(_EPISODE_FIELDS))}",
            )
        if "timestamp" in fields and fields["timestamp"] is None:
            raise _bad("timestamp cannot be cleared", "Pass a timezone-aware datetime")
        current = self.get_episode(episode_id)
        if current is None:
            raise _bad(f"no such episode: {episode_id!r}", "list_episodes() shows the ids")
        merged = current.model_dump()
        merged.update(fields)
        checked = self._check_episode(
            merged["summary"],
            merged["emotions"],
            merged["participants"],
            merged["tags"],
            merged["importance"],
            merged["turn_id"],
            merged["session_id"],
            merged["timestamp"],
        )
        event = checked.model_copy(update={"id": current.id})
        self._ensure_model()
        vec = self._embed([event.summary])[0] if event.summary != current.summary else None
        try:
            with sql_errors("updating the episode"), self._db.transaction() as tx:
                cur = tx.execute(
                    "UPDATE memory_episodes SET timestamp = ?, summary = ?, emotions = ?,"
                    " participants = ?, tags = ?, importance = ?, turn_id = ?, session_id = ?"
                    " WHERE id = ?",
                    (
                        _ts(event.timestamp),
                        event.summary,
                        dumps(event.emotions),
                        dumps(event.participants),
                        dumps(event.tags),
                        event.importance,
                        event.turn_id,
                        event.session_id,
                        event.id,
                    ),
                )
                if cur.rowcount == 0:
                    raise _bad(f"no such episode: {episode_id!r}")
                if vec is not None:
                    tx.execute(
                        "UPDATE memory_episodes SET embedding = ? WHERE id = ?",
                        (to_blob(vec), event.id),
                    )
        finally:
            self._invalidate()
        return event

    def delete_episode(self, episode_id: str) -> bool:
        try:
            with sql_errors("deleting the episode"), self._db.transaction() as tx:
                cur = tx.execute("DELETE FROM memory_episodes WHERE id = ?", (str(episode_id),))
                return cur.rowcount > 0
        finally:
            self._invalidate()
