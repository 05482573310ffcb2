"""Docks that leave the conversation room: when a dock is shown (or docked again), it is
made no wider than a share of the window, so at 1024 or 1280 px with the Conversations,
Memory and Inspector docks open the conversation keeps a readable width (issue 31). The
person may still drag a dock wider; nothing is enforced after it is shown."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow

LEFT_SHARE = 0.2  # the Conversations list
RIGHT_SHARE = 0.32  # Memory, the Inspector and Check-ins (they stack and share one width)


def keep_modest(window: QMainWindow, docks: Iterable[QDockWidget], share: float) -> None:
    """Each of ``docks``, when shown docked, at most ``share`` of the window's width (never
    under its own minimum: Qt keeps that)."""
    for dock in docks:

        def fit(visible: bool, dock: QDockWidget = dock) -> None:
            if visible and not dock.isFloating():
                QTimer.singleShot(0, lambda: _narrow(window, dock, share))

        dock.visibilityChanged.connect(fit)
        dock.topLevelChanged.connect(lambda floating, f=fit: f(not floating))
        if dock.isVisible():
            fit(True)


def _narrow(window: QMainWindow, dock: QDockWidget, share: float) -> None:
    limit = int(window.width() * share)
    if dock.isVisible() and not dock.isFloating() and dock.width() > limit:
        window.resizeDocks([dock], [limit], Qt.Orientation.Horizontal)
