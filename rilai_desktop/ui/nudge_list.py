"""The in-app list of past nudges: the source of truth for what Rilai offered, since the
desktop may drop a notification (no daemon, do-not-disturb, a crashed shell).

:class:`NudgeList` is a small ``QListWidget``: one row per nudge, newest last, showing the
local time, the suggestion and, where it is not a delivered one, its state ("new",
"seen", "digest", "waiting", "not shown": ``app/checkins.py``); each row keeps its
:class:`~rilai_desktop.daemon.ports.Nudge`. On open ``set_entries`` rebuilds it from the
log (every check-in the log holds, issue 31), keeping any delivered in this process that
the log does not hold yet.
Activating a row (Enter, double-click) emits ``nudge_activated(nudge)`` so the window can open
the conversation at it. GUI thread only: ``TrayDelivery`` hands nudges over from the engine's
threads with a queued signal.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

if TYPE_CHECKING:
    from rilai_desktop.app.checkins import CheckIn
    from rilai_desktop.daemon.ports import Nudge


NUDGE_ROLE = Qt.ItemDataRole.UserRole + 1
LEVEL_NAMES = {4: "notification", 3: "inline"}


def nudge_line(nudge: Nudge, state: str = "", now: datetime | None = None) -> str:
    """One row's text: ``14:05 · <suggestion>`` in local time ("yesterday 14:05", or the
    date, for an older one), then the state's word in brackets where it has one."""
    from rilai_desktop.app.checkins import STATE_WORDS, when_words

    when = when_words(nudge.at, now if now is not None else datetime.now(UTC))
    word = STATE_WORDS.get(state, state)
    return f"{when} · {_printable(nudge.suggestion)}" + (f"  [{word}]" if word else "")


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
        self._states: list[str] = []
        self.itemActivated.connect(self._activated)

    def add(self, nudge: Nudge, state: str = "") -> QListWidgetItem:
        """Append ``nudge`` as a row (and scroll to it); returns the row's item."""
        self._nudges.append(nudge)
        self._states.append(state)
        item = QListWidgetItem(nudge_line(nudge, state))
        item.setData(NUDGE_ROLE, nudge)
        level = LEVEL_NAMES.get(nudge.level, "quiet")
        local = nudge.at.astimezone().strftime("%A %d %B %H:%M")
        said = f" · {state}" if state else ""
        item.setToolTip(f"{local} · level {nudge.level} ({level}) · {nudge.condition}{said}")
        item.setData(
            Qt.ItemDataRole.AccessibleTextRole,
            f"Check-in at {local}{said}: {_printable(nudge.suggestion)}",
        )
        self.addItem(item)
        self.scrollToItem(item)
        return item

    def add_logged(self, nudge: Nudge, state: str) -> QListWidgetItem | None:
        """Append a check-in the log just stored, unless it is listed already (a delivered
        one is listed before it is logged); None when it was."""
        if _key(nudge) in {_key(n) for n in self._nudges}:
            return None
        return self.add(nudge, state)

    def set_entries(self, entries: Sequence[CheckIn]) -> None:
        """Rebuild the list from the log's check-ins (``app.checkins.CheckIns``), keeping
        the nudges this process listed that the log does not hold, all in time order."""
        logged = {e.key for e in entries}
        rows = [(e.nudge, e.state) for e in entries]
        rows += [(n, s) for n, s in zip(self._nudges, self._states, strict=True)
                 if _key(n) not in logged]  # fmt: skip
        rows.sort(key=lambda row: row[0].at)
        self.clear()
        self._nudges, self._states = [], []
        for nudge, state in rows:
            self.add(nudge, state)

    def nudges(self) -> list[Nudge]:
        """Every nudge listed, oldest first."""
        return list(self._nudges)

    def states(self) -> list[str]:
        """Each row's state (``app/checkins.py``; "" for one delivered in this process)."""
        return list(self._states)

    def nudge_at(self, row: int) -> Nudge | None:
        item = self.item(row)
        nudge = None if item is None else item.data(NUDGE_ROLE)
        return nudge if isinstance(nudge, Nudge) else None

    def _activated(self, item: QListWidgetItem) -> None:
        nudge = item.data(NUDGE_ROLE)
        if nudge is not None:
            self.nudge_activated.emit(nudge)


def _key(nudge: Nudge) -> tuple[str, str]:
    from rilai_desktop.app.checkins import checkin_key

    return checkin_key(nudge)


def _printable(text: str) -> str:
    """The daemon's printable() (control characters dropped), imported when a nudge is
    shown: the window paints before the contracts load."""
    from rilai_desktop.daemon.delivery import printable

    return printable(text)
