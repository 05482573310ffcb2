"""Forgiving readers for event payload fields (no Qt).

The inspector reads the turn's own events, and may be replaying an older log whose
payloads lack a field or carry one of another type. Every panel reads payloads through
these helpers, which never raise: a missing or mistyped field reads as its default.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# the keys a recalled memory row may name its text by, in order of preference
TEXT_KEYS = ("content", "fact", "summary", "text", "title", "name")


def as_dict(value: object) -> dict[str, Any]:
    """``value`` if it is a mapping (keys made strings), else an empty dict."""
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}
    return {}


def as_list(value: object) -> list[Any]:
    """``value`` if it is a list or tuple, else an empty list."""
    if isinstance(value, list | tuple):
        return list(value)
    return []


def as_float(value: object, default: float | None = None) -> float | None:
    """A finite float from a number (or a numeric string), else ``default``."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return default
    else:
        return default
    return number if math.isfinite(number) else default


def as_int(value: object, default: int | None = None) -> int | None:
    """An int from an int, an integral float or a numeric string, else ``default``."""
    number = as_float(value)
    if number is None:
        return default
    return round(number)


def as_str(value: object, default: str = "") -> str:
    """``value`` as display text: strings as they are, None as ``default``."""
    if value is None:
        return default
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return fmt_num(value)
    return str(value)


def as_strs(value: object) -> list[str]:
    """A list of display strings from a list (or a single string), else []."""
    if isinstance(value, str):
        return [value] if value else []
    return [as_str(v) for v in as_list(value) if v is not None and as_str(v)]


def fmt_num(value: object, places: int = 2) -> str:
    """A number for display (``places`` decimals, trailing zeros kept), '–' if none."""
    number = as_float(value)
    if number is None:
        return "–"
    if number.is_integer() and abs(number) >= 10:
        return str(int(number))
    return f"{number:.{places}f}"


def fmt_signed(value: object, places: int = 3) -> str:
    """A change for display: '+0.013', '−0.050', '0' for none."""
    number = as_float(value)
    if number is None or round(number, places) == 0:
        return "0"
    sign = "+" if number > 0 else "−"
    return f"{sign}{abs(number):.{places}f}"


def fmt_ms(value: object) -> str:
    """Milliseconds for display: '12 ms', '0.4 ms', '1.25 s', '–' if none."""
    number = as_float(value)
    if number is None:
        return "–"
    if number >= 1000:
        return f"{number / 1000:.2f} s"
    if number >= 10 or number.is_integer():
        return f"{round(number)} ms"
    return f"{number:.1f} ms"


def row_text(row: object) -> str:
    """The text of a recalled memory row (a fact, an episode, a thread, an item)."""
    if isinstance(row, str):
        return row
    data = as_dict(row)
    for key in TEXT_KEYS:
        text = data.get(key)
        if isinstance(text, str) and text.strip():
            return text.strip()
    return as_str(row) if row is not None else ""
