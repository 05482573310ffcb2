"""Regenerate, edit-and-resend, slash commands with completion and the help overlay, in the
main window on the real Engine with the scripted fake LLM (pytest-qt, offscreen)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.contracts import EventKind
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.ui.bridge import EngineBridge
from rilai_desktop.ui.main_window import MainWindow
from tests.fake_engine import open_fake_engine

REPLIES = ["First reply.", "Second reply.", "Third reply."]


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    win = MainWindow(EngineBridge(open_fake_engine(ScriptedLLM(REPLIES))))
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()


def _say(qtbot: QtBot, win: MainWindow, text: str) -> None:
    win.input.setPlainText(text)
    qtbot.keyClick(win.input, Qt.Key.Key_Return)


def _idle(qtbot: QtBot, win: MainWindow) -> None:
    qtbot.waitUntil(
        lambda: win.bridge is not None and not win.bridge.busy and win.view.rows[-1].final,
        timeout=30_000,
    )
    qtbot.waitUntil(lambda: win.send_button.text() == "Send", timeout=5_000)


def _rows(win: MainWindow) -> list[tuple[str, str]]:
    return [(r.role, r.text) for r in win.view.rows]


def _log_kinds(win: MainWindow) -> list[EventKind]:
    assert win.bridge is not None
    log = win.bridge.engine.parts.core.event_log
    wanted = [EventKind.TURN_STARTED, EventKind.TURN_RETRACTED]
    return [e.kind for e in log.events(kind=wanted)]


def test_regenerate_replaces_the_last_reply(qtbot: QtBot, window: MainWindow) -> None:
    _say(qtbot, window, "Hi, long day.")
    _idle(qtbot, window)
    user, reply = window.view.rows
    assert reply.regenerate_button.isVisible() and user.edit_button.isVisible()
    assert not user.regenerate_button.isVisible() and not reply.edit_button.isVisible()
    qtbot.mouseClick(reply.regenerate_button, Qt.MouseButton.LeftButton)
    assert not window.view.rows[-1].regenerate_button.isVisible()  # hidden while it runs
    assert not window.view.rows[0].edit_button.isVisible()
    _idle(qtbot, window)
    assert _rows(window) == [("user", "Hi, long day."), ("assistant", "Second reply.")]
    assert window.view.rows[-1].turn_id == 2
    assert _log_kinds(window) == [
        EventKind.TURN_STARTED,
        EventKind.TURN_RETRACTED,
        EventKind.TURN_STARTED,
    ]
    # Ctrl+R does the same
    qtbot.keyClick(window.input, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    _idle(qtbot, window)
    assert _rows(window) == [("user", "Hi, long day."), ("assistant", "Third reply.")]


def test_edit_and_resend_replaces_both_rows(qtbot: QtBot, window: MainWindow) -> None:
    _say(qtbot, window, "Helo")
    _idle(qtbot, window)
    qtbot.mouseClick(window.view.rows[0].edit_button, Qt.MouseButton.LeftButton)
    assert window.input.editing and window.input.toPlainText() == "Helo"
    assert window.edit_banner.isVisible()
    _say(qtbot, window, "Hello")
    assert not window.input.editing and not window.edit_banner.isVisible()
    _idle(qtbot, window)
    assert _rows(window) == [("user", "Hello"), ("assistant", "Second reply.")]
    assert window.bridge is not None
    (retracted,) = window.bridge.engine.parts.core.event_log.events(kind=EventKind.TURN_RETRACTED)
    assert retracted.payload == {"turn_id": 1, "reason": "edit"}
    history = [(m["role"], m["content"]) for m in window.bridge.engine.session.history]
    assert history == [("user", "Hello"), ("assistant", "Second reply.")]


def test_up_in_an_empty_input_loads_the_last_message_and_esc_leaves(
    qtbot: QtBot, window: MainWindow
) -> None:
    qtbot.keyClick(window.input, Qt.Key.Key_Up)
    assert not window.input.editing  # nothing to edit yet
    _say(qtbot, window, "first")
    _idle(qtbot, window)
    _say(qtbot, window, "second")
    _idle(qtbot, window)
    qtbot.keyClick(window.input, Qt.Key.Key_Up)
    assert window.input.editing and window.input.toPlainText() == "second"
    qtbot.keyClick(window.input, Qt.Key.Key_Escape)
    assert not window.input.editing and window.input.toPlainText() == ""
    assert len(window.view.rows) == 4  # nothing was taken back


def test_the_completer_offers_status_for_st(qtbot: QtBot, window: MainWindow) -> None:
    window.input.setFocus()
    qtbot.keyClicks(window.input, "/st")
    completer = window.completer
    assert completer.names() == ["/status", "/stance"]  # in the table's order
    assert completer.popup() is not None and completer.popup().isVisible()
    qtbot.keyClick(completer.popup(), Qt.Key.Key_Tab)  # the first offer
    assert window.input.toPlainText() == "/status"
    assert not completer.popup().isVisible()
    qtbot.keyClick(window.input, Qt.Key.Key_Return)  # a whole command: Enter runs it
    qtbot.waitUntil(lambda: len(window.view.rows) == 1, timeout=10_000)
    status = window.view.rows[-1]
    assert status.role == "system" and "turns in this session: 0" in status.text
    assert "check-ins: not running in this window" in status.text
    assert window.bridge is not None and window.bridge.engine.turns_in_session() == 0


def test_stance_and_memory_commands_answer_in_the_conversation(
    qtbot: QtBot, window: MainWindow
) -> None:
    _say(qtbot, window, "/stance")
    qtbot.waitUntil(lambda: bool(window.view.rows), timeout=10_000)
    assert "valence" in window.view.rows[-1].text and "fatigue" in window.view.rows[-1].text
    _say(qtbot, window, "/memory")
    qtbot.waitUntil(lambda: len(window.view.rows) == 2, timeout=10_000)
    assert window.view.rows[-1].text.startswith("memory:")


def test_an_unknown_command_is_not_sent(qtbot: QtBot, window: MainWindow) -> None:
    _say(qtbot, window, "/x")
    assert _rows(window) == [("system", "Unknown command /x — /help lists them")]
    assert window.input.toPlainText() == ""
    assert window.bridge is not None and not window.bridge.busy
    assert _log_kinds(window) == []


def test_f1_shows_the_help_overlay_with_shortcuts_and_commands(
    qtbot: QtBot, window: MainWindow
) -> None:
    window.input.setFocus()
    qtbot.keyClick(window.input, Qt.Key.Key_F1)
    overlay = window.help_overlay
    assert overlay.isVisible()
    rows = dict(overlay.rows)
    assert rows["Ctrl+N"] == "New conversation"
    assert rows["Ctrl+R"] == "Regenerate last reply"
    assert rows["F1 / Ctrl+/"] == "Keyboard shortcuts"
    assert "/new" in rows and "/status" in rows
    assert "Ctrl+N" in overlay.panel.text() and "/new" in overlay.panel.text()
    qtbot.keyClick(overlay, Qt.Key.Key_Space)  # any key closes it
    assert not overlay.isVisible()
    _say(qtbot, window, "/help")
    assert overlay.isVisible() and window.view.rows == []


def test_every_new_control_has_an_accessible_name(qtbot: QtBot, window: MainWindow) -> None:
    _say(qtbot, window, "Hi")
    _idle(qtbot, window)
    qtbot.keyClick(window.input, Qt.Key.Key_Up)
    window.show_help()
    new: list[QWidget] = [
        window.view.rows[0].edit_button,
        window.view.rows[-1].regenerate_button,
        window.edit_banner,
        window.help_overlay,
        window.help_overlay.panel,
        window.completer.popup(),
    ]
    assert all(w.accessibleName() for w in new)
    assert window.input.accessibleName().startswith("Editing")
    unnamed = [
        w
        for w in window.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible() and not w.accessibleName()
    ]
    assert unnamed == []
