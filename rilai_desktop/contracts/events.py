"""The event envelope and every event kind: the backbone of the event-sourced turn.

Seed 000 defines the kinds, seed 003 the ``memory.*`` ones. Ours: ``TURN_ABORTED`` (a turn
that never reached TURN_COMPLETED, recognised when the log is opened),
``memory.item_updated`` and ``memory.index_rebuilt``. Each kind whose payload seed 000
documents has a typed payload model in ``payloads.py``; constructing an EngineEvent
validates its payload against that model, so an event that reaches the log is well-formed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from rilai_desktop.contracts._base import utc_now


class EventKind(StrEnum):
    """All event kinds, by lifecycle stage."""

    # turn lifecycle
    TURN_STARTED = "turn_started"
    TURN_STAGE_CHANGED = "turn_stage_changed"
    TURN_COMPLETED = "turn_completed"
    TURN_ABORTED = "turn_aborted"  # ours: a partial turn found on open
    # sensors
    SENSORS_FAST_UPDATED = "sensors_fast_updated"
    SENSORS_ENSEMBLE_UPDATED = "sensors_ensemble_updated"
    # agents / agencies
    AGENT_STARTED = "agent_started"
    AGENT_COMPLETED = "agent_completed"
    AGENT_FAILED = "agent_failed"
    WAVE_STARTED = "wave_started"
    WAVE_COMPLETED = "wave_completed"
    # workspace
    WORKSPACE_PATCHED = "workspace_patched"
    STANCE_UPDATED = "stance_updated"
    MODULATORS_UPDATED = "modulators_updated"
    # deliberation
    DELIB_ROUND_STARTED = "delib_round_started"
    DELIB_ROUND_COMPLETED = "delib_round_completed"
    CONSENSUS_UPDATED = "consensus_updated"
    # council + voice
    COUNCIL_DECISION_MADE = "council_decision_made"
    VOICE_RENDERED = "voice_rendered"
    # critics + safety
    CRITICS_UPDATED = "critics_updated"
    SAFETY_INTERRUPT = "safety_interrupt"
    # memory
    MEMORY_RETRIEVED = "memory_retrieved"
    MEMORY_CANDIDATES_PROPOSED = "memory_candidates_proposed"
    MEMORY_COMMITTED = "memory_committed"
    # memory store (seed 003's MemoryEventType values; the last two are ours)
    MEMORY_RESOURCE_STORED = "memory.resource_stored"
    MEMORY_ITEMS_EXTRACTED = "memory.items_extracted"
    MEMORY_CATEGORY_CREATED = "memory.category_created"
    MEMORY_CATEGORY_CONSOLIDATED = "memory.category_consolidated"
    MEMORY_RETRIEVAL_PERFORMED = "memory.retrieval_performed"
    MEMORY_RESOURCE_DELETED = "memory.resource_deleted"
    MEMORY_ITEM_DELETED = "memory.item_deleted"
    MEMORY_ITEM_UPDATED = "memory.item_updated"  # ours: edited, reinforced or invalidated
    MEMORY_INDEX_REBUILT = "memory.index_rebuilt"  # ours: the FAISS index was rebuilt
    # observability
    MODEL_CALL_STARTED = "model_call_started"
    MODEL_CALL_COMPLETED = "model_call_completed"
    TIMING_CHECKPOINT = "timing_checkpoint"
    # daemon
    DAEMON_TICK = "daemon_tick"
    PROACTIVE_NUDGE = "proactive_nudge"
    MODULATORS_DECAYED = "modulators_decayed"
    # session
    SESSION_STARTED = "session_started"
    SESSION_ENDED = "session_ended"
    # error
    ERROR = "error"


class EngineEvent(BaseModel):
    """Immutable event envelope, ordered by (session_id, turn_id, seq).

    ``turn_id`` is 0 for daemon events; ``seq`` increases within a turn and is assigned by
    the event log; ``ts_monotonic`` is ``time.monotonic()`` for durations; ``ts_wall`` is a
    timezone-aware UTC wall-clock time for display.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    session_id: str = Field(min_length=1, description="Session identifier (UUID)")
    turn_id: int = Field(ge=0, description="Turn number (0 for daemon events)")
    seq: int = Field(ge=0, description="Sequence number within turn")
    ts_monotonic: float = Field(description="time.monotonic() timestamp")
    ts_wall: AwareDatetime = Field(
        default_factory=utc_now, description="Wall clock timestamp (UTC)"
    )
    kind: EventKind = Field(description="Event type")
    payload: dict[str, Any] = Field(default_factory=dict, description="Event-specific data")
    schema_version: int = Field(default=1, ge=1, description="Schema version for migrations")

    @model_validator(mode="after")
    def _payload_matches_kind(self) -> EngineEvent:
        from rilai_desktop.contracts.payloads import validate_payload

        validate_payload(self.kind, self.payload)
        return self
