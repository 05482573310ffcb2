"""Layer 1: raw resources in SQLite (``memory_resources``), searchable with FTS5."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from typing import Any

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory._sql import dumps, fts_query, iso, new_id, parse_dt, utc_now
from rilai_desktop.memory.ports import Database
from rilai_desktop.memory.types import MAX_RESOURCE_CHARS, RESOURCE_TYPES, Resource

_COLS = "resource_id, resource_type, content, metadata, created_at"


def validate_resource_input(content: Any, resource_type: Any, metadata: Any) -> dict[str, Any]:
    """The seed's limits, checked before anything is written. Returns the metadata to store."""
    if not isinstance(content, str):
        raise MemoryInputError(
            f"content must be text, got {type(content).__name__}",
            recovery_suggestions=["Decode binary data to text (UTF-8) before storing it"],
        )
    if not content.strip():
        raise MemoryInputError(
            "content is empty: there is nothing to store",
            recovery_suggestions=["Pass 1 to 1,000,000 characters of text"],
        )
    if len(content) > MAX_RESOURCE_CHARS:
        raise MemoryInputError(
            f"content has {len(content):,} characters; a resource holds at most 1,000,000 (1 MB)",
            context={"length": len(content)},
            recovery_suggestions=["Split content into multiple resources"],
        )
    if "\x00" in content:
        raise MemoryInputError(
            "content contains NUL bytes: it looks like binary data, not text",
            recovery_suggestions=["Store text only; extract the text from binary files first"],
        )
    try:
        content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MemoryInputError(
            f"content is not valid Unicode text (lone surrogate at {exc.start})",
            recovery_suggestions=["Decode the source as UTF-8 with errors='replace' first"],
        ) from None
    if resource_type not in RESOURCE_TYPES:
        raise MemoryInputError(
            f"resource_type {resource_type!r} is not one of {', '.join(RESOURCE_TYPES)}",
            recovery_suggestions=[f"Use a valid type: {', '.join(RESOURCE_TYPES)}"],
        )
    meta = {} if metadata is None else metadata
    if not isinstance(meta, dict):
        raise MemoryInputError("metadata must be a JSON object (a dict)")
    try:
        dumps(meta).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise MemoryInputError(f"metadata is not JSON-serialisable: {exc}") from exc
    return meta


class ResourceLayer:
    """Store, read, list, search and delete resources."""

    def __init__(self, db: Database, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._db = db
        self._clock = clock

    def insert(
        self,
        conn: sqlite3.Connection,
        content: str,
        resource_type: str,
        metadata: dict[str, Any] | None = None,
    ) -> Resource:
        """Insert inside the caller's transaction (input already validated)."""
        resource = Resource(
            resource_id=new_id("res"),
            resource_type=resource_type,
            content=content,
            metadata=dict(metadata or {}),
            created_at=self._clock.now(),
        )
        conn.execute(
            "INSERT INTO memory_resources (resource_id, resource_type, content, content_hash,"
            " metadata, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                resource.resource_id,
                resource.resource_type,
                content,
                hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest(),
                dumps(resource.metadata),
                iso(resource.created_at),
            ),
        )
        return resource

    def store(
        self, content: str, resource_type: str, metadata: dict[str, Any] | None = None
    ) -> Resource:
        meta = validate_resource_input(content, resource_type, metadata)
        with self._db.transaction() as conn:
            return self.insert(conn, content, resource_type, meta)

    def get(self, resource_id: str) -> Resource | None:
        row = self._db.connection.execute(
            f"SELECT {_COLS} FROM memory_resources WHERE resource_id = ?", (resource_id,)
        ).fetchone()
        return None if row is None else _row(row)

    def list_by_type(self, resource_type: str, limit: int = 100) -> list[Resource]:
        rows = self._db.connection.execute(
            f"SELECT {_COLS} FROM memory_resources WHERE resource_type = ?"
            " ORDER BY created_at DESC, id DESC LIMIT ?",
            (resource_type, limit),
        ).fetchall()
        return [_row(r) for r in rows]

    def list_recent(self, n: int = 10) -> list[Resource]:
        rows = self._db.connection.execute(
            f"SELECT {_COLS} FROM memory_resources ORDER BY created_at DESC, id DESC LIMIT ?",
            (n,),
        ).fetchall()
        return [_row(r) for r in rows]

    def search(
        self, query: str, resource_type: str | None = None, limit: int = 20
    ) -> list[Resource]:
        """Full-text search (FTS5 BM25, best first)."""
        match = fts_query(query)
        if match is None:
            return []
        sql = (
            f"SELECT {', '.join('r.' + c.strip() for c in _COLS.split(','))}"
            " FROM memory_resources_fts f JOIN memory_resources r ON r.id = f.rowid"
            " WHERE memory_resources_fts MATCH ?"
        )
        args: list[Any] = [match]
        if resource_type is not None:
            sql += " AND r.resource_type = ?"
            args.append(resource_type)
        sql += " ORDER BY bm25(memory_resources_fts) LIMIT ?"
        args.append(limit)
        return [_row(r) for r in self._db.connection.execute(sql, args).fetchall()]

    def delete(self, conn: sqlite3.Connection, resource_id: str) -> bool:
        cur = conn.execute("DELETE FROM memory_resources WHERE resource_id = ?", (resource_id,))
        return cur.rowcount > 0

    def count_by_type(self) -> dict[str, int]:
        rows = self._db.connection.execute(
            "SELECT resource_type, COUNT(*) FROM memory_resources GROUP BY resource_type"
        ).fetchall()
        return {str(t): int(n) for t, n in rows}


def _row(row: tuple[Any, ...]) -> Resource:
    created = parse_dt(row[4])
    return Resource.model_construct(
        resource_id=row[0],
        resource_type=row[1],
        content=row[2],
        metadata=json.loads(row[3]),
        created_at=created or utc_now(),
    )
