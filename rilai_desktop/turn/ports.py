"""What the turn needs from the rest of the app, as structural types.

``turn/`` imports no sqlite3, faiss, torch or llama_cpp (import-linter): the composition
root passes the EventLog, the model router and a memory adapter that satisfy these.
Tests pass a real EventLog on a temporary file, ``ScriptedLLM`` and ``InMemoryTurnMemory``
(``turn/fakes.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from rilai_desktop.contracts import EngineEvent, EventSink, MemoryCandidate
from rilai_desktop.contracts.llm import LLM


class EventStore(EventSink, Protocol):
    """Where every turn event goes first (the append-only event log): the shared
    ``contracts.EventSink`` plus the reads a turn needs."""

    def last_turn_id(self, session_id: str | None = None) -> int: ...

    def start_turn(self, session_id: str, payload: Mapping[str, Any]) -> EngineEvent:
        """TURN_STARTED for the session's next turn id, taken atomically (two processes
        on one conversation never share a turn)."""
        ...

    def latest_session_id(self) -> str | None: ...

    def events(self, *args: Any, **kwargs: Any) -> list[EngineEvent]: ...


class Models(Protocol):
    """Role → model (the ModelRouter). Roles: agents, council, voice, escalation, ..."""

    def for_role(self, role: str, replica: int = 0) -> LLM:
        """``replica`` > 0: another instance of the same model, for calls in parallel."""
        ...


@dataclass(frozen=True)
class Recall:
    """What memory hands a turn (stage 2)."""

    episodes: list[dict[str, Any]] = field(default_factory=list)
    user_facts: list[dict[str, Any]] = field(default_factory=list)
    open_threads: list[dict[str, Any]] = field(default_factory=list)
    # relevant layer-2 items: {"item_id", "content", "category", "score", "source_turn_ids"}
    items: list[dict[str, Any]] = field(default_factory=list)
    # documents found in the knowledge bases the agents' manifests ask for (seed 004):
    # {"kb", "id", "text", "score"}, best first, at most a few
    knowledge: list[dict[str, Any]] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (
            self.episodes or self.user_facts or self.open_threads or self.items or self.knowledge
        )


@dataclass(frozen=True)
class CommitPlan:
    """What a turn asks memory to keep (stage 8). One transaction, all or nothing."""

    session_id: str
    turn_id: int
    user_text: str  # "" when the text must not be stored (prompt injection)
    reply: str
    candidates: Sequence[MemoryCandidate]  # episodes, user facts, goals/threads
    extract_items: bool  # run the memory extractor over the user's text
    # what the turn produced, for the context store and the day's journal (seed 002):
    # the agents' outputs, claims, council decision, critics, sensors; when it started
    # (wall clock, UTC) and how long it took until the commit
    artefacts: Mapping[str, Any] = field(default_factory=dict)
    started_at: datetime | None = None
    duration_ms: float = 0.0


class TurnMemory(Protocol):
    """The memory system, as the turn sees it."""

    def recall(self, query: str, *, k: int = 5, knowledge_bases: Sequence[str] = ()) -> Recall:
        """What memory holds for ``query``; ``knowledge_bases``: the knowledge bases to
        search too (the ones the agents' manifests ask for; none: no such search)."""
        ...

    def commit(self, plan: CommitPlan) -> dict[str, Any]: ...
