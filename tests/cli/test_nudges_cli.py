"""`rilai nudges list|snooze|mute|unmute|settings|simulate`, in-process with a temp RILAI_HOME."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.daemon.nudges.day import DEFAULT_DAY
from rilai_desktop.paths import Paths, resolve_paths
from rilai_desktop.store import EventLog
from tests.cli_runner import Run

DAY_FILE = Path(__file__).resolve().parents[1] / "data" / "daemon" / "day.jsonl"
START = "2025-03-10T07:00:00+01:00"


@pytest.fixture(autouse=True)
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


@pytest.fixture
def paths() -> Paths:
    return resolve_paths()


def seed(paths: Paths, *records: tuple[int, str, timedelta]) -> None:
    """PROACTIVE_NUDGE events (level, condition, age) in the real log of RILAI_HOME."""
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    now = datetime.now(UTC)
    with EventLog(paths.db_path) as log:
        for level, condition, age in records:
            when = now - age
            context = {"condition": condition, "at": when.isoformat(), "delivered": level >= 3}
            payload = {
                "reason": f"because {condition}",
                "suggestion": f"Say {condition} \x1b[31m",
                "level": level,
                "context": context,
            }
            log.append("s-1", 0, EventKind.PROACTIVE_NUDGE, payload, ts_wall=when)


# ── settings ─────────────────────────────────────────────────────────────────
def test_settings_shows_the_defaults(run: Run) -> None:
    result = run("nudges", "settings")
    assert result.code == 0, result
    for text in ("on", "3 per hour, 12 per day", "22:00–08:00", "6 h", "not snoozed"):
        assert text in result.out


def test_settings_off_and_on_are_saved(run: Run, paths: Paths) -> None:
    off = run("nudges", "settings", "--off", "--json")
    assert off.code == 0, off
    assert off.json()["enabled"] is False
    assert "enabled = false" in paths.settings_file.read_text(encoding="utf-8")
    assert run("nudges", "settings", "--json").json()["enabled"] is False
    shown = run("config", "show", "--json").json()
    assert shown["nudges.enabled"] == {"value": False, "source": "file"}
    assert run("nudges", "settings", "--on", "--json").json()["enabled"] is True


def test_settings_on_and_off_together_is_an_error(run: Run) -> None:
    result = run("nudges", "settings", "--on", "--off")
    assert result.code == 2 and "RIL-065" in result.err and "together" in result.err


def test_an_env_override_is_pointed_out(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RILAI_NUDGES__ENABLED", "false")
    data = run("nudges", "settings", "--on", "--json").json()
    assert data["note"] and "env" in data["note"]


# ── snooze / mute / unmute ───────────────────────────────────────────────────
def test_snooze_mute_unmute(run: Run, paths: Paths) -> None:
    snoozed = run("nudges", "snooze", "30m", "--json")
    assert snoozed.code == 0, snoozed
    data = snoozed.json()
    until = datetime.fromisoformat(data["snoozed_until"])
    assert data["snoozed"] and timedelta(minutes=29) < until - datetime.now(UTC) <= timedelta(
        minutes=30
    )
    assert (paths.data_dir / "nudges.json").exists()
    assert run("nudges", "settings", "--json").json()["snoozed"] is True

    muted = run("nudges", "mute", "--json").json()
    midnight = datetime.fromisoformat(muted["muted_until"]).astimezone()
    assert (midnight.hour, midnight.minute) == (0, 0) and muted["snoozed"]

    text = run("nudges", "unmute")
    assert text.code == 0 and "unmuted" in text.out
    data = run("nudges", "settings", "--json").json()
    assert not data["snoozed"] and not data["muted"]


def test_snooze_default_and_text_output(run: Run) -> None:
    result = run("nudges", "snooze")
    assert result.code == 0 and "snoozed until" in result.out


@pytest.mark.parametrize("bad", ["forever", "0m", "1h-", "40d"])
def test_a_bad_snooze_is_a_clear_error(run: Run, bad: str) -> None:
    result = run("nudges", "snooze", bad)
    assert result.code == 2 and "RIL-065" in result.err
    data = run("nudges", "snooze", bad, "--json")
    assert data.json()["error"]["code"] == "RIL-065"


def test_a_corrupt_state_file_is_no_snooze_then_rewritten(run: Run, paths: Paths) -> None:
    paths.data_dir.mkdir(parents=True, exist_ok=True)
    state = paths.data_dir / "nudges.json"
    state.write_text("{broken", encoding="utf-8")
    shown = run("nudges", "settings", "--json")
    assert shown.code == 0 and shown.json()["snoozed"] is False
    assert "treating it as no snooze" in shown.json()["warning"]
    assert "treating it as no snooze" in shown.err
    assert run("nudges", "snooze", "1h").code == 0
    assert json.loads(state.read_text(encoding="utf-8"))["snoozed_until"]
    assert run("nudges", "settings").err == ""


# ── list ─────────────────────────────────────────────────────────────────────
def test_list_when_there_is_nothing(run: Run) -> None:
    result = run("nudges", "list")
    assert result.code == 0 and "No nudges yet" in result.out
    data = run("nudges", "list", "--json").json()
    assert data["recent"] == [] and data["pending"] == [] and data["digest"]["nudges"] == []


def test_list_recent_pending_and_digest(run: Run, paths: Paths) -> None:
    seed(
        paths,
        (3, "strain_silence", timedelta(minutes=50)),
        (2, "rupture", timedelta(minutes=40)),
        (1, "idle_threads", timedelta(minutes=1)),
    )
    data = run("nudges", "list", "--json").json()
    assert [n["condition"] for n in data["recent"]] == ["idle_threads", "rupture", "strain_silence"]
    assert [n["condition"] for n in data["pending"]] == ["rupture"]
    assert [n["condition"] for n in data["digest"]["nudges"]] == ["idle_threads"]
    assert data["recent"][0]["level_name"] == "daily digest"
    text = run("nudges", "list", "--limit", "2")
    assert text.code == 0
    assert "strain_silence" not in text.out.split("Waiting")[0]
    assert "Waiting for the next open" in text.out and "digest" in text.out
    assert "\x1b" not in text.out  # the person's text cannot drive the terminal


def test_list_limit_is_checked(run: Run) -> None:
    result = run("nudges", "list", "--limit", "0")
    assert result.code == 2 and "--limit" in result.err


# ── simulate ─────────────────────────────────────────────────────────────────
def test_simulate_json_keeps_every_promise(run: Run) -> None:
    result = run("nudges", "simulate", "--hours", "24", "--json", "--start", START)
    assert result.code == 0, result.err
    data = result.json()
    s = data["summary"]
    assert s["ok"] and all(s["checks"].values())
    assert s["max_cost_rolling_hour"] <= data["settings"]["per_hour"]
    assert s["max_cost_rolling_day"] <= data["settings"]["per_day"]
    assert s["above_l2_in_quiet_hours"] == 0
    assert data["scenario"] == "the built-in day"
    assert data["start"] == START and data["tz"] == "UTC+01:00"
    for e in data["timeline"]:
        assert e["reason"] and e["suggestion"] and 0 <= e["level"] <= 4
        assert set(e) >= {"at", "time", "level", "condition", "reason", "suggestion", "gates"}


def test_simulate_text_output(run: Run) -> None:
    result = run("nudges", "simulate", "--start", START)
    assert result.code == 0, result.err
    out = result.out
    assert "Simulated the built-in day" in out
    assert "strain_silence" in out and "deadline:" in out and "rupture" in out
    assert "quiet_hours: L4→L2" in out
    assert "budget: at most" in out and "FAIL" not in out


def test_simulate_the_data_file_matches_the_built_in_day(run: Run) -> None:
    builtin = run("nudges", "simulate", "--json", "--start", START).json()
    from_file = run(
        "nudges", "simulate", "--json", "--start", START, "--scenario", str(DAY_FILE)
    ).json()
    assert from_file["timeline"] == builtin["timeline"]
    assert from_file["scenario"] == str(DAY_FILE)


def test_simulate_with_a_naive_start_and_few_hours(run: Run) -> None:
    result = run("nudges", "simulate", "--hours", "3", "--start", "2025-03-10T07:00", "--json")
    assert result.code == 0, result.err
    assert result.json()["summary"]["ticks"] == 3 * 60 + 1


def test_simulate_honours_settings_overrides(run: Run) -> None:
    result = run("nudges", "simulate", "--json", "--start", START, "--set", "nudges.per_hour=1")
    assert result.code == 0, result.err
    assert result.json()["summary"]["max_cost_rolling_hour"] <= 1


def test_simulate_a_bad_scenario_names_the_line(run: Run, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(DEFAULT_DAY.splitlines()[0] + '\n{"at": "09:00", "usr": "typo"}\n', "utf-8")
    result = run("nudges", "simulate", "--scenario", str(bad))
    assert result.code == 2
    assert "RIL-065" in result.err and "line 2" in result.err and str(bad) in result.err
    data = run("nudges", "simulate", "--scenario", str(bad), "--json").json()
    assert data["error"]["context"]["line"] == 2


@pytest.mark.parametrize(
    "argv",
    [
        ("--scenario", "/nonexistent/day.jsonl"),
        ("--hours", "0"),
        ("--hours", "100000"),
        ("--start", "yesterday"),
    ],
)
def test_simulate_bad_arguments(run: Run, argv: tuple[str, ...]) -> None:
    result = run("nudges", "simulate", *argv)
    assert result.code == 2 and "RIL-065" in result.err, result


def test_simulate_a_non_utf8_scenario(run: Run, tmp_path: Path) -> None:
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(b'{"at": "08:00", "user": "caf\xe9"}\n')
    result = run("nudges", "simulate", "--scenario", str(bad))
    assert result.code == 2 and "UTF-8" in result.err
