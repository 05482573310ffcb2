"""What a turn inherits from earlier turns, rebuilt from the event log (the truth).

- the conversation: TURN_STARTED user_input and TURN_COMPLETED response, this session only
  (``/reset`` starts a new session: memory stays, the conversation starts over); a turn a
  TURN_RETRACTED names (regenerate, edit-and-resend) leaves it — the log keeps its events;
- the stance and the modulators (any session: Rilai's state carries over): the newest of
  STANCE_UPDATED (``current``) / MODULATORS_DECAYED (``stance.*.after``) for the stance, and
  of MODULATORS_UPDATED / MODULATORS_DECAYED (``modulators.*.after``) for the modulators,
  stamped with that event's wall time, so the daemon's decay carries on from there;
- nudges the person saw inline (PROACTIVE_NUDGE in this session, level ≥ 3,
  ``context["delivered"]`` true) are assistant messages in the history, in log order, so
  answering a nudge is a normal turn that sees what it answers;
- when each agent last ran (cooldowns): the wall time of its last AGENT_STARTED;
- the conversation's risk (any session, like the stance): the level, the careful window and
  the distress trace of ``safety_state.ConversationRisk``, logged by every turn in
  SENSORS_FAST_UPDATED ``risk`` and read back from the newest one (aged by the wall-clock
  time since), so a restart (or ``/reset``) does not forget a disclosure. A log from before
  the risk state falls back to the careful window its ``safety_risk`` readings imply.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rilai_desktop.contracts import EngineEvent, EventKind, GlobalModulators, StanceVector
from rilai_desktop.contracts.workspace import MODULATOR_NAMES, STANCE_DIMENSIONS
from rilai_desktop.turn.ports import EventStore
from rilai_desktop.turn.safety_state import CAREFUL_FLAG as CAREFUL_FLAG
from rilai_desktop.turn.safety_state import CAREFUL_TURNS as CAREFUL_TURNS
from rilai_desktop.turn.safety_state import ConversationRisk
from rilai_desktop.turn.sensors import SAFETY_CONCERN_THRESHOLD

HISTORY_KEEP = 40  # messages kept in memory for the prompt builders (they use fewer)
INLINE_NUDGE_LEVEL = 3  # L3 inline message, L4 notification: the person saw these words
_STANCE_SOURCES = [EventKind.STANCE_UPDATED, EventKind.MODULATORS_DECAYED]
_MODULATOR_SOURCES = [EventKind.MODULATORS_UPDATED, EventKind.MODULATORS_DECAYED]


@dataclass
class SessionState:
    session_id: str
    history: list[dict[str, Any]] = field(default_factory=list)
    stance: StanceVector = field(default_factory=StanceVector)
    modulators: GlobalModulators = field(default_factory=GlobalModulators)
    last_run: dict[str, float] = field(default_factory=dict)  # agent id -> unix seconds
    risk: ConversationRisk = field(default_factory=ConversationRisk)

    @property
    def careful_left(self) -> int:
        """Turns still careful after the last disclosure (``risk.careful_left``)."""
        return self.risk.careful_left

    def add_exchange(self, user_text: str, reply: str, turn_id: int) -> None:
        self.history.append({"role": "user", "content": user_text, "turn_id": turn_id})
        if reply:
            self.history.append({"role": "assistant", "content": reply, "turn_id": turn_id})
        del self.history[:-HISTORY_KEEP]

    def retract(self, turn_id: int) -> None:
        """The turn's message and reply leave the conversation (nudges stay)."""
        self.history[:] = [m for m in self.history if m.get("nudge") or m.get("turn_id") != turn_id]

    def last_exchange(self) -> tuple[int, str] | None:
        """(turn id, the person's words) of the conversation's last turn, or None when
        there is none or the conversation ends with a check-in (a nudge came after it)."""
        if not self.history or self.history[-1].get("nudge"):
            return None
        turn_id = self.history[-1].get("turn_id")
        if not isinstance(turn_id, int) or turn_id <= 0:
            return None
        for message in reversed(self.history):
            if message.get("role") == "user" and message.get("turn_id") == turn_id:
                return turn_id, str(message.get("content", ""))
        return None

    def add_nudge(self, text: str, turn_id: int = 0) -> None:
        """A nudge the person saw, as an assistant message (its reply answers it)."""
        self.history.append(
            {"role": "assistant", "content": text, "turn_id": turn_id, "nudge": True}
        )
        del self.history[:-HISTORY_KEEP]


