"""Where the person writes: Enter sends, Shift+Enter is a new line, Esc stops a reply.

Up in an empty input asks to edit the last message; while editing (``begin_edit``), Esc
leaves edit mode instead. A slash command completer (``slash_commands.py``) may be set:
while its popup is open, Enter / Tab / Esc belong to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit

if TYPE_CHECKING:
    from PySide6.QtWidgets import QCompleter

_POPUP_KEYS = (
    Qt.Key.Key_Return,
    Qt.Key.Key_Enter,
    Qt.Key.Key_Tab,
    Qt.Key.Key_Backtab,
    Qt.Key.Key_Escape,
)
# the input's own keys (no QAction carries them), for the help overlay
INPUT_KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "Send the message (resend it while editing)"),
    ("Shift+Enter", "New line"),
    ("Esc", "Stop Rilai's reply, or leave editing"),
    ("Up", "Edit your last message (in an empty input)"),
    ("/", "Slash commands; Tab or Enter completes"),
)
PLACEHOLDER = "Write to Rilai… (Enter sends, Shift+Enter for a new line, / for commands)"

MAX_CHARS = 100_000  # the turn keeps what fits; a bigger paste is cut with a note


class MessageInput(QPlainTextEdit):
    submitted = Signal(str)
    cancel_requested = Signal()
    edit_last_requested = Signal()  # Up in an empty input
    editing_changed = Signal(bool)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("message-input")
        self.setAccessibleName("Message to Rilai")
        self.setPlaceholderText(PLACEHOLDER)
        self.setTabChangesFocus(True)
        self.setMaximumHeight(84)  # about three lines; it scrolls beyond
        self.completer: QCompleter | None = None
        self.editing = False

    # ── edit mode: the last message, back for editing ─────────────────────
    def begin_edit(self, text: str) -> None:
        self.setPlainText(text)
        self.moveCursor(self.textCursor().MoveOperation.End)
        self.setFocus()
        if not self.editing:
            self.editing = True
            self.setAccessibleName("Editing your last message (Enter resends, Esc leaves)")
            self.editing_changed.emit(True)

    def end_edit(self, *, clear: bool = True) -> None:
        if clear:
            self.clear()
        if self.editing:
            self.editing = False
            self.setAccessibleName("Message to Rilai")
            self.editing_changed.emit(False)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key, mods = event.key(), event.modifiers()
        popup = self.completer.popup() if self.completer is not None else None
        if popup is not None and popup.isVisible() and key in _POPUP_KEYS:
            event.ignore()  # the completer takes it (Enter / Tab complete, Esc closes)
            return
        if key == Qt.Key.Key_Up and not self.toPlainText() and not self.editing:
            self.edit_last_requested.emit()
            return
        if key == Qt.Key.Key_Escape and self.editing:
            self.end_edit()
            return
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
