"""Past nudges, read back from the PROACTIVE_NUDGE events of the log.

The log is the only memory the engine has: cooldowns, "already said for this episode" and
the spent budget are all rebuilt from it on every run, so they survive a restart and two
processes over one database agree. A payload written by an older version or by hand is
read defensively: a missing level is L0, a missing condition is ``"unknown"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo
from typing import Any, Final

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.daemon.nudges.ladder import clamp_level, level_cost
from rilai_desktop.daemon.nudges.quiet_hours import local
from rilai_desktop.daemon.ports import EventReader, Nudge

HISTORY_LIMIT: Final = 500
"""Newest nudge events read per run (about 10 ms). Anchors and cooldowns keep nudges to a
handful per condition per day — the built-in day writes 11 — so this covers weeks, more
than any window a gate looks at (a day of budget, hours of cooldown, one episode)."""


@dataclass(frozen=True)
class NudgeRecord:
    """One PROACTIVE_NUDGE event, as the gates and ``rilai nudges list`` see it."""

    at: datetime
    condition: str
    anchor: str | None
    level: int
    reason: str
    suggestion: str
    context: dict[str, Any]

    @property
    def cost(self) -> int:
        return level_cost(self.level)

    def to_nudge(self) -> Nudge:
        return Nudge(
            condition=self.condition,
            reason=self.reason,
            suggestion=self.suggestion,
            level=self.level,
            context=dict(self.context),
            at=self.at,
        )


def _aware(text: object) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return None
    return parsed.astimezone(UTC)


def record_from_event(event: EngineEvent) -> NudgeRecord:
    """The event as a record. The decision time is the context's ``at`` (the engine's
    ``now``), falling back to the envelope's ``ts_wall``: a sink that stamps real time
    under a fake clock must not skew the cooldowns."""
    payload = event.payload
    raw_context = payload.get("context")
    context: dict[str, Any] = dict(raw_context) if isinstance(raw_context, dict) else {}
    condition = context.get("condition")
    anchor = context.get("anchor")
    return NudgeRecord(
        at=_aware(context.get("at")) or event.ts_wall.astimezone(UTC),
        condition=condition if isinstance(condition, str) and condition else "unknown",
        anchor=anchor if isinstance(anchor, str) else None,
        level=clamp_level(payload.get("level")),
        reason=str(payload.get("reason", "")),
        suggestion=str(payload.get("suggestion", "")),
        context=context,
    )


def read_history(reader: EventReader, limit: int = HISTORY_LIMIT) -> list[NudgeRecord]:
    """The newest ``limit`` nudges, newest first."""
    events = reader.events(kind=EventKind.PROACTIVE_NUDGE, limit=limit, newest_first=True)
    records = [record_from_event(e) for e in events]
    records.sort(key=lambda r: r.at, reverse=True)
    return records


def on_local_day(records: list[NudgeRecord], day: date, tz: tzinfo | None) -> list[NudgeRecord]:
    """The records whose local date is ``day``, oldest first."""
    return sorted((r for r in records if local(r.at, tz).date() == day), key=lambda r: r.at)