def nudge_text(event: EngineEvent) -> str | None:
    """The words of a PROACTIVE_NUDGE the person saw inline (level ≥ 3, delivered), else
    None: logged-only, digest and on-open nudges, undelivered ones and odd payloads."""
    if event.kind is not EventKind.PROACTIVE_NUDGE:
        return None
    payload = event.payload
    level, context = payload.get("level"), payload.get("context")
    if isinstance(level, bool) or not isinstance(level, int) or level < INLINE_NUDGE_LEVEL:
        return None
    if not isinstance(context, dict) or context.get("delivered") is not True:
        return None
    for key in ("suggestion", "reason"):
        text = payload.get(key)
        if isinstance(text, str) and text.strip():
            return text.strip()
    return None


@dataclass(frozen=True)
class CurrentAffect:
    """The stance and modulators the log leaves behind, and the events they come from."""

    stance: dict[str, float]
    modulators: dict[str, float]
    stance_event: EngineEvent | None
    modulator_event: EngineEvent | None


AFFECT_SCAN = 50  # events read back at most, newest first


def current_affect(events: EventStore) -> CurrentAffect:
    """THE projection of the current stance and modulators (one rule for the turn, the
    headless daemon and the nudge engine), in any session (Rilai's state carries across
    conversations): the newest STANCE_UPDATED / MODULATORS_UPDATED ``current`` is the whole
    state then, and each MODULATORS_DECAYED after it changes the dimensions it lists
    (``after``) — a decay lists only what it changed, so a dimension it left alone keeps
    the update's value (reading only the newest event lost it)."""
    found: list[tuple[dict[str, float], EngineEvent | None, tuple[str, ...], list[EventKind]]] = [
        ({}, None, STANCE_DIMENSIONS, _STANCE_SOURCES),
        ({}, None, MODULATOR_NAMES, _MODULATOR_SOURCES),
    ]
    for n, (values, _first, names, kinds) in enumerate(found):
        newest: EngineEvent | None = None
        for event in events.events(kind=kinds, limit=AFFECT_SCAN, newest_first=True):
            read = stance_values(event) if n == 0 else modulator_values(event)
            newest = newest or event
            for name, value in read.items():
                values.setdefault(name, value)
            if len(values) == len(names) or event.kind is not EventKind.MODULATORS_DECAYED:
                break  # an update's ``current`` is the whole state; a decay lists changes
        found[n] = (values, newest, names, kinds)
    return CurrentAffect(
        stance=found[0][0],
        modulators=found[1][0],
        stance_event=found[0][1],
        modulator_event=found[1][1],
    )


def stance_values(event: EngineEvent) -> dict[str, float]:
    """The stance an event leaves behind: STANCE_UPDATED ``current`` or MODULATORS_DECAYED
    ``stance.*.after`` (numbers only; anything odd is left out)."""
    return _affect(event, "current", "stance", STANCE_DIMENSIONS)


def modulator_values(event: EngineEvent) -> dict[str, float]:
    """The modulators an event leaves behind (MODULATORS_UPDATED / MODULATORS_DECAYED)."""
    return _affect(event, "current", "modulators", MODULATOR_NAMES)


def _affect(
    event: EngineEvent, current: str, decayed: str, names: tuple[str, ...]
) -> dict[str, float]:
    if event.kind is EventKind.MODULATORS_DECAYED:
        changes = event.payload.get(decayed)
        if not isinstance(changes, dict):
            return {}
        afters = {k: v.get("after") for k, v in changes.items() if isinstance(v, dict)}
        return _bounded(afters, names)
    return _bounded(event.payload.get(current), names)


