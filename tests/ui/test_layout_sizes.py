"""The window at ordinary sizes (issue 31, item 4): with the docks open at 1280 and 1024 px
the conversation wraps (it never scrolls sideways), a long unbroken run wraps too, every
reply is shown whole, and the docks leave the conversation a readable width."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QToolButton
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
from tests.fake_engine import open_fake_engine

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


def _assert_every_row_whole(view: ConversationView) -> None:
    """No row clipped, no action elided or overlapping, no sideways scroll."""
    assert view.horizontalScrollBar().maximum() == 0
    for row in view.rows:
        where = (row.role, row.text[:20], view.viewport().width())
        body = row.body
        assert body.height() >= body.heightForWidth(body.width()), where  # no line cut off
        assert row.contentsRect().contains(body.geometry()), where
        shown = [row.header, *(b for b in row.findChildren(QToolButton) if b.isVisible())]
        for widget in shown:
            assert widget.width() >= widget.sizeHint().width(), (widget, *where)  # not elided
            assert row.contentsRect().contains(widget.geometry()), (widget, *where)
            assert widget.geometry().bottom() < body.geometry().top(), (widget, *where)
        for i, one in enumerate(shown):  # nothing overlaps
            for other in shown[i + 1 :]:
                assert not one.geometry().intersects(other.geometry()), (one, other, *where)


def _a_conversation(view: ConversationView) -> None:
    when = datetime(2026, 11, 28, 7, 3, tzinfo=UTC)  # "Rilai · 07:03"
    view.add_message("user", "hi, I'm Dana. I just moved to Lisbon for a new job.", when)
    view.add_message("assistant", "Congratulations! Lisbon is lovely.", when, turn_id=1)
    view.add_message("user", "honestly it's been lonely. evenings are hard.", when)
    view.add_message("assistant", LONG_REPLY, when, turn_id=2)
    view.set_idle(True)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("width", [240, 365, 383, 400, 700])
@pytest.mark.parametrize("narrowed", [False, True], ids=["opened-narrow", "narrowed"])
def test_a_narrow_reply_keeps_its_buttons_whole_and_every_line(
    qapp: QApplication, qtbot: QtBot, theme: str, width: int, narrowed: bool
) -> None:
    """Issue 31, seen at 1024x768 with both docks open: the last reply shows Regenerate, Why?,
    Inspect and Copy beside "Rilai · 07:03"; in a ~365-415 px conversation they did not fit,
    Qt elided them ("Re…te") and the reply's last line was cut. The actions wrap onto lines
    of their own instead, whole, and every line of the reply is shown, whether the
    conversation was narrow from the start or narrowed under rows laid out wide (the
    screenshot's case: the rows came at 1280 px, the window was then made 1024 px)."""
    before = qapp.styleSheet()
    apply_theme(qapp, theme)
    try:
        view = ConversationView()
        qtbot.addWidget(view)
        view.resize(900 if narrowed else width, 700)
        view.show()
        _a_conversation(view)
        last = view.rows[-1]
        qtbot.waitUntil(lambda: last.regenerate_button.isVisible(), timeout=5_000)
        if narrowed:
            qtbot.wait(20)
            assert last.header_lines() == 1  # wide: who-and-when and the actions on one line
            view.resize(width, 700)
        qtbot.wait(50)
        _assert_every_row_whole(view)
        if width <= 400:
            assert last.header_lines() > 1
        else:
            assert last.header_lines() == 1
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


# a long reply the fake engine's critics keep as written
WINDOW_REPLY = (
    "Congratulations on the move! Lisbon is a lovely city to arrive in: the light on the river, "
    "the trams up the hills, the long evenings by the water. A new job and a new city at once "
    "is a lot to take in, so give yourself some time to settle into both of them."
)


@pytest.fixture
def long_replies(
    qapp: QApplication, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> Iterator[DesktopApp]:
    """The desktop app in the light theme on the fake engine whose voice writes
    WINDOW_REPLY."""
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    before = qapp.styleSheet()
    apply_theme(qapp, "light")
    app = DesktopApp(
        lambda: open_fake_engine(WINDOW_REPLY), tray_available=lambda: False, with_daemon=False
    )
    qtbot.addWidget(app.window)
    with qtbot.waitSignal(app.loader.loaded, timeout=30_000):
        app.start()
    qtbot.waitUntil(lambda: app.inspector is not None and app.memory is not None, timeout=10_000)
    yield app
    app.window.close()
    qapp.setStyleSheet(before)


def test_the_window_made_1024_px_under_its_replies_shows_them_whole(
    long_replies: DesktopApp, qtbot: QtBot
) -> None:
    """What `make screenshots` does: the conversation at 1280x800 with the docks open, then
    the window made 1024x768; the last reply (Regenerate, Why?, Inspect, Copy) wraps to
    ~7 lines in a ~380 px conversation."""
    app = long_replies
    _open_docks(app, qtbot, 1280, 800)
    view = app.window.view
    app.window.send("hi, I'm Dana. I just moved to Lisbon for a new job.")
    qtbot.waitUntil(lambda: len(view.rows) >= 2 and view.rows[-1].final, timeout=30_000)
    last = view.rows[-1]
    qtbot.waitUntil(lambda: last.regenerate_button.isVisible(), timeout=5_000)
    assert last.text == WINDOW_REPLY
    _open_docks(app, qtbot, 1024, 768)
    # the inspector a little wider (as it came under Xvfb, its table's minimum): ~380 px
    # of conversation, where the actions fit neither beside who-and-when nor in the wide
    # indent the rows were laid out with
    inspector = app.inspector
    assert inspector is not None
    extra = view.viewport().width() - 380
    app.window.resizeDocks([inspector], [inspector.width() + extra], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: abs(view.viewport().width() - 380) <= 12, timeout=5_000)
    qtbot.wait(100)
    _assert_every_row_whole(view)
    assert last.why_button.isVisible() and last.inspect_button.isVisible()
    assert last.body.heightForWidth(last.body.width()) >= 5 * last.body.fontMetrics().lineSpacing()
