"""The state one turn carries from stage to stage, and the small types stages share.

Stages are plain functions or small classes that read a ``TurnState`` and return their
result; the ``TurnRunner`` (``runner.py``) writes results back, emits the events and times
each stage. Nothing here does I/O.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rilai_desktop.contracts import (
    AgentOutput,
    Claim,
    CouncilDecision,
    CriticResult,
    EventKind,
    GlobalModulators,
    SensorOutput,
    StanceVector,
)
from rilai_desktop.turn.ports import Recall
from rilai_desktop.turn.safety_state import Assessment
from rilai_desktop.turn.understanding.model import IntentReading

# emit(kind, payload): append an event for the current turn to the log, then publish it.
Emit = Callable[[EventKind, Mapping[str, Any]], None]


@dataclass(frozen=True)
class VoiceDelta:
    """A piece of the reply as the voice model streams it (published, not logged).

    ``reset`` marks the start of a regenerated reply: a consumer clears what it showed.
    """

    session_id: str
    turn_id: int
    text: str
    reset: bool = False


@dataclass(frozen=True)
class RoundResult:
    """One deliberation round."""

    round: int
    consensus: float  # [0, 1]
    by_type: dict[str, float]  # consensus per claim type
    active_claims: int
    contested: list[str]  # ids of contested claims after this round
    followups: list[str] = field(default_factory=list)  # agent ids asked a follow-up
    exit_reason: str = ""  # "consensus>=0.9", "consensus>=0.7 and nothing contested", ...


@dataclass
class TurnState:
    session_id: str
    turn_id: int
    user_text: str
    history: list[dict[str, Any]] = field(default_factory=list)  # [{role, content}], oldest first
    started: float = field(default_factory=time.monotonic)
    sensors: dict[str, SensorOutput] = field(default_factory=dict)
    recall: Recall = field(default_factory=Recall)
    stance: StanceVector = field(default_factory=StanceVector)
    modulators: GlobalModulators = field(default_factory=GlobalModulators)
    outputs: list[AgentOutput] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)  # active claims after the reducer
    # as they were before the agents' outputs were reduced in (influence.py replays without)
    stance_before_agents: StanceVector | None = None
    modulators_before_agents: GlobalModulators | None = None
    rounds: list[RoundResult] = field(default_factory=list)
    consensus: float = 1.0
    decision: CouncilDecision | None = None
    decision_reasons: list[str] = field(default_factory=list)
    agent_influence: dict[str, Any] = field(default_factory=dict)  # influence.py
    readings: list[str] = field(default_factory=list)  # the reader's facts (agents/reading.py)
    not_wanted: str = ""  # what they said no to, in their words (agents/reading.py)
    reply: str = ""
    critics: list[CriticResult] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)  # prompt_injection, safety_interrupt, ...
    safety: Assessment | None = None  # the turn read in its conversation (safety_state.py)
    intent_reading: IntentReading | None = None  # the understanding model's (turn/understanding)
    stage_ms: dict[str, float] = field(default_factory=dict)
    tokens: dict[str, dict[str, int]] = field(default_factory=dict)  # stage -> counts

    def sensor(self, name: str) -> float:
        """A sensor's probability (0.0 before sensing or for an unknown name)."""
        reading = self.sensors.get(name)
        return 0.0 if reading is None else reading.probability

    def add_tokens(self, stage: str, prompt: int, cached: int, completion: int) -> None:
        counts = self.tokens.setdefault(stage, {"prompt": 0, "cached": 0, "completion": 0})
        counts["prompt"] += prompt
        counts["cached"] += cached
        counts["completion"] += completion
