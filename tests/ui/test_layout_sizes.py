"""The window at ordinary sizes (issue 31, item 4): with the docks open at 1280 and 1024 px
the conversation wraps (it never scrolls sideways), a long unbroken run wraps too, every
reply is shown whole, and the docks leave the conversation a readable width."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from rilai_desktop.ui.app import DesktopApp
from rilai_desktop.ui.conversation import LONG_RUN, ZWSP, breakable

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
