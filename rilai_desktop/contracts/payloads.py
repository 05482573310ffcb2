"""Typed payloads for every event kind whose payload seed 000 documents.

``validate_payload(kind, payload)`` is called whenever an EngineEvent is built, so the
documented fields are present and typed before an event is emitted. Extra keys are
allowed (a later stage may add detail), missing or mistyped documented keys are not.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rilai_desktop.contracts.event_kind import EventKind
from rilai_desktop.contracts.sensor import SENSOR_NAMES


class Payload(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)


class TurnStarted(Payload):
    user_input: str
    turn_id: int | None = Field(default=None, ge=0)  # optional: the envelope carries it


class TurnStageChanged(Payload):
    stage: str = Field(min_length=1)


class TurnCompleted(Payload):
    total_time_ms: int = Field(ge=0)
    response: str | None = None


class TurnAborted(Payload):
    reason: str
    last_seq: int = Field(ge=0)
    stage: str | None = None  # ours: where a cancelled turn stopped


class TurnRetracted(Payload):
    """Ours: the person took a finished turn back (regenerate the reply, or edit the
    message). Logged at turn 0 of the session, naming the turn; the turn's own events stay
    in the log, only the conversation projections leave it out."""

    turn_id: int = Field(ge=1)
    reason: Literal["regenerate", "edit"]


class SensorsFastUpdated(Payload):
    sensors: dict[str, float]

    @field_validator("sensors")
    @classmethod
    def _known_and_in_range(cls, value: dict[str, float]) -> dict[str, float]:
        for name, prob in value.items():
            if name not in SENSOR_NAMES:
                raise ValueError(f"unknown sensor {name!r}; known: {', '.join(SENSOR_NAMES)}")
            if not 0.0 <= prob <= 1.0:
                raise ValueError(f"sensor {name!r} probability {prob} outside [0, 1]")
        return value


class AgentStarted(Payload):
    agent_id: str = Field(min_length=1)


class AgentCompleted(Payload):
    agent_id: str = Field(min_length=1)
    observation: str
    salience: float = Field(ge=0.0, le=1.0)
    urgency: int = Field(ge=0, le=3)
    confidence: int = Field(ge=0, le=3)
    claims: list[dict[str, Any]]
    stance_delta: dict[str, float] | None = None
    processing_time_ms: int = Field(ge=0)


class AgentFailed(Payload):
    agent_id: str = Field(min_length=1)
    error: str


class WorkspacePatched(Payload):
    """No longer emitted (agents propose no workspace patch); kept so older logs read."""

    patch: dict[str, Any]


class StanceUpdated(Payload):
    delta: dict[str, float]
    current: dict[str, float]


class DelibRoundStarted(Payload):
    round: int = Field(ge=0)


class DelibRoundCompleted(Payload):
    round: int = Field(ge=0)
    consensus: float = Field(ge=0.0, le=1.0)
    active_claims: int = Field(ge=0)


class ConsensusUpdated(Payload):
    level: float = Field(ge=0.0, le=1.0)
    by_type: dict[str, float]


class CouncilDecisionMade(Payload):
    speak: bool
    urgency: str
    intent: str
    key_points: list[str]
    thinking: str | None = None


class VoiceRendered(Payload):
    text: str


class CriticEntry(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)
    critic: str
    passed: bool
    reason: str = ""


class CriticsUpdated(Payload):
    results: list[CriticEntry]


class SafetyInterrupt(Payload):
    reason: str
    sensor: str | None = None
    value: float | None = None


class KnowledgeHit(BaseModel):
    """One document recall found in a knowledge base (seed 004) for the turn."""

    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)
    kb: str = Field(min_length=1)
    id: str
    text: str
    score: float


class MemoryRetrieved(Payload):
    episodes: list[dict[str, Any]]
    user_facts: list[dict[str, Any]]
    open_threads: list[dict[str, Any]]
    # ours, both optional so older logs (without them) stay readable: the layer-2 items
    # recall ranked for the message, and the knowledge-base documents it found
    items: list[dict[str, Any]] = Field(default_factory=list)
    knowledge: list[KnowledgeHit] = Field(default_factory=list)


class MemoryCommitted(Payload):
    summary: dict[str, Any]


class ResourceStored(Payload):
    resource_id: str = Field(min_length=1)
    resource_type: str = Field(min_length=1)
    content_length: int = Field(ge=1)
    metadata_keys: list[str]


class ItemsExtracted(Payload):
    resource_id: str = Field(min_length=1)
    item_ids: list[str]
    item_count: int = Field(ge=0)
    categories: list[str]
    extraction_time_ms: float = Field(ge=0)


class CategoryCreated(Payload):
    category_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str


class CategoryConsolidated(Payload):
    category_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    item_count: int = Field(ge=0)
    content_length: int = Field(ge=0)
    consolidation_time_ms: float = Field(ge=0)


class RetrievalPerformed(Payload):
    query_hash: str = Field(min_length=64, max_length=64)
    mode: str
    result_count: int = Field(ge=0)
    search_time_ms: float = Field(ge=0)
    escalated: bool


class ResourceDeleted(Payload):
    resource_id: str = Field(min_length=1)
    item_ids: list[str]


class ItemDeleted(Payload):
    item_id: str = Field(min_length=1)


class ItemUpdated(Payload):
    item_id: str = Field(min_length=1)
    change: str = Field(min_length=1)  # reinforced | invalidated | edited | recategorised


class IndexRebuilt(Payload):
    reason: str = Field(min_length=1)
    item_count: int = Field(ge=0)
    rebuild_time_ms: float = Field(ge=0)


class ImportedRef(Payload):
    kind: Literal["item", "fact", "episode", "goal"]
    entry_id: str = Field(min_length=1)


class MemoryImported(Payload):
    """Ours: a memory export (docs/memory-export.md) was imported. Counts only, no text;
    ``pinned`` names the imported entries that came pinned, so replaying the log restores
    the pins with the rows the tables already hold."""

    format_version: int = Field(ge=1)
    merge: bool
    counts: dict[str, int]
    skipped: dict[str, int] = Field(default_factory=dict)
    pinned: list[ImportedRef] = Field(default_factory=list)


class UsedEntry(BaseModel):
    """One memory entry whose text is in the voice's prompt, as the prompt holds it."""

    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)
    kind: Literal["item", "fact", "episode", "goal"]
    entry_id: str  # "" where the memory that recalled it gave none (a fake)
    text: str = Field(min_length=1)


