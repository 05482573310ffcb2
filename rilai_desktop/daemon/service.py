"""The daemon's jobs as plain methods: ``tick(now)`` and ``maintenance_pass(now)``.

The scheduler (scheduler.py) only decides WHEN; this decides WHAT, so every behaviour is
testable with a FakeClock and small fakes, no threads. One tick:

1. DAEMON_TICK {timestamp} — the heartbeat (turn_id 0, the latest session);
2. decay — skipped while a turn runs (the turn owns the live state; the reference time is
   not advanced, so no time is lost: the next tick decays by the whole elapsed span);
   otherwise the stance/modulators decay by the wall-clock time since they were last set
   or decayed; when something moved by at least ``epsilon`` the live state takes the new
   values and MODULATORS_DECAYED records before/after/delta;
3. nudges — ``nudges.run(now)`` (the engine emits PROACTIVE_NUDGE and delivers), also
   skipped while a turn runs (never interrupt a turn; the next tick looks again).

Each step is guarded on its own: an exception is logged, emitted as an ERROR event and
the tick goes on, so a bad payload or a broken adapter never kills the job.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from rilai_desktop.config import Settings
from rilai_desktop.contracts import EngineEvent, EventKind, EventSink
from rilai_desktop.contracts.clock import Clock, as_utc
from rilai_desktop.daemon.decay import EPSILON, DecayResult, HalfLives, decay_affect
from rilai_desktop.daemon.ports import (
    LiveState,
    MaintenanceRunner,
    Nudge,
    NudgeRunner,
    SessionPicker,
)

log = logging.getLogger(__name__)
T = TypeVar("T")


class LiveStateBusy(Exception):
    """Raised by ``LiveState.apply_decay`` when a turn took the state since the snapshot:
    the daemon drops this decay (emits nothing) and the next tick recomputes it."""


@dataclass
class TickResult:
    """What one tick did (the CLI, the bench and the tests read it)."""

    at: datetime
    tick: EngineEvent | None = None
    decay: DecayResult | None = None  # the computed decay, when one was computed
    decayed: EngineEvent | None = None  # the MODULATORS_DECAYED event, when emitted
    skipped: str | None = None  # why no decay was emitted: turn running, below epsilon, …
    nudges: list[Nudge] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Daemon:
    """Tick, decay, nudges and maintenance over the ports (no store, no model, no thread)."""

    def __init__(
        self,
        clock: Clock,
        sink: EventSink,
        state: LiveState,
        settings: Settings,
        nudges: NudgeRunner | None = None,
        maintenance: MaintenanceRunner | None = None,
        *,
        session_id: SessionPicker,
        epsilon: float = EPSILON,
    ) -> None:
        """``session_id`` picks the session of each event (``LogEventSink.session_id``)."""
        self.clock = clock
        self.sink = sink
        self.session_id = session_id
        self.state = state
        self.settings = settings
        self.nudges = nudges
        self.maintenance = maintenance
        self.epsilon = epsilon
        self.half_lives = HalfLives.from_settings(settings.daemon)
        self.ticks = 0
        self._lock = threading.Lock()  # one tick at a time (scheduler thread vs a caller)
        self._closers: list[Callable[[], None]] = []

    def on_close(self, closer: Callable[[], None]) -> None:
        """Something to release with the daemon (a lazily opened memory, say)."""
        self._closers.append(closer)

    def close(self) -> None:
        """Release what the composition root attached; the ports themselves stay open."""
        closers, self._closers = self._closers, []
        for closer in reversed(closers):
            try:
                closer()
            except Exception:
                log.exception("closing a daemon resource failed")

    # ── the tick ───────────────────────────────────────────────────────────
    def tick(self, now: datetime | None = None) -> TickResult:
        """One heartbeat at ``now`` (default: the clock). Never raises an Exception."""
        with self._lock:
            at = as_utc(now) if now is not None else self.clock.now()
            result = TickResult(at=at)
            result.tick = self._guard(
                result,
                "tick",
                lambda: self._emit(EventKind.DAEMON_TICK, {"timestamp": at.timestamp()}),
            )
            self.ticks += 1
            busy = self._guard(result, "turn_running", self.state.turn_running)
            if busy is None:  # could not tell: be conservative, as if a turn ran
                busy = True
            if busy:
                result.skipped = "turn running"
            else:
                self._guard(result, "decay", lambda: self._decay(result, at))
                if self.nudges is not None:
                    nudges = self.nudges
                    found = self._guard(result, "nudges", lambda: nudges.run(at))
                    result.nudges = list(found or [])
            return result

    def _decay(self, result: TickResult, at: datetime) -> None:
        snap = self.state.snapshot()
        elapsed = (at - as_utc(snap.updated_at)).total_seconds()
        if elapsed <= 0:
            result.skipped = "clock behind the last update"
            return
        decay = decay_affect(snap.stance, snap.modulators, elapsed, self.half_lives)
        result.decay = decay
        if not decay.moved(self.epsilon):
            result.skipped = "below epsilon"  # keep the reference time: moves accumulate
            return
        try:
            self.state.apply_decay(decay.stance_after(), decay.modulators_after(), at)
        except LiveStateBusy:
            result.skipped = "a turn took the state"
            return
        result.decayed = self._emit(EventKind.MODULATORS_DECAYED, decay.payload())

    # ── maintenance ────────────────────────────────────────────────────────
    def maintenance_pass(self, now: datetime | None = None) -> dict[str, Any]:
        """One maintenance pass (the runner does the work). Never raises an Exception:
        a failure is logged, emitted as ERROR and reported as ``{"error": ...}``."""
        at = as_utc(now) if now is not None else self.clock.now()
        if self.maintenance is None:
            return {"skipped": "no maintenance runner"}
        maintenance = self.maintenance
        result = TickResult(at=at)
        report = self._guard(result, "maintenance", lambda: maintenance.run(at))
        if report is None:
            return {"error": result.errors[0] if result.errors else "maintenance failed"}
        return dict(report)

    # ── events ─────────────────────────────────────────────────────────────
    def _emit(self, kind: EventKind, payload: Mapping[str, Any]) -> EngineEvent:
        """A daemon event: turn_id 0, in the picked session."""
        return self.sink.append(self.session_id(), 0, kind, dict(payload))

    # ── errors ─────────────────────────────────────────────────────────────
    def _guard(self, result: TickResult, stage: str, body: Callable[[], T]) -> T | None:
        try:
            return body()
        except Exception as exc:  # a job never dies: log, emit, go on
            message = f"daemon.{stage}: {type(exc).__name__}: {exc}"[:1000]
            result.errors.append(message)
            log.exception("daemon %s failed", stage)
            self._emit_error(stage, message, traceback.format_exc()[-4000:])
            return None

    def _emit_error(self, stage: str, message: str, trace: str) -> None:
        try:
            self._emit(
                EventKind.ERROR,
                {"error": message, "stage": f"daemon.{stage}", "traceback": trace},
            )
        except Exception:  # the log itself is failing: the process log is all we have
            log.exception("could not record a daemon error in the event log")
