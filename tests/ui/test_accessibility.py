"""What a screen reader is given (issue 31, docs/accessibility.md): a streamed reply is
named once while it streams ("Rilai is replying…", not every fragment: Orca's log showed
one name change per piece), then by its whole text; a finished reply and an inline check-in
are announced politely, so a person whose focus stays in the input hears them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.ui import app as app_module
from rilai_desktop.ui import conversation as conversation_module
from rilai_desktop.ui.app import DesktopApp
from rilai_desktop.ui.conversation import ConversationView


@pytest.fixture
def announced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    said: list[str] = []

    def record(widget: QWidget, message: str) -> None:
        said.append(message)

    monkeypatch.setattr(conversation_module, "announce", record)
    monkeypatch.setattr(app_module, "announce", record)
    return said


def test_a_streamed_reply_is_named_once_then_by_its_text(
    qtbot: QtBot, announced: list[str]
) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    row = view.start_reply()
    names = []
    for piece in ("That ", "sounds ", "like a full day."):
        view.stream(piece)
        names.append(row.body.accessibleName())
    assert names == ["Rilai is replying…"] * 3
    assert announced == []  # nothing read out mid-stream
    view.finish_reply("That sounds like a full day.", turn_id=1)
    assert row.body.accessibleName() == "Rilai: That sounds like a full day."
    assert announced == ["Rilai: That sounds like a full day."]


def test_the_real_announcement_reaches_qt_without_error(qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    row = view.add_message("assistant", "hello", datetime(2026, 11, 28, tzinfo=UTC))
    conversation_module.announce(row, "Rilai: hello")  # QAccessibleAnnouncementEvent


def test_an_inline_check_in_is_announced(loaded_desktop: DesktopApp, announced: list[str]) -> None:
    from rilai_desktop.daemon.ports import Nudge

    nudge = Nudge(
        condition="open_thread",
        reason="test",
        suggestion="How did the report go?",
        level=3,
        context={},
        at=datetime(2026, 11, 28, tzinfo=UTC),
    )
    loaded_desktop._show_inline(nudge)
    assert loaded_desktop.window.view.rows[-1].text == "How did the report go?"
    assert announced[-1] == "Rilai checks in: How did the report go?"
