"""Small fakes for the daemon's ports (no mocks of our own code)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.daemon.ports import AffectSnapshot, Nudge
from rilai_desktop.daemon.service import LiveStateBusy


class ListSink:
    """``contracts.EventSink`` that keeps events in a list (validated like the real log)."""

    def __init__(self, *, fail: set[EventKind] | None = None) -> None:
        self.events: list[EngineEvent] = []
        self.fail = fail or set()

    def append(
        self,
        session_id: str,
        turn_id: int,
        kind: EventKind | str,
        payload: Mapping[str, Any] | None = None,
    ) -> EngineEvent:
        if kind in self.fail:
            raise OSError(f"disk full while writing {EventKind(kind).value}")
        event = EngineEvent(
            session_id=session_id,
            turn_id=turn_id,
            seq=len(self.events),
            ts_monotonic=0.0,
            kind=kind,
            payload=dict(payload or {}),
        )
        self.events.append(event)
        return event

    def of(self, kind: EventKind) -> list[EngineEvent]:
        return [e for e in self.events if e.kind is kind]


@dataclass
class FakeState:
    """LiveState holding values in memory; ``apply_decay`` writes them back."""

    stance: dict[str, float]
    modulators: dict[str, float]
    updated_at: datetime
    running: bool = False
    busy_on_apply: bool = False
    fail_snapshot: bool = False
    fail_running: bool = False
    applied: list[datetime] = field(default_factory=list)

    def snapshot(self) -> AffectSnapshot:
        if self.fail_snapshot:
            raise ValueError("odd payload")
        return AffectSnapshot(dict(self.stance), dict(self.modulators), self.updated_at)

    def apply_decay(
        self, stance: Mapping[str, float], modulators: Mapping[str, float], at: datetime
    ) -> None:
        if self.busy_on_apply:
            raise LiveStateBusy("a turn started")
        self.stance, self.modulators, self.updated_at = dict(stance), dict(modulators), at
        self.applied.append(at)

    def turn_running(self) -> bool:
        if self.fail_running:
            raise RuntimeError("cannot tell")
        return self.running


@dataclass
class FakeNudges:
    """NudgeRunner: records when it ran; may fail or return a nudge."""

    fail: bool = False
    give: list[Nudge] = field(default_factory=list)
    runs: list[datetime] = field(default_factory=list)

    def run(self, now: datetime) -> list[Nudge]:
        self.runs.append(now)
        if self.fail:
            raise KeyError("conditions broke")
        return list(self.give)


@dataclass
class FakeMaintenance:
    fail: bool = False
    runs: list[datetime] = field(default_factory=list)

    def run(self, now: datetime) -> dict[str, Any]:
        self.runs.append(now)
        if self.fail:
            raise RuntimeError("backup folder vanished")
        return {"ok": True, "steps": {}}
