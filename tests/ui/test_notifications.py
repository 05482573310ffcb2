"""DBusNotifier against a fake notification server on a private session bus: Notify goes out
with a uint32 replaces_id and the Open action, and only its own id's ActionInvoked opens it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtDBus import QDBusConnection
from pytestqt.qtbot import QtBot

from rilai_desktop.daemon.ports import Nudge
from rilai_desktop.ui.notifications import DBusNotifier, dbus_notifications_available, escape_body

SERVER = Path(__file__).with_name("fake_notification_server.py")
pytestmark = pytest.mark.skipif(shutil.which("dbus-daemon") is None, reason="needs dbus-daemon")


@pytest.fixture
def private_bus(tmp_path: Path) -> Iterator[str]:
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert daemon.stdout is not None
    address = daemon.stdout.readline().strip()
    yield address
    daemon.terminate()
    daemon.wait(5)
    daemon.stdout.close()


@pytest.fixture
def notification_server(private_bus: str) -> Iterator[subprocess.Popen[str]]:
    server = subprocess.Popen(
        [sys.executable, str(SERVER), private_bus], stdout=subprocess.PIPE, text=True
    )
    assert server.stdout is not None
    assert server.stdout.readline().strip() == "READY"
    yield server
    server.terminate()
    server.wait(5)
    server.stdout.close()


class FallbackRecorder:
    def __init__(self) -> None:
        self.shown: list[Nudge] = []

    def notify(self, nudge: Nudge, on_open: object) -> bool:
        self.shown.append(nudge)
        return True


def nudge() -> Nudge:
    return Nudge("deadline:g1", "due", "“Report” <b>due</b> & soon", 4, {}, datetime.now(UTC))


def test_notify_over_dbus_and_open_only_on_its_own_id(
    qtbot: QtBot, private_bus: str, notification_server: subprocess.Popen[str]
) -> None:
    bus = QDBusConnection.connectToBus(private_bus, "rilai-test-client")
    assert dbus_notifications_available(bus)
    fallback = FallbackRecorder()
    notifier = DBusNotifier(fallback, bus=bus)
    assert notifier.listening
    opened: list[str] = []
    n = nudge()
    with qtbot.waitSignal(notifier.opened, timeout=5000) as signal:
        assert notifier.notify(n, lambda: opened.append("open"))
    assert signal.args == [n]
    assert opened == ["open"]  # the other id's ActionInvoked was ignored
    assert fallback.shown == []
    qtbot.waitUntil(lambda: notifier.shown_ids() == [])  # NotificationClosed forgot it
    assert notification_server.stdout is not None
    line = notification_server.stdout.readline().strip()
    assert line == f"NOTIFY 1 Rilai 0 Rilai {escape_body(n.suggestion)} default,Open,open,Open"
    QDBusConnection.disconnectFromBus("rilai-test-client")


def test_without_a_server_the_fallback_shows_it(qtbot: QtBot, private_bus: str) -> None:
    bus = QDBusConnection.connectToBus(private_bus, "rilai-test-empty")
    assert not dbus_notifications_available(bus)
    fallback = FallbackRecorder()
    notifier = DBusNotifier(fallback, bus=bus)
    n = nudge()
    assert notifier.notify(n, lambda: None)
    qtbot.waitUntil(lambda: fallback.shown == [n], timeout=5000)
    QDBusConnection.disconnectFromBus("rilai-test-empty")
