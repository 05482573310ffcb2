"""The window at ordinary sizes (issue 31, item 4): with the docks open at 1280 and 1024 px
the conversation wraps (it never scrolls sideways), a long unbroken run wraps too, every
reply is shown whole, and the docks leave the conversation a readable width."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from rilai_desktop.ui.app import DesktopApp
from rilai_desktop.ui.conversation import (
    LONG_RUN,
    ZWSP,
    ConversationView,
    MessageRow,
    breakable,
)
from rilai_desktop.ui.theme import apply_theme

URL = "https://example.com/a/very/long/path/that/does/not/break/anywhere/at/all/really"


def test_a_long_run_gets_break_opportunities_and_links_stay_whole() -> None:
    shown = breakable(f"see {URL} now")
    assert shown.replace(ZWSP, "") == f"see {URL} now"
    assert all(len(part) <= LONG_RUN for part in shown.split(ZWSP)[1:-1])
    assert breakable("short words only") == "short words only"
    link = f"[the page]({URL})"
    assert breakable(f"read {link}") == f"read {link}"  # markdown link untouched
    assert breakable(f"<{URL}>") == f"<{URL}>"


def _open_docks(app: DesktopApp, qtbot: QtBot, width: int, height: int) -> None:
    app.window.resize(width, height)
    app.window.show()
    assert app.memory is not None and app.conversations is not None
    app.open_inspector()
    app.memory.show()
    app.conversations.show()
    qtbot.waitUntil(lambda: app.window.view.viewport().width() > 0, timeout=5_000)
    qtbot.wait(200)  # the docks' fitting runs on the next event-loop pass


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1024, 768)])
def test_with_the_docks_open_the_conversation_wraps_and_shows_every_reply(
    loaded_desktop: DesktopApp, qtbot: QtBot, width: int, height: int
) -> None:
    app = loaded_desktop
    _open_docks(app, qtbot, width, height)
    view = app.window.view
    app.window.send(f"Today was long: the train was late, and {URL}")
    qtbot.waitUntil(lambda: len(view.rows) >= 2 and view.rows[-1].final, timeout=30_000)
    qtbot.wait(100)
    assert view.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert view.horizontalScrollBar().maximum() == 0
    assert view.widget().width() <= view.viewport().width()
    # the docks leave the conversation a readable width
    assert view.viewport().width() >= 360, view.viewport().width()
    for row in view.rows:
        body = row.body
        assert row.geometry().right() <= view.widget().width()
        assert body.width() <= row.width()
        assert body.height() >= body.heightForWidth(body.width())  # no line cut off


LONG_REPLY = (
    "I understand how you feel. Loneliness and the challenges of evenings can be difficult, "
    "but remember that you are not alone. It's okay to talk to friends, family, or community "
    "groups about how you feel, and to ask for help when the evenings are hardest."
)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", [365, 400, 700])
def test_a_narrow_reply_keeps_its_buttons_whole_and_every_line(
    qapp: QApplication, qtbot: QtBot, theme: str, width: int
) -> None:
    """Issue 31, seen at 1024x768 with both docks open: the last reply shows Regenerate, Why?,
    Inspect and Copy beside "Rilai · 07:03"; in a ~365 px conversation they did not fit, Qt
    elided them ("Re…te") and the reply's last line was cut. The actions take a second line
    instead, and every row is at least as wide as it needs."""
    before = qapp.styleSheet()
    apply_theme(qapp, theme)
    try:
        view = ConversationView()
        qtbot.addWidget(view)
        view.resize(width, 700)
        view.show()
        view.add_message("user", "hi, I'm Dana. I just moved to Lisbon for a new job.")
        view.add_message("assistant", "Congratulations! Lisbon is lovely.", turn_id=1)
        view.add_message("user", "honestly it's been lonely. evenings are hard.")
        view.add_message("assistant", LONG_REPLY, turn_id=2)
        view.set_idle(True)
        last = view.rows[-1]
        qtbot.waitUntil(lambda: last.regenerate_button.isVisible(), timeout=5_000)
        qtbot.wait(50)
        for row in view.rows:
            assert row.minimumSizeHint().width() <= row.width(), (row.role, row.width())
            buttons = [b for b in row._buttons if b.isVisible()]
            for button in buttons:  # not elided
                assert button.width() >= button.sizeHint().width(), (button.text(), width)
            assert row.header.width() >= row.header.sizeHint().width(), row.header.text()
            body = row.body
            assert body.height() >= body.heightForWidth(body.width())  # no line cut off
        assert view.horizontalScrollBar().maximum() == 0
        # wide, the header stays one line; at 365 px the actions take their own
        if width == 700:
            assert last.header_fits(last.width())
        if width == 365:
            assert not last.header_fits(last.width())
    finally:
        qapp.setStyleSheet(before)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("role", ["user", "assistant"])
def test_a_row_made_narrow_takes_the_narrow_indent(
    qapp: QApplication, qtbot: QtBot, theme: str, role: str
) -> None:
    """The narrow indent is the style sheet's margin, which a frame takes as its contents
    margins only on a style change: re-polishing alone kept the wide 80 px, and the text
    and the actions had 56 px less than the bubble showed."""
    before = qapp.styleSheet()
    apply_theme(qapp, theme)
    try:
        rows = []
        for narrow_first in (False, True):
            row = MessageRow(role, "hello", None, final=True, turn_id=1)
            qtbot.addWidget(row)
            row.set_narrow(narrow_first)
            row.show()
            rows.append(row)
        wide, narrow = rows
        qtbot.wait(10)
        assert wide.contentsMargins() != narrow.contentsMargins()
        wide.set_narrow(True)
        assert wide.contentsMargins() == narrow.contentsMargins()
    finally:
        qapp.setStyleSheet(before)
