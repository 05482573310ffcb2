"""Where the check-ins stand: off, paused until a time, run elsewhere, not running here,
quiet hours, running — from the saved settings, the nudge controls and the daemon."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rilai_desktop.app.daemon_status import daemon_status
from rilai_desktop.app.engine import Engine
from rilai_desktop.config import NudgeSettings
from rilai_desktop.daemon.nudges import ControlState

NOON = datetime(2025, 3, 4, 12, 0, tzinfo=UTC)


def status(
    settings: NudgeSettings | None = None,
    controls: ControlState | None = None,
    *,
    runs_here: bool = True,
    elsewhere: bool = False,
    now: datetime = NOON,
) -> tuple[str, str]:
    got = daemon_status(
        settings or NudgeSettings(),
        controls or ControlState(),
        runs_here=runs_here,
        elsewhere=elsewhere,
        now=now,
        tz=UTC,
    )
    return got.state, got.text


def test_running_when_nothing_holds_it() -> None:
    assert status() == ("running", "check-ins: running")


def test_a_snooze_says_until_when_in_local_time() -> None:
    paused = ControlState(snoozed_until=NOON + timedelta(hours=2))
    assert status(controls=paused) == ("paused", "check-ins: paused until 14:00")


def test_a_mute_until_tomorrow_says_tomorrow_and_the_later_pause_wins() -> None:
    midnight = datetime(2025, 3, 5, 0, 0, tzinfo=UTC)
    both = ControlState(snoozed_until=NOON + timedelta(hours=1), muted_until=midnight)
    assert status(controls=both) == ("paused", "check-ins: paused until tomorrow 00:00")


def test_an_expired_pause_is_no_pause() -> None:
    over = ControlState(snoozed_until=NOON - timedelta(minutes=1))
    assert status(controls=over)[0] == "running"


def test_off_wins_over_everything() -> None:
    off = NudgeSettings(enabled=False)
    paused = ControlState(snoozed_until=NOON + timedelta(hours=1))
    assert status(off, paused, elsewhere=True) == ("off", "check-ins: off")


def test_quiet_hours_say_when_they_end() -> None:
    late = datetime(2025, 3, 4, 23, 0, tzinfo=UTC)
    assert status(now=late) == ("quiet hours", "check-ins: quiet hours until tomorrow 08:00")
    early = datetime(2025, 3, 4, 6, 30, tzinfo=UTC)
    assert status(now=early) == ("quiet hours", "check-ins: quiet hours until 08:00")


def test_another_process_or_no_daemon_here() -> None:
    assert status(runs_here=False, elsewhere=True) == ("elsewhere", "check-ins: run elsewhere")
    assert status(runs_here=False) == ("stopped", "check-ins: not running here")


def test_the_engine_reads_its_controls_settings_and_daemon(engine: Engine) -> None:
    now = datetime.now(UTC)
    assert engine.daemon_status(now).state == "stopped"
    engine.start_daemon(schedule=False)
    engine.settings.set("nudges.quiet_start", "00:00")
    engine.settings.set("nudges.quiet_end", "00:00")  # no quiet hours
    assert engine.daemon_status(now).state == "running"
    engine.nudges.snooze(now, timedelta(hours=1))
    paused = engine.daemon_status(now)
    assert paused.state == "paused" and paused.until == now + timedelta(hours=1)
    engine.nudges.unmute()
    assert engine.daemon_status(now).state == "running"
    engine.settings.set("nudges.enabled", "false")  # saved: the daemon re-reads it too
    assert engine.daemon_status(now).text == "check-ins: off"
