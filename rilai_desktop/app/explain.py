""" "Why did you say that?": one turn's explanation, rebuilt from that turn's events only.

Everything here is read back from the event log (``Engine.turn_events``), never from live
state, so an old turn explains itself after a restart exactly as it did when it ran:

- the memories in the voice's prompt: ``memory.used`` (logged when the voice's notes are
  built, from the lines the prompt builder rendered: what recall found and the notes
  dropped is not there). A turn logged before that event existed says so
  (``memory_logged`` False) instead of guessing from MEMORY_RETRIEVED;
- the sensors that fired: a reading at or over its sensor's documented threshold
  (``contracts.sensor.THRESHOLDS``, the one the turn and the evaluation act on), with
  the spans that were its evidence (SENSORS_FAST_UPDATED: the turn's one sensor reading;
  the seed's SENSORS_ENSEMBLE_UPDATED kind is never emitted, as no model re-reads them);
- the council's key points, each with the agents' claims that became it (the claim's text
  inside the point, or the point's stem inside the claim — the rule
  ``turn/deliberation/influence.py`` uses for ``key_point_sources``); a point no claim
  gave is the council's own rule's;
- the council's decision and what decided it (a rule, the council model, or the fallback
  when the model could not answer);
- the critics' verdicts on every attempt (the last one is the reply that was shown).

Nothing from an explanation goes back into any prompt: it is for the person only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.sensor import SENSOR_NAMES, THRESHOLDS

EntryKind = Literal["item", "fact", "episode", "goal"]
DecidedBy = Literal["rule", "model", "fallback", ""]
_KINDS: frozenset[str] = frozenset(("item", "fact", "episode", "goal"))


@dataclass(frozen=True)
class UsedMemory:
    """A memory entry whose text was in the voice's prompt (``text`` as the prompt had it)."""

    kind: EntryKind
    entry_id: str
    text: str


@dataclass(frozen=True)
class UsedPassage:
    """A knowledge-base passage that was in the voice's prompt."""

    kb: str
    doc_id: str
    text: str


@dataclass(frozen=True)
class FiredSensor:
    name: str
    probability: float
    threshold: float
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class KeyPoint:
    """A key point of the council's decision; ``claims`` (agent, claim text) it came from,
    none when the council's rule wrote it."""

    text: str
    claims: tuple[tuple[str, str], ...] = ()

    @property
    def agents(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(agent for agent, _ in self.claims))


@dataclass(frozen=True)
class Decision:
    speak: bool | None
    intent: str
    tone: str
    decided_by: DecidedBy
    reason: str  # the rule that fired, what the model said, or why the fallback was taken
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class CriticVerdict:
    attempt: int
    critic: str
    passed: bool
    reason: str
    fallback: bool = False  # the review of the fixed reply that replaced a failing one


@dataclass(frozen=True)
class TurnExplanation:
    session_id: str
    turn_id: int
    user_text: str = ""
    reply: str = ""
    memory_logged: bool = False  # False: the turn predates memory.used (or never spoke)
    memories: tuple[UsedMemory, ...] = ()
    passages: tuple[UsedPassage, ...] = ()
    sensors: tuple[FiredSensor, ...] = ()
    safety_interrupt: str = ""
    key_points: tuple[KeyPoint, ...] = ()
    decision: Decision | None = None
    critics: tuple[CriticVerdict, ...] = field(default=())
    voice_model: str = ""  # the model that wrote the reply shown (a remote tier's id too)

    @property
    def final_critics(self) -> tuple[CriticVerdict, ...]:
        """The verdicts on the reply that was shown (the last review)."""
        if not self.critics:
            return ()
        last = self.critics[-1]
        return tuple(
            c for c in self.critics if (c.attempt, c.fallback) == (last.attempt, last.fallback)
        )


def _dict(value: object) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _strs(value: object) -> list[str]:
    return [v for v in _list(value) if isinstance(v, str) and v]


