"""Snooze / mute / unmute in data_dir/nudges.json, and duration parsing."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rilai_desktop.daemon.nudges.controls import (
    NudgeControls,
    NudgeInputError,
    next_local_midnight,
    parse_duration,
)

PLUS1 = timezone(timedelta(hours=1))
NOW = datetime(2025, 3, 10, 21, 30, tzinfo=PLUS1).astimezone(UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30m", timedelta(minutes=30)),
        ("2h", timedelta(hours=2)),
        ("1h30m", timedelta(minutes=90)),
        ("1h 30m", timedelta(minutes=90)),
        ("1.5h", timedelta(minutes=90)),
        ("90s", timedelta(seconds=90)),
        ("1d", timedelta(days=1)),
        ("45", timedelta(minutes=45)),
        (" 2H ", timedelta(hours=2)),
    ],
)
def test_durations(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "0m", "-5m", "soon", "2 hours", "h", "31d", "1e9h", "nan"])
def test_bad_durations_are_clear_errors(text: str) -> None:
    with pytest.raises(NudgeInputError) as info:
        parse_duration(text)
    assert info.value.code == "RIL-065"


@given(st.text(max_size=30))
def test_any_text_is_a_duration_or_a_clear_error(text: str) -> None:
    try:
        value = parse_duration(text)
    except NudgeInputError:
        return
    assert timedelta(0) < value <= timedelta(days=30)


def test_next_local_midnight_uses_the_local_zone() -> None:
    assert next_local_midnight(NOW, PLUS1) == datetime(2025, 3, 11, tzinfo=PLUS1)
    just_after = datetime(2025, 3, 11, 0, 0, 1, tzinfo=PLUS1)
    assert next_local_midnight(just_after, PLUS1) == datetime(2025, 3, 12, tzinfo=PLUS1)


def test_snooze_persists_across_instances(tmp_path: Path) -> None:
    path = tmp_path / "data" / "nudges.json"
    NudgeControls(path, tz=PLUS1).snooze(NOW, timedelta(hours=2))
    state = NudgeControls(path, tz=PLUS1).state()  # another process
    assert state.snoozed(NOW + timedelta(minutes=119))
    assert not state.snoozed(NOW + timedelta(hours=2))
    assert state.quiet_reason(NOW) == "snoozed"
    assert not list(path.parent.glob("*.tmp"))  # atomic write left nothing behind


def test_mute_then_snooze_keeps_both_and_unmute_clears(tmp_path: Path) -> None:
    controls = NudgeControls(tmp_path / "nudges.json", tz=PLUS1)
    controls.mute_for_day(NOW)
    state = controls.snooze(NOW, timedelta(minutes=10))
    assert state.muted(NOW) and state.snoozed(NOW)
    assert state.quiet_reason(NOW) == "muted"
    assert state.muted_until == datetime(2025, 3, 11, tzinfo=PLUS1)
    cleared = controls.unmute()
    assert cleared.quiet_reason(NOW) is None
    assert controls.state().quiet_reason(NOW) is None


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        "[]",
        '{"snoozed_until": 12}',
        '{"snoozed_until": "yesterday"}',
        '{"muted_until": "2025-03-10T10:00:00"}',  # no timezone
        "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
    ],
)
def test_a_corrupt_file_is_no_snooze_with_a_warning(
    tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "nudges.json"
    path.write_text(content, encoding="utf-8")
    controls = NudgeControls(path, tz=PLUS1)
    with caplog.at_level(logging.WARNING):
        state = controls.state()
    assert state.quiet_reason(NOW) is None
    assert state.warning and str(path) in state.warning
    assert any("no snooze" in r.message for r in caplog.records)
    controls.snooze(NOW, timedelta(hours=1))  # the next change rewrites it whole
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 1 and data["muted_until"] is None
    assert controls.state().warning is None


def test_undecodable_file(tmp_path: Path) -> None:
    path = tmp_path / "nudges.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert NudgeControls(path).state().warning


def test_in_memory_controls() -> None:
    controls = NudgeControls(None, tz=PLUS1)
    controls.snooze(NOW, timedelta(minutes=5))
    assert controls.state().snoozed(NOW)
    with pytest.raises(NudgeInputError):
        controls.snooze(NOW, timedelta(0))
