"""Desktop notifications for L4 nudges, with an "Open" action that reaches the window.

A :class:`Notifier` is one small interface: ``notify(nudge, on_open) -> bool`` shows the
nudge and calls ``on_open()`` (on the GUI thread) if the person activates it. Two here:

- :class:`DBusNotifier` talks to ``org.freedesktop.Notifications`` over QtDBus: ``Notify``
  with actions ``["default", "Open", "open", "Open"]``, then ``ActionInvoked`` /
  ``NotificationClosed`` matched by the id ``Notify`` returned. (Qt's own
  ``QSystemTrayIcon.showMessage`` reports a click on Linux only for Critical-icon messages
  and cannot tell two messages apart, hence D-Bus.) ``Notify`` takes a ``uint32`` that
  PySide6 cannot marshal from a plain call, so it goes through the introspected
  ``QDBusInterface`` with typed ``Q_ARG``s — a blocking call, made on a pool thread so the
  GUI thread never waits on the notification server.
- :class:`TrayMessageNotifier` falls back to ``QSystemTrayIcon.showMessage``; a click on the
  message opens the most recent nudge shown.

:func:`desktop_notifier` picks D-Bus when the bus and the service are there, with the tray
message as its fallback when a call fails.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

from PySide6.QtCore import (
    Q_ARG,
    Q_RETURN_ARG,
    SLOT,
    QMetaObject,
    QObject,
    QThreadPool,
    Signal,
    Slot,
)
from PySide6.QtDBus import QDBusConnection, QDBusInterface
from PySide6.QtWidgets import QSystemTrayIcon

if TYPE_CHECKING:
    from rilai_desktop.daemon.ports import Nudge


log = logging.getLogger(__name__)

SERVICE: Final = "org.freedesktop.Notifications"
OBJECT_PATH: Final = "/org/freedesktop/Notifications"
INTERFACE: Final = SERVICE
APP_NAME: Final = "Rilai"
OPEN_ACTION: Final = "open"
# "default" is what a click on the notification's body invokes; "open" is the button.
ACTIONS: Final = ["default", "Open", OPEN_ACTION, "Open"]
CALL_TIMEOUT_MS: Final = 3000
EXPIRE_DEFAULT: Final = -1  # the server's own timeout

OpenCallback = Callable[[], None]


class Notifier(Protocol):
    """Shows one nudge outside the window; ``on_open`` runs (GUI thread) when activated."""

    def notify(self, nudge: Nudge, on_open: OpenCallback) -> bool: ...


def escape_body(text: str) -> str:
    """The body as the spec's small markup subset expects it: plain, with ``& < >`` escaped."""
    return _printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def dbus_notifications_available(bus: QDBusConnection | None = None) -> bool:
    """True when the session bus is up and a notification server is running or activatable."""
    bus = bus if bus is not None else QDBusConnection.sessionBus()
    if not bus.isConnected():
        return False
    iface = bus.interface()
    if iface is None:
        return False
    registered = iface.isServiceRegistered(SERVICE)
    if registered.isValid() and registered.value():
        return True
    activatable = iface.activatableServiceNames()
    return activatable.isValid() and SERVICE in (activatable.value() or [])


class _NotifyCall(QObject):
    """One ``Notify`` call on a pool thread; reports back with a queued signal."""

    done = Signal(int, int)  # token, notification id (0: failed)

    def __init__(self, bus: QDBusConnection, token: int, nudge: Nudge) -> None:
        super().__init__()
        self._bus, self._token, self._nudge = bus, token, nudge

    def run(self) -> None:
        notification_id = 0
        try:
            iface = QDBusInterface(SERVICE, OBJECT_PATH, INTERFACE, self._bus)
            iface.setTimeout(CALL_TIMEOUT_MS)
            if iface.isValid():
                answer: Any = QMetaObject.invokeMethod(
                    iface,
                    "Notify",
                    Q_RETURN_ARG("uint"),
                    Q_ARG(str, APP_NAME),
                    Q_ARG("uint", 0),
                    Q_ARG(str, ""),
                    Q_ARG(str, APP_NAME),
                    Q_ARG(str, escape_body(self._nudge.suggestion)),
                    Q_ARG("QStringList", ACTIONS),
                    Q_ARG("QVariantMap", {}),
                    Q_ARG(int, EXPIRE_DEFAULT),
                )
                notification_id = int(answer or 0)
            else:
                log.info("notification service not reachable: %s", iface.lastError().message())
        except Exception:  # a broken bus must never lose the nudge: the fallback shows it
            log.exception("Notify over D-Bus failed")
            notification_id = 0
        self.done.emit(self._token, notification_id)


