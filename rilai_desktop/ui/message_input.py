"""Where the person writes: Enter sends, Shift+Enter is a new line, Esc stops a reply."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit

MAX_CHARS = 100_000  # the turn keeps what fits; a bigger paste is cut with a note


class MessageInput(QPlainTextEdit):
    submitted = Signal(str)
    cancel_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("message-input")
        self.setAccessibleName("Message to Rilai")
        self.setPlaceholderText("Write to Rilai… (Enter sends, Shift+Enter for a new line)")
        self.setTabChangesFocus(True)
        self.setMaximumHeight(84)  # about three lines; it scrolls beyond

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, mods = event.key(), event.modifiers()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            mods & Qt.KeyboardModifier.ShiftModifier
        ):
            self.submit()
            return
        if key == Qt.Key.Key_Escape:
            self.cancel_requested.emit()
            return
        super().keyPressEvent(event)

    def submit(self) -> None:
        text = self.toPlainText()
        if not text.strip():
            return
        self.submitted.emit(text[:MAX_CHARS])
