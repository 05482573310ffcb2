"""The whole window by keyboard alone: with every dock open (conversations, inspector,
check-ins, memory), Tab from the input visits every focusable control and comes back, and
each one it visits has an accessible name (issue 19: "the whole window is walked by Tab")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDockWidget, QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.ui.app import DesktopApp


def _walk(qtbot: QtBot, start: QWidget, steps: int = 300) -> list[QWidget]:
    start.setFocus()
    seen: list[QWidget] = [start]
    for _ in range(steps):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        if now is None or now is start:
            break
        if now not in seen:
            seen.append(now)
    return seen


def test_tab_visits_every_control_and_each_has_a_name(
    qtbot: QtBot, loaded_desktop: DesktopApp
) -> None:
    window = loaded_desktop.window
    window.show()
    window.input.setPlainText("Hello, I grow tomatoes on my balcony.")
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(window.view.rows) and window.view.rows[-1].final, timeout=30_000)
    qtbot.waitUntil(lambda: window.send_button.text() == "Send", timeout=5_000)
    for dock in window.findChildren(QDockWidget):
        dock.show()
    qtbot.wait(200)
    walked = _walk(qtbot, window.input)
    assert QApplication.focusWidget() is window.input  # the walk came back round
    unnamed = [f"{type(w).__name__} {w.objectName()!r}" for w in walked if not w.accessibleName()]
    assert unnamed == []
    names = {w.accessibleName() for w in walked}
    # the walk reaches the conversation, the input row and every dock
    assert {"Message to Rilai", "Send the message, or stop Rilai's reply"} <= names
    docks = [d for d in window.findChildren(QDockWidget) if d.isVisible()]
    reached = [d for d in docks if any(d.isAncestorOf(w) for w in walked)]
    assert len(docks) >= 4 and reached == docks
    focusable = [
        w
        for w in window.findChildren(QWidget)
        if w.isVisible() and w.isEnabled() and w.focusPolicy() & Qt.FocusPolicy.TabFocus
    ]
    # a tab widget hands its focus to its tab bar (its focus proxy)
    missed = [
        f"{type(w).__name__} {w.accessibleName()!r}"
        for w in focusable
        if (w.focusProxy() or w) not in walked
    ]
    assert missed == []