def _float(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def explain_turn(events: Iterable[EngineEvent]) -> TurnExplanation:
    """One turn's explanation from its events (in log order); missing parts stay empty."""
    events = list(events)
    session_id = events[0].session_id if events else ""
    turn_id = events[0].turn_id if events else 0
    user_text = reply = interrupt = voice_model = ""
    memory_logged = False
    memories: list[UsedMemory] = []
    passages: list[UsedPassage] = []
    readings: dict[str, float] = {}
    evidence: dict[str, list[str]] = {}
    claims: list[tuple[str, str]] = []
    decision_payload: dict[str, Any] | None = None
    critics: list[CriticVerdict] = []
    for event in events:
        payload = _dict(event.payload)
        kind = event.kind
        if kind is EventKind.TURN_STARTED:
            user_text = _str(payload.get("user_input"))
        elif kind is EventKind.MEMORY_USED:
            memory_logged = True
            memories, passages = _used(payload)
        elif kind is EventKind.SENSORS_FAST_UPDATED:
            _sensors(payload, readings, evidence)
        elif kind is EventKind.SAFETY_INTERRUPT:
            interrupt = _str(payload.get("reason")) or "safety interrupt"
        elif kind is EventKind.AGENT_COMPLETED:
            agent = _str(payload.get("agent_id"))
            for raw in _list(payload.get("claims")):
                claim = _dict(raw)
                text = _str(claim.get("text")).strip()
                if text:
                    claims.append((_str(claim.get("source_agent")) or agent, text))
        elif kind is EventKind.COUNCIL_DECISION_MADE:
            decision_payload = payload
        elif kind is EventKind.CRITICS_UPDATED:
            critics += _verdicts(payload)
        elif kind is EventKind.VOICE_RENDERED:
            reply = _str(payload.get("text")) or reply
            voice_model = _str(payload.get("model")) or voice_model
        elif kind is EventKind.TURN_COMPLETED:
            reply = _str(payload.get("response")) or reply
    return TurnExplanation(
        session_id=session_id,
        turn_id=turn_id,
        user_text=user_text,
        reply=reply,
        memory_logged=memory_logged,
        memories=tuple(memories),
        passages=tuple(passages),
        sensors=_fired(readings, evidence),
        safety_interrupt=interrupt,
        key_points=_key_points(decision_payload, claims),
        decision=_decision(decision_payload),
        critics=tuple(critics),
        voice_model=voice_model,
    )


def _used(payload: Mapping[str, Any]) -> tuple[list[UsedMemory], list[UsedPassage]]:
    memories: list[UsedMemory] = []
    for raw in _list(payload.get("entries")):
        entry = _dict(raw)
        kind, text = _str(entry.get("kind")), _str(entry.get("text"))
        if kind in _KINDS and text:
            memories.append(UsedMemory(cast(EntryKind, kind), _str(entry.get("entry_id")), text))
    passages = [
        UsedPassage(_str(d.get("kb")), _str(d.get("id")), _str(d.get("text")))
        for d in map(_dict, _list(payload.get("knowledge")))
        if _str(d.get("text"))
    ]
    return memories, passages


def _sensors(
    payload: Mapping[str, Any], readings: dict[str, float], evidence: dict[str, list[str]]
) -> None:
    for name, value in _dict(payload.get("sensors")).items():
        number = _float(value)
        if number is not None:
            readings[name] = min(1.0, max(0.0, number))
    for name, spans in _dict(payload.get("evidence")).items():
        evidence[name] = _strs(spans)


def _fired(
    readings: Mapping[str, float], evidence: Mapping[str, list[str]]
) -> tuple[FiredSensor, ...]:
    """Readings at or over their sensor's threshold, strongest first."""
    fired = [
        FiredSensor(name, value, THRESHOLDS[name], tuple(evidence.get(name, ())))
        for name, value in readings.items()
        if name in THRESHOLDS and value >= THRESHOLDS[name]
    ]
    fired.sort(key=lambda s: (-s.probability, SENSOR_NAMES.index(s.name)))
    return tuple(fired)


def _key_points(
    payload: Mapping[str, Any] | None, claims: Sequence[tuple[str, str]]
) -> tuple[KeyPoint, ...]:
    if payload is None:
        return ()
    points: list[KeyPoint] = []
    for point in _strs(payload.get("key_points")):
        stem = point.rstrip("…").strip()
        came_from = tuple(
            dict.fromkeys((agent, text) for agent, text in claims if text in point or stem in text)
        )
        points.append(KeyPoint(point, came_from))
    return tuple(points)


def _decision(payload: Mapping[str, Any] | None) -> Decision | None:
    if payload is None:
        return None
    reasons = _strs(payload.get("reasons"))
    decided_by: DecidedBy
    if payload.get("used_model") is True:
        said = [r for r in reasons if r.startswith("model")]
        decided_by, reason = "model", said[0] if said else ""
    elif reasons and reasons[0].startswith("no rule"):
        fallback = [r for r in reasons[1:] if "model" in r]
        decided_by, reason = "fallback", fallback[0] if fallback else reasons[0]
    elif reasons:
        decided_by, reason = "rule", reasons[0]
    else:
        decided_by, reason = "", ""
    speak = payload.get("speak")
    return Decision(
        speak=speak if isinstance(speak, bool) else None,
        intent=_str(payload.get("intent")),
        tone=_str(payload.get("tone")),
        decided_by=decided_by,
        reason=reason,
        reasons=tuple(reasons),
    )


def _verdicts(payload: Mapping[str, Any]) -> list[CriticVerdict]:
    attempt = payload.get("attempt")
    number = attempt if isinstance(attempt, int) and not isinstance(attempt, bool) else 0
    fallback = payload.get("fallback") is True
    out: list[CriticVerdict] = []
    for raw in _list(payload.get("results")):
        result = _dict(raw)
        name = _str(result.get("critic"))
        if name:
            out.append(
                CriticVerdict(
                    number, name, result.get("passed") is True, _str(result.get("reason")), fallback
                )
            )
    return out
