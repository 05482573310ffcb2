"""The Conversations dock: past conversations to switch between, and search over their
messages.

:class:`ConversationList` is the panel: a search field on top (debounced: a search runs
250 ms after the last key), a "New conversation" button, and one list that shows the past
conversations (title and date, the current one marked) — or, while the field holds words,
the messages that match (a snippet with each match between « », who said it and when).
Activating a conversation asks to switch to it; activating a hit asks to switch to its
conversation at that message. The panel never calls the Engine: :class:`ConversationsDock`
wires it to the bridge, which reads the log and switches off the GUI thread (the search is
SQLite FTS5 over the log's messages, ``store/conversations.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from rilai_desktop.ui.bridge import EngineBridge
    from rilai_desktop.ui.main_window import MainWindow

SEARCH_DELAY_MS = 250
TARGET_ROLE = Qt.ItemDataRole.UserRole + 1  # ("conversation", sid) or ("hit", sid, message id)
WHO = {"user": "You", "assistant": "Rilai", "nudge": "Rilai (check-in)"}


def when_text(when: datetime) -> str:
    """A date as a person reads it in a list: local time, the year only when not this one."""
    local = when.astimezone()
    if local.year == datetime.now().astimezone().year:
        return local.strftime("%a %d %b, %H:%M")
    return local.strftime("%d %b %Y, %H:%M")


class ConversationList(QWidget):
    """Signals: ``search_requested(words)`` (debounced), ``conversation_activated(sid)``,
    ``hit_activated(sid, message_id)``, ``new_requested``."""

    search_requested = Signal(str)
    conversation_activated = Signal(str)
    hit_activated = Signal(str, int)
    new_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversation-list")
        self.search = QLineEdit()
        self.search.setObjectName("conversation-search")
        self.search.setPlaceholderText("Search past messages")
        self.search.setAccessibleName("Search past messages")
        self.search.setAccessibleDescription(
            "Type words from any earlier message; press Down to reach what was found"
        )
        self.search.setClearButtonEnabled(True)
        self.new_button = QPushButton("New conversation")
        self.new_button.setObjectName("new-conversation")
        self.new_button.setAccessibleName("Start a new conversation")
        self.list = QListWidget()
        self.list.setObjectName("conversations")
        self.list.setAccessibleName("Past conversations")
        self.list.setWordWrap(True)
        self.list.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.note = QLabel("")
        self.note.setObjectName("conversation-note")
        self.note.setAccessibleName("About the list")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        for widget in (self.search, self.new_button, self.list, self.note):
            layout.addWidget(widget)
        layout.setStretch(2, 1)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self._search_now)
        self.search.textChanged.connect(lambda _text: self._timer.start())
        self.search.returnPressed.connect(self._search_now)
        self.search.installEventFilter(self)
        self.new_button.clicked.connect(self.new_requested)
        self.list.itemActivated.connect(self._activated)
        self.list.itemClicked.connect(self._activated)
        self._conversations: Sequence[Any] = []
        self._current = ""
        self._shown_query = ""
        self._show_conversations()

    # ── what the bridge reports ───────────────────────────────────────────
    @property
    def query(self) -> str:
        return self.search.text().strip()

    def set_conversations(self, conversations: Sequence[Any]) -> None:
        """``Conversation`` records, most recent first; shown unless a search is."""
        self._conversations = list(conversations)
        if not self.query:
            self._show_conversations()

    def set_current(self, session_id: str) -> None:
        self._current = session_id
        if not self.query:
            self._show_conversations()

    def set_hits(self, query: str, hits: Sequence[Any]) -> None:
        """``MessageHit`` records for ``query``; a stale answer (the words changed since)
        is dropped."""
        if query != self.query:
            return
        self._shown_query = query
        self.list.clear()
        self.list.setAccessibleName("Messages found")
        for hit in hits:
            who = WHO.get(hit.role, hit.role)
            item = QListWidgetItem(f"{hit.snippet}\n{who} · {when_text(hit.ts)}")
            item.setData(TARGET_ROLE, ("hit", hit.session_id, hit.message_id))
            item.setData(
                Qt.ItemDataRole.AccessibleTextRole,
                f"{who}, {when_text(hit.ts)}: {hit.snippet.replace('«', '').replace('»', '')}",
            )
            self.list.addItem(item)
        count = len(hits)
        self.note.setText(
            f"No message holds “{query}”."
            if not count
            else f"{count} message{'s' if count != 1 else ''} found; Enter opens one."
        )

    # ── the panel's own behaviour ─────────────────────────────────────────
    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def _search_now(self) -> None:
        self._timer.stop()
        query = self.query
        if not query:
            self._shown_query = ""
            self._show_conversations()
        elif query != self._shown_query:
            self.note.setText("Searching…")
            self.search_requested.emit(query)

    def _show_conversations(self) -> None:
        self.list.clear()
        self.list.setAccessibleName("Past conversations")
        for conversation in self._conversations:
            current = conversation.session_id == self._current
            title = conversation.title or "(no words)"
            turns = f"{conversation.turns} turn{'s' if conversation.turns != 1 else ''}"
            item = QListWidgetItem(f"{title}\n{when_text(conversation.last_active)} · {turns}")
            item.setData(TARGET_ROLE, ("conversation", conversation.session_id))
            item.setToolTip(conversation.preview or title)
            spoken = f"{title}, {when_text(conversation.last_active)}, {turns}"
            item.setData(
                Qt.ItemDataRole.AccessibleTextRole, spoken + (", open now" if current else "")
            )
            if current:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.list.addItem(item)
        self.note.setText(
            "" if self._conversations else "Past conversations appear here after a first reply."
        )

    def _activated(self, item: QListWidgetItem) -> None:
        target = item.data(TARGET_ROLE)
        if not isinstance(target, tuple):
            return
        if target[0] == "conversation":
            self.conversation_activated.emit(str(target[1]))
        else:
            self.hit_activated.emit(str(target[1]), int(target[2]))

    def eventFilter(self, watched: Any, event: Any) -> bool:
        """Down in the search field moves to the list (keyboard alone)."""
        from PySide6.QtCore import QEvent
        from PySide6.QtGui import QKeyEvent

        if (
            watched is self.search
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Down
            and self.list.count()
        ):
            self.list.setFocus(Qt.FocusReason.TabFocusReason)
            self.list.setCurrentRow(0)
            return True
        return super().eventFilter(watched, event)


class ConversationsDock(QDockWidget):
    """The panel in a dock (left side), wired to the bridge and the window by ``attach``:
    a finished turn and a new conversation refresh the list; activating an entry switches
    the conversation off the GUI thread and the window shows it when the switch is done."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Conversations", parent)
        self.setObjectName("conversations-dock")
        self.setAccessibleName("Conversations: past conversations and search")
        self.panel = ConversationList(self)
        self.setWidget(self.panel)
        self.bridge: EngineBridge | None = None
        self._window: MainWindow | None = None
        self._pending: tuple[str, int] | None = None  # a switch asked for, not yet done

    def attach(self, bridge: EngineBridge, window: MainWindow) -> None:
        if self.bridge is not None:
            return
        self.bridge = bridge
        panel = self.panel
        bridge.conversations_loaded.connect(panel.set_conversations)
        bridge.search_done.connect(panel.set_hits)
        bridge.turn_done.connect(lambda _result: self.refresh())
        bridge.reset_done.connect(self._on_reset)
        bridge.switched.connect(self._on_switched)
        self._window = window
        panel.search_requested.connect(bridge.search_messages)
        panel.conversation_activated.connect(self._switch)
        panel.hit_activated.connect(self._switch)
        panel.new_requested.connect(window.new_conversation)
        panel.set_current(bridge.engine.session_id)
        self.refresh()

    def refresh(self) -> None:
        """Read the conversations again (and the search, if one is shown)."""
        if self.bridge is None:
            return
        self.bridge.load_conversations()
        if self.panel.query:
            self.bridge.search_messages(self.panel.query)

    def focus_search(self) -> None:
        self.show()
        self.raise_()
        self.panel.focus_search()

    def _switch(self, session_id: str, message_id: int = 0) -> None:
        if self.bridge is None:
            return
        if session_id == self.bridge.engine.session_id and not message_id:
            return  # already open
        if self._pending == (session_id, message_id):
            return  # a click and a double-click's activation ask for the same switch
        self._pending = (session_id, message_id)
        self.bridge.switch_conversation(session_id, message_id)

    def _on_switched(self, session_id: str, messages: object, message_id: int) -> None:
        self._pending = None
        self.panel.set_current(session_id)
        if isinstance(messages, list) and self._window is not None:
            self._window.show_conversation(messages, message_id)

    def _on_reset(self, session_id: str) -> None:
        self.panel.set_current(session_id)
        self.refresh()
