"""Wall-clock time: the :class:`Clock` port, the real clock and a fake a test can wind forward.

One clock for every package (daemon, memory, the app's adapters): whatever needs "now"
takes a ``Clock`` and calls ``clock.now()``, so a test (or ``rilai nudges simulate`` /
``rilai bench daemon``) plays hours in milliseconds, and "8 hours asleep" is one call to
``advance(8 * 3600)`` followed by one tick. Both clocks here return timezone-aware UTC
datetimes: local time (quiet hours) is a display concern, computed with
``now.astimezone()`` where it is needed. Stdlib only (contracts import nothing else).
"""

from __future__ import annotations

import math
import threading
from datetime import UTC, datetime, timedelta
from typing import Final, Protocol


class Clock(Protocol):
    """Wall-clock time: ``now()`` is timezone-aware (UTC for the clocks here).

    Callers rely on: every call returns an aware datetime; the real clock never goes
    backwards by more than the machine's clock does (it may: callers survive that).
    """

    def now(self) -> datetime: ...


def as_utc(dt: datetime) -> datetime:
    """``dt`` as an aware UTC datetime; a naive one is refused (its zone is unknowable)."""
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise ValueError(f"naive datetime {dt.isoformat()}: give it a timezone")
    return dt.astimezone(UTC)


class SystemClock:
    """The machine's wall clock, in UTC (it counts a closed laptop lid, unlike monotonic)."""

    def now(self) -> datetime:
        return datetime.now(UTC)


SYSTEM_CLOCK: Final = SystemClock()  # stateless: one shared instance serves as a default


class FakeClock:
    """A clock that only moves when told to: ``advance(seconds)`` or ``set(dt)``.

    Thread-safe, because the real scheduler's worker thread may read it while a test
    advances it. ``advance`` accepts a negative number (the clock going backwards is a
    case the daemon must survive), but not NaN or infinity.
    """

    def __init__(self, start: datetime) -> None:
        self._now = as_utc(start)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> datetime:
        if not math.isfinite(seconds):
            raise ValueError(f"cannot advance a clock by {seconds!r} seconds")
        with self._lock:
            self._now = self._now + timedelta(seconds=seconds)
            return self._now

    def set(self, dt: datetime) -> datetime:
        with self._lock:
            self._now = as_utc(dt)
            return self._now
