"""The in-app list of past nudges: the source of truth for what Rilai offered, since the
desktop may drop a notification (no daemon, do-not-disturb, a crashed shell).

:class:`NudgeList` is a small ``QListWidget``: one row per nudge, newest last, showing the
local time and the suggestion; each row keeps its :class:`~rilai_desktop.daemon.ports.Nudge`.
Activating a row (Enter, double-click) emits ``nudge_activated(nudge)`` so the window can open
the conversation at it. GUI thread only: ``TrayDelivery`` hands nudges over from the engine's
threads with a queued signal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

if TYPE_CHECKING:
    from rilai_desktop.daemon.ports import Nudge


NUDGE_ROLE = Qt.ItemDataRole.UserRole + 1
LEVEL_NAMES = {4: "notification", 3: "inline"}


def nudge_line(nudge: Nudge) -> str:
    """One row's text: ``14:05 · <suggestion>`` in local time."""
    return f"{nudge.at.astimezone().strftime('%H:%M')} · {_printable(nudge.suggestion)}"


class NudgeList(QListWidget):
    """Past nudges, oldest first; ``add`` appends one, ``nudges()`` lists them."""

    nudge_activated = Signal(object)  # Nudge

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("nudgeList")
        self.setAccessibleName("Past check-ins")
        self.setAccessibleDescription(
            "Every check-in Rilai offered, with its time; "
            "press Enter to open the conversation at one"
        )
        self.setSelectionMode(QListWidget.SelectionMode.SingleSelection)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setWordWrap(True)
        self._nudges: list[Nudge] = []
        self.itemActivated.connect(self._activated)

    def add(self, nudge: Nudge) -> QListWidgetItem:
        """Append ``nudge`` as a row (and scroll to it); returns the row's item."""
        self._nudges.append(nudge)
        item = QListWidgetItem(nudge_line(nudge))
        item.setData(NUDGE_ROLE, nudge)
        level = LEVEL_NAMES.get(nudge.level, "quiet")
        local = nudge.at.astimezone().strftime("%A %H:%M")
        item.setToolTip(f"{local} · level {nudge.level} ({level}) · {nudge.condition}")
        item.setData(
            Qt.ItemDataRole.AccessibleTextRole,
            f"Check-in at {local}: {_printable(nudge.suggestion)}",
        )
        self.addItem(item)
        self.scrollToItem(item)
        return item

    def nudges(self) -> list[Nudge]:
        """Every nudge shown, oldest first."""
        return list(self._nudges)

    def nudge_at(self, row: int) -> Nudge | None:
        item = self.item(row)
        nudge = None if item is None else item.data(NUDGE_ROLE)
        return nudge if isinstance(nudge, Nudge) else None

    def _activated(self, item: QListWidgetItem) -> None:
        nudge = item.data(NUDGE_ROLE)
        if nudge is not None:
            self.nudge_activated.emit(nudge)


def _printable(text: str) -> str:
    """The daemon's printable() (control characters dropped), imported when a nudge is
    shown: the window paints before the contracts load."""
    from rilai_desktop.daemon.delivery import printable

    return printable(text)