def _bounded(values: Any, names: tuple[str, ...]) -> dict[str, float]:
    if not isinstance(values, dict):
        return {}
    out: dict[str, float] = {}
    for name in names:
        value = values.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[name] = float(value)
    return out


def restore(events: EventStore, session_id: str) -> SessionState:
    """Rebuild the session's state; unreadable payloads fall back to defaults."""
    state = SessionState(session_id)
    started: dict[int, str] = {}
    for event in events.events(
        session_id=session_id,
        kind=[
            EventKind.TURN_STARTED,
            EventKind.TURN_COMPLETED,
            EventKind.TURN_ABORTED,
            EventKind.TURN_RETRACTED,
            EventKind.PROACTIVE_NUDGE,
        ],
    ):
        _apply_conversation(state, started, event)
    affect = current_affect(events)
    if affect.stance_event is not None:
        _apply_stance(state, affect.stance_event, affect.stance)
    if affect.modulator_event is not None:
        _apply_modulators(state, affect.modulator_event, affect.modulators)
    state.risk = conversation_risk(events)
    for event in events.events(kind=EventKind.AGENT_STARTED, limit=400, newest_first=True):
        agent = event.payload.get("agent_id")
        if isinstance(agent, str) and agent not in state.last_run:
            state.last_run[agent] = event.ts_wall.timestamp()
    return state


def conversation_risk(events: EventStore) -> ConversationRisk:
    """The risk state the newest SENSORS_FAST_UPDATED logged (``risk``, any session); for a
    log from before it, the careful window its ``safety_risk`` readings imply."""
    recent = events.events(
        kind=[EventKind.SENSORS_FAST_UPDATED], limit=CAREFUL_TURNS, newest_first=True
    )
    for since, event in enumerate(recent):
        if since == 0 and (logged := ConversationRisk.from_payload(event.payload.get("risk"))):
            return logged
        sensors = event.payload.get("sensors")
        risk = sensors.get("safety_risk") if isinstance(sensors, dict) else None
        if isinstance(risk, bool) or not isinstance(risk, int | float):
            continue
        if risk >= SAFETY_CONCERN_THRESHOLD:
            return ConversationRisk(
                level=float(risk),
                careful_left=CAREFUL_TURNS - since,
                at=event.ts_wall.timestamp(),
            )
    return ConversationRisk()


def careful_left(events: EventStore) -> int:
    """Turns still careful after the newest disclosure (the restored risk state's window)."""
    return conversation_risk(events).careful_left


def _apply_conversation(state: SessionState, started: dict[int, str], event: EngineEvent) -> None:
    if event.kind is EventKind.TURN_STARTED:
        started[event.turn_id] = str(event.payload.get("user_input", ""))
    elif event.kind is EventKind.TURN_COMPLETED and event.turn_id in started:
        reply = event.payload.get("response")
        state.add_exchange(started.pop(event.turn_id), str(reply or ""), event.turn_id)
    elif event.kind is EventKind.TURN_ABORTED:
        started.pop(event.turn_id, None)
    elif event.kind is EventKind.TURN_RETRACTED:
        retracted = event.payload.get("turn_id")
        if isinstance(retracted, int):
            state.retract(retracted)
    elif (text := nudge_text(event)) is not None:
        state.add_nudge(text, event.turn_id)


def _wall(event: EngineEvent) -> datetime:
    return event.ts_wall.astimezone(UTC)


def _apply_stance(state: SessionState, event: EngineEvent, values: dict[str, float]) -> None:
    turn_id = event.turn_id if event.kind is EventKind.STANCE_UPDATED else state.stance.turn_id
    with contextlib.suppress(ValueError):  # out of range (an older version): keep defaults
        state.stance = StanceVector(
            **values, turn_id=turn_id, last_update_ts=_wall(event).timestamp()
        )


def _apply_modulators(state: SessionState, event: EngineEvent, values: dict[str, float]) -> None:
    with contextlib.suppress(ValueError):
        state.modulators = GlobalModulators(**values, last_update=_wall(event))
