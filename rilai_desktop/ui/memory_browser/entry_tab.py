"""One tab of entries (about you, episodes, threads & goals, items): a sortable table with
extended selection, and the controls that act on it.

The tab never calls the Engine: it asks (signals) and the dock passes the asks to the
bridge, which runs the writes off the GUI thread. Pause and Pin act on the current row;
Delete on every selected row (select all shown, with the search's filter, then delete).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from rilai_desktop.ui.memory_browser.entry_model import SORT_ROLE, EntryTableModel


class EntryTab(QWidget):
    """Signals: ``edit_requested(entry)``, ``delete_requested(list of entries)``,
    ``pause_requested(entry, paused)``, ``pin_requested(entry, pinned)``."""

    edit_requested = Signal(object)
    delete_requested = Signal(object)
    pause_requested = Signal(object, bool)
    pin_requested = Signal(object, bool)

    def __init__(self, name: str, empty: str, *, evidence: bool = False) -> None:
        super().__init__()
        self.name = name
        self._empty = empty
        self.model = EntryTableModel(evidence=evidence, parent=self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QTableView()
        self.table.setObjectName(f"memory-{name}")
        self.table.setAccessibleName(f"{name}: what Rilai remembers")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table (arrows move in it)
        self.table.setWordWrap(True)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setColumnWidth(0, 220)
        self.table.setColumnWidth(1, 90)
        self.table.setColumnWidth(2, 250)
        learned = self.model.column("Learned")
        self.table.sortByColumn(learned, Qt.SortOrder.DescendingOrder)  # newest first
        self.table.doubleClicked.connect(lambda _i: self._edit())

        def button(text: str, accessible: str, slot: Any) -> QPushButton:
            b = QPushButton(text)
            b.setAccessibleName(accessible)
            b.clicked.connect(slot)
            return b

        self.edit_button = button("Edit…", f"Edit the selected entry ({name})", self._edit)
        self.pause_button = button(
            "Pause", f"Pause or resume the selected entry ({name})", self._pause
        )
        self.pin_button = button("Pin", f"Pin or unpin the selected entry ({name})", self._pin)
        self.select_all_button = button(
            "Select all shown", f"Select every entry shown ({name})", self.table.selectAll
        )
        self.delete_button = button(
            "Delete selected…", f"Delete the selected entries ({name})", self._delete
        )
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setAccessibleName(f"About the {name} list")
        # two rows: in one, the five buttons set the dock's width above 500 px and squeezed
        # the conversation at 1024 px (issue 31: layout at ordinary sizes)
        row = QVBoxLayout()
        for group in (
            (self.edit_button, self.pause_button, self.pin_button),
            (self.select_all_button, self.delete_button),
        ):
            line = QHBoxLayout()
            for b in group:
                line.addWidget(b)
            line.addStretch(1)
            row.addLayout(line)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        layout.addWidget(self.note)
        self.table.selectionModel().selectionChanged.connect(lambda *_a: self._update_buttons())
        self.table.selectionModel().currentChanged.connect(lambda *_a: self._update_buttons())
        self._update_buttons()

    # ── what the dock shows ───────────────────────────────────────────────
    def set_entries(self, entries: Sequence[Any], query: str = "") -> None:
        keep = {e.entry_id for e in self.selected()}
        self.model.set_entries(entries)
        if keep:
            selection = self.table.selectionModel()
            for row in range(self.proxy.rowCount()):
                index = self.proxy.index(row, 0)
                if self.model.entry(self.proxy.mapToSource(index).row()).entry_id in keep:
                    selection.select(
                        index,
                        selection.SelectionFlag.Select | selection.SelectionFlag.Rows,
                    )
        n = len(entries)
        if n:
            self.note.setText(
                f"{n} entr{'ies' if n != 1 else 'y'}" + (f" found for “{query}”." if query else ".")
            )
        else:
            self.note.setText(f"Nothing here holds “{query}”." if query else self._empty)
        self._update_buttons()

    def selected(self) -> list[Any]:
        rows = sorted({i.row() for i in self.table.selectionModel().selectedRows()})
        return [
            self.model.entry(self.proxy.mapToSource(self.proxy.index(r, 0)).row()) for r in rows
        ]

    def current(self) -> Any:
        index = self.table.currentIndex()
        if index.isValid() and self.table.selectionModel().isRowSelected(index.row()):
            return self.model.entry(self.proxy.mapToSource(index).row())
        chosen = self.selected()
        return chosen[0] if len(chosen) == 1 else None

    # ── the controls ──────────────────────────────────────────────────────
    def _update_buttons(self) -> None:
        entry = self.current()
        chosen = self.selected()
        for b in (self.edit_button, self.pause_button, self.pin_button):
            b.setEnabled(entry is not None)
        self.delete_button.setEnabled(bool(chosen))
        self.select_all_button.setEnabled(self.model.rowCount() > 0)
        self.pause_button.setText("Resume" if entry is not None and entry.paused else "Pause")
        self.pin_button.setText("Unpin" if entry is not None and entry.pinned else "Pin")
        self.delete_button.setText(
            f"Delete {len(chosen)} selected…" if len(chosen) > 1 else "Delete selected…"
        )

    def _edit(self) -> None:
        entry = self.current()
        if entry is not None:
            self.edit_requested.emit(entry)

    def _pause(self) -> None:
        entry = self.current()
        if entry is not None:
            self.pause_requested.emit(entry, not entry.paused)

    def _pin(self) -> None:
        entry = self.current()
        if entry is not None:
            self.pin_requested.emit(entry, not entry.pinned)

    def _delete(self) -> None:
        chosen = self.selected()
        if chosen:
            self.delete_requested.emit(chosen)
