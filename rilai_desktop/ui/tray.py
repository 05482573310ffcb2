"""The tray icon and its menu, and :class:`TrayDelivery`: the daemon's ``Delivery`` port
in the desktop app.

``TrayDelivery.deliver`` runs on the engine's threads (the worker, the scheduler). It puts
the nudge in a locked inbox and signals the GUI thread (a queued connection), then waits —
a few seconds at most — for the GUI thread to take it. Taken, it is recorded: appended to
the :class:`~rilai_desktop.ui.nudge_list.NudgeList` (the source of truth) and shown by its
level: L4 as a desktop notification with an "Open" action, L3 as ``inline_nudge`` (the
window puts it in the conversation), lower levels in the list only. Not taken in time (the
GUI is gone or stuck), it is withdrawn and ``deliver`` answers False, so the nudge engine
logs it undelivered and offers it again later: a nudge is never silently lost.

Where there is no tray (``QSystemTrayIcon.isSystemTrayAvailable()`` false: GNOME without an
AppIndicator extension, a bare X server) every nudge goes inline and ``tray_unavailable``
says so once. Where a notification cannot be shown, the nudge goes inline too.

:class:`Tray` is the icon: Rilai's state in its tooltip, and a menu — Open, New conversation,
Pause check-ins for 1 hour, Pause until tomorrow, Resume, Quiet mode (checkable), Quit. The
pauses and Resume call the engine's nudges facade (``engine.nudges``) on a pool thread (it
waits for the engine's worker, which may be busy with a turn); the rest are signals the
window connects. The tooltip says Rilai's state (ready / thinking), where the check-ins
stand and quiet mode; the icon is dimmed while check-ins are paused, off or quiet.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from PySide6.QtCore import QObject, QSize, Qt, QThread, QThreadPool, Signal, Slot
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from rilai_desktop.ui.nudge_list import NudgeList
from rilai_desktop.ui.resources import RESOURCES_DIR

if TYPE_CHECKING:
    from rilai_desktop.daemon.ports import Nudge
    from rilai_desktop.ui.notifications import Notifier

ICONS_DIR: Final = RESOURCES_DIR / "icons"
ICON_PATH: Final = ICONS_DIR / "rilai.svg"
ICON_SIZES: Final = (16, 24, 32, 48, 64, 128, 256, 512)
L3_INLINE: Final = 3
L4_NOTIFY: Final = 4
HANDOVER_TIMEOUT_S: Final = 5.0
NO_TRAY_NOTICE: Final = (
    "There is no system tray on this desktop, so Rilai's check-ins will appear here in the "
    "window instead of as notifications."
)


def app_icon(path: Path = ICON_PATH) -> QIcon:
    """Rilai's icon: every PNG size beside the SVG (``tools/render_icons.py`` renders them:
    a tray or a taskbar picks the size it needs, crisp), the SVG where none is there."""
    icon = QIcon()
    for size in ICON_SIZES:
        png = path.with_name(f"{path.stem}-{size}.png")
        if png.is_file():
            icon.addFile(str(png), QSize(size, size))
    if icon.isNull():
        icon = QIcon(str(path))
    return icon if not icon.isNull() else QIcon.fromTheme("dialog-information")


class TrayDelivery(QObject):
    """The ``Delivery`` port for the desktop app (``name = "tray"``); see the module doc.

    ``tray_available`` is asked at each delivery (a tray may come or go); tests inject it.
    ``notifier`` shows L4 nudges (``ui.notifications``); None shows them inline.
    ``quiet_mode`` (the ``ui.quiet_mode`` setting): the notifier is never called; L4 nudges
    are shown inline like L3 ones, and every nudge is in the list as always.
    """

    name = "tray"

    inline_nudge = Signal(object)  # Nudge: the window shows it in the conversation
    open_requested = Signal(object)  # Nudge: open the window at this nudge
    tray_unavailable = Signal(str)  # once: the notice to show
    nudge_recorded = Signal(object)  # Nudge, after it is in the list
    _arrived = Signal()

    def __init__(
        self,
        nudge_list: NudgeList,
        notifier: Notifier | None = None,
        *,
        tray_available: Callable[[], bool] = QSystemTrayIcon.isSystemTrayAvailable,
        handover_timeout_s: float = HANDOVER_TIMEOUT_S,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.nudge_list = nudge_list
        self.notifier = notifier
        self._tray_available = tray_available
        self._timeout = handover_timeout_s
        self._lock = threading.Lock()
        self._inbox: list[tuple[Nudge, threading.Event]] = []
        self._told_no_tray = False
        self.quiet_mode = False  # no notifications (no pop-up, no sound): L4 goes inline
        self._arrived.connect(self._take_inbox, Qt.ConnectionType.QueuedConnection)
        nudge_list.nudge_activated.connect(self.open_requested)

    # ── any thread ─────────────────────────────────────────────────────────
    def deliver(self, nudge: Nudge) -> bool:
        """Hand ``nudge`` to the GUI thread; True once it is recorded there."""
        taken = threading.Event()
        entry = (nudge, taken)
        with self._lock:
            self._inbox.append(entry)
        if QThread.currentThread() == self.thread():
            self._take_inbox()
            return True
        try:
            self._arrived.emit()
        except RuntimeError:  # the QObject is gone (the app is quitting)
            return self._withdraw(entry)
        if taken.wait(self._timeout):
            return True
        return self._withdraw(entry)

    def _withdraw(self, entry: tuple[Nudge, threading.Event]) -> bool:
        """Take ``entry`` back if the GUI has not; True when the GUI took it after all."""
        with self._lock:
            if entry in self._inbox:
                self._inbox.remove(entry)
                return False
        return True

    # ── GUI thread ─────────────────────────────────────────────────────────
    @Slot()
    def _take_inbox(self) -> None:
        with self._lock:
            entries, self._inbox = self._inbox, []
        for nudge, taken in entries:
            self.nudge_list.add(nudge)
            taken.set()
            self.nudge_recorded.emit(nudge)
            self._show(nudge)

    def _show(self, nudge: Nudge) -> None:
        if nudge.level < L3_INLINE:
            return
        if not self._tray_available():
            if not self._told_no_tray:
                self._told_no_tray = True
                self.tray_unavailable.emit(NO_TRAY_NOTICE)
            self.inline_nudge.emit(nudge)
            return
        if (
            nudge.level >= L4_NOTIFY
            and not self.quiet_mode
            and self.notifier is not None
            and self.notifier.notify(nudge, functools.partial(self.open_requested.emit, nudge))
        ):
            return
        self.inline_nudge.emit(nudge)

    @property
    def told_no_tray(self) -> bool:
        return self._told_no_tray


class NudgeControls(Protocol):
    """What the tray's pause actions call: ``engine.nudges`` (``NudgesFacade``) satisfies it."""

    def snooze(self, now: datetime, duration: timedelta) -> Any: ...

    def mute_for_day(self, now: datetime) -> Any: ...

    def unmute(self) -> Any: ...


