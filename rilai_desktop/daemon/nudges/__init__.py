"""The nudge engine (docs/nudges.md): when a gentle check-in is right, and when to stay quiet.

``conditions`` find what might deserve a nudge, ``scoring`` and ``ladder`` say how loudly,
``controls``/``quiet_hours``/``cooldowns``/``budget`` (the gates) lower it, ``wording``
says it without ever sounding like surveillance, and ``engine.NudgeEngine`` ties them
together for the daemon. ``simulate`` plays a scripted day on a fake clock.
"""

from __future__ import annotations

from rilai_desktop.daemon.nudges.conditions import Candidate, evaluate
from rilai_desktop.daemon.nudges.controls import (
    ControlState,
    NudgeControls,
    NudgeInputError,
    parse_duration,
)
from rilai_desktop.daemon.nudges.engine import Decision, GateStep, NudgeEngine, RunReport
from rilai_desktop.daemon.nudges.ladder import LEVEL_COSTS, LEVEL_NAMES, level_for_score
from rilai_desktop.daemon.nudges.wording import FORBIDDEN_PHRASES, forbidden_phrase, word

__all__ = [
    "FORBIDDEN_PHRASES",
    "LEVEL_COSTS",
    "LEVEL_NAMES",
    "Candidate",
    "ControlState",
    "Decision",
    "GateStep",
    "NudgeControls",
    "NudgeEngine",
    "NudgeInputError",
    "RunReport",
    "evaluate",
    "forbidden_phrase",
    "level_for_score",
    "parse_duration",
    "word",
]