class UsedDocument(BaseModel):
    """One knowledge-base passage in the voice's prompt, as the prompt holds it."""

    model_config = ConfigDict(extra="allow", frozen=True, allow_inf_nan=False)
    kb: str = Field(min_length=1)
    id: str
    text: str = Field(min_length=1)


class MemoryUsed(Payload):
    """Ours: exactly the memory texts that reached this turn's voice prompt (and only
    those: what recall found and the notes dropped is not here). Logged once per turn
    when the voice is asked to speak; "Why did you say that?" reads it."""

    entries: list[UsedEntry]
    knowledge: list[UsedDocument] = Field(default_factory=list)


class EntryChanged(Payload):
    """The person changed one memory entry (issue 20). An edit carries the sha256 of the
    new text, never the text: the text lives in its table, and a forgotten one nowhere."""

    kind: Literal["item", "fact", "episode", "goal"]
    entry_id: str = Field(min_length=1)
    change: Literal["edited", "deleted", "paused", "resumed", "pinned", "unpinned", "not_relevant"]
    content_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")


class MemorySwitched(Payload):
    """The global "memory paused" switch: while paused, nothing is committed or recalled."""

    paused: bool


class MemoryForgotten(Payload):
    """Forget everything: how many rows (or files) each store lost; no text."""

    counts: dict[str, int]


class ModelCallCompleted(Payload):
    model: str = Field(min_length=1)
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    reasoning_tokens: int | None = Field(default=None, ge=0)
    latency_ms: int = Field(ge=0)


class DaemonTick(Payload):
    timestamp: float


class ProactiveNudge(Payload):
    reason: str
    suggestion: str
    context: dict[str, Any]
    level: int = Field(default=0, ge=0, le=4, description="ladder: L0 log … L4 notification")


class SeenNudge(Payload):
    """One PROACTIVE_NUDGE, named by its condition and decision time (``context.at``)."""

    condition: str = Field(min_length=1)
    at: str = Field(min_length=1, description="the nudge's decision time, ISO 8601 UTC")
    level: int = Field(ge=0, le=4)


class NudgeSeen(Payload):
    """Ours (issue 31): what a client showed the person when it opened — the check-ins
    that waited for the next open, and the daily digest of ``digest_day`` (a local date,
    ``YYYY-MM-DD``). Logged once the words are on screen, so the next open does not show
    them again (``app/checkins.py``)."""

    client: str = Field(min_length=1, max_length=32)
    nudges: list[SeenNudge]
    digest_day: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$")


