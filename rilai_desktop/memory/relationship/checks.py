"""Limits, input checks and small text helpers of the relationship memory.

Every check raises MemoryInputError ending "nothing was written" (the write it guards has
not started). Times are stored as fixed-width UTC ISO-8601 text so they order as text.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from rilai_desktop.contracts.memory import (
    UserFactCategory,
)
from rilai_desktop.errors import MemoryInputError

GoalKind = Literal["goal", "open_thread"]
GoalStatus = Literal["open", "done", "dropped"]

FACT_CATEGORIES: tuple[str, ...] = get_args(UserFactCategory)
GOAL_KINDS: tuple[str, ...] = get_args(GoalKind)
GOAL_STATUSES: tuple[str, ...] = get_args(GoalStatus)

MAX_SUMMARY_CHARS = 500
MAX_FACT_CHARS = 300
MAX_TITLE_CHARS = 300
MAX_NOTES_CHARS = 10_000
MAX_LABEL_CHARS = 100  # one emotion / participant / tag
MAX_LABELS = 50
MAX_SOURCE_CHARS = 200
MAX_SESSION_CHARS = 200
MAX_TURN_REFS = 1000
MAX_QUERY_CHARS = 4000  # recall cuts longer queries (the embedder sees far less anyway)
MIN_CANDIDATE_IMPORTANCE = 0.3
CONFIRM_BOOST = 0.05

W_SIMILARITY = 0.7
W_PRIOR = 0.2
W_RECENCY = 0.1
RECENCY_HALF_LIFE_DAYS = 30.0


_SPACE = re.compile(r"\s+")

# ── validation ───────────────────────────────────────────────────────────────


def _bad(message: str, hint: str | None = None) -> MemoryInputError:
    return MemoryInputError(
        message + "; nothing was written",
        recovery_suggestions=[hint] if hint else None,
    )


def _text(name: str, value: Any, *, max_chars: int, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _bad(f"{name} must be a string, not {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise _bad(f"{name} is empty", f"Give {name} some text")
    if len(value) > max_chars:
        raise _bad(
            f"{name} has {len(value):,} characters (limit {max_chars:,})",
            f"Shorten {name} to at most {max_chars} characters",
        )
    if "\x00" in value:
        raise _bad(f"{name} contains a NUL character", "Remove the \\x00 characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad(
            f"{name} contains an unpaired surrogate and is not valid Unicode text",
            "Decode the text properly (UTF-8) before storing it",
        ) from None
    return value


def _labels(name: str, values: Any) -> list[str]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise _bad(f"{name} must be a list of strings, not {type(values).__name__}")
    if len(values) > MAX_LABELS:
        raise _bad(f"{name} has {len(values)} entries (limit {MAX_LABELS})")
    return [_text(f"{name}[{i}]", v, max_chars=MAX_LABEL_CHARS) for i, v in enumerate(values)]


def _turn_refs(values: Any) -> list[str]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise _bad(f"source_turn_ids must be a list, not {type(values).__name__}")
    if len(values) > MAX_TURN_REFS:
        raise _bad(f"source_turn_ids has {len(values)} entries (limit {MAX_TURN_REFS})")
    out: list[str] = []
    for i, v in enumerate(values):
        if isinstance(v, int) and not isinstance(v, bool):
            v = str(v)
        out.append(_text(f"source_turn_ids[{i}]", v, max_chars=MAX_LABEL_CHARS))
    return out


def _unit(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(f"{name} must be a number between 0 and 1, not {type(value).__name__}")
    out = float(value)
    if not math.isfinite(out) or not 0.0 <= out <= 1.0:
        raise _bad(f"{name} must be between 0 and 1, got {value!r}")
    return out


def _int(name: str, value: Any, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{name} must be an integer, not {type(value).__name__}")
    if value < minimum:
        raise _bad(f"{name} must be ≥ {minimum}, got {value}")
    return value


def _aware(name: str, value: Any) -> datetime:
    if not isinstance(value, datetime):
        raise _bad(f"{name} must be a datetime, not {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise _bad(
            f"{name} is a naive datetime ({value.isoformat()})",
            "Pass a timezone-aware datetime, e.g. datetime.now(UTC)",
        )
    return value


def _choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise _bad(f"{name} {value!r} is not one of: {', '.join(allowed)}")
    return value


def _ts(dt: datetime) -> str:
    """Fixed-width UTC ISO-8601, so stored times order as text."""
    return dt.astimezone(UTC).isoformat(timespec="microseconds")


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def fact_hash(text: str) -> str:
    """sha256 of the fact with case and whitespace folded (the ``fact_hash`` column)."""
    norm = _SPACE.sub(" ", text.strip().casefold())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


def _norm_title(text: str) -> str:
    return _SPACE.sub(" ", text.strip().casefold())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _optional_labels(value: Any) -> list[str]:
    """A candidate context's list of labels, or [] when it is not a usable list."""
    if value is None:
        return []
    try:
        return _labels("labels", value)
    except MemoryInputError:
        return []


def _optional_deadline(value: Any) -> datetime | None:
    """A candidate context's deadline (aware datetime or ISO text), or None if unusable."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if isinstance(value, datetime) and value.tzinfo is not None and value.utcoffset() is not None:
        return value
    return None
