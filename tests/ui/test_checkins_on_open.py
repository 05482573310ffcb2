"""Check-ins a person can find (issue 31): what waited for the window is shown when it
opens — a check-in lowered by quiet hours in the conversation, once; the day's digest as
a quiet line above it, once a day — and logged seen; the Check-ins dock lists what the
log holds, after a restart too. The real window and Engine (scripted models), nudges made
by the real nudge engine, a fake clock."""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.app.checkins import DELIVERED, DIGEST_TITLE, SEEN, WAITING
from rilai_desktop.app.core import build_core
from rilai_desktop.config import Settings
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.ports import Nudge
from rilai_desktop.paths import resolve_paths
from rilai_desktop.store import EventLog
from rilai_desktop.ui.app import DesktopApp
from tests.checkin_fakes import delivered_nudge, digest_nudge, local_time, quiet_hours_nudge
from tests.fake_engine import open_fake_engine


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def _seed() -> EventLog:
    """The log of this test's RILAI_HOME, before any window opens (close it after)."""
    return build_core(resolve_paths(), Settings()).event_log


def _open(qtbot: QtBot, now: datetime) -> tuple[DesktopApp, EngineEvent | None]:
    """A window opened at ``now`` (no tray, no daemon), once what waited is shown and
    marked; the NUDGE_SEEN it logged, or None."""
    desktop = DesktopApp(
        open_fake_engine, tray_available=lambda: False, with_daemon=False, clock=FakeClock(now)
    )
    qtbot.addWidget(desktop.window)
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        desktop.start()
    checkins = desktop.checkins
    assert checkins is not None
    qtbot.waitUntil(lambda: checkins.done, timeout=10_000)
    return desktop, checkins.seen


def _nudge_rows(desktop: DesktopApp) -> list[str]:
    return [r.text for r in desktop.window.view.rows if r.role == "nudge"]


def test_a_nudge_lowered_by_quiet_hours_is_shown_once_on_the_next_open(qtbot: QtBot) -> None:
    log = _seed()
    nudge = quiet_hours_nudge(log, local_time(0, "22:30"), None)
    log.close()

    desktop, seen = _open(qtbot, local_time(1, "07:45"))
    assert _nudge_rows(desktop) == [nudge.suggestion]  # in the conversation, no pop-up
    assert desktop.nudge_list.states() == [WAITING]
    assert seen is not None and seen.kind is EventKind.NUDGE_SEEN
    assert seen.payload["client"] == "window"
    assert [n["level"] for n in seen.payload["nudges"]] == [2]
    engine = desktop.window.bridge.engine  # type: ignore[union-attr]
    qtbot.waitUntil(
        lambda: any(m.get("nudge") for m in engine.session.history), timeout=10_000
    )  # it joins the conversation: the next reply answers it
    assert desktop.checkins is not None and desktop.checkins.banner.isHidden()  # no digest
    desktop.window.close()

    again, seen_again = _open(qtbot, local_time(1, "08:10"))  # open again: not shown
    assert _nudge_rows(again) == [] and seen_again is None
    assert [n.suggestion for n in again.nudge_list.nudges()] == [nudge.suggestion]
    assert again.nudge_list.states() == [SEEN]
    again.window.close()


def test_after_a_restart_the_check_ins_dock_lists_what_the_log_holds(qtbot: QtBot) -> None:
    log = _seed()
    waited = quiet_hours_nudge(log, local_time(0, "22:30"), None)
    log.close()

    first, _seen = _open(qtbot, local_time(1, "08:00"))
    engine = first.window.bridge.engine  # type: ignore[union-attr]
    made: list[Nudge] = []
    daemon = threading.Thread(  # as the daemon does: from another thread, through the tray
        target=lambda: made.append(
            delivered_nudge(engine.parts.core.event_log, local_time(1, "10:00"), None,
                            first.delivery)
        )
    )  # fmt: skip
    daemon.start()
    qtbot.waitUntil(lambda: bool(made), timeout=10_000)
    daemon.join()
    delivered = made[0]
    listed = [n.suggestion for n in first.nudge_list.nudges()]
    assert listed == [waited.suggestion, delivered.suggestion]
    first.window.close()

    restarted, _ = _open(qtbot, local_time(1, "11:30"))
    rows = list(zip(restarted.nudge_list.nudges(), restarted.nudge_list.states(), strict=True))
    assert [(n.suggestion, s) for n, s in rows] == [
        (waited.suggestion, SEEN),
        (delivered.suggestion, DELIVERED),
    ]
    assert "[seen]" in restarted.nudge_list.item(0).text()
    restarted.window.close()


def test_the_digest_shows_on_the_first_open_of_a_day_and_not_the_second(qtbot: QtBot) -> None:
    log = _seed()
    note = digest_nudge(log, local_time(0, "19:00"), None, "Visa form")
    log.close()

    morning, seen = _open(qtbot, local_time(1, "08:30"))
    assert morning.checkins is not None
    banner = morning.checkins.banner
    assert not banner.isHidden()  # a quiet line above the conversation
    assert banner.text.text().startswith(DIGEST_TITLE)
    assert f"yesterday 19:00 · {note.suggestion}" in banner.text.text()
    assert _nudge_rows(morning) == []  # not a message, not a pop-up
    assert seen is not None and seen.payload["digest_day"] == "2026-03-11"
    banner.dismiss.click()
    assert banner.isHidden()
    morning.window.close()

    evening, seen_again = _open(qtbot, local_time(1, "18:00"))
    assert evening.checkins is not None and evening.checkins.banner.isHidden()
    assert seen_again is None
    assert [n.suggestion for n in evening.nudge_list.nudges()] == [note.suggestion]
    evening.window.close()
