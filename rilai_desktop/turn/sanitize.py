"""The user's text as the turn handles it: valid Unicode, no control characters, bounded.

Nothing is refused: an empty message, 100 KB of text, binary garbage and hostile text all
become a turn. What was changed is recorded in TURN_STARTED (``input_notes``).
"""

from __future__ import annotations

import re
from typing import Any

MAX_INPUT_CHARS = 100_000  # longer input is cut; the cut is recorded
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_input(raw: object) -> tuple[str, dict[str, Any]]:
    """(text, notes): lone surrogates replaced, control characters dropped, length capped."""
    if isinstance(raw, bytes | bytearray):
        raw = bytes(raw).decode("utf-8", errors="replace")
    text = raw if isinstance(raw, str) else str(raw)
    notes: list[str] = []
    fixed = text.encode("utf-8", errors="replace").decode("utf-8")
    if fixed != text:
        notes.append("invalid unicode replaced")
    stripped = _CONTROL.sub("", fixed)
    if stripped != fixed:
        notes.append(f"{len(fixed) - len(stripped)} control characters removed")
    if len(stripped) > MAX_INPUT_CHARS:
        notes.append(f"cut from {len(stripped)} to {MAX_INPUT_CHARS} characters")
        stripped = stripped[:MAX_INPUT_CHARS]
    return stripped, ({"input_notes": notes} if notes else {})