class DBusNotifier(QObject):
    """Freedesktop notifications over QtDBus; ``fallback`` shows what D-Bus could not."""

    opened = Signal(object)  # Nudge, after its on_open ran

    def __init__(
        self,
        fallback: Notifier | None = None,
        *,
        bus: QDBusConnection | None = None,
        pool: QThreadPool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._bus = bus if bus is not None else QDBusConnection.sessionBus()
        self._pool = pool if pool is not None else QThreadPool.globalInstance()
        self._fallback = fallback
        self._next_token = 1
        self._in_flight: dict[int, tuple[Nudge, OpenCallback, _NotifyCall]] = {}
        self._shown: dict[int, tuple[Nudge, OpenCallback]] = {}
        self._listening = self._bus.isConnected() and all(
            # PySide6 takes the SLOT() string where its stubs say bytes
            self._bus.connect(SERVICE, OBJECT_PATH, INTERFACE, name, self, slot)  # type: ignore[call-overload]
            for name, slot in (
                ("ActionInvoked", SLOT("_on_action_invoked(uint,QString)")),
                ("NotificationClosed", SLOT("_on_closed(uint,uint)")),
            )
        )

    @property
    def listening(self) -> bool:
        """Whether ActionInvoked / NotificationClosed are connected."""
        return self._listening

    def shown_ids(self) -> list[int]:
        """Ids of notifications shown and not yet closed."""
        return list(self._shown)

    def notify(self, nudge: Nudge, on_open: OpenCallback) -> bool:
        if not self._bus.isConnected():
            return self._fall_back(nudge, on_open)
        token, self._next_token = self._next_token, self._next_token + 1
        call = _NotifyCall(self._bus, token, nudge)
        call.done.connect(self._on_sent)  # emitted on the pool thread: queued to ours
        self._in_flight[token] = (nudge, on_open, call)
        self._pool.start(call.run)
        return True

    def _fall_back(self, nudge: Nudge, on_open: OpenCallback) -> bool:
        return self._fallback is not None and self._fallback.notify(nudge, on_open)

    @Slot(int, int)
    def _on_sent(self, token: int, notification_id: int) -> None:
        entry = self._in_flight.pop(token, None)
        if entry is None:
            return
        nudge, on_open, _call = entry
        if notification_id:
            self._shown[notification_id] = (nudge, on_open)
        elif not self._fall_back(nudge, on_open):
            log.warning("no way to show a desktop notification; the nudge stays in the list")

    @Slot("uint", str)
    def _on_action_invoked(self, notification_id: int, action: str) -> None:
        entry = self._shown.get(int(notification_id))
        if entry is None or action not in ("default", OPEN_ACTION):
            return
        nudge, on_open = entry
        on_open()
        self.opened.emit(nudge)

    @Slot("uint", "uint")
    def _on_closed(self, notification_id: int, _reason: int) -> None:
        self._shown.pop(int(notification_id), None)


class TrayMessageNotifier(QObject):
    """``QSystemTrayIcon.showMessage``; a click opens the latest nudge shown."""

    def __init__(self, tray: QSystemTrayIcon, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._tray = tray
        self._latest: tuple[Nudge, OpenCallback] | None = None
        tray.messageClicked.connect(self._clicked)

    def notify(self, nudge: Nudge, on_open: OpenCallback) -> bool:
        if not self._tray.isVisible() or not QSystemTrayIcon.supportsMessages():
            return False
        self._latest = (nudge, on_open)
        self._tray.showMessage(
            APP_NAME, _printable(nudge.suggestion), QSystemTrayIcon.MessageIcon.Information
        )
        return True

    def _clicked(self) -> None:
        if self._latest is not None:
            _nudge, on_open = self._latest
            self._latest = None
            on_open()


def desktop_notifier(
    tray: QSystemTrayIcon | None, parent: QObject | None = None
) -> Notifier | None:
    """D-Bus notifications where a server is there (the tray message as fallback), else the
    tray message, else None (the caller shows the nudge inline)."""
    fallback = TrayMessageNotifier(tray, parent) if tray is not None else None
    if dbus_notifications_available():
        return DBusNotifier(fallback, parent=parent)
    return fallback


def _printable(text: str) -> str:
    """The daemon's printable() (control characters dropped), imported when a nudge is
    shown: the window paints before the contracts load."""
    from rilai_desktop.daemon.delivery import printable

    return printable(text)
