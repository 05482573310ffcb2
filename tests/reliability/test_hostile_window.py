"""Proof 2 of issue 30, hostile input through the window's input box (pytest-qt, the real
MainWindow and EngineBridge over a fake Engine; see tests/ui/test_bad_input.py).

Each drawn text is typed (``setPlainText``) and sent with Return. A text the window does
not send is counted with its reason (blank: the bridge sends nothing; a leading ``/``: a
slash command). A sent one must end with the reply row final, the input enabled again and
no exception in a Qt slot (pytest-qt fails the test on one)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from rilai_desktop.app.slash_commands import looks_like_command
from rilai_desktop.contracts import EventKind
from rilai_desktop.ui.bridge import EngineBridge
from rilai_desktop.ui.main_window import MainWindow
from tests.fake_engine import open_fake_engine
from tests.reliability._strategies import hostile_settings, mixed, record_part


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def test_hostile_input_through_the_window(qtbot: QtBot, scale: Any, report: Any) -> None:
    examples = scale.pick(10, 300)
    engine = open_fake_engine()
    engine.runner.warm_next_voice = False
    win = MainWindow(EngineBridge(engine))
    qtbot.addWidget(win)
    win.show()
    bridge = win.bridge
    assert bridge is not None
    log = engine.parts.core.event_log
    tally: Counter[str] = Counter()
    stuck: list[str] = []
    start = time.perf_counter()

    @hostile_settings(examples)
    @given(mixed)
    def run(text: str) -> None:
        tally["inputs"] += 1
        win.input.setPlainText(text)
        typed = win.input.toPlainText()  # what Qt kept (it has no lone surrogates)
        if not typed.strip():
            qtbot.keyClick(win.input, Qt.Key.Key_Return)
            tally["refused: blank, not sent"] += 1
            win.input.clear()
            return
        if looks_like_command(typed):
            qtbot.keyClick(win.input, Qt.Key.Key_Return)
            tally["refused: a slash command, not sent"] += 1
            win.input.clear()
            return
        before = len(log.events(kind=EventKind.TURN_COMPLETED))
        qtbot.keyClick(win.input, Qt.Key.Key_Return)
        try:
            qtbot.waitUntil(
                lambda: (
                    not bridge.busy
                    and len(log.events(kind=EventKind.TURN_COMPLETED)) > before
                    and win.input.isEnabled()
                ),
                timeout=60_000,
            )
        except Exception:  # pytest-qt's TimeoutError: the turn never ended in the window
            if len(stuck) < 20:
                stuck.append(repr(typed[:60]))
            return
        tally["turns_completed"] += 1

    try:
        run()
    finally:
        win.close()
        engine.close()
    refused = {k: v for k, v in tally.items() if k.startswith("refused")}
    figures = {
        "inputs": tally["inputs"],
        "turns_completed": tally["turns_completed"],
        "refused": sum(refused.values()),
        "refused_reasons": refused,
        "stuck": stuck,
        "seconds": round(time.perf_counter() - start, 1),
    }
    bars = {
        "inputs": tally["inputs"] >= examples,
        "all_completed_or_refused": tally["turns_completed"] + sum(refused.values())
        == tally["inputs"],
    }
    record_part(report, "window", figures, bars)
    assert all(bars.values()), figures
