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
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication

from rilai_desktop.ui.bridge import EngineBridge
from rilai_desktop.ui.main_window import MainWindow
from rilai_desktop.ui.theme import apply_theme

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine

log = logging.getLogger(__name__)


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


def build_window(open_engine: Callable[[], Engine]) -> tuple[MainWindow, EngineLoader]:
    """The window, shown empty, and the loader that fills it (tests drive both)."""
    window = MainWindow()
    loader = EngineLoader(open_engine)

    def attach(engine: object) -> None:
        window.attach(EngineBridge(engine))  # type: ignore[arg-type]

    loader.loaded.connect(attach)
    loader.failed.connect(lambda message: window.set_ready(False, f"not ready: {message}"))
    return window, loader


def run_window(
    open_engine: Callable[[], Engine],
    argv: Sequence[str] | None = None,
    *,
    theme: str = "system",
) -> int:
    app = QApplication.instance() or QApplication(list(argv or sys.argv[:1]))
    app.setApplicationName("Rilai")
    if isinstance(app, QApplication):
        apply_theme(app, theme)
    window, loader = build_window(open_engine)
    window.show()
    loader.start()
    return int(app.exec())
