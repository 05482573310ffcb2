"""The conversation follows the reply as it streams, and stops following while the person
has scrolled up to read; back at the bottom, it follows again."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from rilai_desktop.ui.conversation import ConversationView


def test_the_view_follows_the_stream_until_the_person_scrolls_up(qtbot: QtBot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.resize(500, 300)
    view.show()
    for n in range(12):
        view.add_message("user", f"message {n}: " + "words " * 20)
    view.start_reply(None)
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=5_000)
    assert view.following
    view.stream("A reply that grows " * 30)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=5_000)  # followed

    bar.setValue(0)  # the person scrolls up to read
    assert not view.following
    view.stream("and grows further " * 40)
    qtbot.wait(100)
    assert bar.value() == 0 and bar.maximum() > 0  # left where they were reading

    bar.setValue(bar.maximum())  # back at the bottom: following again
    assert view.following
    view.stream("until it ends. " * 40)
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=5_000)
