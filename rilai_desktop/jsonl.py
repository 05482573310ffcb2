"""JSON Lines input: one object per line, with errors that name the line.

Every command that reads a JSONL file (sense, synthetic, nudge scenarios) needs the same
loop — skip blank (and optionally ``#``) lines, parse, insist on an object — and each wants
its own error class and hints; the caller supplies those through ``bad``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any


def object_lines(
    text: str, bad: Callable[[int, str], Exception], *, comments: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(1-based line number, object) for each non-blank line; ``bad(line, problem)`` is
    raised for a line that is not JSON or not a JSON object."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or (comments and stripped.startswith("#")):
            continue
        try:
            obj = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise bad(number, f"not JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise bad(number, "expected a JSON object")
        yield number, obj
