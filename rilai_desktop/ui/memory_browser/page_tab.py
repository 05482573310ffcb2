"""One tab of pages (categories, the journal, the knowledge bases): their names on the left,
the chosen one rendered as markdown on the right (``QTextBrowser.setMarkdown``), and "Open
file" for the file on disk it is (a category's ``.md``, a journal day)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

PAGE_ROLE = Qt.ItemDataRole.UserRole + 1


class PageTab(QWidget):
    def __init__(self, name: str, empty: str) -> None:
        super().__init__()
        self.name = name
        self._empty = empty
        self.list = QListWidget()
        self.list.setObjectName(f"memory-pages-{name}")
        self.list.setAccessibleName(f"{name}: pages")
        self.text = QTextBrowser()
        self.text.setObjectName(f"memory-page-{name}")
        self.text.setAccessibleName(f"{name}: the page")
        self.text.setOpenExternalLinks(True)
        self.open_button = QPushButton("Open file")
        self.open_button.setAccessibleName(f"Open this page's file on disk ({name})")
        self.open_button.clicked.connect(self.open_file)
        self.where = QLabel("")
        self.where.setWordWrap(True)
        self.where.setAccessibleName(f"Where this page lives ({name})")
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.text, 1)
        foot = QHBoxLayout()
        foot.addWidget(self.where, 1)
        foot.addWidget(self.open_button)
        right_layout.addLayout(foot)
        split = QSplitter()
        split.addWidget(self.list)
        split.addWidget(right)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)
        self.list.currentItemChanged.connect(lambda item, _old: self._show(item))
        self._pages: list[Any] = []
        self.opened: list[str] = []  # the files "Open file" asked the desktop to open
        self._show(None)

    def set_pages(self, pages: Sequence[Any]) -> None:
        chosen = self.list.currentItem()
        keep = chosen.text() if chosen is not None else ""
        self._pages = list(pages)
        self.list.clear()
        for page in self._pages:
            item = QListWidgetItem(page.name)
            item.setData(PAGE_ROLE, page)
            self.list.addItem(item)
        again = self.list.findItems(keep, Qt.MatchFlag.MatchExactly) if keep else []
        if again:
            self.list.setCurrentItem(again[0])
        elif self._pages:
            self.list.setCurrentRow(0)
        else:
            self._show(None)

    def page(self) -> Any:
        item = self.list.currentItem()
        return item.data(PAGE_ROLE) if item is not None else None

    def _show(self, item: QListWidgetItem | None) -> None:
        page = item.data(PAGE_ROLE) if item is not None else None
        if page is None:
            self.text.setMarkdown(self._empty)
            self.where.setText("")
            self.open_button.setEnabled(False)
            return
        self.text.setMarkdown(page.markdown)
        self.where.setText(str(page.path) if page.path else "")
        self.open_button.setEnabled(page.path is not None)

    def open_file(self) -> None:
        page = self.page()
        if page is not None and page.path is not None:
            self.opened.append(str(page.path))
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(page.path)))
