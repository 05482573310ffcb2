"""The conversation view: one message per row, Rilai's reply streaming in as it is written.

A reply streams as plain text and is re-rendered as markdown by Qt once it is complete (a
``QLabel`` in ``MarkdownText`` format: Qt's own markdown, through ``QTextDocument``). A
critic's rewrite replaces the reply that was streaming, it is never appended to it. The
view follows the stream to the bottom unless the person has scrolled up to read.
"""

from __future__ import annotations

import re
from datetime import datetime

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QGuiApplication, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from rilai_desktop.ui.header_layout import HeaderLayout

ROLE_NAMES = {"user": "You", "assistant": "Rilai", "system": "Rilai (note)", "nudge": "Rilai"}

# A run this long with no space (a URL, a path, a pasted hash) would set the conversation's
# minimum width and scroll it sideways: it gets break opportunities (zero-width spaces) in
# what is shown. The message's text (copy, export, edit) keeps no trace of them.
LONG_RUN = 24
_RUN = re.compile(rf"\S{{{LONG_RUN},}}")
_LINK = re.compile(r"\[[^\]\n]*\]\([^)\s]*\)|<https?://[^>\s]*>")
ZWSP = "\u200b"
NARROW_PX = 600  # under this conversation width the bubbles' indent shrinks (theme qss)


def announce(widget: QWidget, message: str) -> None:
    """Ask a screen reader to read ``message`` politely (after what it is reading), as for a
    finished reply or a check-in: focus stays in the input (docs/accessibility.md)."""
    event = QAccessibleAnnouncementEvent(widget, message[:1000])
    event.setPoliteness(QAccessible.AnnouncementPoliteness.Polite)
    QAccessible.updateAccessibility(event)


def breakable(text: str) -> str:
    """``text`` with a zero-width space after every LONG_RUN characters of a run without
    spaces, so a label can wrap it; markdown links and autolinks are left whole."""

    def split(run: re.Match[str]) -> str:
        word = run.group(0)
        return ZWSP.join(word[i : i + LONG_RUN] for i in range(0, len(word), LONG_RUN))

    out: list[str] = []
    last = 0
    for link in _LINK.finditer(text):
        out.append(_RUN.sub(split, text[last : link.start()]))
        out.append(link.group(0))
        last = link.end()
    out.append(_RUN.sub(split, text[last:]))
    return "".join(out)


