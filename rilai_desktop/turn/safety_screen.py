"""One turn's safety screening — the one path the turn runner and ``rilai eval safety`` share.

The fast sensors (rules, learned heads, the exemplar bank) read the message; the model
check (``safety_check.py``, when configured) reviews a grey-band ``safety_risk``; then the
conversation's risk state (``safety_state.assess``) reads the turn in its conversation and
the reading is raised to the risk in context. Nothing here logs: the runner emits what it
returns (SENSORS_FAST_UPDATED with ``risk``, SAFETY_INTERRUPT); an evaluation counts it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.safety_check import SafetyCheck
from rilai_desktop.turn.safety_state import Assessment, ConversationRisk, assess, in_context
from rilai_desktop.turn.sensors import FastSensors


@dataclass(frozen=True)
class Screened:
    readings: dict[str, SensorOutput]  # the nine readings, safety_risk in context
    assessment: Assessment


def screen_turn(
    sensors: FastSensors,
    check: SafetyCheck | None,
    text: str,
    history: Sequence[Mapping[str, Any]],
    risk: ConversationRisk,
    now: float,
    scope: Callable[[str], AbstractContextManager[None]] | None = None,
) -> Screened:
    """Read ``text`` (after ``history``) from the conversation state ``risk`` at ``now``."""
    readings = sensors.read(text, history)
    if check is not None and "safety_risk" in readings:
        with (scope or _no_scope)("safety_check"):
            readings["safety_risk"] = check.review(readings["safety_risk"], text, history)
    safety = readings.get("safety_risk")
    vulnerability = readings.get("vulnerability")
    assessment = assess(
        risk,
        safety.probability if safety else 0.0,
        text,
        vulnerability=vulnerability.probability if vulnerability else 0.0,
        now=now,
    )
    if safety is not None:
        readings["safety_risk"] = in_context(safety, assessment)
    return Screened(readings, assessment)


def _no_scope(_name: str) -> AbstractContextManager[None]:
    return nullcontext()
