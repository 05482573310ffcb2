"""Small helpers shared by the memory tables: ids, clocks, JSON columns, FTS5 queries."""

from __future__ import annotations

import json
import re
import sqlite3
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from rilai_desktop.errors import StorageError

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


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
