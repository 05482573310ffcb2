"""What a client shows when it opens (app/checkins.py): the check-ins that waited for the
next open and the daily digest, once each, marked seen in the log (NUDGE_SEEN); the
log's check-ins with their states, for the dock. The real Engine (fakes for the models),
the real event log, nudges made by the real nudge engine on a fake clock."""

from __future__ import annotations

from datetime import timedelta, timezone

from rilai_desktop.app.checkins import (
    DELIVERED,
    DIGEST,
    HELD,
    NOT_SHOWN,
    SEEN,
    WAITING,
    CheckIns,
    checkin_key,
)
from rilai_desktop.app.engine import Engine
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import FakeClock
from tests.checkin_fakes import (
    delivered_nudge,
    digest_nudge,
    local_time,
    quiet_hours_nudge,
    strained_message,
)

TZ = timezone(timedelta(hours=1))


def _checkins(engine: Engine, clock: FakeClock) -> CheckIns:
    return CheckIns(engine, "window", clock=clock, tz=TZ)


def _seen_events(engine: Engine) -> list[dict[str, object]]:
    log = engine.parts.core.event_log
    return [e.payload for e in log.events(kind=EventKind.NUDGE_SEEN)]


def test_a_nudge_lowered_by_quiet_hours_is_shown_once_then_marked_seen(engine: Engine) -> None:
    log = engine.parts.core.event_log
    nudge = quiet_hours_nudge(log, local_time(0, "22:30", TZ), TZ)
    clock = FakeClock(local_time(1, "07:40", TZ))  # the next morning, still quiet hours
    checkins = _checkins(engine, clock)

    opened = checkins.open()
    assert [n.suggestion for n in opened.pending] == [nudge.suggestion]
    assert opened.held is None and opened.digest == []
    assert [(e.nudge.suggestion, e.state) for e in opened.entries] == [(nudge.suggestion, WAITING)]
    event = checkins.mark_seen(opened)
    assert event is not None and event.kind is EventKind.NUDGE_SEEN
    assert event.session_id == engine.session_id and event.turn_id == 0
    condition, at = checkin_key(nudge)
    assert event.payload == {
        "client": "window",
        "nudges": [{"condition": condition, "at": at, "level": 2}],
    }

    clock.advance(300)
    again = _checkins(engine, clock).open()  # any client: the shell reads the same log
    assert again.pending == [] and not again.to_show
    assert [e.state for e in again.entries] == [SEEN]
    assert checkins.mark_seen(again) is None  # nothing shown, nothing logged
    assert len(_seen_events(engine)) == 1


def test_the_digest_shows_on_the_first_open_of_a_day_only(engine: Engine) -> None:
    log = engine.parts.core.event_log
    evening = digest_nudge(log, local_time(0, "20:00", TZ), TZ, "Visa form")
    clock = FakeClock(local_time(1, "08:30", TZ))
    checkins = _checkins(engine, clock)

    first = checkins.open()
    assert [n.suggestion for n in first.digest] == [evening.suggestion]  # yesterday's L1
    assert first.pending == []
    event = checkins.mark_seen(first)
    assert event is not None and event.payload["digest_day"] == "2026-03-11"

    midday = digest_nudge(log, local_time(1, "13:00", TZ), TZ, "Tax return")
    clock.set(local_time(1, "18:00", TZ))
    second = checkins.open()
    assert second.digest == []  # once a day: the 13:00 note waits for tomorrow
    states = {e.nudge.suggestion: e.state for e in second.entries}
    assert states == {evening.suggestion: SEEN, midday.suggestion: DIGEST}

    clock.set(local_time(2, "09:00", TZ))
    third = checkins.open()
    assert [n.suggestion for n in third.digest] == [midday.suggestion]  # never repeated


def test_nothing_is_shown_or_marked_while_check_ins_are_snoozed_or_off(engine: Engine) -> None:
    log = engine.parts.core.event_log
    nudge = quiet_hours_nudge(log, local_time(0, "23:00", TZ), TZ)
    clock = FakeClock(local_time(1, "08:15", TZ))
    engine.nudges.snooze(clock.now(), timedelta(hours=1))
    checkins = _checkins(engine, clock)

    held = checkins.open()
    assert held.held == "check-ins are snoozed" and not held.to_show
    assert [e.state for e in held.entries] == [HELD]
    assert checkins.mark_seen(held) is None

    clock.advance(2 * 3600)  # the snooze is over: it is still there
    assert [n.suggestion for n in checkins.open().pending] == [nudge.suggestion]

    engine.settings.set("nudges.enabled", "false")
    off = checkins.open()
    assert off.held == "check-ins are off" and off.pending == []
    assert _seen_events(engine) == []


def test_the_entries_are_every_check_in_the_log_holds_with_its_state(engine: Engine) -> None:
    log = engine.parts.core.event_log
    stale = quiet_hours_nudge(log, local_time(0, "22:10", TZ), TZ)
    delivered = delivered_nudge(log, local_time(1, "10:00", TZ), TZ)  # a message came after
    clock = FakeClock(local_time(1, "11:30", TZ))

    opened = _checkins(engine, clock).open()
    assert opened.pending == []  # the L2 was before the person's next message: not shown
    assert [(e.nudge.suggestion, e.state) for e in opened.entries] == [
        (stale.suggestion, NOT_SHOWN),
        (delivered.suggestion, DELIVERED),
    ]
    assert [e.nudge.at for e in opened.entries] == sorted(e.nudge.at for e in opened.entries)


def test_a_message_after_the_nudge_ends_its_wait(engine: Engine) -> None:
    log = engine.parts.core.event_log
    quiet_hours_nudge(log, local_time(0, "22:30", TZ), TZ)
    strained_message(log, local_time(1, "07:00", TZ), turn=5)  # the shell, before the window
    opened = _checkins(engine, FakeClock(local_time(1, "07:30", TZ))).open()
    assert opened.pending == [] and [e.state for e in opened.entries] == [NOT_SHOWN]
