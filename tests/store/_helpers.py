"""Small builders for event-log tests."""

from __future__ import annotations

from typing import Any

from rilai_desktop.contracts import EventKind
from rilai_desktop.store import EventDraft, EventLog


def complete_turn(log: EventLog, session: str, turn: int, text: str, reply: str | None) -> None:
    log.append(session, turn, EventKind.TURN_STARTED, {"user_input": text, "turn_id": turn})
    log.append(session, turn, EventKind.TURN_STAGE_CHANGED, {"stage": "sensing_fast"})
    log.append(session, turn, EventKind.TURN_COMPLETED, {"total_time_ms": 12, "response": reply})


def drafts(session: str, turn: int, n: int) -> list[EventDraft]:
    out = []
    for i in range(n):
        payload: dict[str, Any] = {"stage": f"s{i}"}
        out.append(EventDraft(session, turn, EventKind.TURN_STAGE_CHANGED, payload))
    return out
