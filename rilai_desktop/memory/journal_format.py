"""The journal's formats on disk: the daily log's models and long-term.md's markdown.

``DailyMemory`` and its entries are the daily JSON files (camelCase on disk, as in the
seed); the helpers below read, split, render and fit long-term.md's sections and write a
file atomically (temp file beside it, then ``os.replace``). ``journal.py`` uses them.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from rilai_desktop.errors import MemoryInputError, StorageError

AGENT_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
DAY_FILE = re.compile(r"\d{4}-\d{2}-\d{2}\.json")
UPDATES = "## Updates"
SUMMARY = "## Summary"
PROMOTED = "Promoted: "
MAX_ENTRY_CHARS = 10_000
MIN_SUMMARY_BYTES = 512
_STAMP = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\]\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")
_MAX_SENTENCE_CHARS = 300
Summarizer = Callable[[list[str]], str]


# ── the daily log's shapes (camelCase on disk, as in the seed) ───────────────


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        allow_inf_nan=False,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class DailyTaskEntry(_Model):
    type: str = Field(min_length=1)
    input_context_ids: list[str] = Field(default_factory=list, alias="inputContextIds")
    output_context_id: str | None = Field(default=None, alias="outputContextId")
    duration_ms: int | None = Field(default=None, ge=0, alias="durationMs")
    status: Literal["success", "error"]
    error: str | None = None


class DailySessionEntry(_Model):
    id: str = Field(min_length=1)
    started_at: AwareDatetime = Field(alias="startedAt")
    tasks: list[DailyTaskEntry] = Field(default_factory=list)


class DailyMemory(_Model):
    date: dt.date
    sessions: list[DailySessionEntry] = Field(default_factory=list)
    summary: str | None = None

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, exclude_none=True, indent=2) + "\n"


# ── helpers ──────────────────────────────────────────────────────────────────


def _bad(field: str, message: str) -> MemoryInputError:
    return MemoryInputError(f"{field}: {message}; nothing was written", context={"field": field})


@contextlib.contextmanager
def _disk(action: str, path: Path) -> Iterator[None]:
    """Turn OSError (and undecodable text) into StorageError naming the file."""
    try:
        yield
    except (OSError, UnicodeError) as exc:
        raise StorageError(
            f"Could not {action} {path}: {exc}", context={"path": str(path), "action": action}
        ) from exc


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename durable where the OS allows it
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _entry_lines(stamp: str, text: str) -> list[str]:
    first, *rest = text.split("\n")
    return [f"- [{stamp}] {first}", *(f"  {line}" for line in rest)]


def _normalise(text: object, field: str) -> str:
    if not isinstance(text, str):
        raise _bad(field, f"must be a string, got {type(text).__name__}")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").strip().split("\n")
    cleaned = "\n".join(line.rstrip() for line in lines if line.strip())
    if not cleaned:
        raise _bad(field, "must not be empty")
    if len(cleaned) > MAX_ENTRY_CHARS:
        raise _bad(field, f"at most {MAX_ENTRY_CHARS} characters (got {len(cleaned)})")
    return cleaned


def _split_entries(body: list[str]) -> list[list[str]]:
    """Updates body → entries: a line not starting with whitespace opens one."""
    entries: list[list[str]] = []
    for line in body:
        if not line.strip():
            continue
        if line[:1] in (" ", "\t") and entries:
            entries[-1].append(line)
        else:
            entries.append([line])
    return entries


def _entry_text(entry: list[str]) -> str:
    """An entry as written minus the bullet: ``[stamp] text`` (continuations dedented)."""
    first = entry[0].removeprefix("- ")
    return "\n".join([first, *(line.removeprefix("  ") for line in entry[1:])])


def _sections(lines: list[str]) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """Lines → (preamble, [(## heading, body lines)])."""
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.startswith("## "):
            sections.append((line.rstrip(), []))
        elif sections:
            sections[-1][1].append(line)
        else:
            preamble.append(line)
    return preamble, sections


def _trim(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _render(preamble: list[str], sections: list[tuple[str, list[str]]]) -> str:
    out = _trim(preamble)
    for heading, body in sections:
        out += ["", heading] if out else [heading]
        if _trim(body):
            out += ["", *_trim(body)]
    return "\n".join(out) + "\n"


def _fit(text: str, max_bytes: int) -> str:
    """``text`` cut to ``max_bytes`` of UTF-8, at a line end when there is one."""
    raw = text.encode("utf-8")
    if len(raw) <= max_bytes:
        return text
    cut = raw[:max_bytes].decode("utf-8", errors="ignore")
    return cut[: cut.rfind("\n")] if "\n" in cut else cut


def first_sentence_summary(entries: list[str], *, max_bytes: int | None = None) -> str:
    """The default summarizer: the first sentence of each entry, deduplicated, as bullets.

    Deterministic. Timestamps are dropped and long sentences cut. With ``max_bytes``, lines
    are taken newest first while they fit: the oldest (and any too long) are dropped.
    """
    lines: list[str] = []
    seen: set[str] = set()
    for entry in entries:
        text = " ".join(_STAMP.sub("", entry.strip().removeprefix("- "), count=1).split())
        if not text:
            continue
        first = _SENTENCE_END.split(text, maxsplit=1)[0]
        if len(first) > _MAX_SENTENCE_CHARS:
            first = first[: _MAX_SENTENCE_CHARS - 1].rstrip() + "…"
        if first.casefold() not in seen:
            seen.add(first.casefold())
            lines.append(f"- {first}")
    if max_bytes is not None:
        kept: list[str] = []
        used = 0
        for line in reversed(lines):
            size = len(line.encode("utf-8")) + 1
            if used + size <= max_bytes + 1:
                kept.append(line)
                used += size
        lines = kept[::-1]
    return "\n".join(lines)
