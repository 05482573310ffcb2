"""The event envelope: the backbone of the event-sourced turn (the kinds are in
``event_kind.py``).

Each kind whose payload seed 000
documents has a typed payload model in ``payloads.py``; constructing an EngineEvent
validates its payload against that model, so an event that reaches the log is well-formed.
"""

from __future__ import annotations

from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from rilai_desktop.contracts._base import utc_now
from rilai_desktop.contracts.event_kind import EventKind
from rilai_desktop.contracts.payloads import validate_payload

__all__ = ["EngineEvent", "EventKind"]


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
        validate_payload(self.kind, self.payload)
        return self
