"""The desktop app: a QApplication, the main window at once, the Engine loaded behind it.

``run_window(open_engine)`` shows the window before any model is loaded ("loading models…"
in the status strip), builds the Engine on a helper thread, and hands it to the window
through a signal; a failure to load says why in the window and keeps it open. The caller
(`rilai window`, in ``cli/``) passes how to open the Engine, so ui/ never wires the engine.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QDockWidget, QMenu, QSystemTrayIcon, QWidget

from rilai_desktop.errors import RilaiError
from rilai_desktop.network_audit import begin_session
from rilai_desktop.ui.api_switch import ApiSwitch
from rilai_desktop.ui.bridge import EngineBridge
from rilai_desktop.ui.conversation import announce
from rilai_desktop.ui.main_window import MainWindow
from rilai_desktop.ui.nudge_list import NudgeList
from rilai_desktop.ui.theme import apply_theme
from rilai_desktop.ui.tray import Tray, TrayDelivery, app_icon

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine
    from rilai_desktop.contracts.clock import Clock
    from rilai_desktop.daemon.ports import Nudge
    from rilai_desktop.ui.checkins_on_open import CheckInsOnOpen
    from rilai_desktop.ui.conversation_list import ConversationsDock
    from rilai_desktop.ui.first_run import FirstRun, SetupLike
    from rilai_desktop.ui.inspector import Inspector
    from rilai_desktop.ui.memory_browser.dock import MemoryDock

log = logging.getLogger(__name__)

STILL_RUNNING: Final = (
    "Rilai is still running in the tray: its check-ins go on. Open it from the tray icon; "
    "Quit (Ctrl+Q, or Quit in the tray menu) quits."
)
RESTING_STATES: Final = frozenset({"paused", "off"})


class EngineLoader(QObject):
    """Opens the Engine off the GUI thread; ``loaded`` or ``failed`` says how it went."""

    loaded = Signal(object)
    failed = Signal(str)

    def __init__(self, open_engine: Callable[[], Engine]) -> None:
        super().__init__()
        self._open = open_engine

    def start(self) -> None:
        def run() -> None:
            try:
                engine = self._open()
            except Exception as exc:  # shown in the window, which stays open
                log.exception("the engine did not open")
                self.failed.emit(getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}")
            else:
                self.loaded.emit(engine)

        threading.Thread(target=run, name="rilai-ui-load", daemon=True).start()


class _FirstPaint(QObject):
    """Calls ``then`` once, on the event loop's turn after ``widget`` first paints."""

    def __init__(self, widget: QWidget, then: Callable[[], None]) -> None:
        super().__init__(widget)
        self._then: Callable[[], None] | None = then
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self._then is not None:
            then, self._then = self._then, None
            QTimer.singleShot(0, then)
        return False


