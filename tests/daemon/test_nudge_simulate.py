"""The simulator: scenario parsing, and the promises on the built-in day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from rilai_desktop.config import DaemonSettings, NudgeSettings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.nudges.controls import NudgeInputError
from rilai_desktop.daemon.nudges.day import DEFAULT_DAY
from rilai_desktop.daemon.nudges.scenario import parse_scenario, resolve_time
from rilai_desktop.daemon.nudges.simulate import MemoryEventLog, SimResult, simulate
from rilai_desktop.turn.sensors import FastSensors

PLUS1 = timezone(timedelta(hours=1))
START = datetime(2025, 3, 10, 7, 0, tzinfo=PLUS1)
DAY_FILE = Path(__file__).resolve().parents[1] / "data" / "daemon" / "day.jsonl"


def play(text: str = DEFAULT_DAY, hours: float = 24, **nudges: object) -> SimResult:
    steps = parse_scenario(text, START, PLUS1, "test")
    return simulate(
        steps,
        start=START,
        hours=hours,
        nudges=NudgeSettings(**nudges),  # type: ignore[arg-type]
        daemon=DaemonSettings(),
        sense=FastSensors().read,
        tz=PLUS1,
    )


def test_the_data_file_is_the_built_in_day() -> None:
    assert DAY_FILE.read_text(encoding="utf-8") == DEFAULT_DAY


def test_the_default_day_keeps_every_promise() -> None:
    result = play()
    s = result.summary
    assert s["ok"], s
    assert all(s["checks"].values())
    assert s["max_cost_rolling_hour"] <= 3 and s["max_cost_rolling_day"] <= 12
    assert s["above_l2_in_quiet_hours"] == 0 and s["during_turn"] == 0
    assert s["deferred_ticks_turn_running"] > 0  # ticks did land inside turns
    assert s["ticks"] == 24 * 60 + 1
    kinds = {e["condition"].split(":")[0] for e in result.timeline}
    assert {"strain_silence", "deadline", "rupture", "idle_threads", "long_session"} <= kinds
    for e in result.timeline:
        assert e["reason"] and 0 <= e["level"] <= 4 and e["suggestion"]


def test_the_story_of_the_day() -> None:
    timeline = play().timeline
    by = {e["condition"]: e for e in timeline}
    assert by["strain_silence"]["time"] >= "09:10"  # 45 min after the stressed morning
    assert by["strain_silence"]["level"] == 3
    report_call = next(e for e in timeline if e["condition"].endswith(":now"))
    assert report_call["time"] == "15:00" and report_call["level"] == 4
    assert by["rupture"]["time"] == "16:25" and by["rupture"]["level"] == 2
    night = [e for e in timeline if e["time"] >= "22:00" or e["time"] < "08:00"]
    assert night and all(e["level"] <= 2 for e in night)
    assert any("quiet_hours: L4→L2" in e["gates"] for e in night)


def test_a_tight_budget_is_never_exceeded() -> None:
    result = play(per_hour=1, per_day=3)
    s = result.summary
    assert s["ok"] and s["max_cost_rolling_hour"] <= 1 and s["max_cost_rolling_day"] <= 3
    assert any(g.startswith("budget") for e in result.timeline for g in e["gates"])


def test_nudges_off_in_settings_are_simulated_as_on() -> None:
    result = play(enabled=False)
    assert result.settings["simulated_as_on"] and result.timeline


def test_snooze_and_mute_lines() -> None:
    text = DEFAULT_DAY + '{"at": "16:06", "mute": true}\n'
    result = play(text)
    evening = [e for e in result.timeline if "16:06" <= e["time"] <= "23:59"]
    assert evening and all(e["level"] <= 1 for e in evening)


def test_resolve_time() -> None:
    prev = datetime(2025, 3, 10, 7, 0, tzinfo=PLUS1).astimezone(UTC)
    assert resolve_time("08:15", prev, PLUS1) == datetime(2025, 3, 10, 8, 15, tzinfo=PLUS1)
    assert resolve_time("06:00", prev, PLUS1) == datetime(2025, 3, 11, 6, 0, tzinfo=PLUS1)
    assert resolve_time("+1h30m", prev, PLUS1) == prev + timedelta(minutes=90)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"user": "hi"}', '"at" is missing'),
        ('{"at": "25:00", "user": "hi"}', "HH:MM"),
        ('{"at": "+soon", "user": "hi"}', "duration"),
        ('{"at": "08:00"}', "exactly one action"),
        ('{"at": "08:00", "user": "hi", "goal": "x"}', "exactly one action"),
        ('{"at": "08:00", "user": 5}', '"user" must be a string'),
        ('{"at": "08:00", "user": "hi", "mood": 1}', "unknown key"),
        ('{"at": "08:00", "goal": "x", "kind": "wish"}', '"kind"'),
        ('{"at": "08:00", "goal": "x", "deadline": 5}', '"deadline"'),
        ('{"at": "08:00", "modulators": {"fatigue": 2}}', "from 0 to 1"),
        ('{"at": "08:00", "stance": {"mood": 0.5}}', "unknown stance"),
        ('{"at": "08:00", "snooze": "forever"}', "not a duration"),
        ('{"at": "08:00", "mute": "yes"}', "must be true"),
        ('{"at": "08:00", "user": "hi", "turn_s": -1}', "turn_s"),
    ],
)
def test_a_bad_line_is_named(line: str, problem: str) -> None:
    text = '{"at": "07:30", "user": "fine"}\n\n# a comment\n' + line + "\n"
    with pytest.raises(NudgeInputError) as info:
        parse_scenario(text, START, PLUS1, "day.jsonl")
    assert "day.jsonl line 4" in info.value.message
    assert problem in info.value.message
    assert info.value.context["line"] == 4


def test_hours_are_bounded() -> None:
    with pytest.raises(ValueError, match="hours"):
        play(hours=0)


def test_memory_event_log_is_a_sink_and_a_reader() -> None:
    clock = FakeClock(START)
    log = MemoryEventLog(clock, "s")
    log.append("s", 0, EventKind.DAEMON_TICK, {"timestamp": 1.0})
    clock.advance(60)
    log.append("s", 0, EventKind.PROACTIVE_NUDGE, {"reason": "r", "suggestion": "s", "context": {}})
    (newest,) = log.events(kind=EventKind.PROACTIVE_NUDGE, newest_first=True, limit=1)
    assert newest.ts_wall == START + timedelta(minutes=1) and newest.turn_id == 0
    assert log.events(session_id="s", newest_first=True)[0].kind is EventKind.PROACTIVE_NUDGE
    assert log.events(session_id="other") == []
