"""Quiet hours in LOCAL time, spanning midnight, half-open [start, end)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rilai_desktop.daemon.nudges.quiet_hours import in_quiet_hours, parse_hhmm

PLUS1 = timezone(timedelta(hours=1))
MINUS5 = timezone(timedelta(hours=-5))


def local(hhmm: str, tz: timezone = PLUS1) -> datetime:
    h, m = map(int, hhmm.split(":"))
    return datetime(2025, 3, 10, h, m, tzinfo=tz).astimezone(UTC)


@pytest.mark.parametrize(
    ("hhmm", "quiet"),
    [
        ("21:59", False),
        ("22:00", True),  # the start is quiet
        ("23:59", True),
        ("00:00", True),
        ("03:00", True),
        ("07:59", True),
        ("08:00", False),  # the end is not
        ("12:00", False),
    ],
)
def test_spanning_midnight(hhmm: str, quiet: bool) -> None:
    assert in_quiet_hours(local(hhmm), "22:00", "08:00", PLUS1) is quiet


@pytest.mark.parametrize(
    ("hhmm", "quiet"), [("12:59", False), ("13:00", True), ("14:59", True), ("15:00", False)]
)
def test_same_day_window(hhmm: str, quiet: bool) -> None:
    assert in_quiet_hours(local(hhmm), "13:00", "15:00", PLUS1) is quiet


def test_equal_start_and_end_means_no_quiet_hours() -> None:
    assert not any(in_quiet_hours(local(f"{h:02d}:00"), "22:00", "22:00", PLUS1) for h in range(24))


def test_local_time_decides_not_utc() -> None:
    instant = datetime(2025, 3, 10, 23, 30, tzinfo=UTC)  # 00:30 at +1, 18:30 at -5
    assert in_quiet_hours(instant, "22:00", "08:00", PLUS1)
    assert not in_quiet_hours(instant, "22:00", "08:00", MINUS5)


@pytest.mark.parametrize("bad", ["24:00", "7:60", "ten", "", "22-00"])
def test_bad_times_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="HH:MM"):
        parse_hhmm(bad)


@given(
    st.times(),
    st.times().map(lambda t: t.replace(second=0, microsecond=0)),
    st.times().map(lambda t: t.replace(second=0, microsecond=0)),
)
def test_matches_the_definition(now: time, start: time, end: time) -> None:
    instant = datetime.combine(datetime(2025, 3, 10), now, tzinfo=PLUS1)
    got = in_quiet_hours(instant, start.strftime("%H:%M"), end.strftime("%H:%M"), PLUS1)
    t = now.replace(tzinfo=None)
    if start == end:
        expected = False
    elif start < end:
        expected = start <= t < end
    else:
        expected = not (end <= t < start)
    assert got is expected