class DesktopApp(QObject):
    """The window with what lives beside it: the inspector (built after the first paint),
    the check-ins list (a dock), the tray where one exists, the nudges the daemon inside the
    app delivers (``TrayDelivery``), what waited for this open (``checkins_on_open.py``;
    ``clock``: the clock it reads, tests pin it), and the loader that opens the Engine and
    starts the daemon off the GUI thread."""

    inspector_ready = Signal()

    def __init__(
        self,
        open_engine: Callable[[], Engine],
        *,
        tray_available: Callable[[], bool] = QSystemTrayIcon.isSystemTrayAvailable,
        with_daemon: bool = True,
        models: SetupLike | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__()
        self.window = MainWindow()
        self.checkins: CheckInsOnOpen | None = None  # made when the Engine is there
        self._clock = clock
        # with ``models``, missing tier models are offered first (ui/first_run.py)
        self.first_run: FirstRun | None = None
        if models is not None:
            from rilai_desktop.ui.first_run import FirstRun

            self.first_run = FirstRun(self.window, models)
        # the inspector (and the contracts it reads) loads after the window's first paint
        self.inspector: Inspector | None = None
        self.conversations: ConversationsDock | None = None  # built after the first paint
        self.memory: MemoryDock | None = None  # the memory browser, built after it too
        self._inspector_wanted = False
        self._painted = _FirstPaint(self.window, self._after_first_paint)
        self.nudge_list = NudgeList()
        self.api = ApiSwitch(self)  # the local API while api.enabled (docs/api.md)
        self.tray: Tray | None = None
        available = tray_available()
        self.delivery = TrayDelivery(
            self.nudge_list, None, tray_available=tray_available, parent=self
        )
        self.delivery.inline_nudge.connect(self._show_inline)
        self.delivery.open_requested.connect(self._open_at)
        self.delivery.tray_unavailable.connect(self._say_no_tray)
        self._with_daemon = with_daemon

        def open_all() -> Engine:
            engine = open_engine()
            if self._with_daemon:
                try:
                    engine.start_daemon(self.delivery)
                except RilaiError as exc:  # another process runs it: the app goes on
                    self.daemon_note = f"check-ins run elsewhere: {exc.message}"
            return engine

        self.daemon_note = ""
        self.loader = EngineLoader(open_all)
        self.loader.loaded.connect(self._attach)
        self.loader.failed.connect(lambda m: self.window.set_ready(False, f"not ready: {m}"))
        self._tray_pending = available  # the tray is made once the Engine is there
        self.close_to_tray = True  # ui.close_to_tray, read when the Engine is there
        self._told_still_running = False
        self.window.hide_on_close = lambda: self.tray is not None and self.close_to_tray
        self.window.hidden_to_tray.connect(self._say_still_running)
        self.window.settings_saved.connect(self._settings_saved)

    def _after_first_paint(self) -> None:
        from rilai_desktop.ui import dock_sizes
        from rilai_desktop.ui.inspector import Inspector

        dock = QDockWidget("Check-ins", self.window)
        dock.setObjectName("check-ins")
        dock.setAccessibleName("Check-ins: the nudges Rilai sent")
        dock.setWidget(self.nudge_list)
        self.window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.hide()
        self.window.view_menu.addAction(dock.toggleViewAction())

        self._build_conversations()
        self._build_memory()
        self.inspector = Inspector(self.window)
        self.window.attach_inspector(self.inspector, self.inspector)
        self.inspector.setVisible(self._inspector_wanted)
        left = [d for d in (self.conversations,) if d is not None]
        right = [d for d in (dock, self.memory, self.inspector) if d is not None]
        dock_sizes.keep_modest(self.window, left, dock_sizes.LEFT_SHARE)
        dock_sizes.keep_modest(self.window, right, dock_sizes.RIGHT_SHARE)
        self.inspector_ready.emit()

    def _build_conversations(self) -> None:
        """The Conversations dock (left; Ctrl+K shows it and focuses its search field, or
        hides it from there), wired to the bridge now or when the Engine arrives."""
        from PySide6.QtGui import QAction, QKeySequence

        from rilai_desktop.ui.conversation_list import ConversationsDock

        dock = ConversationsDock(self.window)
        self.window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        self.window.view_menu.addAction(dock.toggleViewAction())
        find = QAction("Search conversations", self.window)
        find.setShortcut(QKeySequence("Ctrl+K"))
        find.triggered.connect(
            lambda: dock.hide() if dock.panel.search.hasFocus() else dock.focus_search()
        )
        self.window.addAction(find)
        self.window.view_menu.addAction(find)
        self.conversations = dock
        if self.window.bridge is not None:
            dock.attach(self.window.bridge, self.window)

    def _build_memory(self) -> None:
        """The Memory dock (right; Ctrl+M and View ▸ Memory show or hide it), wired to
        the bridge now or when the Engine arrives; it reads memory only while shown."""
        from rilai_desktop.ui.memory_browser.dock import MemoryDock

        dock = MemoryDock(self.window)
        self.window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.hide()
        self.window.view_menu.addAction(dock.toggleViewAction())
        # Memory ▸ Export memory… / Import memory… (ui/memory_browser/transfer.py)
        menu = QMenu("&Memory", self.window)
        menu.addActions([dock.toggleViewAction(), *dock.transfer.actions])
        self.window.menuBar().insertMenu(self.window.help_menu.menuAction(), menu)
        self.window.addActions(list(dock.transfer.actions))
        self.memory = dock
        if self.window.bridge is not None:
            dock.attach(self.window.bridge)

    def open_inspector(self) -> None:
        """Show the inspector (now, or as soon as it is built)."""
        self._inspector_wanted = True
        if self.inspector is not None:
            self.inspector.show()

    def _attach(self, engine: object) -> None:
        bridge = EngineBridge(engine)  # type: ignore[arg-type]
        ui = bridge.engine.settings.current.ui
        self.close_to_tray = ui.close_to_tray
        self.delivery.quiet_mode = ui.quiet_mode
        self.window.attach(bridge)
        if self.conversations is not None:
            self.conversations.attach(bridge, self.window)
        if self.memory is not None:
            self.memory.attach(bridge)
        bridge.memory_paused.connect(self.window.status.memory_paused)
        bridge.refresh_memory_paused()
        self._show_what_waited(bridge)
        self.api.state.connect(self.window.status.api)
        self._apply_api(bridge.engine.settings.current.api)
        if self.daemon_note:
            self.window.view.add_message("system", self.daemon_note)
        if self._tray_pending:
            from rilai_desktop.ui.notifications import desktop_notifier

            self.tray = Tray(bridge.engine.nudges, parent=self)
            self.delivery.notifier = desktop_notifier(self.tray, self)
            self.tray.open_requested.connect(self._raise)
            self.tray.new_conversation_requested.connect(bridge.reset)
            self.tray.quit_requested.connect(self.quit)
            self.tray.paused.connect(lambda text: self.window.statusBar().showMessage(text, 8000))
            self.tray.paused.connect(lambda _text: bridge.refresh_daemon_status())
            self.tray.pause_failed.connect(lambda why: self.window.statusBar().showMessage(why))
            self.tray.quiet_mode_toggled.connect(self.set_quiet_mode)
            self.tray.set_quiet_mode(ui.quiet_mode)
            bridge.busy_changed.connect(self._show_busy)
            bridge.daemon_status.connect(self._show_checkins)
            bridge.setting_failed.connect(lambda why: self.window.statusBar().showMessage(why))
            self.tray.set_state("ready")
            self.tray.show()
            bridge.refresh_daemon_status()

    def _show_what_waited(self, bridge: EngineBridge) -> None:
        """The check-ins that waited for this open and the day's digest, once; the
        Check-ins dock from the log (``checkins_on_open.py``)."""
        from rilai_desktop.ui.checkins_on_open import CheckInsOnOpen

        self.checkins = CheckInsOnOpen(self.window, self.nudge_list, clock=self._clock, parent=self)
        self.checkins.start(bridge)

    def _show_busy(self, busy: bool) -> None:
        if self.tray is not None:
            self.tray.set_state("thinking" if busy else "ready")

    def _show_checkins(self, status: object) -> None:
        if self.tray is not None:
            state = str(getattr(status, "state", ""))
            self.tray.set_checkins(str(getattr(status, "text", "")), state in RESTING_STATES)

    def set_quiet_mode(self, on: bool) -> None:
        """Quiet mode (the tray's checkable action): no notifications and no sound from
        now on; kept in the settings file as ``ui.quiet_mode``."""
        self.delivery.quiet_mode = on
        if self.tray is not None:
            self.tray.set_quiet_mode(on)
        if self.window.bridge is not None:
            self.window.bridge.save_setting("ui.quiet_mode", "true" if on else "false")

    def _apply_api(self, api: object) -> None:
        """Serve the local API or not, as the settings say (docs/api.md)."""
        bridge = self.window.bridge
        if bridge is not None:
            enabled, port = bool(getattr(api, "enabled", False)), int(getattr(api, "port", 8765))
            config_dir = bridge.engine.parts.core.paths.config_dir
            self.api.apply(bridge.engine, enabled, port, config_dir)

    def _settings_saved(self, changes: dict[str, str]) -> None:
        """The dialog wrote these: close-to-tray, quiet mode and the API apply at once."""
        if "api.enabled" in changes or "api.port" in changes:
            from types import SimpleNamespace

            self._apply_api(SimpleNamespace(enabled=changes.get("api.enabled") == "true",
                                            port=int(changes.get("api.port", "8765"))))  # fmt: skip
        if "ui.close_to_tray" in changes:
            self.close_to_tray = changes["ui.close_to_tray"] == "true"
        if "ui.quiet_mode" in changes:
            on = changes["ui.quiet_mode"] == "true"
            self.delivery.quiet_mode = on
            if self.tray is not None:
                self.tray.set_quiet_mode(on)

    def _say_still_running(self) -> None:
        """Closed into the tray: said once (a tray message, and the status strip)."""
        if self._told_still_running:
            return
        self._told_still_running = True
        self.window.statusBar().showMessage(STILL_RUNNING, 15000)
        if self.tray is not None:
            self.tray.showMessage("Rilai", STILL_RUNNING, app_icon(), 8000)

    def quit(self) -> None:
        """Really quit (the tray's Quit, Ctrl+Q): the window closes and the Engine with it."""
        self.api.stop()
        self.window.quit()
        if self.tray is not None:
            self.tray.hide()

    def _show_inline(self, nudge: Nudge) -> None:
        row = self.window.view.add_message("nudge", nudge.suggestion)
        announce(row, f"Rilai checks in: {nudge.suggestion}")
        if self.window.bridge is not None:
            self.window.bridge.engine.note_nudge_shown(nudge.suggestion)

    def _open_at(self, nudge: Nudge) -> None:
        """A notification (or the check-ins list) was activated: the window comes forward
        at that nudge; one the conversation does not show yet joins it there."""
        self._raise()
        row = next((r for r in reversed(self.window.view.rows) if r.text == nudge.suggestion), None)
        if row is None:
            self._show_inline(nudge)
            row = self.window.view.rows[-1]
        self.window.view.ensureWidgetVisible(row)

    def _raise(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def _say_no_tray(self, notice: str) -> None:
        self.window.view.add_message("system", notice)

    def start(self) -> None:
        self.window.show()
        if self.first_run is None:
            self._load()
            return
        self.window.set_ready(False, "checking the models…")
        self.first_run.ready.connect(self._load)
        self.first_run.checked.connect(self._say_missing)
        self.first_run.start()

    def _say_missing(self, missing: list[object]) -> None:
        if missing:
            self.window.set_ready(False, "models missing")

    def _load(self) -> None:
        self.window.set_ready(False, "loading models… the memory model (MiniLM) and the log")
        self.loader.start()


def build_window(open_engine: Callable[[], Engine]) -> tuple[MainWindow, EngineLoader]:
    """The window, shown empty, and the loader that fills it (no daemon, no tray)."""
    desktop = DesktopApp(open_engine, tray_available=lambda: False, with_daemon=False)
    desktop.window.setProperty("desktop", desktop)  # kept alive with the window
    return desktop.window, desktop.loader


def run_window(
    open_engine: Callable[[], Engine],
    argv: Sequence[str] | None = None,
    *,
    theme: str = "system",
    data_dir: Path | None = None,
    models: SetupLike | None = None,
    exit_after_first_paint: bool = False,
) -> int:
    """The desktop app. With ``data_dir``, one instance per data folder: a second `rilai
    window` raises the first one's window and exits (never a second database writer).
    ``exit_after_first_paint`` (a measurement: packaging/report.py) prints the process's
    age and memory at the window's first paint and quits."""
    if data_dir is not None:  # the session's network attempts, on record (once per process)
        begin_session(data_dir, "window")
    app = QApplication.instance() or QApplication(list(argv or sys.argv[:1]))
    app.setApplicationName("Rilai")
    if isinstance(app, QApplication):
        # the .desktop file's name: the taskbar, the Wayland app id and notifications match it
        app.setDesktopFileName("rilai")
        apply_theme(app, theme)
        app.setWindowIcon(app_icon())
    instance = None
    if data_dir is not None:
        from rilai_desktop.ui.single_instance import Claim, SingleInstance

        instance = SingleInstance(data_dir)
        claim = instance.claim(list(argv or sys.argv[1:]))
        if claim is not Claim.PRIMARY:
            print(instance.message, file=sys.stderr)
            return 0 if claim is Claim.HANDED_OVER else 1
    desktop = DesktopApp(open_engine, models=models)
    # closing into the tray hides the last window: the app quits when the window really
    # closes (Quit; or closing where close-to-tray is off or there is no tray)
    if isinstance(app, QApplication):
        app.setQuitOnLastWindowClosed(False)
    desktop.window.closed.connect(desktop.api.stop)  # the API goes with the window
    desktop.window.closed.connect(app.quit)
    watcher = None  # kept alive while the app runs
    if exit_after_first_paint and isinstance(app, QApplication):
        from rilai_desktop.ui.first_paint import quit_at_first_paint

        watcher = quit_at_first_paint(app, desktop.window)
    if instance is not None:
        instance.raise_requested.connect(lambda _argv: desktop._raise())
    desktop.start()
    try:
        return int(app.exec())
    finally:
        del watcher
        if instance is not None:
            instance.release()
