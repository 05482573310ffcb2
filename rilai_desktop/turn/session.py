"""What a turn inherits from earlier turns, rebuilt from the event log (the truth).

- the conversation: TURN_STARTED user_input and TURN_COMPLETED response, this session only
  (``/reset`` starts a new session: memory stays, the conversation starts over);
- the stance and the modulators: the ``current`` of the last STANCE_UPDATED and
  MODULATORS_UPDATED (any session: Rilai's state carries over);
- when each agent last ran (cooldowns): the wall time of its last AGENT_STARTED.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any

from rilai_desktop.contracts import EngineEvent, EventKind, GlobalModulators, StanceVector
from rilai_desktop.contracts.workspace import MODULATOR_NAMES, STANCE_DIMENSIONS
from rilai_desktop.turn.ports import EventStore

HISTORY_KEEP = 40  # messages kept in memory for the prompt builders (they use fewer)


@dataclass
class SessionState:
    session_id: str
    history: list[dict[str, Any]] = field(default_factory=list)
    stance: StanceVector = field(default_factory=StanceVector)
    modulators: GlobalModulators = field(default_factory=GlobalModulators)
    last_run: dict[str, float] = field(default_factory=dict)  # agent id -> unix seconds

    def add_exchange(self, user_text: str, reply: str, turn_id: int) -> None:
        self.history.append({"role": "user", "content": user_text, "turn_id": turn_id})
        if reply:
            self.history.append({"role": "assistant", "content": reply, "turn_id": turn_id})
        del self.history[:-HISTORY_KEEP]


def _bounded(values: Any, names: tuple[str, ...]) -> dict[str, float]:
    if not isinstance(values, dict):
        return {}
    out: dict[str, float] = {}
    for name in names:
        value = values.get(name)
        if isinstance(value, int | float):
            out[name] = float(value)
    return out


def restore(events: EventStore, session_id: str) -> SessionState:
    """Rebuild the session's state; unreadable payloads fall back to defaults."""
    state = SessionState(session_id)
    started: dict[int, str] = {}
    for event in events.events(
        session_id=session_id,
        kind=[EventKind.TURN_STARTED, EventKind.TURN_COMPLETED, EventKind.TURN_ABORTED],
    ):
        _apply_conversation(state, started, event)
    for kind, apply in (
        (EventKind.STANCE_UPDATED, _apply_stance),
        (EventKind.MODULATORS_UPDATED, _apply_modulators),
    ):
        last = events.events(kind=kind, limit=1, newest_first=True)
        if last:
            apply(state, last[0])
    for event in events.events(kind=EventKind.AGENT_STARTED, limit=400, newest_first=True):
        agent = event.payload.get("agent_id")
        if isinstance(agent, str) and agent not in state.last_run:
            state.last_run[agent] = event.ts_wall.timestamp()
    return state


def _apply_conversation(state: SessionState, started: dict[int, str], event: EngineEvent) -> None:
    if event.kind is EventKind.TURN_STARTED:
        started[event.turn_id] = str(event.payload.get("user_input", ""))
    elif event.kind is EventKind.TURN_COMPLETED and event.turn_id in started:
        reply = event.payload.get("response")
        state.add_exchange(started.pop(event.turn_id), str(reply or ""), event.turn_id)
    elif event.kind is EventKind.TURN_ABORTED:
        started.pop(event.turn_id, None)


def _apply_stance(state: SessionState, event: EngineEvent) -> None:
    values = _bounded(event.payload.get("current"), STANCE_DIMENSIONS)
    with contextlib.suppress(ValueError):  # out of range (an older version): keep defaults
        state.stance = StanceVector(**values, turn_id=event.turn_id)


def _apply_modulators(state: SessionState, event: EngineEvent) -> None:
    values = _bounded(event.payload.get("current"), MODULATOR_NAMES)
    with contextlib.suppress(ValueError):
        state.modulators = GlobalModulators(**values)
