"""The tray in the desktop app, on the real Engine with the scripted LLM: pausing from the
tray menu shows in the status strip and Resume clears it; quiet mode keeps L4 nudges off
the notifier and in the window; close-to-tray hides the window and keeps the Engine open
until Quit."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.daemon.ports import Nudge
from rilai_desktop.ui.app import STILL_RUNNING, DesktopApp
from tests.fake_engine import open_fake_engine


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


class FakeNotifier:
    def __init__(self) -> None:
        self.shown: list[Nudge] = []

    def notify(self, nudge: Nudge, on_open: object) -> bool:
        self.shown.append(nudge)
        return True


def _started(qtbot: QtBot) -> DesktopApp:
    desktop = DesktopApp(open_fake_engine, tray_available=lambda: True)
    qtbot.addWidget(desktop.window)
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        desktop.start()
    assert desktop.tray is not None
    return desktop


def test_pause_for_an_hour_from_the_tray_shows_in_the_status_strip_and_resume_clears_it(
    qtbot: QtBot,
) -> None:
    desktop = _started(qtbot)
    label = desktop.window.daemon_label
    assert desktop.tray is not None
    qtbot.waitUntil(lambda: label.text().startswith("check-ins: "), timeout=10_000)
    assert "paused" not in label.text()
    desktop.tray.pause_hour_action.trigger()
    qtbot.waitUntil(lambda: "check-ins: paused until" in label.text(), timeout=10_000)
    assert desktop.tray.resting() and "paused until" in desktop.tray.toolTip()
    desktop.tray.resume_action.trigger()
    qtbot.waitUntil(lambda: "paused" not in label.text(), timeout=10_000)
    assert label.text().startswith("check-ins: ")
    assert not desktop.tray.resting()
    desktop.quit()


def test_quiet_mode_keeps_l4_off_the_notifier_and_in_the_window_and_persists(
    qtbot: QtBot,
) -> None:
    desktop = _started(qtbot)
    notifier = FakeNotifier()
    desktop.delivery.notifier = notifier
    assert desktop.tray is not None
    desktop.tray.quiet_action.trigger()  # checkable: on
    assert desktop.delivery.quiet_mode
    nudge = Nudge("strain_silence", "strain", "Quiet thought", 4, {}, datetime.now(UTC))
    worker = threading.Thread(target=lambda: desktop.delivery.deliver(nudge))
    worker.start()
    qtbot.waitUntil(lambda: bool(desktop.nudge_list.nudges()), timeout=10_000)
    worker.join()
    assert notifier.shown == []
    assert [n.suggestion for n in desktop.nudge_list.nudges()] == ["Quiet thought"]
    assert ("nudge", "Quiet thought") in [(r.role, r.text) for r in desktop.window.view.rows]
    engine = desktop.window.bridge.engine if desktop.window.bridge else None
    assert engine is not None
    qtbot.waitUntil(lambda: engine.settings.saved().settings.ui.quiet_mode, timeout=10_000)
    desktop.quit()


def test_close_to_tray_hides_the_window_keeps_the_engine_and_quit_closes_it(
    qtbot: QtBot,
) -> None:
    desktop = _started(qtbot)
    window = desktop.window
    bridge = window.bridge
    assert bridge is not None and desktop.close_to_tray  # the default where a tray exists
    window.show()
    with qtbot.waitSignal(window.hidden_to_tray):
        window.close()  # the title bar's X
    assert not window.isVisible()
    assert not bridge.engine.closed and window.bridge is bridge
    assert STILL_RUNNING in window.statusBar().currentMessage()
    window.show()
    window.close()  # said only the first time
    window.statusBar().clearMessage()
    assert window.statusBar().currentMessage() == ""
    with qtbot.waitSignal(window.closed):
        desktop.tray.quit_action.trigger()  # type: ignore[union-attr]
    assert bridge.engine.closed


def test_with_close_to_tray_off_or_no_tray_closing_quits(qtbot: QtBot) -> None:
    desktop = DesktopApp(open_fake_engine, tray_available=lambda: False, with_daemon=False)
    qtbot.addWidget(desktop.window)
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        desktop.start()
    bridge = desktop.window.bridge
    assert bridge is not None
    with qtbot.waitSignal(desktop.window.closed):
        desktop.window.close()
    assert bridge.engine.closed

    desktop = _started(qtbot)
    desktop.close_to_tray = False  # as the settings dialog's checkbox sets it
    bridge = desktop.window.bridge
    assert bridge is not None
    with qtbot.waitSignal(desktop.window.closed):
        desktop.window.close()
    assert bridge.engine.closed
