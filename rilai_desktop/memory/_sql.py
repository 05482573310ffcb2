"""Small helpers shared by the memory tables: ids, clocks, JSON columns, FTS5 queries."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from rilai_desktop.errors import MemoryInputError, StorageError


def utc_now() -> datetime:
    return datetime.now(UTC)


def check_days(value: Any, field: str) -> int:
    """A retention period: a whole number of days, 1 or more (else MemoryInputError)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MemoryInputError(f"{field} must be a whole number of days, 1 or more: {value!r}")
    return value


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4()}"


def iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.astimezone(UTC).isoformat()


def parse_dt(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def storage_error(exc: sqlite3.Error, what: str) -> StorageError:
    return StorageError(f"{what} failed: {exc}", context={"sqlite_error": str(exc)})


_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "can",
        "could",
        "should",
        "any",
        "some",
        "all",
        "just",
        "also",
        "very",
        "really",
    ]
)


def fts_query(text: str, *, max_terms: int = 32) -> str | None:
    """A safe FTS5 MATCH expression: the query's words (stopwords out), quoted, OR-ed.

    Quoting each term means user text can never be read as FTS5 syntax (NEAR, column
    filters, unbalanced quotes). None when nothing searchable is left.
    """
    words = [w.lower() for w in _WORD.findall(text)]
    terms = [w for w in words if w not in STOPWORDS] or words
    seen: list[str] = []
    for w in terms:
        if w not in seen:
            seen.append(w)
    if not seen:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in seen[:max_terms])


@contextmanager
def sql_errors(what: str) -> Iterator[None]:
    """Turn a sqlite3 error inside the block into StorageError (MEM-009) naming ``what``."""
    try:
        yield
    except sqlite3.Error as exc:
        raise storage_error(exc, what) from exc


K = TypeVar("K")
V = TypeVar("V")


class DerivedCache(Generic[K, V]):
    """In-memory values derived from tables (embedding matrices, per-KB indexes).

    A value is dropped when this process says so (``drop``), when another connection has
    committed (``PRAGMA data_version`` moved), or when the caller's ``still_valid`` says it
    no longer matches. A value built while a write was dropping the cache, or inside an
    uncommitted transaction, is used once but not kept, so a rollback cannot leave it stale.
    """

    def __init__(self, connection: Callable[[], sqlite3.Connection]) -> None:
        self._connection = connection
        self._values: dict[K, V] = {}
        self._generation = 0
        self._data_version: int | None = None
        self.lock = threading.RLock()

    def drop(self, key: K | None = None) -> None:
        with self.lock:
            self._generation += 1
            if key is None:
                self._values.clear()
            else:
                self._values.pop(key, None)

    def peek(self, key: K) -> V | None:
        """The cached value, if any, without building it (to update it in place; hold
        ``lock`` while doing so)."""
        return self._values.get(key)

    def get(
        self,
        key: K,
        build: Callable[[], V],
        still_valid: Callable[[V], bool] | None = None,
    ) -> V:
        conn = self._connection()
        with self.lock:
            with sql_errors("reading the data version"):
                version = int(conn.execute("PRAGMA data_version").fetchone()[0])
            if version != self._data_version:
                self._values.clear()
                self._data_version = version
            found = self._values.get(key)
            if found is not None and (still_valid is None or still_valid(found)):
                return found
            generation = self._generation
            value = build()
            if generation == self._generation and not conn.in_transaction:
                self._values[key] = value
            return value
