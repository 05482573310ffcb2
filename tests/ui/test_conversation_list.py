"""The Conversations dock on the real Engine (scripted LLM): past conversations newest
first, switching to one shows its messages, a search finds a message of an older one and
opens that conversation at it, and every control has an accessible name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.ui.app import DesktopApp
from rilai_desktop.ui.conversation_list import ConversationsDock
from tests.fake_engine import VOICE_REPLY, open_fake_engine

OLDER = ["My tomato garden is thriving.", "The basil too."]
NEWER = "I practised the violin today."


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def sessions() -> tuple[str, str]:
    """Two past conversations in the log: the garden (older), the violin (newer)."""
    with open_fake_engine() as engine:
        for text in OLDER:
            engine.send(text).result(timeout=60)
        older = engine.session_id
        newer = engine.reset()
        engine.send(NEWER).result(timeout=60)
    return older, newer


@pytest.fixture
def desktop(qtbot: QtBot, sessions: tuple[str, str]) -> Iterator[DesktopApp]:
    app = DesktopApp(open_fake_engine, tray_available=lambda: False, with_daemon=False)
    qtbot.addWidget(app.window)
    with qtbot.waitSignal(app.loader.loaded, timeout=30_000):
        app.start()
    qtbot.waitUntil(lambda: app.conversations is not None, timeout=10_000)
    dock = _dock(app)
    qtbot.waitUntil(lambda: dock.panel.list.count() == 2, timeout=10_000)
    yield app
    app.window.close()


def _dock(app: DesktopApp) -> ConversationsDock:
    assert app.conversations is not None
    return app.conversations


def _texts(app: DesktopApp) -> list[str]:
    return [r.text for r in app.window.view.rows]


def test_the_list_shows_both_conversations_newest_first(
    desktop: DesktopApp, sessions: tuple[str, str]
) -> None:
    dock = _dock(desktop)
    assert dock.isVisible()
    rows = [dock.panel.list.item(i).text() for i in range(dock.panel.list.count())]
    assert rows[0].startswith(NEWER) and rows[1].startswith(OLDER[0])
    assert "2 turns" in rows[1] and "1 turn" in rows[0]
    assert dock.panel.list.item(0).font().bold()  # the open one is marked
    assert _texts(desktop) == [NEWER, VOICE_REPLY]


def test_clicking_the_older_conversation_shows_its_messages(
    qtbot: QtBot, desktop: DesktopApp, sessions: tuple[str, str]
) -> None:
    older, _newer = sessions
    panel = _dock(desktop).panel
    item = panel.list.item(1)
    qtbot.mouseClick(
        panel.list.viewport(),
        Qt.MouseButton.LeftButton,
        pos=panel.list.visualItemRect(item).center(),
    )
    qtbot.waitUntil(lambda: _texts(desktop)[:1] == OLDER[:1], timeout=10_000)
    rows = desktop.window.view.rows
    assert [r.role for r in rows] == ["user", "assistant"] * 2
    assert [r.text for r in rows if r.role == "user"] == OLDER
    assert rows[1].text == VOICE_REPLY and rows[1].turn_id == 1  # "Inspect" works there
    bridge = desktop.window.bridge
    assert bridge is not None and bridge.engine.session_id == older
    qtbot.waitUntil(lambda: panel.list.item(1).font().bold(), timeout=5_000)
    # the next message goes on in that conversation
    desktop.window.input.setPlainText("And the peppers?")
    qtbot.keyClick(desktop.window.input, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: len(desktop.window.view.rows) == 6 and desktop.window.view.rows[-1].final,
        timeout=30_000,
    )
    assert bridge.engine.last_result is not None
    assert (bridge.engine.last_result.session_id, bridge.engine.last_result.turn_id) == (older, 3)
    # the finished turn refreshes the list: the garden is now the most recent
    qtbot.waitUntil(lambda: panel.list.item(0).text().startswith(OLDER[0]), timeout=10_000)


def test_a_search_finds_the_older_message_and_opens_it_there(
    qtbot: QtBot, desktop: DesktopApp, sessions: tuple[str, str]
) -> None:
    older, _newer = sessions
    panel = _dock(desktop).panel
    desktop.window.activateWindow()
    qtbot.waitUntil(desktop.window.isActiveWindow, timeout=5_000)
    _dock(desktop).hide()
    qtbot.keyClick(desktop.window.input, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert _dock(desktop).isVisible() and panel.search.hasFocus()  # Ctrl+K: shown, focused
    qtbot.keyClicks(panel.search, "basi")  # type-ahead: a prefix, debounced
    qtbot.waitUntil(lambda: panel.list.accessibleName() == "Messages found", timeout=5_000)
    assert panel.list.count() == 1
    assert panel.list.item(0).text().startswith("The «basil» too.")
    qtbot.keyClick(panel.search, Qt.Key.Key_Down)
    assert panel.list.hasFocus()
    qtbot.keyClick(panel.list, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: _texts(desktop)[:1] == OLDER[:1], timeout=10_000)
    bridge = desktop.window.bridge
    assert bridge is not None and bridge.engine.session_id == older
    marked = [r for r in desktop.window.view.rows if r.property("found")]
    assert [r.text for r in marked] == [OLDER[1]]
    qtbot.keyClicks(panel.search, "zzz")  # words no message holds
    qtbot.waitUntil(lambda: "No message holds" in panel.note.text(), timeout=5_000)
    panel.search.clear()  # back to the conversations
    qtbot.waitUntil(lambda: panel.list.accessibleName() == "Past conversations", timeout=5_000)
    assert panel.list.count() == 2


def test_hostile_words_in_the_search_field_say_nothing_is_found(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    panel = _dock(desktop).panel
    panel.search.setText('" NEAR( AND * 🙂')
    qtbot.waitUntil(lambda: "No message holds" in panel.note.text(), timeout=5_000)
    assert desktop.window.view.rows  # the conversation is untouched, no error shown
    assert all(r.role != "system" for r in desktop.window.view.rows)


def test_new_conversation_refreshes_the_list(qtbot: QtBot, desktop: DesktopApp) -> None:
    panel = _dock(desktop).panel
    qtbot.mouseClick(panel.new_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not any(panel.list.item(i).font().bold() for i in range(2)))
    desktop.window.input.setPlainText("A brand new topic.")
    qtbot.keyClick(desktop.window.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.list.count() == 3, timeout=30_000)
    assert panel.list.item(0).text().startswith("A brand new topic.")


def test_every_control_of_the_dock_has_an_accessible_name(desktop: DesktopApp) -> None:
    dock = _dock(desktop)
    assert dock.accessibleName()
    unnamed = [
        w.objectName() or type(w).__name__
        for w in dock.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible() and not w.accessibleName()
    ]
    assert unnamed == []
    for i in range(dock.panel.list.count()):
        assert dock.panel.list.item(i).data(Qt.ItemDataRole.AccessibleTextRole)
