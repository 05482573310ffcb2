"""The slash commands in the window's input: a ``QCompleter`` over the shared table
(``app/slash_commands.py``, which the shell's /help reads too) pops up while the input
holds a "/word"; Enter or Tab puts the chosen command in the input.

Each entry shows the command and its one-line summary; the completer matches on the
command alone (a role of its own), so "/st" offers /status and /stance.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QCompleter, QListView

from rilai_desktop.app.slash_commands import for_client, lookup
from rilai_desktop.ui.message_input import MessageInput

NAME_ROLE = Qt.ItemDataRole.UserRole + 1
_TYPING = re.compile(r"^/[A-Za-z]*$")
_TAKE = (Qt.Key.Key_Tab, Qt.Key.Key_Backtab, Qt.Key.Key_Return, Qt.Key.Key_Enter)


class SlashCompleter(QCompleter):
    def __init__(self, field: MessageInput) -> None:
        model = QStandardItemModel()
        for command in for_client("window"):
            item = QStandardItem(f"{command.name}   {command.summary}")
            item.setData(command.name, NAME_ROLE)
            item.setToolTip(command.summary)
            item.setEditable(False)
            model.appendRow(item)
        super().__init__(model, field)
        model.setParent(self)
        self._field = field
        self.setCompletionRole(NAME_ROLE)
        self.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.setWidget(field)
        self._popup = QListView()
        self._popup.setObjectName("slash-commands")
        self._popup.setAccessibleName("Slash commands")
        self.setPopup(self._popup)
        self._popup.installEventFilter(self)  # after QCompleter's own: ours sees keys first
        self.activated.connect(self._insert)
        field.completer = self
        field.textChanged.connect(self._follow)

    def names(self) -> list[str]:
        """The commands offered for what the input holds now, in order."""
        found = self.completionModel()
        return [str(found.index(r, 0).data(NAME_ROLE)) for r in range(found.rowCount())]

    def _follow(self) -> None:
        text = self._field.toPlainText()
        popup = self._popup
        if not _TYPING.match(text) or lookup(text, "window") is not None:
            popup.hide()  # not a command being typed, or already a whole one: Enter runs it
            return
        self.setCompletionPrefix(text)
        if self.completionCount() == 0:
            popup.hide()
            return
        rect = self._field.cursorRect()
        rect.setWidth(max(320, popup.sizeHintForColumn(0) + 24))
        self.complete(rect)
        popup.setCurrentIndex(self.completionModel().index(0, 0))  # Tab / Enter take it

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Tab and Enter take the highlighted command (the first when none is), whatever
        the focus chain would do with Tab; everything else is QCompleter's."""
        if watched is self._popup and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in _TAKE and self._popup.isVisible():
                index = self._popup.currentIndex()
                if not index.isValid():
                    index = self.completionModel().index(0, 0)
                self._popup.hide()
                if index.isValid():
                    self._insert(str(index.data(NAME_ROLE)))
                return True
        return super().eventFilter(watched, event)

    def _insert(self, name: str) -> None:
        self._field.setPlainText(name)
        self._field.moveCursor(self._field.textCursor().MoveOperation.End)
