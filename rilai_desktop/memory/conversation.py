"""Conversation resources <-> turns.

A conversation resource keeps its turns in ``metadata["turns"]`` ([{id, speaker, text, at?}])
so every item extracted from it can name the turns it came from; ``content`` is the
rendered transcript ("Speaker: text" per turn) that FTS5 indexes. A conversation stored
without turns in its metadata is split into "Speaker: text" lines with ids
``{resource_id}#L{n}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from rilai_desktop.memory.types import Resource, Turn

ASSISTANT_SPEAKERS = frozenset({"rilai", "assistant", "ai", "bot", "companion", "system"})
_LINE = re.compile(r"^\s*([^:\n]{1,40}):\s*(.*)$")


def is_user_speaker(speaker: str) -> bool:
    return speaker.strip().lower() not in ASSISTANT_SPEAKERS


def render_turns(turns: Iterable[Turn]) -> str:
    return "\n".join(f"{t.speaker}: {t.text}" for t in turns)


def turns_metadata(turns: Iterable[Turn]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in turns:
        row: dict[str, Any] = {"id": t.id, "speaker": t.speaker, "text": t.text}
        if t.at is not None:
            row["at"] = t.at.isoformat()
        out.append(row)
    return out


def resource_turns(resource: Resource) -> list[Turn]:
    """The turns of a resource (any type; non-conversations become one turn)."""
    at = _parse_at(resource.metadata.get("date")) or resource.created_at
    raw = resource.metadata.get("turns")
    if isinstance(raw, list) and raw:
        turns: list[Turn] = []
        for n, entry in enumerate(raw):
            if not isinstance(entry, dict):
                continue
            speaker = str(entry.get("speaker", ""))
            text = str(entry.get("text", ""))
            turns.append(
                Turn(
                    id=str(entry.get("id") or f"{resource.resource_id}#T{n}"),
                    speaker=speaker,
                    text=text,
                    at=_parse_at(entry.get("at")) or at,
                    is_user=is_user_speaker(speaker),
                )
            )
        return turns
    if resource.resource_type != "conversation":
        return [Turn(id=resource.resource_id, speaker="user", text=resource.content, at=at)]
    turns = []
    for n, line in enumerate(resource.content.splitlines()):
        if not line.strip():
            continue
        m = _LINE.match(line)
        speaker, text = (m.group(1).strip(), m.group(2)) if m else ("user", line)
        turns.append(
            Turn(
                id=f"{resource.resource_id}#L{n}",
                speaker=speaker,
                text=text,
                at=at,
                is_user=is_user_speaker(speaker),
            )
        )
    return turns


def _parse_at(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else None
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None