class MessageRow(QFrame):
    """One message: who and when, the text, a copy button; Rilai's replies also an
    "Inspect" button that reopens that turn's inspector from the log. The view shows
    "Regenerate" on the last reply and "Edit" on the last message of the person."""

    inspect_requested = Signal(int)
    why_requested = Signal(int)  # "Why?": this reply's explanation (app/explain.py)
    regenerate_requested = Signal()
    edit_requested = Signal()

    def __init__(
        self, role: str, text: str, when: datetime | None, *, final: bool, turn_id: int = 0
    ) -> None:
        super().__init__()
        self.role = role
        self.turn_id = turn_id
        self.setObjectName(f"message-{role}")
        self.setProperty("role", role)
        self.setFrameShape(QFrame.Shape.NoFrame)
        header = self.header = QLabel(self._header(when))
        header.setObjectName("message-header")
        self.body = QLabel()
        self.body.setObjectName("message-body")
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
            | Qt.TextInteractionFlag.LinksAccessibleByMouse
        )
        # Ignored across: the label takes the row's width and wraps to it, so no message
        # can make the conversation wider than its window (issue 31: at 1280 px with the
        # docks open it scrolled sideways)
        wrapping = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        wrapping.setHeightForWidth(True)  # its height follows the width it is given
        self.body.setSizePolicy(wrapping)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setAccessibleName(f"Copy this message from {ROLE_NAMES.get(role, role)}")
        self.copy_button.clicked.connect(self.copy)
        self.inspect_button = QToolButton()
        self.inspect_button.setText("Inspect")
        self.inspect_button.setAccessibleName("Show how Rilai arrived at this reply")
        self.inspect_button.clicked.connect(lambda: self.inspect_requested.emit(self.turn_id))
        self.inspect_button.setVisible(role == "assistant" and turn_id > 0)
        self.why_button = QToolButton()
        self.why_button.setText("Why?")
        self.why_button.setAccessibleName("Why Rilai said this")
        self.why_button.setToolTip("The memories, sensors and decisions behind this reply")
        self.why_button.clicked.connect(lambda: self.why_requested.emit(self.turn_id))
        self.why_button.setVisible(False)
        self.regenerate_button = QToolButton()
        self.regenerate_button.setText("Regenerate")
        self.regenerate_button.setAccessibleName("Write this reply again (Ctrl+R)")
        self.regenerate_button.clicked.connect(self.regenerate_requested)
        self.edit_button = QToolButton()
        self.edit_button.setText("Edit")
        self.edit_button.setAccessibleName("Edit this message and send it again (Up)")
        self.edit_button.clicked.connect(self.edit_requested)
        # who and when, then the actions: one line while they fit the row, and on a narrow
        # row the actions wrap onto lines of their own under it, whole (issue 31)
        self._header_layout = HeaderLayout()
        self._header_layout.addWidget(header)
        for button in (self.regenerate_button, self.edit_button):
            button.setVisible(False)
        for button in (
            self.regenerate_button,
            self.edit_button,
            self.why_button,
            self.inspect_button,
            self.copy_button,
        ):
            self._header_layout.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addLayout(self._header_layout)
        layout.addWidget(self.body)
        # Ignored across, as the body: the row takes the conversation's width and its
        # height is worked out at that width. A row whose minimum width was more than the
        # conversation had got the height for its minimum width, fewer lines than its text
        # wraps to at the width it was given, and its last line was cut (issue 31)
        across = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Minimum)
        across.setHeightForWidth(True)
        self.setSizePolicy(across)
        self.text = ""
        self.final = False
        self.set_text(text, final=final)

    def header_lines(self) -> int:
        """How many lines who-and-when and the shown actions take at the row's width."""
        return self._header_layout.lines(self._header_layout.geometry().width())

    def set_narrow(self, narrow: bool) -> None:
        """A narrow conversation (docks open on a small screen) gives the bubbles a smaller
        indent (the stylesheets' ``[narrow="true"]``), so the header's buttons still fit."""
        if bool(self.property("narrow")) != narrow:
            self.setProperty("narrow", narrow)
            self.style().unpolish(self)
            self.style().polish(self)
            # a frame takes the style sheet's margin as its contents margins on a style
            # change only: re-polished alone it kept the wide indent, and the text and the
            # actions had 56 px less than the bubble showed (issue 31)
            QCoreApplication.sendEvent(self, QEvent(QEvent.Type.StyleChange))

    def _header(self, when: datetime | None) -> str:
        name = ROLE_NAMES.get(self.role, self.role)
        return f"{name} · {when.astimezone():%H:%M}" if when is not None else name

    def set_text(self, text: str, *, final: bool) -> None:
        self.text, self.final = text, final
        if final and self.role != "user":
            self.body.setTextFormat(Qt.TextFormat.MarkdownText)
        else:
            self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setText(breakable(text))
        name = ROLE_NAMES.get(self.role, self.role)
        if final or self.role == "user":
            self.body.setAccessibleName(f"{name}: {text[:200]}")
        elif self.body.accessibleName() != f"{name} is replying…":
            # once, not per streamed piece: a screen reader would read every fragment
            self.body.setAccessibleName(f"{name} is replying…")
        self._show_why()

    def _show_why(self) -> None:
        """ "Why?" under every finished Rilai reply of a turn (not a check-in or a note)."""
        self.why_button.setVisible(self.role == "assistant" and self.final and self.turn_id > 0)

    def set_turn(self, turn_id: int) -> None:
        self.turn_id = turn_id
        self.inspect_button.setVisible(self.role == "assistant" and turn_id > 0)
        self._show_why()

    def append(self, piece: str) -> None:
        self.set_text(self.text + piece, final=False)

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.text)