class ModulatorsDecayed(Payload):
    """Ours: what the daemon's decay moved (``before``/``after``/``delta`` per dimension)."""

    elapsed_s: float = Field(ge=0)
    modulators: dict[str, dict[str, float]]
    stance: dict[str, dict[str, float]]


class ApiRequest(Payload):
    """Ours: one request to the local API (issue 29): what was asked, never the body."""

    method: str = Field(min_length=1, max_length=16)
    path: str = Field(max_length=500)
    status: int = Field(ge=100, le=599)
    ms: float = Field(ge=0)


class ErrorPayload(Payload):
    error: str
    traceback: str | None = None


PAYLOAD_MODELS: dict[EventKind, type[Payload]] = {
    EventKind.TURN_STARTED: TurnStarted,
    EventKind.TURN_STAGE_CHANGED: TurnStageChanged,
    EventKind.TURN_COMPLETED: TurnCompleted,
    EventKind.TURN_ABORTED: TurnAborted,
    EventKind.TURN_RETRACTED: TurnRetracted,
    EventKind.SENSORS_FAST_UPDATED: SensorsFastUpdated,
    EventKind.AGENT_STARTED: AgentStarted,
    EventKind.AGENT_COMPLETED: AgentCompleted,
    EventKind.AGENT_FAILED: AgentFailed,
    EventKind.WORKSPACE_PATCHED: WorkspacePatched,
    EventKind.STANCE_UPDATED: StanceUpdated,
    EventKind.DELIB_ROUND_STARTED: DelibRoundStarted,
    EventKind.DELIB_ROUND_COMPLETED: DelibRoundCompleted,
    EventKind.CONSENSUS_UPDATED: ConsensusUpdated,
    EventKind.COUNCIL_DECISION_MADE: CouncilDecisionMade,
    EventKind.VOICE_RENDERED: VoiceRendered,
    EventKind.CRITICS_UPDATED: CriticsUpdated,
    EventKind.SAFETY_INTERRUPT: SafetyInterrupt,
    EventKind.MEMORY_RETRIEVED: MemoryRetrieved,
    EventKind.MEMORY_COMMITTED: MemoryCommitted,
    EventKind.MEMORY_RESOURCE_STORED: ResourceStored,
    EventKind.MEMORY_ITEMS_EXTRACTED: ItemsExtracted,
    EventKind.MEMORY_CATEGORY_CREATED: CategoryCreated,
    EventKind.MEMORY_CATEGORY_CONSOLIDATED: CategoryConsolidated,
    EventKind.MEMORY_RETRIEVAL_PERFORMED: RetrievalPerformed,
    EventKind.MEMORY_RESOURCE_DELETED: ResourceDeleted,
    EventKind.MEMORY_ITEM_DELETED: ItemDeleted,
    EventKind.MEMORY_ITEM_UPDATED: ItemUpdated,
    EventKind.MEMORY_INDEX_REBUILT: IndexRebuilt,
    EventKind.MEMORY_IMPORTED: MemoryImported,
    EventKind.MEMORY_USED: MemoryUsed,
    EventKind.MEMORY_ENTRY_CHANGED: EntryChanged,
    EventKind.MEMORY_SWITCHED: MemorySwitched,
    EventKind.MEMORY_FORGOTTEN: MemoryForgotten,
    EventKind.MODEL_CALL_COMPLETED: ModelCallCompleted,
    EventKind.DAEMON_TICK: DaemonTick,
    EventKind.PROACTIVE_NUDGE: ProactiveNudge,
    EventKind.NUDGE_SEEN: NudgeSeen,
    EventKind.MODULATORS_DECAYED: ModulatorsDecayed,
    EventKind.ERROR: ErrorPayload,
    EventKind.API_REQUEST: ApiRequest,
}


class InvalidPayload(ValueError):
    """Raised (inside pydantic validation) when a payload does not match its kind."""


def validate_payload(kind: EventKind, payload: dict[str, Any]) -> None:
    """Check ``payload`` against the documented model for ``kind`` (if one exists)."""
    model = PAYLOAD_MODELS.get(kind)
    if model is None:
        return
    try:
        model.model_validate(payload)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<payload>'}: {err['msg']}"
            for err in exc.errors()
        )
        raise InvalidPayload(f"payload for {kind.value} is invalid: {problems}") from None
