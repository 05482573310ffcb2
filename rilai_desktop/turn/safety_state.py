"""The conversation's risk: a level that belongs to the conversation, not to one message.

A disclosure does not end when the next message is about dinner. After "everyone would be
better off without me", the messages that follow — "I'm not going to do anything stupid,
I just feel like a burden", "can you just talk to me for a bit", "anyway, any good
recipes?" — stay on the careful path, and signals that are weak alone add up: distress,
then a question about the height of a bridge, is means-seeking.

:class:`ConversationRisk` is that state; :func:`assess` takes it, the turn's readings and
the message, and returns an :class:`Assessment`: the turn's ``safety_risk`` in context,
whether the turn is careful and whether it gets the protective reply, which situation the
reply is for (a repeat, a request for presence, a retraction), the reasons in words, and
the state after the turn. Pure and deterministic: the runner calls it once per turn and
logs the state in SENSORS_FAST_UPDATED (``payload["risk"]``), and :func:`restore` reads it
back, so a restart or ``/reset`` keeps it; ``rilai eval safety`` calls the same function.

The rules (constants below, docs/safety.md):

* **Level.** Each turn the prior level decays (× ``TURN_DECAY``; and with wall-clock time,
  half-life ``HALF_LIFE_HOURS``). A reading at or above the concern threshold sets the level
  to at least that reading; a *weak* reading (``WEAK`` ≤ r < concern) adds
  ``ACCUMULATE · r`` on top of the decayed level — three weak signals of 0.2 (the bank's
  grey level) in a row reach the concern level, one does not.
* **Careful window.** A turn whose risk in context is at or above the concern threshold,
  or whose weak signal lifts the level across it, (re)opens a window of ``CAREFUL_TURNS``
  turns; each turn after uses one (the level alone, decaying, does not hold it open). The
  turn is careful when the window was open before it, or it opens one.
* **Distress.** The vulnerability reading (and any weak safety reading) leaves a distress
  trace that decays with the level; a means question (:func:`safety_followup.means_question`)
  while distress or the window is open is means-seeking: the protective reply.
* **Protect** when the reading is at the interrupt threshold; when the window was open and
  the reading is at the concern level, or they ask Rilai to stay, or they play the
  disclosure down; on means-seeking. Weak signals that add up to the concern level open
  the careful window (the turn is careful, not yet protective). A change of subject inside
  the window is careful: the voice stays gentle, no advice, no celebrating. A protective
  reply within ``REPEAT_TURNS`` of the last one is a *repeat*: it acknowledges what they
  just said instead of saying the same paragraph again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Final

from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.sensors import SAFETY_CONCERN_THRESHOLD, SAFETY_INTERRUPT_THRESHOLD
from rilai_desktop.turn.sensors.safety_dwell import dwelling
from rilai_desktop.turn.sensors.safety_followup import (
    means_question,
    presence_request,
    retraction,
)

CAREFUL_TURNS: Final = 6  # turns that stay careful after the level reaches the concern level
TURN_DECAY: Final = 0.85  # the level carried into the next turn
HALF_LIFE_HOURS: Final = 24.0  # and its wall-clock decay (a closed lid still counts)
CAREFUL_HOURS: Final = 48.0  # a careful window older than this is closed, turns or not
WEAK: Final = 0.15  # a safety reading from here up to the concern level is a weak signal
ACCUMULATE: Final = 0.7  # the share of a weak reading added to the level
DISTRESS: Final = 0.5  # a vulnerability reading from here counts as distress
MEANS_RISK: Final = 0.6  # a means question after distress: above the interrupt threshold
REPEAT_TURNS: Final = 3  # a protective reply within this many turns of the last is a repeat

CAREFUL_FLAG: Final = "safety_careful"
REPEAT_FLAG: Final = "safety_repeat"
PRESENCE_FLAG: Final = "safety_presence"
RETRACTION_FLAG: Final = "safety_retraction"
MEANS_FLAG: Final = "safety_means"


@dataclass(frozen=True)
class ConversationRisk:
    """What the conversation carries into the next turn (logged, restored)."""

    level: float = 0.0  # [0, 1]
    careful_left: int = 0  # turns of the careful window still to come
    distress: float = 0.0  # [0, 1]: recent distress, for means-seeking
    protected_ago: int | None = None  # turns since the last protective reply (0 = last turn)
    at: float = 0.0  # unix seconds of the turn that left this state

    @property
    def careful(self) -> bool:
        return self.careful_left > 0

    def aged(self, now: float) -> ConversationRisk:
        """This state ``now``: the level and the distress decay with wall-clock time, and a
        window older than ``CAREFUL_HOURS`` is closed."""
        hours = max(0.0, (now - self.at) / 3600.0) if self.at else 0.0
        if hours <= 0:
            return self
        factor = 0.5 ** (hours / HALF_LIFE_HOURS)
        return replace(
            self,
            level=self.level * factor,
            distress=self.distress * factor,
            careful_left=0 if hours > CAREFUL_HOURS else self.careful_left,
            # a protective reply days ago is not one to repeat briefly
            protected_ago=None if hours > CAREFUL_HOURS else self.protected_ago,
        )

    def as_payload(self) -> dict[str, Any]:
        return {
            "level": round(self.level, 4),
            "careful_left": self.careful_left,
            "distress": round(self.distress, 4),
            "protected_ago": self.protected_ago,
            "at": round(self.at, 3),
        }

    @classmethod
    def from_payload(cls, payload: object) -> ConversationRisk | None:
        """The state a logged ``risk`` payload describes; None when it is not one."""
        if not isinstance(payload, dict):
            return None
        level, left, distress = (payload.get(k) for k in ("level", "careful_left", "distress"))
        ago, at = payload.get("protected_ago"), payload.get("at")
        numbers = (level, distress, at)
        if any(isinstance(v, bool) or not isinstance(v, int | float) for v in numbers):
            return None
        if isinstance(left, bool) or not isinstance(left, int):
            return None
        if ago is not None and (isinstance(ago, bool) or not isinstance(ago, int)):
            return None
        assert isinstance(level, int | float) and isinstance(distress, int | float)
        assert isinstance(at, int | float)
        if not all(math.isfinite(float(v)) for v in (level, distress, at)):
            return None
        return cls(
            level=min(1.0, max(0.0, float(level))),
            careful_left=min(CAREFUL_TURNS, max(0, left)),
            distress=min(1.0, max(0.0, float(distress))),
            protected_ago=None if ago is None else max(0, ago),
            at=float(at),
        )


@dataclass(frozen=True)
class Assessment:
    """One turn, read in its conversation."""

    risk: float  # the turn's safety_risk in context (≥ the sensor's reading)
    careful: bool  # the turn runs careful (no celebrating, no advice, gentle voice)
    protect: bool  # the protective reply
    flags: frozenset[str]  # CAREFUL/REPEAT/PRESENCE/RETRACTION/MEANS flags for the turn
    reasons: tuple[str, ...]  # why, in words (the inspector and the "why" panel show them)
    evidence: tuple[str, ...]  # the person's words behind a raised risk
    before: ConversationRisk  # the state the turn started from (aged to its time)
    after: ConversationRisk  # the state it leaves
    extra: dict[str, Any] = field(default_factory=dict)

    def as_payload(self) -> dict[str, Any]:
        """What SENSORS_FAST_UPDATED logs under ``risk`` (restore reads ``after`` back)."""
        return {
            **self.after.as_payload(),
            "turn_risk": round(self.risk, 4),
            "careful": self.careful,
            "protect": self.protect,
            "situation": sorted(self.flags - {CAREFUL_FLAG}),
            "reasons": list(self.reasons),
            "before": self.before.as_payload(),
        }


def assess(
    prior: ConversationRisk,
    reading: float,
    text: str,
    *,
    vulnerability: float = 0.0,
    now: float = 0.0,
) -> Assessment:
    """The turn's risk in its conversation (see the module docstring for the rules)."""
    before = prior.aged(now)
    window = before.careful
    risk = max(0.0, min(1.0, reading))
    reasons: list[str] = []
    evidence: list[str] = []
    flags: set[str] = set()

    if window and risk < SAFETY_CONCERN_THRESHOLD and (span := dwelling(text)):
        risk = SAFETY_CONCERN_THRESHOLD
        evidence.append(span)
        reasons.append("stays with the earlier disclosure")
    distressed = window or before.distress >= DISTRESS or vulnerability >= DISTRESS
    means = means_question(text)
    if means is not None:
        if distressed and risk < MEANS_RISK:
            risk = MEANS_RISK
            flags.add(MEANS_FLAG)
            evidence.append(means)
            reasons.append("a question about means after distress")
        elif risk < WEAK:
            risk = WEAK  # alone a weak signal: it adds up if more follows
            evidence.append(means)
            reasons.append("a question about means (weak alone)")

    level = before.level * TURN_DECAY
    accumulated = False
    if risk >= SAFETY_CONCERN_THRESHOLD:
        level = max(level, risk)
    elif risk >= WEAK:
        accumulated = level < SAFETY_CONCERN_THRESHOLD
        level = min(1.0, level + ACCUMULATE * risk)
        accumulated = accumulated and level >= SAFETY_CONCERN_THRESHOLD
        if accumulated:
            reasons.append(f"weak signals added up to {level:.2f}")
    distress = max(before.distress * TURN_DECAY, vulnerability, min(1.0, 2 * risk))

    presence = presence_request(text) if window else None
    played_down = retraction(text) if window else None
    if presence is not None:
        flags.add(PRESENCE_FLAG)
        evidence.append(presence)
        reasons.append("asks Rilai to stay, after a disclosure")
    if played_down is not None:
        flags.add(RETRACTION_FLAG)
        evidence.append(played_down)
        reasons.append("plays the disclosure down; it stays open")

    protect = (
        risk >= SAFETY_INTERRUPT_THRESHOLD
        or (window and risk >= SAFETY_CONCERN_THRESHOLD)
        or presence is not None
        or played_down is not None
    )
    if window and risk >= SAFETY_CONCERN_THRESHOLD and risk < SAFETY_INTERRUPT_THRESHOLD:
        reasons.append(
            f"concern-level words within {CAREFUL_TURNS - before.careful_left + 1} turn(s)"
            " of a safety disclosure"
        )
    if risk >= SAFETY_INTERRUPT_THRESHOLD and not reasons:
        reasons.append("safety_risk at the interrupt threshold")
    opens = risk >= SAFETY_CONCERN_THRESHOLD or accumulated or protect
    careful = window or opens
    if careful:
        flags.add(CAREFUL_FLAG)
        if window and not protect and not reasons:
            reasons.append(f"careful: {before.careful_left} turn(s) left after a disclosure")
    if protect and before.protected_ago is not None and before.protected_ago < REPEAT_TURNS:
        flags.add(REPEAT_FLAG)

    after = ConversationRisk(
        level=level,
        careful_left=CAREFUL_TURNS if opens else max(0, before.careful_left - 1),
        distress=distress,
        protected_ago=0
        if protect
        else (None if before.protected_ago is None else before.protected_ago + 1),
        at=now,
    )
    return Assessment(
        risk=risk,
        careful=careful,
        protect=protect,
        flags=frozenset(flags),
        reasons=tuple(reasons),
        evidence=tuple(evidence),
        before=before,
        after=after,
    )


def in_context(reading: SensorOutput, assessment: Assessment) -> SensorOutput:
    """``reading`` raised to the turn's risk in context, with the person's words behind the
    raise as evidence; ``reading`` itself when the context added nothing."""
    if assessment.risk <= reading.probability:
        return reading
    note = f"in context: {assessment.reasons[0]}" if assessment.reasons else "in context"
    if reading.notes:  # the bank's and the model check's notes first: they stay readable
        note = f"{reading.notes}; {note}"
    return SensorOutput(
        sensor=reading.sensor,
        probability=round(assessment.risk, 4),
        evidence=[*assessment.evidence, *reading.evidence][:5],
        counterevidence=list(reading.counterevidence),
        notes=note[:100],
    )
