"""The help overlay (F1, Ctrl+/, /help, Help → Keyboard shortcuts): a translucent panel over
the conversation listing every shortcut and slash command. Any key or click closes it.

It is written when it opens, from the window's own QActions (their shortcuts and names),
the input's keys (``message_input.INPUT_KEYS``) and the slash table the completer uses, so
it cannot drift from what the window does.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QVBoxLayout, QWidget

from rilai_desktop.app.slash_commands import for_client
from rilai_desktop.ui.message_input import INPUT_KEYS

_STYLE = """
#help-overlay { background: rgba(20, 20, 24, 190); }
#help-panel { background: palette(window); border-radius: 10px; padding: 16px; }
"""


def shortcut_rows(actions: Iterable[QAction]) -> list[tuple[str, str]]:
    """(keys, what they do) for every action with a shortcut, in the order given."""
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    for action in actions:
        keys = " / ".join(
            k.toString(QKeySequence.SequenceFormat.NativeText)
            for k in action.shortcuts()
            if not k.isEmpty()
        )
        name = action.text().replace("&", "").rstrip("…")
        if keys and name not in seen:
            seen.add(name)
            rows.append((keys, name))
    return rows


class HelpOverlay(QFrame):
    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._host = parent
        self.setObjectName("help-overlay")
        self.setAccessibleName("Keyboard shortcuts and slash commands (any key closes)")
        self.setStyleSheet(_STYLE)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.panel = QLabel()
        self.panel.setObjectName("help-panel")
        self.panel.setTextFormat(Qt.TextFormat.RichText)
        self.panel.setAccessibleName("Keyboard shortcuts and slash commands")
        layout = QVBoxLayout(self)
        layout.addWidget(self.panel, 0, Qt.AlignmentFlag.AlignCenter)
        self.rows: list[tuple[str, str]] = []
        self._back_to: QWidget | None = None
        parent.installEventFilter(self)
        self.hide()

    def show_help(self, actions: Iterable[QAction]) -> None:
        """Write the list from ``actions`` (the window's) and show it over the parent."""
        self.rows = [
            *INPUT_KEYS,
            *shortcut_rows(actions),
            *((c.name, c.summary) for c in for_client("window")),
        ]
        body = "".join(
            f"<tr><td><b>{escape(keys)}</b></td><td>&nbsp;&nbsp;{escape(what)}</td></tr>"
            for keys, what in self.rows
        )
        self.panel.setText(
            "<h3>Keyboard shortcuts and commands</h3>"
            f"<table>{body}</table><p><i>Any key closes this.</i></p>"
        )
        self.panel.setAccessibleDescription("; ".join(f"{k}: {w}" for k, w in self.rows))
        self.setGeometry(self._host.rect())
        self._back_to = QApplication.focusWidget()
        self.raise_()
        self.show()
        self.setFocus()

    def close_overlay(self) -> None:
        self.hide()
        if self._back_to is not None:
            self._back_to.setFocus()
            self._back_to = None

    def keyPressEvent(self, event: QKeyEvent) -> None:
        self.close_overlay()
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.close_overlay()
        event.accept()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._host and event.type() == QEvent.Type.Resize:
            self.setGeometry(self._host.rect())
        return False
