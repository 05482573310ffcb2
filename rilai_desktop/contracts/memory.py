"""Memory contracts (seed 000): candidates, episodic events, user facts."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AwareDatetime, Field

from rilai_desktop.contracts._base import Contract, utc_now

MemoryCandidateType = Literal["episodic", "user_fact", "goal", "session_note"]
UserFactCategory = Literal[
    "preference",
    "boundary",
    "communication_style",
    "relationship",
    "background",
    "goal",
    "trigger",
    "other",
]


class MemoryCandidate(Contract):
    """Something an agent thinks should be remembered; the memory system decides."""

    type: MemoryCandidateType = Field(description="What kind of memory")
    content: str = Field(description="What to remember")
    importance: float = Field(ge=0.0, le=1.0, description="How important (0-1)")
    source_agent: str = Field(description="Agent that proposed this")
    context: dict[str, Any] | None = Field(default=None, description="Additional context")


class EpisodicEvent(Contract):
    """A significant moment to remember: what happened, when, and how it felt."""

    id: str = Field(description="UUID")
    timestamp: AwareDatetime = Field(default_factory=utc_now, description="When this happened")
    summary: str = Field(max_length=500, description="What happened (max 500 chars)")
    emotions: list[str] = Field(default_factory=list, description="Emotions involved")
    participants: list[str] = Field(default_factory=list, description="Who was involved")
    tags: list[str] = Field(default_factory=list, description="Categorization tags")
    importance: float = Field(default=0.5, ge=0.0, le=1.0, description="How significant")
    turn_id: int = Field(default=0, description="Which turn this came from")
    session_id: str = Field(default="", description="Which session")


class UserFact(Contract):
    """A hypothesis about the user: preference, boundary, style, background..."""

    id: str = Field(description="UUID")
    fact: str = Field(max_length=300, description="The fact (max 300 chars)")
    category: UserFactCategory = Field(description="Fact category")
    confidence: float = Field(ge=0.0, le=1.0, description="How confident we are")
    source: str = Field(description="Where this came from (turn_id, inference, etc.)")
    first_observed: AwareDatetime = Field(default_factory=utc_now, description="First observed")
    last_confirmed: AwareDatetime = Field(default_factory=utc_now, description="Last confirmed")
    evidence_count: int = Field(default=1, description="How many times we've seen evidence")
