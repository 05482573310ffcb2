"""The daemon's clocks: aware UTC always; the fake moves only when told to."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest

from rilai_desktop.contracts.clock import FakeClock, SystemClock, as_utc

START = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)


def test_system_clock_is_aware_utc() -> None:
    now = SystemClock().now()
    assert now.tzinfo is not None and now.utcoffset() == timedelta(0)


def test_fake_clock_moves_only_when_told() -> None:
    clock = FakeClock(START)
    assert clock.now() == START == clock.now()
    assert clock.advance(90) == START + timedelta(seconds=90)
    assert clock.now() == START + timedelta(seconds=90)
    clock.advance(-30)  # a clock that goes backwards is a case the daemon must survive
    assert clock.now() == START + timedelta(seconds=60)
    later = datetime(2026, 3, 3, 9, 30, tzinfo=timezone(timedelta(hours=2)))
    assert clock.set(later) == later
    assert clock.now().utcoffset() == timedelta(0) and clock.now() == later


def test_fake_clock_refuses_naive_times_and_non_finite_steps() -> None:
    with pytest.raises(ValueError, match="naive"):
        FakeClock(datetime(2026, 3, 2, 7, 0))
    clock = FakeClock(START)
    with pytest.raises(ValueError, match="naive"):
        clock.set(datetime(2026, 3, 2, 8, 0))
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match="cannot advance"):
            clock.advance(bad)
    assert clock.now() == START


def test_as_utc_converts_offsets() -> None:
    local = datetime(2026, 3, 2, 9, 0, tzinfo=timezone(timedelta(hours=2)))
    assert as_utc(local) == START
    assert as_utc(local).tzinfo is UTC
