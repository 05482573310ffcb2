""" "Why?" under a reply opens "Why Rilai said this" on the real Engine with the scripted
fake LLM (pytest-qt, offscreen): it lists the memory that reached the voice's prompt, and
its buttons call the memory facade through the bridge, off the GUI thread."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.ui.bridge import EngineBridge
from rilai_desktop.ui.main_window import MainWindow
from rilai_desktop.ui.why_panel import DONE, WhyPanel
from tests.fake_engine import open_fake_engine

FACT = "My sister Maya lives in Lisbon."
QUESTION = "Where does my sister Maya live?"


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    win = MainWindow(EngineBridge(open_fake_engine(ScriptedLLM(default="She is in Lisbon."))))
    qtbot.addWidget(win)
    win.show()
    yield win
    if win.why_panel is not None:
        win.why_panel.close()
    win.close()


def _say(qtbot: QtBot, win: MainWindow, text: str) -> None:
    rows = len(win.view.rows)
    win.input.setPlainText(text)
    qtbot.keyClick(win.input, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: len(win.view.rows) == rows + 2 and win.view.rows[-1].final, timeout=30_000
    )
    qtbot.waitUntil(lambda: win.send_button.text() == "Send", timeout=10_000)


def _open_why(qtbot: QtBot, win: MainWindow) -> WhyPanel:
    _say(qtbot, win, FACT)
    _say(qtbot, win, QUESTION)
    reply = win.view.rows[-1]
    assert reply.why_button.isVisible()
    assert all(not r.why_button.isVisible() for r in win.view.rows if r.role == "user")
    qtbot.mouseClick(reply.why_button, Qt.MouseButton.LeftButton)
    panel = win.why_panel
    assert panel is not None
    qtbot.waitUntil(lambda: panel.explanation is not None, timeout=10_000)
    assert panel.isVisible()
    return panel


def test_why_opens_the_panel_listing_the_memory_in_the_prompt(
    qtbot: QtBot, window: MainWindow
) -> None:
    panel = _open_why(qtbot, window)
    assert window.bridge is not None
    engine = window.bridge.engine
    turn = window.view.rows[-1].turn_id
    expected = [m.text for m in engine.explain_turn(engine.session_id, turn).memories]
    assert panel.memory_texts() == expected
    assert any("Lisbon" in text for text in panel.memory_texts())
    assert panel.section_titles()[:2] == ["This turn", "Memories in Rilai's notes for this reply"]
    assert "The council's decision" in panel.section_titles()
    assert "The critics' verdicts" in panel.section_titles()
    # which model wrote the reply (a tier on another machine says its id: issue 29)
    from PySide6.QtWidgets import QLabel

    written = [w.text() for w in panel.findChildren(QLabel) if w.text().startswith("Written by:")]
    assert written == [f"Written by: {engine.explain_turn(engine.session_id, turn).voice_model}"]
    assert written[0] != "Written by: "


def test_every_control_of_the_panel_has_an_accessible_name(
    qtbot: QtBot, window: MainWindow
) -> None:
    panel = _open_why(qtbot, window)
    panel.rows[0].edit_button.click()  # the inline editor's controls too
    unnamed = [
        f"{type(w).__name__}:{w.objectName()}"
        for w in panel.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible() and not w.accessibleName()
    ]
    assert unnamed == []
    assert window.view.rows[-1].why_button.accessibleName() == "Why Rilai said this"


def test_the_memory_buttons_call_the_facade_through_the_bridge(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Pause, Not relevant and Edit reach ``engine.memory.<name>`` off the GUI thread. Where
    the facade has the method (helper A's branch) the panel says it is done; where it does
    not yet, the panel says why it did not work — either way the call got there."""
    panel = _open_why(qtbot, window)
    assert window.bridge is not None
    memory = window.bridge.engine.memory
    row = panel.rows[0]
    heard: list[tuple[str, object]] = []
    window.bridge.memory_changed.connect(lambda n, r: heard.append((n, r)))
    window.bridge.memory_failed.connect(lambda n, why: heard.append((n, why)))
    for button, name in ((row.pause_button, "set_paused"), (row.irrelevant_button, "not_relevant")):
        before = len(heard)
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda before=before: len(heard) > before, timeout=10_000)
        assert heard[-1][0] == name
        qtbot.waitUntil(lambda: panel.status.text() != "Working…", timeout=10_000)
        if hasattr(memory, name):
            assert panel.status.text() == DONE[name]
        else:  # the facade has no such method yet: the panel says why, naming it
            assert panel.status.text().startswith("That did not work:")
            assert name in panel.status.text()
    if hasattr(memory, "set_paused"):
        assert row.pause_button.text() == "Resume"
    # an empty correction is refused in the panel, before any call
    row.edit_button.click()
    row.editor.setText("   ")
    row.save_button.click()
    assert "cannot be empty" in panel.status.text()
    assert row.editor.isVisible()


def test_a_protective_reply_says_why_in_one_sentence(qtbot: QtBot, window: MainWindow) -> None:
    """Issue 27 item 1 through the real bridge: the risk the turn logged reaches the panel
    with its explanation, and the panel says why the reply was support."""
    _say(qtbot, window, "I don't think I want to be here anymore.")
    qtbot.mouseClick(window.view.rows[-1].why_button, Qt.MouseButton.LeftButton)
    panel = window.why_panel
    assert panel is not None
    qtbot.waitUntil(lambda: panel.explanation is not None, timeout=10_000)
    assert panel.risk is not None and panel.risk.protect
    assert panel.careful_text().startswith("I answered with support because ")
    assert panel.careful_text().endswith("(careful: 6 turns left).")
