"""TrayDelivery and the Tray: nudges cross from an engine thread to the GUI thread, land in
the list, and are shown by level; the tray's pauses reach the nudges facade."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.daemon.ports import Delivery, Nudge
from rilai_desktop.ui.nudge_list import NudgeList
from rilai_desktop.ui.tray import (
    ICON_SIZES,
    ICONS_DIR,
    NO_TRAY_NOTICE,
    Tray,
    TrayDelivery,
    app_icon,
)

NOW = datetime(2025, 3, 4, 10, 0, tzinfo=UTC)


def nudge(level: int, text: str = "“Report” is due soon. Anything I can help with?") -> Nudge:
    return Nudge("deadline:g1", "due in 1 h", text, level, {}, NOW)


class FakeNotifier:
    """The Notifier interface: records what it showed; ``activate`` plays a click on Open."""

    def __init__(self, ok: bool = True) -> None:
        self.ok = ok
        self.shown: list[tuple[Nudge, Callable[[], None]]] = []

    def notify(self, nudge: Nudge, on_open: Callable[[], None]) -> bool:
        self.shown.append((nudge, on_open))
        return self.ok

    def activate(self, index: int = -1) -> None:
        self.shown[index][1]()


@pytest.fixture
def nudge_list(qtbot: QtBot) -> NudgeList:
    widget = NudgeList()
    qtbot.addWidget(widget)
    return widget


def delivery_with(
    nudge_list: NudgeList, notifier: FakeNotifier | None, *, tray: bool = True
) -> TrayDelivery:
    return TrayDelivery(nudge_list, notifier, tray_available=lambda: tray)


def deliver_from_thread(delivery: TrayDelivery, n: Nudge) -> dict[str, object]:
    seen: dict[str, object] = {}

    def work() -> None:
        seen["thread"] = threading.current_thread()
        seen["ok"] = delivery.deliver(n)

    thread = threading.Thread(target=work, name="engine-worker")
    thread.start()
    seen["join"] = thread
    return seen


def test_it_is_a_delivery_named_tray(nudge_list: NudgeList) -> None:
    delivery = delivery_with(nudge_list, FakeNotifier())
    assert isinstance(delivery, Delivery)
    assert delivery.name == "tray"


def test_a_nudge_delivered_from_a_worker_thread_lands_in_the_list_on_the_gui_thread(
    qtbot: QtBot, nudge_list: NudgeList
) -> None:
    delivery = delivery_with(nudge_list, FakeNotifier())
    recorded_on: list[threading.Thread] = []
    delivery.nudge_recorded.connect(lambda _n: recorded_on.append(threading.current_thread()))
    n = nudge(2)
    seen = deliver_from_thread(delivery, n)
    qtbot.waitUntil(lambda: "ok" in seen)
    assert seen["ok"] is True
    assert nudge_list.nudges() == [n]
    assert recorded_on == [threading.main_thread()]
    assert seen["thread"] is not threading.main_thread()
    assert "“Report” is due soon" in nudge_list.item(0).text()
    assert nudge_list.accessibleName()
    assert nudge_list.item(0).data(0x000B).startswith("Check-in at")  # AccessibleTextRole


def test_level_4_goes_to_the_notifier_and_its_activation_opens_that_nudge(
    qtbot: QtBot, nudge_list: NudgeList
) -> None:
    notifier = FakeNotifier()
    delivery = delivery_with(nudge_list, notifier)
    inline: list[Nudge] = []
    delivery.inline_nudge.connect(inline.append)
    n = nudge(4)
    seen = deliver_from_thread(delivery, n)
    qtbot.waitUntil(lambda: "ok" in seen)
    assert seen["ok"] is True
    assert [shown for shown, _ in notifier.shown] == [n]
    assert inline == []
    with qtbot.waitSignal(delivery.open_requested) as opened:
        notifier.activate()
    assert opened.args == [n]


def test_a_notification_that_cannot_be_shown_goes_inline(
    qtbot: QtBot, nudge_list: NudgeList
) -> None:
    delivery = delivery_with(nudge_list, FakeNotifier(ok=False))
    with qtbot.waitSignal(delivery.inline_nudge) as shown:
        assert delivery.deliver(nudge(4))  # on the GUI thread: recorded at once
    assert shown.args[0].level == 4
    assert len(nudge_list.nudges()) == 1


def test_level_3_is_shown_inline_and_lower_levels_only_in_the_list(
    qtbot: QtBot, nudge_list: NudgeList
) -> None:
    notifier = FakeNotifier()
    delivery = delivery_with(nudge_list, notifier)
    inline: list[Nudge] = []
    delivery.inline_nudge.connect(inline.append)
    l3, l2 = nudge(3, "A gentle thought"), nudge(2, "A quiet one")
    for n in (l3, l2):
        seen = deliver_from_thread(delivery, n)
        qtbot.waitUntil(lambda seen=seen: "ok" in seen)
    assert inline == [l3]
    assert notifier.shown == []
    assert nudge_list.nudges() == [l3, l2]


def test_without_a_tray_every_nudge_goes_inline_and_the_notice_comes_once(
    qtbot: QtBot, nudge_list: NudgeList
) -> None:
    notifier = FakeNotifier()
    delivery = delivery_with(nudge_list, notifier, tray=False)
    inline: list[Nudge] = []
    notices: list[str] = []
    delivery.inline_nudge.connect(inline.append)
    delivery.tray_unavailable.connect(notices.append)
    sent = [nudge(4, "first"), nudge(3, "second"), nudge(4, "third")]
    for n in sent:
        seen = deliver_from_thread(delivery, n)
        qtbot.waitUntil(lambda seen=seen: "ok" in seen)
    assert inline == sent
    assert notifier.shown == []
    assert notices == [NO_TRAY_NOTICE]
    assert nudge_list.nudges() == sent


def test_activating_a_list_entry_opens_that_nudge(qtbot: QtBot, nudge_list: NudgeList) -> None:
    delivery = delivery_with(nudge_list, None)
    first, second = nudge(3, "first"), nudge(3, "second")
    delivery.deliver(first)
    delivery.deliver(second)
    with qtbot.waitSignal(delivery.open_requested) as opened:
        nudge_list.itemActivated.emit(nudge_list.item(0))
    assert opened.args == [first]


def test_a_nudge_the_gui_never_takes_is_withdrawn_and_reported_undelivered(
    nudge_list: NudgeList,
) -> None:
    """A stuck or gone GUI: deliver answers False (the engine logs it undelivered and offers
    it again) and the list never gets it late, twice."""
    delivery = TrayDelivery(nudge_list, None, tray_available=lambda: True, handover_timeout_s=0.05)
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(delivery.deliver(nudge(4))))
    thread.start()
    thread.join()  # the GUI thread is blocked here, so the nudge cannot be taken in time
    assert result == [False]
    delivery._take_inbox()  # what the queued signal would do now
    assert nudge_list.nudges() == []


class FakeControls:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, datetime, timedelta | None]] = []
        self.fail = fail
        self.threads: list[threading.Thread] = []

    def snooze(self, now: datetime, duration: timedelta) -> None:
        self.threads.append(threading.current_thread())
        if self.fail:
            raise ValueError("the nudge controls file is read-only")
        self.calls.append(("snooze", now, duration))

    def mute_for_day(self, now: datetime) -> None:
        self.threads.append(threading.current_thread())
        self.calls.append(("mute_for_day", now, None))

    def unmute(self) -> None:
        self.threads.append(threading.current_thread())
        self.calls.append(("unmute", NOW, None))


@pytest.fixture
def controls() -> FakeControls:
    return FakeControls()


def make_tray(controls: FakeControls) -> Tray:
    return Tray(controls, now=lambda: NOW)


def test_pause_actions_call_the_nudges_facade_off_the_gui_thread(
    qtbot: QtBot, controls: FakeControls
) -> None:
    tray = make_tray(controls)
    with qtbot.waitSignal(tray.paused) as paused:
        tray.pause_hour_action.trigger()
    assert paused.args == ["Check-ins paused for 1 hour"]
    with qtbot.waitSignal(tray.paused):
        tray.pause_day_action.trigger()
    assert controls.calls == [
        ("snooze", NOW, timedelta(hours=1)),
        ("mute_for_day", NOW, None),
    ]
    assert all(t is not threading.main_thread() for t in controls.threads)
    qtbot.waitUntil(lambda: "paused until tomorrow" in tray.toolTip())


def test_a_failed_pause_says_why(qtbot: QtBot) -> None:
    tray = make_tray(FakeControls(fail=True))
    with qtbot.waitSignal(tray.pause_failed) as failed:
        tray.pause_for_hour()
    assert "read-only" in failed.args[0]


def test_menu_actions_emit_the_signals_the_window_connects(
    qtbot: QtBot, controls: FakeControls
) -> None:
    tray = make_tray(controls)
    for action, signal in (
        (tray.open_action, tray.open_requested),
        (tray.new_conversation_action, tray.new_conversation_requested),
        (tray.quit_action, tray.quit_requested),
    ):
        with qtbot.waitSignal(signal):
            action.trigger()
    with qtbot.waitSignal(tray.quiet_mode_toggled) as quiet:
        tray.quiet_action.trigger()
    assert quiet.args == [True]
    assert "quiet mode" in tray.toolTip()
    texts = [a.text().replace("&", "") for a in tray.menu.actions() if not a.isSeparator()]
    assert texts == [
        "Open Rilai",
        "New conversation",
        "Pause check-ins for 1 hour",
        "Pause check-ins until tomorrow",
        "Resume check-ins",
        "Quiet mode",
        "Quit Rilai",
    ]
    assert all(a.statusTip() for a in tray.menu.actions() if not a.isSeparator())
    assert tray.menu.accessibleName()


def test_tooltip_carries_rilais_state_and_quiet_mode_set_elsewhere_emits_nothing(
    qtbot: QtBot, controls: FakeControls
) -> None:
    tray = make_tray(controls)
    tray.set_state("thinking")
    assert tray.toolTip() == "Rilai — thinking"
    with qtbot.assertNotEmitted(tray.quiet_mode_toggled):
        tray.set_quiet_mode(True)
    assert tray.quiet_action.isChecked()
    assert tray.toolTip() == "Rilai — thinking · quiet mode"


def test_the_app_icon_loads_from_the_svg(qtbot: QtBot) -> None:
    icon = app_icon()
    assert not icon.isNull()
    assert not icon.pixmap(32, 32).isNull()


def test_every_png_size_exists_with_its_dimensions_and_the_icon_carries_them(
    qtbot: QtBot,
) -> None:
    from PySide6.QtCore import QSize
    from PySide6.QtGui import QImage

    for size in ICON_SIZES:
        image = QImage(str(ICONS_DIR / f"rilai-{size}.png"))
        assert not image.isNull(), size
        assert (image.width(), image.height()) == (size, size)
    assert sorted(s.width() for s in app_icon().availableSizes()) == list(ICON_SIZES)
    assert QSize(512, 512) in app_icon().availableSizes()


def test_the_svg_is_the_fallback_without_pngs(tmp_path: Path) -> None:
    import shutil

    svg = tmp_path / "rilai.svg"
    shutil.copy(ICONS_DIR / "rilai.svg", svg)
    icon = app_icon(svg)
    assert not icon.isNull() and not icon.pixmap(48, 48).isNull()


def test_resume_unmutes_off_the_gui_thread_and_the_icon_dims_while_resting(
    qtbot: QtBot, controls: FakeControls
) -> None:
    tray = make_tray(controls)
    tray.set_checkins("check-ins: paused until 14:00", resting=True)
    assert tray.resting() and "paused until 14:00" in tray.toolTip()
    with qtbot.waitSignal(tray.paused) as resumed:
        tray.resume_action.trigger()
    assert resumed.args == ["Check-ins resumed"]
    assert controls.calls == [("unmute", NOW, None)]
    assert controls.threads[0] is not threading.main_thread()
    qtbot.waitUntil(lambda: not tray.resting())
    tray.set_quiet_mode(True)
    assert tray.resting()  # quiet mode dims the icon too


def test_quiet_mode_never_calls_the_notifier_and_the_nudge_is_listed_and_inline(
    qtbot: QtBot, nudge_list: NudgeList
) -> None:
    notifier = FakeNotifier()
    delivery = delivery_with(nudge_list, notifier)
    delivery.quiet_mode = True
    inline: list[Nudge] = []
    delivery.inline_nudge.connect(inline.append)
    n = nudge(4)
    seen = deliver_from_thread(delivery, n)
    qtbot.waitUntil(lambda: "ok" in seen)
    assert seen["ok"] is True
    assert notifier.shown == []  # no pop-up, no sound
    assert inline == [n] and nudge_list.nudges() == [n]
