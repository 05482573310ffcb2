"""JSON Lines input: one object per line, with errors that name the line.

Every command that reads a JSONL file (sense, synthetic, nudge scenarios, eval sets, batch
queries) needs the same two steps — read the file as UTF-8 text (a missing file, a
folder, an unreadable or non-UTF-8 file each said plainly), then skip blank (and
optionally ``#``) lines, parse, insist on an object — and each wants its own error class
and hints; the caller supplies those through ``error`` and ``bad``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def read_text(
    path: Path,
    error: Callable[[str], Exception],
    bad: Callable[[int, str], Exception],
    *,
    what: str = "JSON Lines",
) -> str:
    """The file as text (a UTF-8 BOM dropped). ``error(message)`` is raised for a missing
    file, a folder or one that cannot be read; ``bad(line, problem)`` for bytes that are
    not UTF-8, with the line they are on."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except IsADirectoryError:
        raise error(f"{path}: is a directory, not a {what} file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise bad(raw[: exc.start].count(b"\n") + 1, "not UTF-8 text") from None


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