class ConversationView(QScrollArea):
    """The messages of the conversation, newest at the bottom."""

    scrolled_up = Signal(bool)
    inspect_requested = Signal(int)  # a Rilai reply's turn id
    why_requested = Signal(int)  # "Why?" under a Rilai reply: its turn id
    regenerate_requested = Signal()  # "Regenerate" on the last reply
    edit_requested = Signal()  # "Edit" on the last message of the person

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("conversation")
        self.setAccessibleName("Conversation")
        self.setWidgetResizable(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # the conversation wraps to the window's width; it never scrolls sideways
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        inner.setObjectName("conversation-inner")
        inner.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._layout = QVBoxLayout(inner)
        self._layout.setContentsMargins(12, 12, 12, 12)
        self._layout.setSpacing(8)
        self._layout.addStretch(1)
        self.setWidget(inner)
        self.rows: list[MessageRow] = []
        self._streaming: MessageRow | None = None
        self._idle = True  # no turn runs: the last exchange may be regenerated / edited
        self._follow = True
        bar = self.verticalScrollBar()
        bar.valueChanged.connect(self._on_scroll)
        bar.rangeChanged.connect(self._on_range)

    # ── width ─────────────────────────────────────────────────────────────
    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        narrow = self.viewport().width() < NARROW_PX
        for row in self.rows:
            row.set_narrow(narrow)

    # ── scrolling ─────────────────────────────────────────────────────────
    def _on_scroll(self, value: int) -> None:
        at_bottom = value >= self.verticalScrollBar().maximum() - 4
        if at_bottom != self._follow:
            self._follow = at_bottom
            self.scrolled_up.emit(not at_bottom)

    def _on_range(self, _low: int, high: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(high)

    @property
    def following(self) -> bool:
        return self._follow

    # ── messages ──────────────────────────────────────────────────────────
    def add_message(
        self,
        role: str,
        text: str,
        when: datetime | None = None,
        *,
        final: bool = True,
        turn_id: int = 0,
    ) -> MessageRow:
        row = MessageRow(role, text, when, final=final, turn_id=turn_id)
        row.inspect_requested.connect(self.inspect_requested)
        row.why_requested.connect(self.why_requested)
        row.regenerate_requested.connect(self.regenerate_requested)
        row.edit_requested.connect(self.edit_requested)
        row.set_narrow(self.viewport().width() < NARROW_PX)
        self._layout.insertWidget(self._layout.count() - 1, row)
        self.rows.append(row)
        self._refresh_actions()
        return row

    def start_reply(self, when: datetime | None = None) -> MessageRow:
        """A Rilai row that the stream fills."""
        self._streaming = self.add_message("assistant", "", when, final=False)
        return self._streaming

    def stream(self, piece: str, *, reset: bool = False) -> None:
        """A piece of the streaming reply; ``reset``: the critics asked for a rewrite, so
        what was shown is replaced."""
        row = self._streaming or self.start_reply()
        if reset:
            row.set_text("", final=False)
        else:
            row.append(piece)

    def finish_reply(self, text: str, turn_id: int = 0) -> MessageRow | None:
        """The reply as it was kept (markdown); a turn that stayed quiet removes its row."""
        row, self._streaming = self._streaming, None
        if not text:
            if row is not None:
                self._remove(row)
            return None
        if row is None:
            row = self.add_message("assistant", text)
        row.set_text(text, final=True)
        row.set_turn(turn_id)
        self._refresh_actions()
        announce(row, f"Rilai: {text}")
        return row

    def drop_reply(self) -> None:
        """The turn ended without a reply (cancelled or failed): its partial row goes."""
        row, self._streaming = self._streaming, None
        if row is not None:
            self._remove(row)

    def _remove(self, row: MessageRow) -> None:
        self.rows.remove(row)
        self._layout.removeWidget(row)
        row.deleteLater()
        self._refresh_actions()

    # ── the last exchange: regenerate / edit ──────────────────────────────
    def set_idle(self, idle: bool) -> None:
        """While a turn runs, the last exchange cannot be taken back: no buttons."""
        self._idle = idle
        self._refresh_actions()

    def last_row(self, role: str) -> MessageRow | None:
        return next((r for r in reversed(self.rows) if r.role == role), None)

    def drop_from_last(self, role: str, *, keep_it: bool = False) -> None:
        """Remove the last ``role`` row and every row after it (``keep_it``: only those
        after it) — the rows of the exchange being taken back."""
        row = self.last_row(role)
        if row is None:
            return
        start = self.rows.index(row) + (1 if keep_it else 0)
        for gone in self.rows[start:]:
            self._remove(gone)
        self._streaming = None

    def _refresh_actions(self) -> None:
        user, reply = self.last_row("user"), self.last_row("assistant")
        after_user = (
            user is not None
            and reply is not None
            and (self.rows.index(reply) > self.rows.index(user))
        )
        for row in self.rows:
            row.regenerate_button.setVisible(
                self._idle and row is reply and after_user and row.final and row.turn_id > 0
            )
            row.edit_button.setVisible(self._idle and row is user)

    def clear(self) -> None:
        for row in list(self.rows):
            self._remove(row)
        self._streaming = None

    def to_markdown(self) -> str:
        """The conversation as Markdown (export)."""
        return "\n\n".join(
            f"**{ROLE_NAMES.get(r.role, r.role)}:** {r.text}" for r in self.rows if r.text
        )
