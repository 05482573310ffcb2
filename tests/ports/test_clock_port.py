"""The Clock port (contracts/clock.py): every implementation callers can be handed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock, FakeClock, SystemClock

START = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)

CLOCKS: dict[str, Callable[[], Clock]] = {
    "system": SystemClock,
    "system-shared": lambda: SYSTEM_CLOCK,
    "fake": lambda: FakeClock(START),
}


@pytest.fixture(params=list(CLOCKS))
def clock(request: pytest.FixtureRequest) -> Clock:
    return CLOCKS[request.param]()


def test_now_is_an_aware_utc_datetime(clock: Clock) -> None:
    now = clock.now()
    assert isinstance(now, datetime)
    assert now.tzinfo is not None and now.utcoffset() == timedelta(0)


def test_time_never_runs_backwards_on_its_own(clock: Clock) -> None:
    readings = [clock.now() for _ in range(50)]
    assert readings == sorted(readings)


def test_now_can_be_compared_and_stored_as_iso(clock: Clock) -> None:
    """Callers subtract two readings (decay) and store ``isoformat()`` (memory rows)."""
    first = clock.now()
    elapsed = (clock.now() - first).total_seconds()
    assert elapsed >= 0.0
    assert datetime.fromisoformat(first.isoformat()) == first


def test_the_fake_moves_only_when_told() -> None:
    fake = FakeClock(START)
    assert fake.now() == fake.now() == START
    assert fake.advance(90) == START + timedelta(seconds=90) == fake.now()
    assert fake.set(START) == START
