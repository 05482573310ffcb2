"""Every event kind, by lifecycle stage: seed 000's, seed 003's ``memory.*`` ones, and ours
(``TURN_ABORTED``, ``TURN_RETRACTED``, ``memory.item_updated``, ``memory.index_rebuilt``,
``memory.used``, ``memory.imported``) and issue 20's ``memory.entry_changed``,
``memory.switched``, ``memory.forgotten``, and issue 31's ``nudge_seen``.

Its own module so that ``events.py`` (the envelope) and ``payloads.py`` (a typed payload
per kind) can both import it without importing each other.
"""

from __future__ import annotations

from enum import StrEnum


class EventKind(StrEnum):
    """All event kinds, by lifecycle stage."""

    # turn lifecycle
    TURN_STARTED = "turn_started"
    TURN_STAGE_CHANGED = "turn_stage_changed"
    TURN_COMPLETED = "turn_completed"
    TURN_ABORTED = "turn_aborted"  # ours: a partial turn found on open
    TURN_RETRACTED = "turn_retracted"  # ours: regenerate / edit took a finished turn back
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
    MEMORY_IMPORTED = "memory.imported"  # ours: an export folder was imported (counts)
    MEMORY_USED = "memory.used"  # ours: the memory texts that reached the voice's prompt
    MEMORY_ENTRY_CHANGED = "memory.entry_changed"  # ours: the person edited/paused/pinned…
    MEMORY_SWITCHED = "memory.switched"  # ours: the global "memory paused" switch
    MEMORY_FORGOTTEN = "memory.forgotten"  # ours: forget everything (counts only)
    # observability
    MODEL_CALL_STARTED = "model_call_started"
    MODEL_CALL_COMPLETED = "model_call_completed"
    TIMING_CHECKPOINT = "timing_checkpoint"
    # daemon
    DAEMON_TICK = "daemon_tick"
    PROACTIVE_NUDGE = "proactive_nudge"
    NUDGE_SEEN = "nudge_seen"  # ours: check-ins a client showed when it opened
    MODULATORS_DECAYED = "modulators_decayed"
    # session
    SESSION_STARTED = "session_started"
    SESSION_ENDED = "session_ended"
    # error
    ERROR = "error"
    API_REQUEST = "api.request"  # ours: one request to the local API (never its body)
