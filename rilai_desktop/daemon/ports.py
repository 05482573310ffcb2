"""The daemon's ports: what it reads and writes, as small Protocols (fakes in tests).

The daemon (``daemon/``) never opens the database, a model or the FAISS index itself: the
composition root (``app/build.py``) hands it adapters for these ports and for the shared
``contracts.EventSink`` (where its events go) and ``contracts.clock.Clock``. Everything the daemon
does is a function of an explicit ``now`` from a ``contracts.clock.Clock``, so a fake clock can play
a whole day in milliseconds and "8 hours asleep" is one catch-up computation.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from rilai_desktop.contracts import EngineEvent, EventKind

SessionPicker = Callable[[], str]
"""Which session a daemon event (turn_id 0) goes to, asked at each write: the app's adapter
answers the log's latest session or the shell's own (``LogEventSink.session_id``)."""


def own_session() -> SessionPicker:
    """A picker that always answers one fresh uuid4 session (no log to resume)."""
    sid = str(uuid.uuid4())
    return lambda: sid


class EventReader(Protocol):
    """The read side of the event log the daemon needs (``EventLog`` satisfies it)."""

    def events(
        self,
        *,
        session_id: str | None = None,
        kind: EventKind | list[EventKind] | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[EngineEvent]: ...


@dataclass(frozen=True)
class AffectSnapshot:
    """Rilai's stance and modulators, and the wall time they were last set or decayed."""

    stance: dict[str, float]
    modulators: dict[str, float]
    updated_at: datetime


class LiveState(Protocol):
    """The live stance/modulators: in the app, the running TurnRunner's session; headless,
    a projection of the event log."""

    def snapshot(self) -> AffectSnapshot: ...

    def apply_decay(
        self, stance: Mapping[str, float], modulators: Mapping[str, float], at: datetime
    ) -> None: ...

    def turn_running(self) -> bool: ...


@dataclass(frozen=True)
class ThreadFact:
    """An open goal or thread from memory, as the nudge conditions see it."""

    id: str
    title: str
    kind: str
    deadline: datetime | None
    updated_at: datetime | None = None


@dataclass(frozen=True)
class NudgeFacts:
    """Everything the nudge conditions read, gathered once per evaluation."""

    now: datetime
    stance: dict[str, float]
    modulators: dict[str, float]
    last_user_message_at: datetime | None
    session_started_at: datetime | None
    turns_this_session: int
    turn_running: bool
    open_threads: list[ThreadFact] = field(default_factory=list)
    rupture_unresolved: bool = False
    last_strain: float = 0.0  # strain at the last user message (before any decay)


class FactsSource(Protocol):
    def facts(self, now: datetime) -> NudgeFacts: ...


@dataclass(frozen=True)
class Nudge:
    """A nudge that passed every gate, worded and ready to deliver."""

    condition: str
    reason: str
    suggestion: str
    level: int
    context: dict[str, Any]
    at: datetime


@runtime_checkable
class Delivery(Protocol):
    """Shows a nudge to the person: the console now, the tray in the desktop window."""

    name: str

    def deliver(self, nudge: Nudge) -> bool: ...


class MaintenanceTasks(Protocol):
    """Housekeeping on the real stores; each returns what it did (counts, paths)."""

    def delete_expired_contexts(self, now: datetime) -> int: ...

    def cleanup_old_daily(self, retention_days: int) -> int: ...

    def apply_resource_retention(self, now: datetime, retention_days: int) -> int: ...

    def consolidate_pending(self) -> list[str]: ...

    def snapshot_index(self, dest: Path) -> Path | None: ...

    def optimize_database(self) -> None: ...

    def backup_database(self, dest_dir: Path, keep: int) -> Path: ...


class NudgeRunner(Protocol):
    """The nudge engine as the scheduler sees it: evaluate at ``now``, emit and deliver what
    passes every gate, and return it."""

    def run(self, now: datetime) -> list[Nudge]: ...


class MaintenanceRunner(Protocol):
    """One maintenance pass (the scheduler calls it every ``daemon.maintenance_hours``)."""

    def run(self, now: datetime) -> dict[str, Any]: ...
