"""The base of every inspector panel and the read-only views they share.

A panel is one tab of the Inspector: it names the event kinds it reads, takes them one at
a time in log order (``handle``) and forgets them all on ``clear`` (a new turn). Panels
never read the database; what they show is what the turn's events said.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from rilai_desktop.contracts import EngineEvent, EventKind


class Panel(QWidget):
    """One inspector section: subclasses set ``title`` and ``kinds`` and implement
    ``clear`` and ``handle``."""

    title = ""
    kinds: frozenset[EventKind] = frozenset()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(f"inspector-{self.title.lower()}")
        self.setAccessibleName(f"{self.title} panel")
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(4, 4, 4, 4)
        self.layout_.setSpacing(4)

    def clear(self) -> None:
        """Forget everything shown (a new turn starts)."""
        raise NotImplementedError

    def handle(self, event: EngineEvent) -> None:
        """Show what ``event`` (one of ``kinds``) says; never raises on odd payloads."""
        raise NotImplementedError


def make_tree(name: str, headers: Sequence[str], parent: QWidget | None = None) -> QTreeWidget:
    """A read-only, keyboard-navigable tree with column ``headers``."""
    tree = QTreeWidget(parent)
    tree.setObjectName(name.lower().replace(" ", "-"))
    tree.setAccessibleName(name)
    tree.setColumnCount(len(headers))
    tree.setHeaderLabels(list(headers))
    tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    tree.setTabKeyNavigation(False)
    tree.setAlternatingRowColors(True)
    tree.setUniformRowHeights(False)
    tree.setWordWrap(True)
    tree.setRootIsDecorated(True)
    header = tree.header()
    header.setStretchLastSection(True)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    if len(headers) > 1:
        header.setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)
    return tree


def tree_item(
    parent: QTreeWidget | QTreeWidgetItem, texts: Sequence[str], tooltip: str = ""
) -> QTreeWidgetItem:
    """A row under ``parent`` with ``texts`` per column; the tooltip repeats the text."""
    item = QTreeWidgetItem([str(t) for t in texts])
    for column, text in enumerate(texts):
        item.setToolTip(column, tooltip or str(text))
    if isinstance(parent, QTreeWidget):
        parent.addTopLevelItem(item)
    else:
        parent.addChild(item)
    return item


def make_table(
    name: str, headers: Sequence[str], parent: QWidget | None = None, stretch: int = -1
) -> QTableWidget:
    """A read-only table with column ``headers``; column ``stretch`` takes the rest."""
    table = QTableWidget(0, len(headers), parent)
    table.setObjectName(name.lower().replace(" ", "-"))
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setTabKeyNavigation(False)  # Tab leaves the table (arrows move in it): no trap
    table.setAlternatingRowColors(True)
    table.setWordWrap(True)
    rows = table.verticalHeader()
    rows.setVisible(False)
    rows.setMinimumSectionSize(table.fontMetrics().height() + 4)
    rows.setDefaultSectionSize(table.fontMetrics().height() + 8)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    last = stretch if stretch >= 0 else len(headers) - 1
    header.setSectionResizeMode(last, QHeaderView.ResizeMode.Stretch)
    return table


def set_cell(table: QTableWidget, row: int, column: int, text: str, tooltip: str = "") -> None:
    """Put ``text`` in a cell (created if missing), aligned for numbers where it is one."""
    item = table.item(row, column)
    if item is None:
        item = QTableWidgetItem()
        table.setItem(row, column, item)
    item.setText(text)
    item.setToolTip(tooltip or text)
    if text[:1].isdigit() or text[:1] in "+−-–":
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def table_texts(table: QTableWidget) -> list[list[str]]:
    """Every row's cell texts (for tests and accessibility summaries)."""
    rows: list[list[str]] = []
    for row in range(table.rowCount()):
        cells = []
        for column in range(table.columnCount()):
            item = table.item(row, column)
            cells.append(item.text() if item is not None else "")
        rows.append(cells)
    return rows


def tree_texts(tree: QTreeWidget) -> list[str]:
    """Every item's column texts joined by ' | ', depth first, indented by level."""
    lines: list[str] = []

    def walk(item: QTreeWidgetItem, depth: int) -> None:
        texts = [item.text(c) for c in range(item.columnCount())]
        lines.append("  " * depth + " | ".join(t for t in texts if t))
        for n in range(item.childCount()):
            child = item.child(n)
            if child is not None:
                walk(child, depth + 1)

    for n in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(n)
        if top is not None:
            walk(top, 0)
    return lines