BackgroundRunner = Callable[[Callable[[], None]], None]


def _pool_runner(fn: Callable[[], None]) -> None:
    QThreadPool.globalInstance().start(fn)


def _utc_now() -> datetime:
    return datetime.now(UTC)


class Tray(QSystemTrayIcon):
    """Rilai's tray icon: state in the tooltip, and the menu (see the module doc)."""

    open_requested = Signal()
    new_conversation_requested = Signal()
    quiet_mode_toggled = Signal(bool)
    quit_requested = Signal()
    paused = Signal(str)  # what was paused, in words ("Check-ins paused for 1 hour")
    pause_failed = Signal(str)  # why not

    def __init__(
        self,
        controls: NudgeControls,
        *,
        now: Callable[[], datetime] = _utc_now,
        run_in_background: BackgroundRunner = _pool_runner,
        icon: QIcon | None = None,
        parent: QObject | None = None,
    ) -> None:
        self._icon = icon if icon is not None else app_icon()
        super().__init__(self._icon, parent)
        self._controls = controls
        self._now = now
        self._run = run_in_background
        self._state = "starting"
        self._checkins = ""  # "check-ins: paused until 14:00", from the engine
        self._resting = False  # check-ins paused or off: the icon is drawn dimmed
        self.menu = QMenu()
        self.menu.setAccessibleName("Rilai tray menu")
        self.open_action = self._action("&Open Rilai", "Open the Rilai window")
        self.open_action.triggered.connect(self.open_requested)
        self.new_conversation_action = self._action("&New conversation", "Start a new conversation")
        self.new_conversation_action.triggered.connect(self.new_conversation_requested)
        self.menu.addSeparator()
        self.pause_hour_action = self._action(
            "Pause check-ins for 1 &hour", "Pause Rilai's check-ins for one hour"
        )
        self.pause_hour_action.triggered.connect(self.pause_for_hour)
        self.pause_day_action = self._action(
            "Pause check-ins until &tomorrow", "Pause Rilai's check-ins until tomorrow"
        )
        self.pause_day_action.triggered.connect(self.pause_until_tomorrow)
        self.resume_action = self._action("&Resume check-ins", "Resume Rilai's check-ins now")
        self.resume_action.triggered.connect(self.resume)
        self.quiet_action = self._action(
            "&Quiet mode", "Quiet mode: no notifications or sound; check-ins wait in the window"
        )
        self.quiet_action.setCheckable(True)
        self.quiet_action.toggled.connect(self.quiet_mode_toggled)
        self.quiet_action.toggled.connect(lambda _on: self._refresh_tooltip())
        self.menu.addSeparator()
        self.quit_action = self._action("&Quit Rilai", "Quit Rilai")
        self.quit_action.triggered.connect(self.quit_requested)
        self.setContextMenu(self.menu)
        self.activated.connect(self._on_activated)
        self.paused.connect(self._show_pause)
        self._refresh_tooltip()

    def _action(self, text: str, accessible: str) -> QAction:
        action = self.menu.addAction(text)
        action.setToolTip(accessible)
        # QAction has no accessible name of its own: menus read its text and status tip.
        action.setStatusTip(accessible)
        return action

    # ── state ──────────────────────────────────────────────────────────────
    def set_state(self, state: str) -> None:
        """Rilai's state in a few words ("idle", "thinking", "check-ins paused")."""
        self._state = state
        self._refresh_tooltip()

    def state(self) -> str:
        return self._state

    def set_quiet_mode(self, on: bool) -> None:
        """Reflect quiet mode set elsewhere (settings) without emitting ``quiet_mode_toggled``."""
        blocked = self.quiet_action.blockSignals(True)
        self.quiet_action.setChecked(on)
        self.quiet_action.blockSignals(blocked)
        self._refresh_tooltip()

    def set_checkins(self, text: str, resting: bool = False) -> None:
        """Where the check-ins stand ("check-ins: paused until 14:00"); ``resting`` (paused,
        off) dims the icon, as quiet mode does."""
        self._checkins, self._resting = text, resting
        self._refresh_tooltip()

    def resting(self) -> bool:
        """The icon is drawn dimmed: check-ins paused or off, or quiet mode."""
        return self._resting or self.quiet_action.isChecked()

    def _refresh_tooltip(self) -> None:
        checkins = f" · {self._checkins}" if self._checkins else ""
        quiet = " · quiet mode" if self.quiet_action.isChecked() else ""
        self.setToolTip(f"Rilai — {self._state}{checkins}{quiet}")
        if self.resting():
            dimmed = QIcon()
            for size in self._icon.availableSizes() or [QSize(64, 64)]:
                dimmed.addPixmap(self._icon.pixmap(size, QIcon.Mode.Disabled))
            self.setIcon(dimmed)
        else:
            self.setIcon(self._icon)

    # ── pauses (engine.nudges, off the GUI thread) ─────────────────────────
    @Slot()
    def pause_for_hour(self) -> None:
        now = self._now()
        self._pause(
            lambda: self._controls.snooze(now, timedelta(hours=1)),
            "Check-ins paused for 1 hour",
        )

    @Slot()
    def pause_until_tomorrow(self) -> None:
        now = self._now()
        self._pause(lambda: self._controls.mute_for_day(now), "Check-ins paused until tomorrow")

    @Slot()
    def resume(self) -> None:
        self._pause(self._controls.unmute, "Check-ins resumed")

    def _pause(self, call: Callable[[], Any], done: str) -> None:
        def job() -> None:
            try:
                call()
            except Exception as exc:  # the facade's errors reach the person, not a traceback
                self.pause_failed.emit(f"Could not pause check-ins: {exc}")
            else:
                self.paused.emit(done)

        self._run(job)

    @Slot(str)
    def _show_pause(self, text: str) -> None:
        self.set_checkins(text[0].lower() + text[1:], resting=text != "Check-ins resumed")

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            self.open_requested.emit()
