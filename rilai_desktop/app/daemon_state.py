"""Adapters from the daemon's ports to the real event log and the live TurnRunner.

``daemon/`` never imports the store or the turn; the composition root (``app/build.py``)
hands it these:

- :class:`LogEventSink` — ``contracts.EventSink`` over the EventLog, which validates each
  event, stamped with the daemon's clock (who wants to see the stored events listens to
  the log itself: ``EventLog.add_listener``, the Engine's bus). Its ``session_id`` is the
  daemon's session picker: the log's latest session (the one the shell resumes), the
  shell's own when pinned, or a fresh uuid4 session when the log is empty.
- :class:`LogLiveState` — LiveState, headless (``rilai daemon run``): the stance and the
  modulators are a projection of the log (the newest STANCE_UPDATED / MODULATORS_UPDATED /
  MODULATORS_DECAYED), so a turn in another process is seen at the next tick, and the
  MODULATORS_DECAYED event IS the write.
- :class:`RunnerLiveState` — LiveState in the app/shell: the running TurnRunner's session.
  Decay is applied under the runner's turn lock, taken without blocking, so it never
  lands in the middle of a turn.
"""

from __future__ import annotations

import logging
import math
import threading
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from rilai_desktop.contracts import EngineEvent, EventKind, GlobalModulators, StanceVector
from rilai_desktop.contracts.clock import Clock, SystemClock
from rilai_desktop.daemon.ports import AffectSnapshot
from rilai_desktop.daemon.service import LiveStateBusy
from rilai_desktop.store import EventLog
from rilai_desktop.turn.runner import TurnRunner
from rilai_desktop.turn.session import current_affect

log = logging.getLogger(__name__)
TURN_WINDOW_S = 300.0  # an open turn older than this belongs to a process that died


class LogEventSink:
    """``contracts.EventSink`` over the EventLog for the daemon, and its session picker."""

    def __init__(
        self,
        event_log: EventLog,
        *,
        clock: Clock | None = None,
        session_id: Callable[[], str | None] | None = None,
    ) -> None:
        """``clock`` stamps ``ts_wall`` (a FakeClock in simulations; default: the log's);
        ``session_id`` picks the session (the shell: its runner's), else the latest."""
        self.log = event_log
        self._clock = clock
        self._session = session_id
        self._fresh: str | None = None

    def session_id(self) -> str:
        sid = self._session() if self._session is not None else None
        sid = sid or self.log.latest_session_id()
        if sid is None:
            if self._fresh is None:
                self._fresh = str(uuid.uuid4())
            sid = self._fresh
        return sid

    def append(
        self,
        session_id: str,
        turn_id: int,
        kind: EventKind | str,
        payload: Mapping[str, Any] | None = None,
    ) -> EngineEvent:
        ts = self._clock.now() if self._clock is not None else None
        return self.log.append(session_id, turn_id, kind, payload, ts_wall=ts)


class LogLiveState:
    """LiveState as a projection of the event log (headless daemon)."""

    def __init__(
        self, event_log: EventLog, clock: Clock, *, turn_window_s: float = TURN_WINDOW_S
    ) -> None:
        self.log = event_log
        self.clock = clock
        self.turn_window_s = turn_window_s
        self.last_applied: tuple[dict[str, float], dict[str, float], datetime] | None = None

    def snapshot(self) -> AffectSnapshot:
        """The newest stance and modulators in the log; ``updated_at`` is the later of the
        two events' wall times (never decay past a change), ``now`` when there are none."""
        affect = current_affect(self.log)
        times = [
            e.ts_wall.astimezone(UTC)
            for e in (affect.stance_event, affect.modulator_event)
            if e is not None
        ]
        updated_at = max(times) if times else self.clock.now()
        return AffectSnapshot(
            stance=affect.stance, modulators=affect.modulators, updated_at=updated_at
        )

    def apply_decay(
        self, stance: Mapping[str, float], modulators: Mapping[str, float], at: datetime
    ) -> None:
        """Nothing to write: the MODULATORS_DECAYED event the daemon emits next is the
        new state. Remembered for inspection only."""
        self.last_applied = (dict(stance), dict(modulators), at)

    def turn_running(self) -> bool:
        """A turn with no TURN_COMPLETED/TURN_ABORTED that started within the window (an
        older open turn belongs to a process that died; the log marks it on next open)."""
        open_turns = self.log.open_turns()
        if not open_turns:
            return False
        horizon = self.clock.now() - timedelta(seconds=self.turn_window_s)
        for session_id, turn_id, _ in open_turns:
            started = self.log.events(
                kind=EventKind.TURN_STARTED, session_id=session_id, turn_id=turn_id, limit=1
            )
            if started and started[0].ts_wall.astimezone(UTC) >= horizon:
                return True
        return False


def _timestamp(value: float, fallback: datetime) -> datetime:
    try:
        if math.isfinite(value) and value > 0:
            return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        pass
    return fallback


class RunnerLiveState:
    """LiveState over a live TurnRunner (the shell, the window)."""

    def __init__(
        self,
        runner: TurnRunner,
        lock: threading.Lock | None = None,
        *,
        clock: Clock | None = None,
    ) -> None:
        """``lock`` is the runner's turn lock unless given (tests may pass their own)."""
        self.runner = runner
        self.lock = lock if lock is not None else runner.turn_lock
        self.clock: Clock = clock if clock is not None else SystemClock()
        self._seen: tuple[StanceVector, GlobalModulators] | None = None

    def snapshot(self) -> AffectSnapshot:
        session = self.runner.session
        stance, mods = session.stance, session.modulators
        self._seen = (stance, mods)
        now = self.clock.now()
        updated = max(
            _timestamp(stance.last_update_ts, now),
            mods.last_update.astimezone(UTC),
        )
        return AffectSnapshot(
            stance=stance.to_dict(), modulators=mods.to_dict(), updated_at=updated
        )

    def apply_decay(
        self, stance: Mapping[str, float], modulators: Mapping[str, float], at: datetime
    ) -> None:
        """Set the decayed values on the runner's session, under its turn lock. Raises
        LiveStateBusy when a turn holds the lock or replaced the state since the snapshot."""
        if not self.lock.acquire(blocking=False):
            raise LiveStateBusy("a turn is running")
        try:
            session = self.runner.session
            seen = self._seen
            if seen is None or session.stance is not seen[0] or session.modulators is not seen[1]:
                raise LiveStateBusy("the state changed since the snapshot")
            new_stance = StanceVector.model_validate(
                {**session.stance.model_dump(), **stance, "last_update_ts": at.timestamp()}
            )
            new_mods = GlobalModulators.model_validate(
                {**session.modulators.model_dump(), **modulators, "last_update": at}
            )
            session.stance, session.modulators = new_stance, new_mods
            self._seen = (new_stance, new_mods)
        finally:
            self.lock.release()

    def turn_running(self) -> bool:
        return self.runner.running or self.lock.locked()
