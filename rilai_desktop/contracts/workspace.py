"""Workspace contracts (seed 000): the blackboard, the stance vector, the modulators."""

from __future__ import annotations

import time
from typing import Any, Final

from pydantic import AwareDatetime, Field

from rilai_desktop.contracts._base import Contract, utc_now

STANCE_DIMENSIONS: Final[tuple[str, ...]] = (
    "valence",
    "arousal",
    "control",
    "certainty",
    "safety",
    "closeness",
    "curiosity",
    "strain",
)
MODULATOR_NAMES: Final[tuple[str, ...]] = ("arousal", "fatigue", "time_pressure", "social_risk")


class StanceVector(Contract):
    """Affective state for response modulation (PAD plus cognitive-social dimensions).

    Not a claim of human emotion: an internal modulation state. It changes only through
    the reducer (leaky integration, α = 0.25, each delta clamped to ±0.15).
    """

    valence: float = Field(default=0.0, ge=-1.0, le=1.0, description="unpleasant → pleasant")
    arousal: float = Field(default=0.3, ge=0.0, le=1.0, description="calm → activated")
    control: float = Field(default=0.5, ge=0.0, le=1.0, description="helpless → dominant")
    certainty: float = Field(default=0.5, ge=0.0, le=1.0, description="confused → clear")
    safety: float = Field(default=0.7, ge=0.0, le=1.0, description="threatened → secure")
    closeness: float = Field(default=0.3, ge=0.0, le=1.0, description="distant → connected")
    curiosity: float = Field(default=0.5, ge=0.0, le=1.0, description="saturated → wondering")
    strain: float = Field(default=0.0, ge=0.0, le=1.0, description="ease → overload")

    turn_id: int = Field(default=0, description="Last update turn")
    last_update_ts: float = Field(default_factory=time.time, description="Last update (unix)")
    notes: list[str] = Field(default_factory=list, max_length=6, description="Style notes")

    def to_dict(self) -> dict[str, float]:
        """The eight dimensions as a dict."""
        return {name: float(getattr(self, name)) for name in STANCE_DIMENSIONS}

    @property
    def readiness_to_speak(self) -> float:
        """How ready to generate a response."""
        return (self.certainty + self.control) / 2

    @property
    def advice_suppression(self) -> float:
        """How much to suppress unsolicited advice (low certainty/safety, high strain)."""
        return max(0.0, 0.5 - self.certainty + (1 - self.safety) + self.strain) / 2

    @property
    def warmth_level(self) -> float:
        """Tone warmth."""
        return (self.closeness + max(0.0, self.valence)) / 2


class GlobalModulators(Contract):
    """System-wide affective signals that influence scheduling; they decay to baseline."""

    arousal: float = Field(default=0.3, ge=0.0, le=1.0, description="calm → activated")
    fatigue: float = Field(default=0.0, ge=0.0, le=1.0, description="rested → exhausted")
    time_pressure: float = Field(default=0.0, ge=0.0, le=1.0, description="relaxed → urgent")
    social_risk: float = Field(default=0.0, ge=0.0, le=1.0, description="safe → high stakes")

    last_update: AwareDatetime = Field(default_factory=utc_now, description="Last update")
    source_agents: dict[str, str] = Field(
        default_factory=dict, description="Which agent last updated each modulator"
    )

    def decay(self, factor: float = 0.9, baseline: float = 0.3) -> bool:
        """Decay every modulator toward its baseline (arousal → baseline, others → 0).

        Returns True if any modulator moved by more than 0.01.
        """
        changed = False
        for name in MODULATOR_NAMES:
            current = float(getattr(self, name))
            target = baseline if name == "arousal" else 0.0
            new_value = target + (current - target) * factor
            if abs(new_value - current) > 0.01:
                changed = True
            setattr(self, name, new_value)
        self.last_update = utc_now()
        return changed

    def to_dict(self) -> dict[str, float]:
        """The four modulators as a dict."""
        return {name: float(getattr(self, name)) for name in MODULATOR_NAMES}


class Goal(Contract):
    """An open goal/thread being tracked."""

    id: str = Field(description="UUID")
    text: str = Field(description="Goal description")
    created_at: AwareDatetime = Field(default_factory=utc_now)
    deadline: float | None = Field(default=None, description="Unix timestamp deadline")
    priority: int = Field(default=1, ge=0, le=3, description="0=low, 3=critical")
    status: str = Field(default="open", description="open, in_progress, completed, abandoned")


class WorkspaceState(Contract):
    """The global workspace (blackboard): the slots agents read (a manifest's ``inputs``
    name them) and what the turn's later stages set. Agents propose no patches to it:
    they answer with labels and code composes their claims (docs/agents.md)."""

    # context slots (read-only for agents)
    user_message: str = Field(default="", description="Current user input")
    conversation_history: list[dict[str, Any]] = Field(
        default_factory=list, description="Recent messages [{role, content, timestamp}]"
    )
    retrieved_episodes: list[dict[str, Any]] = Field(default_factory=list)
    user_facts: list[dict[str, Any]] = Field(default_factory=list)
    open_threads: list[Goal] = Field(default_factory=list)
    # ours: what recall found in the knowledge bases the manifests ask for
    knowledge: list[dict[str, Any]] = Field(default_factory=list)

    # live state (updated by the reducer)
    stance: StanceVector = Field(default_factory=StanceVector)
    modulators: GlobalModulators = Field(default_factory=GlobalModulators)
    active_claims: list[dict[str, Any]] = Field(default_factory=list)
    consensus_level: float = Field(default=0.0, ge=0.0, le=1.0)

    # decision slots (set by the council)
    current_goal: str | None = Field(default=None, description="Current response intent")
    constraints: list[str] = Field(default_factory=list, description="Things to avoid")
    pending_asks: list[str] = Field(default_factory=list, description="Questions to ask")
    current_response: str | None = Field(default=None, description="Generated response")

    # metadata
    last_user_message_time: float | None = Field(default=None)
    turn_id: int = Field(default=0, description="Current turn number")
