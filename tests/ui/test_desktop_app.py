"""The desktop app around the window: the daemon inside it, nudges delivered inline where
no tray exists (offscreen has none), the check-ins list, the one-time notice."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.daemon.ports import Nudge
from rilai_desktop.ui.app import DesktopApp
from tests.fake_engine import open_fake_engine


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def _nudge(text: str, level: int = 3) -> Nudge:
    return Nudge("strain_silence", "strain then silence", text, level, {}, datetime.now(UTC))


def test_a_nudge_from_the_daemon_appears_inline_when_there_is_no_tray(qtbot: QtBot) -> None:
    desktop = DesktopApp(open_fake_engine, tray_available=lambda: False)
    qtbot.addWidget(desktop.window)
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        desktop.start()
    bridge = desktop.window.bridge
    assert bridge is not None and bridge.engine.daemon is not None  # the daemon runs inside
    delivered: list[bool] = []
    worker = threading.Thread(
        target=lambda: delivered.append(desktop.delivery.deliver(_nudge("Busy day? 🙂", 4)))
    )
    worker.start()  # as the daemon does: from another thread
    qtbot.waitUntil(lambda: bool(delivered), timeout=10_000)
    worker.join()
    assert delivered == [True]
    roles = [(r.role, r.text) for r in desktop.window.view.rows]
    assert ("nudge", "Busy day? 🙂") in roles  # level 4 with no tray: inline, never lost
    assert any(r == "system" and "tray" in t.lower() for r, t in roles)  # said once
    assert [n.suggestion for n in desktop.nudge_list.nudges()] == ["Busy day? 🙂"]
    qtbot.waitUntil(
        lambda: any(m.get("nudge") for m in bridge.engine.session.history), timeout=10_000
    )  # it joins the conversation: the next reply answers it
    desktop.window.close()
    assert bridge.engine.closed


def test_the_inspector_fills_live_and_reopens_an_earlier_turn(qtbot: QtBot) -> None:
    from PySide6.QtCore import Qt

    desktop = DesktopApp(open_fake_engine, tray_available=lambda: False, with_daemon=False)
    qtbot.addWidget(desktop.window)
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        desktop.start()
    if desktop.inspector is None:  # built after the window's first paint
        qtbot.waitSignal(desktop.inspector_ready, timeout=10_000).wait()
    window, inspector = desktop.window, desktop.inspector
    assert inspector is not None
    for text in ("Hi, long day at work.", "And the evening was quiet."):
        window.input.setPlainText(text)
        qtbot.keyClick(window.input, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: window.view.rows[-1].final, timeout=30_000)
    assert inspector.turn_id == 2  # fed by the turn's own event stream
    assert len(inspector.agents.rows()) >= 5
    first_reply = window.view.rows[1]
    assert first_reply.role == "assistant" and first_reply.turn_id == 1
    assert first_reply.inspect_button.isVisible()
    with qtbot.waitSignal(inspector.turn_changed, timeout=10_000):
        qtbot.mouseClick(first_reply.inspect_button, Qt.MouseButton.LeftButton)
    assert inspector.turn_id == 1  # read back from the log, off the GUI thread
    assert inspector.isVisible()
    window.close()


class FakeNotifier:
    """Stands in for the desktop's notification server: keeps the Open callbacks."""

    def __init__(self) -> None:
        self.shown: list[tuple[Nudge, object]] = []

    def notify(self, nudge: Nudge, on_open: object) -> bool:
        self.shown.append((nudge, on_open))
        return True


def test_activating_a_notification_opens_the_conversation_at_the_nudge(qtbot: QtBot) -> None:
    desktop = DesktopApp(open_fake_engine, tray_available=lambda: True)
    qtbot.addWidget(desktop.window)
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        desktop.start()
    notifier = FakeNotifier()
    desktop.delivery.notifier = notifier
    worker = threading.Thread(target=lambda: desktop.delivery.deliver(_nudge("Still up?", 4)))
    worker.start()
    qtbot.waitUntil(lambda: bool(notifier.shown), timeout=10_000)
    worker.join()
    assert all(r.text != "Still up?" for r in desktop.window.view.rows)  # a notification
    desktop.window.showMinimized()
    _nudge_shown, on_open = notifier.shown[0]
    with qtbot.waitSignal(desktop.delivery.open_requested, timeout=10_000):
        on_open()  # type: ignore[operator]  # the person clicks "Open"
    assert not desktop.window.isMinimized()
    last = desktop.window.view.rows[-1]
    assert (last.role, last.text) == ("nudge", "Still up?")
    desktop.quit()  # with a tray, closing the window would only hide it
