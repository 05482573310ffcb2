"""Agent contracts (seed 000): outputs, manifests and claims."""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal, get_args

from pydantic import Field

from rilai_desktop.contracts._base import Contract
from rilai_desktop.contracts.memory import MemoryCandidate

# Seed 004's named knowledge bases (``rilai memory kb upsert`` fills them). An agent's
# manifest may ask recall to search some of them (``knowledge_bases:``); memory keeps the
# same names (memory/knowledge_bases.py KB_NAMES).
KnowledgeBaseName = Literal["kb_core", "kb_skills", "kb_1", "kb_2", "kb_3", "kb_4", "kb_5", "kb_6"]
KNOWLEDGE_BASES: Final[tuple[str, ...]] = get_args(KnowledgeBaseName)


class ClaimType(StrEnum):
    """Types of claims agents can make."""

    OBSERVATION = "observation"
    RECOMMENDATION = "recommendation"
    CONCERN = "concern"
    QUESTION = "question"


class Claim(Contract):
    """An atomic statement from an agent; the currency of deliberation."""

    id: str = Field(description="UUID for this claim")
    text: str = Field(max_length=200, description="Atomic statement, max 200 chars")
    type: ClaimType = Field(description="Claim type")
    source_agent: str = Field(description="Agent that made this claim")
    urgency: int = Field(ge=0, le=3, description="0=background, 3=must act now")
    confidence: int = Field(ge=0, le=3, description="0=uncertain, 3=certain")
    supports: list[str] = Field(default_factory=list, description="IDs of claims this supports")
    opposes: list[str] = Field(default_factory=list, description="IDs of claims this opposes")


class AgentOutput(Contract):
    """Structured output from an agent."""

    agent_id: str = Field(description="e.g., 'emotion.stress'")
    observation: str = Field(max_length=300, description="1-3 sentences the agent noticed")
    salience: float = Field(ge=0.0, le=1.0, description="Normalized urgency × confidence")
    urgency: int = Field(ge=0, le=3, description="0=background, 3=must act now")
    confidence: int = Field(ge=0, le=3, description="0=uncertain, 3=certain")
    claims: list[Claim] = Field(default_factory=list, description="Claims for deliberation")
    stance_delta: dict[str, float] | None = Field(
        default=None, description="Proposed stance changes (bounded ±0.15 by the reducer)"
    )
    memory_candidates: list[MemoryCandidate] | None = Field(
        default=None, description="Things worth remembering"
    )
    debug_trace: str | None = Field(default=None, description="Reasoning trace")
    processing_time_ms: int = Field(default=0, description="Time to generate this output")
    # What the small model actually chose (docs/agents.md, "Output"): observation and claims
    # above are composed from these by code. None on outputs that predate labels.
    label: str | None = Field(default=None, max_length=40, description="The chosen label")
    present: bool | None = Field(default=None, description="Does it show in this message")
    span: str | None = Field(
        default=None, max_length=120, description="A few words of the person's message"
    )

    @classmethod
    def quiet(cls, agent_id: str) -> AgentOutput:
        """A 'quiet' output for an agent that has nothing to say (or failed)."""
        return cls(
            agent_id=agent_id,
            observation="Quiet",
            salience=0.0,
            urgency=0,
            confidence=0,
            claims=[],
        )


class AgentPriority(StrEnum):
    """Agent scheduling priority."""

    ALWAYS_ON = "always_on"
    MONITOR = "monitor"
    NORMAL = "normal"


class AgentSafetyProfile(StrEnum):
    """What actions an agent can take."""

    READ_ONLY = "read_only"
    CAN_SUGGEST = "can_suggest"
    CAN_ACT = "can_act"


class AgentManifest(Contract):
    """Configuration for an agent, loaded from prompts/agents/{agency}/{agent}.yaml."""

    id: str = Field(description="e.g., 'emotion.stress'")
    display_name: str = Field(description="Human-readable name")
    description: str = Field(default="", description="What this agent does")
    inputs: list[str] = Field(description="Workspace slots this agent reads")
    outputs: list[str] = Field(description="What this agent can emit")
    cost_estimate: int = Field(default=500, description="Estimated tokens per call")
    cooldown: int = Field(default=30, description="Seconds before agent can fire again")
    priority: AgentPriority = Field(default=AgentPriority.NORMAL, description="Priority")
    safety_profile: AgentSafetyProfile = Field(
        default=AgentSafetyProfile.READ_ONLY, description="What actions agent can take"
    )
    prompt_template: str = Field(description="Filename in prompts/agents/{agency}/")
    version: int = Field(default=1, description="Manifest version")
    knowledge_bases: list[KnowledgeBaseName] = Field(
        default_factory=list,
        description="Ours: knowledge bases recall searches for this agent (input `knowledge`)",
    )

    @property
    def agency_id(self) -> str:
        """The agency, e.g. 'emotion' from 'emotion.stress'."""
        return self.id.split(".")[0]

    @property
    def agent_name(self) -> str:
        """The agent's own name, e.g. 'stress' from 'emotion.stress'."""
        return self.id.split(".")[-1]
