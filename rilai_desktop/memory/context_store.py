"""Seed 002's context store: JSON chunks passed between agents or steps, in ``contexts``.

Content is canonical JSON (sorted keys, compact), hashed with sha256 for deduplication and
stored gzip+base64 (or as plain JSON text). Saving the same type and content again, while
the first copy has not expired, returns the first copy (counted as an access). Expired
items are invisible (``get`` returns None, they do not dedupe or count as parents) until
``delete_expired`` removes them. Times are stored as fixed-width ISO-8601 UTC strings
(``2026-01-20T10:00:00.000000+00:00``) so they compare as text and use the index.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import json
import sqlite3
import uuid
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import MemoryInputError, RilaiError, StorageError
from rilai_desktop.memory.ports import Database

Compression = Literal["gzip", "none"]
COMPRESSIONS: tuple[Compression, ...] = ("gzip", "none")
MAX_TYPE_CHARS = 100
MAX_AGENT_ID_CHARS = 100
MAX_CONTENT_BYTES = 1_000_000
_CHUNK = 500  # ids per IN (...) query, well under SQLite's variable limit

_COLUMNS = (
    "id, type, agent_id, content, compression, content_hash, embedding, parent_ids, "
    "metadata, created_at, expires_at, accessed_at, access_count"
)
_INSERT = f"INSERT INTO contexts ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_LIVE = "(expires_at IS NULL OR expires_at > ?)"
_TOUCH = "UPDATE contexts SET accessed_at = ?, access_count = access_count + 1 WHERE id = ?"


class ContextItem(BaseModel):
    """One stored context chunk, content decompressed (seed 002's ContextItem)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^ctx_[0-9a-f-]{36}$")
    type: str = Field(min_length=1, max_length=MAX_TYPE_CHARS)
    agent_id: str | None = None
    content: Any
    content_hash: str | None = None
    embedding: str | None = None
    parent_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    created_at: AwareDatetime
    expires_at: AwareDatetime | None = None
    accessed_at: AwareDatetime | None = None
    access_count: int = Field(default=0, ge=0)


def iso(moment: datetime) -> str:
    """The fixed-width UTC text stored in the table (sorts like the instant it names)."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def canonical_json(value: Any, *, what: str = "content") -> str:
    """Sorted keys, compact separators, UTF-8 text; NaN/infinity and non-JSON refused."""
    try:
        text = json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
        text.encode("utf-8")  # lone surrogates cannot be stored
    except (TypeError, ValueError, RecursionError) as exc:
        raise MemoryInputError(
            f"{what} is not JSON-serialisable: {exc}; nothing was written",
            context={"field": what},
            recovery_suggestions=[
                "Use only str, int, float, bool, None, list and dict with str keys",
                "NaN and infinity are not valid JSON: clamp or drop them",
            ],
        ) from None
    return text


def _bad(field: str, message: str, **context: Any) -> MemoryInputError:
    return MemoryInputError(
        f"{field}: {message}; nothing was written", context={"field": field, **context}
    )


def _as_moment(value: datetime | str, field: str) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise _bad(field, f"{value!r} is not an ISO-8601 date-time") from None
    if not isinstance(value, datetime):
        raise _bad(field, f"expected a datetime or ISO-8601 string, got {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise _bad(field, "must carry a time zone (e.g. 2026-01-20T10:00:00+00:00)")
    return value


def _encode(text: str, compression: Compression) -> str:
    if compression == "none":
        return text
    packed = gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _decode(stored: str, compression: str) -> str:
    if compression == "none":
        return stored
    if compression != "gzip":
        raise ValueError(f"unknown compression {compression!r}")
    packed = base64.b64decode(stored.encode("ascii"), validate=True)
    return gzip.decompress(packed).decode("utf-8")


class ContextStore:
    """Seed 002's ContextStore over the shared SQLite connection."""

    def __init__(self, db: Database, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._db = db
        self._clock = clock

    def _now(self) -> datetime:
        return _as_moment(self._clock.now(), "clock")

    @contextmanager
    def _write(self, action: str) -> Iterator[sqlite3.Connection]:
        try:
            with self._db.transaction() as conn:
                yield conn
        except RilaiError:
            raise
        except sqlite3.Error as exc:
            raise StorageError(
                f"Context store could not {action}: {exc}", context={"action": action}
            ) from exc

    # ── writing ────────────────────────────────────────────────────────────
    def save(
        self,
        type: str,
        content: Any,
        *,
        agent_id: str | None = None,
        parent_ids: Sequence[str] | None = None,
        metadata: dict[str, Any] | None = None,
        expires_at: datetime | str | None = None,
        compression: Compression = "gzip",
    ) -> ContextItem:
        """Store ``content`` (any JSON value) and return the item; dedupes live copies."""
        now = self._now()
        if not isinstance(type, str) or not type.strip():
            raise _bad("type", "must be a non-empty string")
        if len(type) > MAX_TYPE_CHARS:
            raise _bad("type", f"at most {MAX_TYPE_CHARS} characters (got {len(type)})")
        if agent_id is not None and (
            not isinstance(agent_id, str)
            or not agent_id.strip()
            or len(agent_id) > MAX_AGENT_ID_CHARS
        ):
            raise _bad("agent_id", f"must be None or 1-{MAX_AGENT_ID_CHARS} characters")
        if compression not in COMPRESSIONS:
            raise _bad("compression", f"must be one of {COMPRESSIONS}, got {compression!r}")
        text = canonical_json(content)
        size = len(text.encode("utf-8"))
        if size > MAX_CONTENT_BYTES:
            raise _bad("content", f"JSON is {size} bytes, the limit is {MAX_CONTENT_BYTES}")
        if metadata is None:
            metadata = {}
        if not isinstance(metadata, dict) or not all(isinstance(k, str) for k in metadata):
            raise _bad("metadata", "must be a dict with string keys")
        metadata_json = canonical_json(metadata, what="metadata")
        parents = self._check_parent_shape(parent_ids)
        expiry: datetime | None = None
        if expires_at is not None:
            expiry = _as_moment(expires_at, "expires_at")
            if expiry <= now:
                raise _bad("expires_at", f"{iso(expiry)} is not after now ({iso(now)})")
        content_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
        stored = _encode(text, compression)
        stamp = iso(now)

        with self._write("save a context item") as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM contexts WHERE type = ? AND content_hash = ? "
                f"AND {_LIVE} ORDER BY created_at LIMIT 1",
                (type, content_hash, stamp),
            ).fetchone()
            if row is not None:
                item = self._row_to_item(row)
                conn.execute(_TOUCH, (stamp, item.id))
                return item.model_copy(
                    update={"accessed_at": now, "access_count": item.access_count + 1}
                )
            self._check_parents_exist(conn, parents, stamp)
            item_id = f"ctx_{uuid.uuid4()}"
            conn.execute(
                _INSERT,
                (
                    item_id,
                    type,
                    agent_id,
                    stored,
                    compression,
                    content_hash,
                    None,
                    json.dumps(parents),
                    metadata_json,
                    stamp,
                    None if expiry is None else iso(expiry),
                    None,
                    0,
                ),
            )
        return ContextItem(
            id=item_id,
            type=type,
            agent_id=agent_id,
            content=json.loads(text),
            content_hash=content_hash,
            parent_ids=parents,
            metadata=json.loads(metadata_json),
            created_at=now,
            expires_at=expiry,
        )

    @staticmethod
    def _check_parent_shape(parent_ids: Sequence[str] | None) -> list[str]:
        if parent_ids is None:
            return []
        if isinstance(parent_ids, str | bytes) or not all(
            isinstance(p, str) and p for p in parent_ids
        ):
            raise _bad("parent_ids", "must be a list of context ids")
        return list(dict.fromkeys(parent_ids))

    @staticmethod
    def _check_parents_exist(conn: sqlite3.Connection, parents: list[str], stamp: str) -> None:
        found: set[str] = set()
        for start in range(0, len(parents), _CHUNK):
            chunk = parents[start : start + _CHUNK]
            marks = ", ".join("?" * len(chunk))
            rows = conn.execute(
                f"SELECT id FROM contexts WHERE id IN ({marks}) AND {_LIVE}", (*chunk, stamp)
            ).fetchall()
            found.update(str(r[0]) for r in rows)
        missing = [p for p in parents if p not in found]
        if missing:
            raise MemoryInputError(
                f"parent_ids: unknown or expired context ids {', '.join(missing)}; "
                "nothing was written",
                context={"field": "parent_ids", "missing": missing},
                recovery_suggestions=["Save the parent contexts first, or drop those ids"],
            )

    def touch(self, id: str) -> None:
        """Count an access (accessed_at, access_count) without reading the content."""
        _check_id(id)
        stamp = iso(self._now())
        with self._write("touch a context item") as conn:
            conn.execute(f"{_TOUCH} AND {_LIVE}", (stamp, id, stamp))

    def delete_expired(self, now: datetime | str | None = None) -> int:
        """Delete items whose expires_at is at or before ``now`` (default: the clock)."""
        moment = self._now() if now is None else _as_moment(now, "now")
        with self._write("delete expired context items") as conn:
            cur = conn.execute(
                "DELETE FROM contexts WHERE expires_at IS NOT NULL AND expires_at <= ?",
                (iso(moment),),
            )
        return int(cur.rowcount)

    # ── reading (each read counts as an access) ─────────────────────────────
    def get(self, id: str) -> ContextItem | None:
        """The live item with this id (access counted), or None."""
        items = self.get_many([id])
        return items[0] if items else None

    def get_many(self, ids: Sequence[str]) -> list[ContextItem]:
        """Live items in the order of ``ids`` (missing/expired skipped, repeats once)."""
        if isinstance(ids, str | bytes):
            raise _bad("ids", "must be a list of context ids, not a single string")
        wanted = list(dict.fromkeys(ids))
        for one in wanted:
            _check_id(one)
        if not wanted:
            return []
        now = self._now()
        stamp = iso(now)
        found: dict[str, ContextItem] = {}
        with self._write("read context items") as conn:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ", ".join("?" * len(chunk))
                rows = conn.execute(
                    f"SELECT {_COLUMNS} FROM contexts WHERE id IN ({marks}) AND {_LIVE}",
                    (*chunk, stamp),
                ).fetchall()
                for row in rows:
                    item = self._row_to_item(row)
                    found[item.id] = item
            conn.executemany(_TOUCH, [(stamp, item_id) for item_id in found])
        return [
            found[i].model_copy(
                update={"accessed_at": now, "access_count": found[i].access_count + 1}
            )
            for i in wanted
            if i in found
        ]

    @staticmethod
    def _row_to_item(row: Sequence[Any]) -> ContextItem:
        item_id = str(row[0])
        try:
            text = _decode(row[3], row[4])
            content = json.loads(text)
            if row[5] is not None:
                digest = hashlib.sha256(canonical_json(content).encode("utf-8")).hexdigest()
                if digest != row[5]:
                    raise ValueError("content does not match its content_hash")
            return ContextItem(
                id=item_id,
                type=row[1],
                agent_id=row[2],
                content=content,
                content_hash=row[5],
                embedding=row[6],
                parent_ids=json.loads(row[7]) if row[7] else [],
                metadata=json.loads(row[8]) if row[8] else {},
                created_at=datetime.fromisoformat(row[9]),
                expires_at=None if row[10] is None else datetime.fromisoformat(row[10]),
                accessed_at=None if row[11] is None else datetime.fromisoformat(row[11]),
                access_count=row[12],
            )
        except (
            binascii.Error,
            OSError,  # gzip.BadGzipFile
            EOFError,
            zlib.error,
            ValueError,  # UnicodeDecodeError, JSONDecodeError, MemoryInputError, ours
            TypeError,
            ValidationError,
        ) as exc:
            raise StorageError(
                f"Context item {item_id} is corrupted and cannot be read: {exc}",
                context={"id": item_id},
                recovery_suggestions=[
                    "The row was left as it is; delete it or restore the database from a backup",
                    "Run `rilai doctor` to check the database",
                ],
            ) from exc

    # seed 002's names
    getMany = get_many
    deleteExpired = delete_expired


def _check_id(value: object) -> None:
    if not isinstance(value, str):
        raise _bad("id", f"must be a string, got {type(value).__name__}")
