"""The main window on the real Engine with the scripted fake LLM (pytest-qt, offscreen)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.app.engine import Engine
from rilai_desktop.contracts import EventKind
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.turn.state import VoiceDelta
from rilai_desktop.ui.app import build_window
from rilai_desktop.ui.bridge import EngineBridge
from rilai_desktop.ui.main_window import MainWindow
from tests.fake_engine import VOICE_REPLY, open_fake_engine


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[MainWindow]:
    win = MainWindow(EngineBridge(open_fake_engine()))
    qtbot.addWidget(win)
    win.show()
    yield win
    win.close()


def _say(qtbot: QtBot, win: MainWindow, text: str) -> None:
    win.input.setPlainText(text)
    qtbot.keyClick(win.input, Qt.Key.Key_Return)


def test_a_message_streams_into_the_view_and_ends_as_markdown(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert window.bridge is not None
    pieces: list[str] = []
    window.bridge.update.connect(
        lambda u: pieces.append(u.text) if isinstance(u, VoiceDelta) and not u.reset else None
    )
    _say(qtbot, window, "Hi, long day at work.")
    assert window.input.toPlainText() == ""  # sent
    assert [r.role for r in window.view.rows] == ["user", "assistant"]
    qtbot.waitUntil(lambda: window.view.rows[-1].final, timeout=30_000)
    reply = window.view.rows[-1]
    assert reply.text == VOICE_REPLY and "".join(pieces) == VOICE_REPLY
    assert reply.body.textFormat() is Qt.TextFormat.MarkdownText
    assert window.stage_label.text() == "ready"
    assert window.send_button.text() == "Send"


def test_enter_sends_and_shift_enter_is_a_new_line(qtbot: QtBot, window: MainWindow) -> None:
    window.input.setPlainText("first line")
    window.input.moveCursor(window.input.textCursor().MoveOperation.End)
    qtbot.keyClick(window.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert window.input.toPlainText() == "first line\n"
    assert window.view.rows == []  # nothing sent
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: len(window.view.rows) == 2 and window.view.rows[-1].final, timeout=30_000
    )
    assert window.view.rows[0].text == "first line\n"


def test_an_empty_message_is_not_sent(qtbot: QtBot, window: MainWindow) -> None:
    _say(qtbot, window, "   \n  ")
    assert window.view.rows == []


def test_esc_cancels_the_running_turn_and_the_log_says_so(qtbot: QtBot) -> None:
    gate = threading.Event()

    def slow_voice(_request: Any) -> str:
        gate.wait(30)
        return VOICE_REPLY

    engine = open_fake_engine(ScriptedLLM(default=slow_voice))
    win = MainWindow(EngineBridge(engine))
    qtbot.addWidget(win)
    win.show()
    _say(qtbot, win, "Tell me something long.")
    qtbot.waitUntil(lambda: win.stage_label.text().startswith("voice"), timeout=30_000)
    assert win.send_button.text() == "Stop"
    qtbot.keyClick(win.input, Qt.Key.Key_Escape)
    gate.set()
    qtbot.waitUntil(lambda: win.view.rows[-1].text.startswith("(stopped"), timeout=30_000)
    assert [r.role for r in win.view.rows] == ["user", "system"]  # the partial reply went
    log = engine.parts.core.event_log
    (aborted,) = log.events(kind=EventKind.TURN_ABORTED)
    assert aborted.payload["reason"] == "cancelled"
    assert not log.events(kind=EventKind.TURN_COMPLETED)
    win.close()


def test_new_conversation_clears_the_view_and_keeps_memory(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert window.bridge is not None
    _say(qtbot, window, "My sister is called Ines.")
    qtbot.waitUntil(lambda: window.view.rows[-1].final, timeout=30_000)
    old = window.bridge.engine.session_id
    with qtbot.waitSignal(window.bridge.reset_done, timeout=30_000):
        qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.bridge.engine.session_id != old
    assert [r.role for r in window.view.rows] == ["system"]
    assert "remembers" in window.view.rows[0].text


def test_the_conversation_so_far_is_shown_at_start(qtbot: QtBot) -> None:
    engine = open_fake_engine()
    engine.send("Hello there.").result(timeout=30)
    engine.close()
    win = MainWindow(EngineBridge(open_fake_engine()))  # a restart on the same log
    qtbot.addWidget(win)
    assert [(r.role, r.text) for r in win.view.rows] == [
        ("user", "Hello there."),
        ("assistant", VOICE_REPLY),
    ]
    win.close()


def test_the_window_shows_before_the_engine_and_says_when_it_cannot_open(
    qtbot: QtBot,
) -> None:
    win, loader = build_window(open_fake_engine)
    qtbot.addWidget(win)
    assert not win.input.isEnabled() and "loading" in win.stage_label.text()
    assert win.windowTitle() == "Rilai (starting…)"  # the taskbar says it too
    with qtbot.waitSignal(loader.loaded, timeout=30_000):
        loader.start()
    assert win.input.isEnabled() and win.bridge is not None
    assert win.windowTitle() == "Rilai"
    win.close()

    def broken() -> Engine:
        raise RuntimeError("the model file is missing")

    win2, loader2 = build_window(broken)
    qtbot.addWidget(win2)
    with qtbot.waitSignal(loader2.failed, timeout=10_000):
        loader2.start()
    assert not win2.input.isEnabled()
    assert "the model file is missing" in win2.stage_label.text()


def test_every_focusable_control_has_an_accessible_name(qtbot: QtBot, window: MainWindow) -> None:
    _say(qtbot, window, "Hello.")
    qtbot.waitUntil(lambda: window.view.rows[-1].final, timeout=30_000)
    unnamed = [
        f"{type(w).__name__}:{w.objectName()}"
        for w in window.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible() and not w.accessibleName()
    ]
    assert unnamed == []


def test_a_100_kb_paste_and_control_characters_lose_nothing(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert window.bridge is not None
    huge = ("I keep thinking about the move. " * 3200)[:100_000]
    _say(qtbot, window, huge)
    qtbot.waitUntil(lambda: window.view.rows[-1].final, timeout=60_000)
    assert window.view.rows[0].text == huge  # shown as pasted
    assert window.view.rows[-1].text == VOICE_REPLY
    _say(qtbot, window, "bell\x07 nul\x00 escape\x1b[31m red \ufeff end")
    qtbot.waitUntil(
        lambda: len(window.view.rows) == 4 and window.view.rows[-1].final, timeout=30_000
    )
    log = window.bridge.engine.parts.core.event_log
    started = log.events(kind=EventKind.TURN_STARTED)
    assert len(started) == 2  # both turns are in the log
    assert "\x00" not in started[1].payload["user_input"]  # cleaned before the turn


def test_a_broken_voice_model_still_gets_a_reply_and_the_window_goes_on(qtbot: QtBot) -> None:
    from rilai_desktop.llm.errors import ModelFileCorruptError

    def broken(_request: Any) -> str:
        raise ModelFileCorruptError("the GGUF file is truncated")

    win = MainWindow(EngineBridge(open_fake_engine(ScriptedLLM(default=broken))))
    qtbot.addWidget(win)
    _say(qtbot, win, "Are you there?")
    qtbot.waitUntil(
        lambda: win.view.rows[-1].role != "assistant" or win.view.rows[-1].final, timeout=30_000
    )
    last = win.view.rows[-1]
    assert last.text.strip()  # a fallback reply or a plain note, never a blank or a crash
    assert win.input.isEnabled() and win.send_button.text() == "Send"
    win.close()


def test_the_status_strip_shows_memory_read_off_the_gui_thread(
    qtbot: QtBot, window: MainWindow
) -> None:
    assert window.bridge is not None
    reads: list[str] = []
    original = window.bridge.engine.memory.stats

    def stats() -> Any:
        reads.append(threading.current_thread().name)
        return original()

    window.bridge.engine.memory.stats = stats  # type: ignore[method-assign]
    _say(qtbot, window, "My sister Maya lives in Lisbon.")
    qtbot.waitUntil(lambda: bool(reads), timeout=30_000)  # read again after the turn
    qtbot.waitUntil(lambda: window.memory_label.text().startswith("memory: "), timeout=10_000)
    assert threading.main_thread().name not in reads
