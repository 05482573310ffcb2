"""Transcript files for `rilai memory ingest`: load, validate all of it, then hand it over.

The format (docs/memory.md)::

    {"title": str,
     "sessions": [{"id": str, "date": ISO-8601,
                   "turns": [{"id": str, "speaker": str, "text": str}]}]}

The whole file is checked before anything is stored, so a bad file ingests nothing. Every
problem is a :class:`TranscriptError` (RIL-041) whose message names the place, e.g.
``sessions[2].turns[5].text: field required``. A ``date`` without a time, or a time without
an offset, is taken as UTC. Keys beyond these are ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, ValidationError, field_validator

from rilai_desktop.errors import TranscriptError
from rilai_desktop.memory.types import MAX_RESOURCE_CHARS, Turn

MAX_TURN_CHARS = 100_000
"""The longest turn text a transcript may hold."""
MAX_ERRORS_SHOWN = 5


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, str_strip_whitespace=False)


class TranscriptTurn(_Model):
    id: str = Field(min_length=1, max_length=200)
    speaker: str = Field(min_length=1, max_length=200)
    text: str

    @field_validator("id", "speaker")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("empty text: a turn must say something")
        if len(value) > MAX_TURN_CHARS:
            raise ValueError(
                f"text has {len(value):,} characters; a turn holds at most {MAX_TURN_CHARS:,}"
            )
        return value


class TranscriptSession(_Model):
    id: str = Field(min_length=1, max_length=200)
    date: AwareDatetime
    turns: list[TranscriptTurn]

    @field_validator("id")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value

    @field_validator("date", mode="before")
    @classmethod
    def _iso_date(cls, value: Any) -> Any:
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=UTC)
        if isinstance(value, date):
            return datetime(value.year, value.month, value.day, tzinfo=UTC)
        if not isinstance(value, str):
            raise ValueError(f"expected an ISO-8601 date string, got {type(value).__name__}")
        try:
            parsed = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(
                f"{value!r} is not an ISO-8601 date (e.g. 2024-03-01 or 2024-03-01T18:30:00Z)"
            ) from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)

    @field_validator("turns")
    @classmethod
    def _has_turns(cls, value: list[TranscriptTurn]) -> list[TranscriptTurn]:
        if not value:
            raise ValueError("a session needs at least one turn")
        return value


class Transcript(_Model):
    title: str
    sessions: list[TranscriptSession]

    @field_validator("sessions")
    @classmethod
    def _has_sessions(cls, value: list[TranscriptSession]) -> list[TranscriptSession]:
        if not value:
            raise ValueError("the transcript has no sessions")
        return value

    @property
    def turn_count(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


def _where(loc: Sequence[int | str]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _describe(err: Mapping[str, Any]) -> str:
    kind = err.get("type", "")
    if kind == "missing":
        return "field required"
    if kind == "string_type":
        return "expected a string"
    if kind == "list_type":
        return "expected a list"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "expected an object"
    if kind in ("too_short", "string_too_short"):
        return "must not be empty"
    msg = str(err.get("msg", "invalid value"))
    msg = msg.removeprefix("Value error, ")
    return msg[:1].lower() + msg[1:]


def _fail(path: Path, problems: list[str], **context: Any) -> TranscriptError:
    shown = problems[:MAX_ERRORS_SHOWN]
    more = len(problems) - len(shown)
    message = f"{path}: " + "; ".join(shown) + (f" (and {more} more)" if more > 0 else "")
    return TranscriptError(message, context={"path": str(path), "problems": problems, **context})


def _bad_strings(data: Any, loc: tuple[int | str, ...] = ()) -> list[str]:
    """Places holding text that cannot be stored: lone surrogates (from \\ud800) or NUL."""
    found: list[str] = []
    if isinstance(data, str):
        if "\x00" in data:
            found.append(f"{_where(loc)}: contains a NUL character (binary data, not text)")
        else:
            try:
                data.encode("utf-8")
            except UnicodeEncodeError:
                found.append(f"{_where(loc)}: contains a lone surrogate (invalid \\u escape)")
    elif isinstance(data, dict):
        for key, value in data.items():
            found.extend(_bad_strings(value, (*loc, str(key))))
    elif isinstance(data, list):
        for n, value in enumerate(data):
            found.extend(_bad_strings(value, (*loc, n)))
    return found


def _rendered_length(session: TranscriptSession) -> int:
    # what MemoryManager.ingest_turns stores: "speaker: text" lines joined by newlines
    return sum(len(t.speaker) + 2 + len(t.text) for t in session.turns) + len(session.turns) - 1


def parse_transcript(data: Any, *, source: Path | str = "<transcript>") -> Transcript:
    """Validate already-decoded JSON; every problem found is named (up to a few)."""
    path = Path(source)
    if not isinstance(data, dict):
        raise _fail(path, [f"(top level): expected an object, got {_json_type(data)}"])
    bad = _bad_strings(data)
    if bad:
        raise _fail(path, bad)
    try:
        transcript = Transcript.model_validate(data)
    except ValidationError as exc:
        errors = [f"{_where(e['loc'])}: {_describe(e)}" for e in exc.errors()]
        raise _fail(path, errors) from None
    problems: list[str] = []
    seen_turns: dict[str, str] = {}
    seen_sessions: dict[str, int] = {}
    for s_idx, session in enumerate(transcript.sessions):
        if session.id in seen_sessions:
            problems.append(
                f"sessions[{s_idx}].id: duplicate session id {session.id!r}"
                f" (also sessions[{seen_sessions[session.id]}])"
            )
        else:
            seen_sessions[session.id] = s_idx
        for t_idx, turn in enumerate(session.turns):
            here = f"sessions[{s_idx}].turns[{t_idx}]"
            if turn.id in seen_turns:
                problems.append(
                    f"{here}.id: duplicate turn id {turn.id!r} (also {seen_turns[turn.id]})"
                )
            else:
                seen_turns[turn.id] = here
        size = _rendered_length(session)
        if size > MAX_RESOURCE_CHARS:
            problems.append(
                f"sessions[{s_idx}]: the session's turns total {size:,} characters; one session"
                f" is stored as one resource of at most {MAX_RESOURCE_CHARS:,}"
            )
    if problems:
        raise _fail(path, problems)
    return transcript


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {list: "a list", str: "a string", bool: "a boolean"}.get(type(value), "a number")


def load_transcript(path: Path | str) -> Transcript:
    """Read, decode (UTF-8), parse and validate a transcript file; nothing is stored here."""
    file = Path(path)
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise _fail(file, ["no such file"]) from None
    except IsADirectoryError:
        raise _fail(file, ["is a directory, not a transcript file"]) from None
    except OSError as exc:
        raise _fail(file, [f"cannot read: {exc.strerror or exc}"]) from None
    if not raw.strip():
        raise _fail(file, ["the file is empty"])
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fail(
            file,
            [f"not UTF-8 text (byte {exc.start}: 0x{raw[exc.start]:02x}); is it a binary file?"],
        ) from None
    if "\x00" in text:
        raise _fail(file, ["contains NUL bytes: a binary file, not a JSON transcript"])
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _fail(
            file, [f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"]
        ) from None
    except RecursionError:
        raise _fail(file, ["not a transcript: JSON nested too deeply"]) from None
    return parse_transcript(data, source=file)


def sessions_in_date_order(transcript: Transcript) -> list[TranscriptSession]:
    """The sessions oldest first; sessions with the same date keep their file order."""
    return sorted(transcript.sessions, key=lambda s: s.date)


def session_batches(
    transcript: Transcript, sessions: Sequence[TranscriptSession] | None = None
) -> list[tuple[list[Turn], dict[str, Any]]]:
    """What ``MemoryManager.ingest_sessions`` takes: each session (oldest first, or the
    ``sessions`` given) as its turns, dated and marked user or not, and its metadata."""
    from rilai_desktop.memory.conversation import is_user_speaker

    chosen = sessions_in_date_order(transcript) if sessions is None else sessions
    return [
        (
            [
                Turn(
                    id=t.id,
                    speaker=t.speaker,
                    text=t.text,
                    at=s.date,
                    is_user=is_user_speaker(t.speaker),
                )
                for t in s.turns
            ],
            {"title": transcript.title, "session_id": s.id, "date": s.date.isoformat()},
        )
        for s in chosen
    ]
