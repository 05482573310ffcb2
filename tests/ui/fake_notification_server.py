"""A fake ``org.freedesktop.Notifications`` for the DBusNotifier test, run as its own process
on a private bus: answers Notify with 1, 2, ..., then invokes "open" on another id (which
must be ignored) and on the one it returned."""

from __future__ import annotations

import sys

from PySide6.QtCore import ClassInfo, QCoreApplication, QObject, QTimer, Signal, Slot
from PySide6.QtDBus import QDBusConnection


@ClassInfo({"D-Bus Interface": "org.freedesktop.Notifications"})
class FakeNotifications(QObject):
    ActionInvoked = Signal("uint", str)
    NotificationClosed = Signal("uint", "uint")

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    @Slot(str, "uint", str, str, str, "QStringList", "QVariantMap", int, result="uint")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        self.count += 1
        n = self.count
        print(f"NOTIFY {n} {app} {replaces} {summary} {body} {','.join(actions)}", flush=True)
        QTimer.singleShot(50, lambda: self.ActionInvoked.emit(n + 1000, "open"))
        QTimer.singleShot(100, lambda: self.ActionInvoked.emit(n, "open"))
        QTimer.singleShot(150, lambda: self.NotificationClosed.emit(n, 2))
        return n


def main() -> None:
    app = QCoreApplication(sys.argv)
    bus = QDBusConnection.connectToBus(sys.argv[1], "fake-notifications")
    server = FakeNotifications()
    flags = (
        QDBusConnection.RegisterOption.ExportAllSlots
        | QDBusConnection.RegisterOption.ExportAllSignals
    )
    ok = bus.registerObject("/org/freedesktop/Notifications", server, flags)
    ok = ok and bus.registerService("org.freedesktop.Notifications")
    print("READY" if ok else "FAILED", flush=True)
    QTimer.singleShot(20_000, app.quit)
    app.exec()


if __name__ == "__main__":
    main()
