"""Council contracts (seed 000): the decision, the speech act, voice and critics.

``INTENTS`` are the speech acts the council may choose (``meta`` only by its rules, never
by the model); the voice has a line of guidance for each.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from rilai_desktop.contracts._base import Contract

INTENTS: Final[tuple[str, ...]] = (
    "witness",
    "guide",
    "clarify",
    "protect",
    "celebrate",
    "observe",
    "meta",
)


class SpeechAct(Contract):
    """What to say and how, before it is rendered to natural language."""

    intent: str = Field(
        description="witness, guide, clarify, protect, celebrate, observe (and meta)"
    )
    key_points: list[str] = Field(default_factory=list, description="Main points to convey")
    tone: str = Field(default="warm", description="warm, concerned, playful, serious, ...")
    do_not: list[str] = Field(default_factory=list, description="Things to avoid")
    asks_user: list[str] | None = Field(default=None, description="Questions to ask user")


def _default_speech_act() -> SpeechAct:
    return SpeechAct(intent="observe")


class CouncilDecision(Contract):
    """Whether to speak this turn, and what to say."""

    speak: bool = Field(description="Whether to generate a response")
    urgency: Literal["low", "medium", "high", "critical"] = Field(default="medium")
    speech_act: SpeechAct = Field(default_factory=_default_speech_act)
    needs_clarification: str | None = Field(default=None)
    thinking: str | None = Field(default=None, description="Reasoning trace")
    deliberation_rounds: int = Field(default=0)
    final_consensus: float = Field(default=0.0, ge=0.0, le=1.0)


class VoiceResult(Contract):
    """The natural-language response rendered from a speech act."""

    text: str = Field(description="The response text")
    processing_time_ms: int = Field(default=0)
    model_used: str = Field(default="")


class CriticResult(Contract):
    """Result from a post-generation critic."""

    critic: str = Field(description="Critic name")
    passed: bool = Field(description="Whether validation passed")
    reason: str = Field(default="", description="Explanation if failed")
    severity: Literal["info", "warning", "error", "critical"] = Field(default="info")
    suggestions: list[str] = Field(default_factory=list)
