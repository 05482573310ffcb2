"""The memory browser on the real Engine (scripted LLM): a fact learned in a turn appears
with the conversation it came from, search finds it, the categories render their markdown,
every control has an accessible name, and the controls ask the bridge for the writes of
the contract (``engine.memory.edit/delete/delete_many/set_paused/set_pinned/
set_recording_paused/forget_everything``) — and, where the engine has them, do them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.ui.app import DesktopApp
from rilai_desktop.ui.memory_browser.dialogs import CONFIRM_WORD, ForgetDialog
from rilai_desktop.ui.memory_browser.dock import MemoryDock

FACT = "My sister is called Ines."


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def desktop(loaded_desktop: DesktopApp) -> DesktopApp:
    return loaded_desktop


def _dock(app: DesktopApp) -> MemoryDock:
    assert app.memory is not None
    return app.memory


def _learn(qtbot: QtBot, app: DesktopApp, text: str = FACT) -> None:
    bridge = app.window.bridge
    assert bridge is not None
    with qtbot.waitSignal(bridge.turn_done, timeout=60_000):
        assert bridge.send(text)


def _open(qtbot: QtBot, app: DesktopApp) -> MemoryDock:
    dock = _dock(app)
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(dock.isVisible, timeout=5_000)
    return dock


def _texts(dock: MemoryDock, kind: str) -> list[str]:
    return [e.text for e in dock.panel.entry_tabs[kind].model.entries]


class Calls:
    """What the dock asked the bridge to do (the bridge's own method still runs)."""

    def __init__(self, dock: MemoryDock) -> None:
        bridge = dock.bridge
        assert bridge is not None
        self.seen: list[tuple[Any, ...]] = []
        real = bridge.memory_action

        def record(name: str, *args: object) -> None:
            self.seen.append((name, *args))
            real(name, *args)

        bridge.memory_action = record  # type: ignore[method-assign]


def test_ctrl_m_and_the_view_menu_show_the_dock(qtbot: QtBot, desktop: DesktopApp) -> None:
    dock = _dock(desktop)
    toggle = dock.toggleViewAction()
    assert toggle.shortcut().toString() == "Ctrl+M"
    assert toggle in desktop.window.view_menu.actions()
    assert not dock.isVisible()
    desktop.window.show()
    toggle.trigger()
    qtbot.waitUntil(dock.isVisible, timeout=5_000)
    titles = [dock.panel.tabs.tabText(i) for i in range(dock.panel.tabs.count())]
    assert [t.split(" (")[0].replace("&&", "&") for t in titles] == [
        "About you",
        "Episodes",
        "Threads & goals",
        "Items",
        "Categories",
        "Journal",
        "Knowledge bases",
    ]


def test_a_fact_learned_in_a_turn_appears_with_its_source(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    desktop.window.show()
    dock = _open(qtbot, desktop)
    _learn(qtbot, desktop)
    qtbot.waitUntil(lambda: FACT in _texts(dock, "fact"), timeout=10_000)
    (fact,) = [e for e in dock.panel.entry_tabs["fact"].model.entries if e.text == FACT]
    assert fact.source == f"conversation “{FACT}”, turn 1"
    assert dock.panel.tabs.tabText(0).startswith("About you (")
    model = dock.panel.entry_tabs["fact"].model
    row = [model.index(0, c).data() for c in range(model.columnCount())]
    assert row[:5] == [FACT, fact.category, fact.source, "1 message", row[4]]
    assert row[5] == "never"  # not used in a reply yet
    items = dock.panel.entry_tabs["item"].model.entries
    said = [e for e in items if e.category == "what you said"]
    assert [e.text for e in said] == [FACT] and said[0].source == fact.source


def test_search_finds_it_across_all_of_memory(qtbot: QtBot, desktop: DesktopApp) -> None:
    desktop.window.show()
    _learn(qtbot, desktop)
    _learn(qtbot, desktop, "I love hiking in the mountains.")
    dock = _open(qtbot, desktop)
    qtbot.waitUntil(lambda: len(_texts(dock, "fact")) >= 2, timeout=10_000)
    qtbot.keyClicks(dock.panel.search, "Ines")
    qtbot.waitUntil(lambda: _texts(dock, "fact") == [FACT], timeout=10_000)
    assert "Ines" in _texts(dock, "item")[0]  # the retrieval's best first
    assert "found for “Ines”" in dock.panel.entry_tabs["fact"].note.text()
    dock.panel.search.clear()
    qtbot.waitUntil(lambda: len(_texts(dock, "fact")) >= 2, timeout=10_000)


def test_the_categories_tab_renders_the_markdown_file(qtbot: QtBot, desktop: DesktopApp) -> None:
    bridge = desktop.window.bridge
    assert bridge is not None
    memory = bridge.engine.parts.memory
    assert memory is not None
    memory.create_category("hobbies", "What they do for fun")
    memory.remember("I play the cello on Sundays.", "hobbies")
    memory.consolidate_category("hobbies", force=True, use_model=False)
    desktop.window.show()
    dock = _open(qtbot, desktop)
    tab = dock.panel.page_tabs["category"]
    qtbot.waitUntil(
        lambda: bool(tab.list.findItems("hobbies", Qt.MatchFlag.MatchExactly)), timeout=10_000
    )
    tab.list.setCurrentItem(tab.list.findItems("hobbies", Qt.MatchFlag.MatchExactly)[0])
    page = tab.page()
    assert page.path is not None and page.path.name == "hobbies.md"
    assert "cello" in tab.text.toPlainText()
    assert page.markdown == page.path.read_text(encoding="utf-8")
    assert "#" not in tab.text.toPlainText().splitlines()[0]  # rendered, not the source
    assert tab.open_button.isEnabled() and str(page.path) in tab.where.text()


def test_every_control_has_an_accessible_name(qtbot: QtBot, desktop: DesktopApp) -> None:
    desktop.window.show()
    _learn(qtbot, desktop)
    dock = _open(qtbot, desktop)
    qtbot.waitUntil(lambda: bool(_texts(dock, "fact")), timeout=10_000)
    assert dock.accessibleName()
    # the Tab walk, through every tab
    for i in range(dock.panel.tabs.count()):
        dock.panel.tabs.setCurrentIndex(i)
        dock.panel.search.setFocus()
        seen: list[QWidget] = []
        for _ in range(40):
            qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
            w = QApplication.focusWidget()
            if w is None or not dock.isAncestorOf(w) or w in seen:
                break
            seen.append(w)
        unnamed = [type(w).__name__ for w in seen if not w.accessibleName()]
        assert unnamed == [], dock.panel.tabs.tabText(i)
    nameless = [
        f"{type(w).__name__} {w.objectName()!r}"
        for w in dock.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible() and not w.accessibleName()
    ]
    assert nameless == []
    dialog = ForgetDialog(desktop.window)
    assert all(
        w.accessibleName()
        for w in dialog.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus
    )


def test_the_controls_ask_the_bridge_for_the_writes(qtbot: QtBot, desktop: DesktopApp) -> None:
    desktop.window.show()
    _learn(qtbot, desktop)
    _learn(qtbot, desktop, "I love hiking in the mountains.")
    dock = _open(qtbot, desktop)
    tab = dock.panel.entry_tabs["fact"]
    qtbot.waitUntil(lambda: len(tab.model.entries) >= 2, timeout=10_000)
    calls = Calls(dock)
    tab.table.selectRow(0)
    first = tab.current()
    assert first is not None and tab.pause_button.isEnabled()
    qtbot.mouseClick(tab.pause_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(tab.pin_button, Qt.MouseButton.LeftButton)
    dock.ask_edit = lambda entry: entry.text + " She lives in Porto."
    qtbot.mouseClick(tab.edit_button, Qt.MouseButton.LeftButton)
    asked: list[str] = []
    dock.confirm = lambda question: asked.append(question) is None
    qtbot.mouseClick(tab.delete_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(tab.select_all_button, Qt.MouseButton.LeftButton)
    assert tab.delete_button.text() == f"Delete {len(tab.model.entries)} selected…"
    refs = [(e.kind, e.entry_id) for e in tab.selected()]
    qtbot.mouseClick(tab.delete_button, Qt.MouseButton.LeftButton)
    dock.panel.paused_switch.click()
    dock.confirm_forget = lambda: True
    qtbot.mouseClick(dock.panel.forget_button, Qt.MouseButton.LeftButton)
    assert calls.seen == [
        ("set_paused", "fact", first.entry_id, True),
        ("set_pinned", "fact", first.entry_id, True),
        ("edit", "fact", first.entry_id, first.text + " She lives in Porto."),
        ("delete", "fact", first.entry_id),
        ("delete_many", refs),
        ("set_recording_paused", True),
        ("forget_everything",),
    ]
    assert "never recall" in asked[0] and "these 2 entries" in asked[1]


def test_a_write_the_engine_refuses_says_why_and_keeps_the_switch(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    desktop.window.show()
    dock = _open(qtbot, desktop)
    bridge = dock.bridge
    assert bridge is not None
    with qtbot.waitSignal(bridge.memory_failed, timeout=10_000):
        bridge.memory_action("edit", "fact", "no-such-fact", "")
    assert dock.panel.note.text()


def test_the_forget_dialog_goes_ahead_only_once_forget_is_typed(qtbot: QtBot) -> None:
    dialog = ForgetDialog()
    qtbot.addWidget(dialog)
    said = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert "all your conversations" in said and "knowledge bases" in said
    assert not dialog.forget_button.isEnabled()
    qtbot.keyClicks(dialog.word, "forget")
    assert not dialog.forget_button.isEnabled()
    dialog.word.clear()
    qtbot.keyClicks(dialog.word, CONFIRM_WORD)
    assert dialog.forget_button.isEnabled()
    with qtbot.waitSignal(dialog.accepted, timeout=2_000):
        qtbot.mouseClick(dialog.forget_button, Qt.MouseButton.LeftButton)


def test_the_status_strip_says_memory_paused(qtbot: QtBot, desktop: DesktopApp) -> None:
    status = desktop.window.status
    status.memory_paused(True)
    assert status.memory_label.text().startswith("memory paused")
    status.memory_paused(False)
    assert "paused" not in status.memory_label.text()
