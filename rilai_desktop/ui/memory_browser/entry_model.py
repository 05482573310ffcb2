"""The entries of one tab as a Qt table model: text, category, where it came from, evidence,
when it was learned and last used in a reply, and its state (paused, pinned).

A plain ``QAbstractTableModel`` over ``MemoryEntry`` records, sorted by the view through a
``QSortFilterProxyModel`` (``EntryTab``); each row's entry is at ``ENTRY_ROLE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2

_Index = QModelIndex | QPersistentModelIndex


def when_text(when: datetime | None) -> str:
    if when is None:
        return "never"
    local = when.astimezone()
    if local.year == datetime.now().astimezone().year:
        return local.strftime("%d %b, %H:%M")
    return local.strftime("%d %b %Y, %H:%M")


def state_text(entry: Any) -> str:
    states = [s for s, on in (("paused", entry.paused), ("pinned", entry.pinned)) if on]
    if not entry.valid:
        states.append("done" if entry.kind == "goal" else "superseded")
    return ", ".join(states)


class EntryTableModel(QAbstractTableModel):
    """Columns: what it says, its category, where it came from, (evidence), learned,
    last used in a reply, state."""

    def __init__(self, *, evidence: bool = False, parent: Any = None) -> None:
        super().__init__(parent)
        self._entries: list[Any] = []
        self._columns = ["What Rilai remembers", "Category", "Where it came from"]
        if evidence:
            self._columns.append("Evidence")
        self._columns += ["Learned", "Last used in a reply", "State"]

    def column(self, title: str) -> int:
        return self._columns.index(title)

    # ── the data ──────────────────────────────────────────────────────────
    def set_entries(self, entries: Sequence[Any]) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        self.endResetModel()

    def entry(self, row: int) -> Any:
        return self._entries[row]

    @property
    def entries(self) -> list[Any]:
        return list(self._entries)

    # ── QAbstractTableModel ───────────────────────────────────────────────
    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._entries)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._columns[section]
        return None

    def _cell(self, entry: Any, column: str) -> tuple[str, Any]:
        """(what the cell shows, what it sorts by)."""
        if column == "What Rilai remembers":
            return entry.text, entry.text.casefold()
        if column == "Category":
            return entry.category or "", entry.category or ""
        if column == "Where it came from":
            return entry.source, entry.source
        if column == "Evidence":
            n = entry.evidence_count
            return f"{n} message{'s' if n != 1 else ''}", n
        if column == "Learned":
            at = entry.created_at
            return when_text(at), at.timestamp() if at else 0.0
        if column == "Last used in a reply":
            at = entry.last_used_at
            return when_text(at), at.timestamp() if at else 0.0
        text = state_text(entry)
        return text, text

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry = self._entries[index.row()]
        column = self._columns[index.column()]
        if role == ENTRY_ROLE:
            return entry
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            shown = self._cell(entry, column)[0]
            if role == Qt.ItemDataRole.AccessibleTextRole:
                return f"{column}: {shown or 'none'}"
            return shown
        if role == SORT_ROLE:
            return self._cell(entry, column)[1]
        if role == Qt.ItemDataRole.ToolTipRole:
            return (
                f"{entry.text}\n\nFrom {entry.source}.\nLearned {when_text(entry.created_at)};"
                f" last used in a reply: {when_text(entry.last_used_at)}."
            )
        if role == Qt.ItemDataRole.FontRole and entry.paused:
            from PySide6.QtGui import QFont

            font = QFont()
            font.setItalic(True)
            return font
        return None
