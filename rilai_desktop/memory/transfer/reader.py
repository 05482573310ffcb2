"""Reading an export folder back: the JSON checked against the version-1 models, and the
category pages beside it. Every problem is a MemoryInputError that says what is wrong,
where, and what to do; nothing has been written when one is raised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.transfer.schema import FORMAT, JSON_NAME, VERSION, MemoryExport

MAX_PROBLEMS = 5
WROTE = (
    "Choose the folder an export wrote (`rilai memory export`, or Memory ▸ Export memory…"
    " in the window): it holds rilai-memory.json"
)


def _bad(message: str, path: Path, *hints: str) -> MemoryInputError:
    return MemoryInputError(
        f"{message}; nothing was imported",
        context={"path": str(path)},
        recovery_suggestions=list(hints) or None,
    )


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "<top level>"


def _check_header(raw: Any, path: Path) -> None:
    """Format and version first, so a file of another kind or a newer version gets that
    message instead of a list of fields it does not have."""
    if not isinstance(raw, dict):
        raise _bad(f"{path} holds a JSON {type(raw).__name__}, not an export object", path)
    if raw.get("format") != FORMAT:
        raise _bad(
            f"{path} is not a Rilai memory export (its format is {raw.get('format')!r},"
            f" expected {FORMAT!r})",
            path,
            WROTE,
        )
    version = raw.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _bad(f"{path} has no valid format version (found {version!r})", path)
    if version > VERSION:
        raise _bad(
            f"{path} is format version {version}, written by a newer Rilai; this Rilai reads"
            f" version {VERSION}",
            path,
            "Update Rilai, then import again",
        )
    if version < VERSION:
        raise _bad(f"{path} has an unknown format version {version}", path)


def read_export(folder: Path) -> tuple[MemoryExport, dict[str, str]]:
    """The validated export and each category's markdown (from ``categories/<name>.md``)."""
    if not folder.is_dir():
        raise _bad(
            f"{folder} is not a folder",
            folder,
            WROTE,
        )
    path = folder / JSON_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _bad(
            f"{folder} has no {JSON_NAME}",
            path,
            WROTE,
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad(f"cannot read {path}: {exc}", path) from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg});"
            " the file may be truncated or was edited by hand",
            path,
            "Export again from the Rilai it came from, or fix the JSON at that place",
        ) from None
    _check_header(raw, path)
    try:
        export = MemoryExport.model_validate(raw)
    except ValidationError as exc:
        problems = [f"{_where(e['loc'])}: {e['msg']}" for e in exc.errors()[:MAX_PROBLEMS]]
        more = exc.error_count() - len(problems)
        tail = f" (and {more} more)" if more > 0 else ""
        raise _bad(
            f"{path} does not match format version {VERSION}: {'; '.join(problems)}{tail}",
            path,
            "docs/memory-export.md describes every field",
        ) from None
    pages: dict[str, str] = {}
    for cat in export.categories:
        page = folder / cat.file
        try:
            pages[cat.name] = page.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise _bad(
                f"the category page {page} is missing", page, "Copy the whole export folder"
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise _bad(f"cannot read the category page {page}: {exc}", page) from None
    return export, pages
