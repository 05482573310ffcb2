"""The Memory dock (Ctrl+M): everything Rilai remembers, where each entry came from and when
it was last used in a reply, with the person's controls over it.

:class:`MemoryPanel` holds the search field (debounced; a search across all of memory:
FTS5 + the vector index for items, words in the small tables, words in the pages), the
"Memory paused" switch, "Forget everything…", one tab per kind of memory, and the
buttons of Export memory… / Import memory… (``transfer.py``).
:class:`MemoryDock` wires it to the bridge: reads (``load_memory``) and writes
(``memory_action``) run off the GUI thread; a write's ``memory_changed``, or a ``memory.*``
event in the log (a turn learned something), reads again — only while the dock is shown;
a hidden dock reads when it is next shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from rilai_desktop.ui.memory_browser.entry_tab import EntryTab
from rilai_desktop.ui.memory_browser.page_tab import PageTab
from rilai_desktop.ui.memory_browser.transfer import MemoryTransfer

if TYPE_CHECKING:
    from PySide6.QtGui import QAction

if TYPE_CHECKING:
    from rilai_desktop.ui.bridge import EngineBridge

SEARCH_DELAY_MS = 300
RELOAD_DELAY_MS = 400  # a turn logs several memory events: one read after the last
TOGGLE_SHORTCUT = "Ctrl+M"

# (tab title, entry kind, what an empty tab says)
ENTRY_TABS = (
    ("About you", "fact", "Nothing yet: what Rilai learns about you appears here."),
    ("Episodes", "episode", "No episodes yet: moments Rilai noted from your conversations."),
    ("Threads & goals", "goal", "No open threads or goals yet."),
    ("Items", "item", "No items yet: facts drawn from what you said, and what you said."),
)
PAGE_TABS = (
    ("Categories", "category", "No categories yet."),
    ("Journal", "journal", "The journal is empty."),
    ("Knowledge bases", "knowledge_base", "No knowledge bases: add documents with `rilai kb`."),
)

# what the note says once a write is done
DONE = {
    "edit": "Saved: the correction is what Rilai recalls from now on.",
    "delete": "Deleted.",
    "delete_many": "Deleted.",
    "set_paused": "Saved.",
    "set_pinned": "Saved.",
    "forget_everything": "Everything Rilai remembered is gone.",
    "export": "Exported.",
    "import_": "Imported.",
}


class MemoryPanel(QWidget):
    """Signals: ``search_requested(words)`` (debounced), ``switch_toggled(paused)``,
    ``forget_requested``."""

    search_requested = Signal(str)
    switch_toggled = Signal(bool)
    forget_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory-browser")
        self.search = QLineEdit()
        self.search.setObjectName("memory-search")
        self.search.setPlaceholderText("Search all of memory")
        self.search.setAccessibleName("Search all of memory")
        self.search.setClearButtonEnabled(True)
        self.paused_switch = QCheckBox("Memory paused")
        self.paused_switch.setObjectName("memory-paused")
        self.paused_switch.setAccessibleName("Memory paused: nothing new is kept or recalled")
        self.paused_switch.setToolTip(
            "While on, Rilai keeps nothing new from your conversations and recalls nothing."
        )
        self.forget_button = QPushButton("Forget everything…")
        self.forget_button.setObjectName("memory-forget")
        self.forget_button.setAccessibleName("Forget everything Rilai remembers")
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.paused_switch)
        top.addWidget(self.forget_button)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("memory-tabs")
        self.tabs.setAccessibleName("Kinds of memory")
        self.tabs.tabBar().setAccessibleName("Kinds of memory tabs")
        self.entry_tabs: dict[str, EntryTab] = {}
        for title, kind, empty in ENTRY_TABS:
            tab = EntryTab(title, empty, evidence=kind == "fact")
            self.entry_tabs[kind] = tab
            self.tabs.addTab(tab, title.replace("&", "&&"))
        self.page_tabs: dict[str, PageTab] = {}
        for title, kind, empty in PAGE_TABS:
            page_tab = PageTab(title, empty)
            self.page_tabs[kind] = page_tab
            self.tabs.addTab(page_tab, title.replace("&", "&&"))
        self.note = QLabel("")
        self.note.setObjectName("memory-note")
        self.note.setWordWrap(True)
        self.note.setAccessibleName("Memory browser messages")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.tabs, 1)
        self._bottom = QHBoxLayout()
        self._bottom.addWidget(self.note, 1)
        layout.addLayout(self._bottom)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SEARCH_DELAY_MS)
        self._timer.timeout.connect(self._search_now)
        self.search.textChanged.connect(lambda _t: self._timer.start())
        self.search.returnPressed.connect(self._search_now)
        self.paused_switch.toggled.connect(self.switch_toggled)
        self.forget_button.clicked.connect(self.forget_requested)

    def add_actions(self, actions: tuple[QAction, ...]) -> list[QToolButton]:
        """A button for each action (Export memory…, Import memory…) beside the note."""
        buttons = []
        for action in actions:
            button = QToolButton()
            button.setDefaultAction(action)
            button.setAccessibleName(action.text().replace("&", "").rstrip("…"))
            button.setAccessibleDescription(action.toolTip())
            self._bottom.addWidget(button)
            buttons.append(button)
        return buttons

    @property
    def query(self) -> str:
        return self.search.text().strip()

    def _search_now(self) -> None:
        self._timer.stop()
        self.search_requested.emit(self.query)

    def show_snapshot(self, query: str, snapshot: Any) -> None:
        """A ``MemorySnapshot`` read for ``query``; a stale one (the words changed) is
        dropped."""
        if query != self.query:
            return
        if not snapshot.available:
            self.note.setText("Memory is off in this Rilai: there is nothing to show.")
        for kind, tab in self.entry_tabs.items():
            tab.set_entries([e for e in snapshot.entries if e.kind == kind], query)
        for kind, page_tab in self.page_tabs.items():
            page_tab.set_pages([p for p in snapshot.pages if p.kind == kind])
        for i, (title, kind, _empty) in enumerate((*ENTRY_TABS, *PAGE_TABS)):
            count = sum(1 for e in snapshot.entries if e.kind == kind) + sum(
                1 for p in snapshot.pages if p.kind == kind
            )
            label = title.replace("&", "&&")  # not a mnemonic
            self.tabs.setTabText(i, f"{label} ({count})" if count else label)
        self.set_switch(snapshot.recording_paused)

    def set_switch(self, paused: bool) -> None:
        """Show the switch as the engine has it (without asking to change it)."""
        self.paused_switch.blockSignals(True)
        self.paused_switch.setChecked(paused)
        self.paused_switch.blockSignals(False)


def _ask_edit(parent: QWidget, entry: Any) -> str | None:
    from rilai_desktop.ui.memory_browser.dialogs import EditDialog

    dialog = EditDialog(entry.text, entry.source, parent)
    return dialog.text if dialog.exec() == EditDialog.DialogCode.Accepted else None


def _confirm(parent: QWidget, question: str) -> bool:
    """Yes / No, each with an accessible name (``QMessageBox.question`` names none)."""
    box = QMessageBox(QMessageBox.Icon.Question, "Memory", question, parent=parent)
    box.setAccessibleName("Delete from memory?")
    yes = box.addButton(QMessageBox.StandardButton.Yes)
    no = box.addButton(QMessageBox.StandardButton.No)
    yes.setAccessibleName("Yes, delete")
    no.setAccessibleName("No, keep it")
    box.setDefaultButton(no)
    return box.exec() == QMessageBox.StandardButton.Yes


def _confirm_forget(parent: QWidget) -> bool:
    from rilai_desktop.ui.memory_browser.dialogs import ForgetDialog

    return ForgetDialog(parent).exec() == ForgetDialog.DialogCode.Accepted


class MemoryDock(QDockWidget):
    """The panel in a dock (right side), wired to the bridge by ``attach``. The dialogs it
    opens are attributes (``ask_edit``, ``confirm``, ``confirm_forget``) so a test can
    answer them."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Memory", parent)
        self.setObjectName("memory-dock")
        self.setAccessibleName("Memory: what Rilai remembers, and your controls over it")
        self.setAllowedAreas(
            Qt.DockWidgetArea.RightDockWidgetArea | Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.panel = MemoryPanel(self)
        self.setWidget(self.panel)
        # Export memory… / Import memory… (its dialogs centre on the window)
        self.transfer = MemoryTransfer(parent or self, self.panel.note.setText)
        self.transfer_buttons = self.panel.add_actions(self.transfer.actions)
        toggle = self.toggleViewAction()
        toggle.setText("Memory")
        toggle.setShortcut(TOGGLE_SHORTCUT)
        toggle.setToolTip(f"Show or hide what Rilai remembers ({TOGGLE_SHORTCUT})")
        self.bridge: EngineBridge | None = None
        self.ask_edit: Callable[[Any], str | None] = lambda e: _ask_edit(self, e)
        self.confirm: Callable[[str], bool] = lambda q: _confirm(self, q)
        self.confirm_forget: Callable[[], bool] = lambda: _confirm_forget(self)
        self._stale = True
        self._reload = QTimer(self)
        self._reload.setSingleShot(True)
        self._reload.setInterval(RELOAD_DELAY_MS)
        self._reload.timeout.connect(self.refresh)
        self.visibilityChanged.connect(self._shown)
        panel = self.panel
        for tab in panel.entry_tabs.values():
            tab.edit_requested.connect(self._edit)
            tab.delete_requested.connect(self._delete)
            tab.pause_requested.connect(
                lambda e, on: self._act("set_paused", e.kind, e.entry_id, on)
            )
            tab.pin_requested.connect(lambda e, on: self._act("set_pinned", e.kind, e.entry_id, on))
        panel.switch_toggled.connect(lambda on: self._act("set_recording_paused", on))
        panel.forget_requested.connect(self._forget)
        panel.search_requested.connect(lambda _q: self.refresh())

    def attach(self, bridge: EngineBridge) -> None:
        if self.bridge is not None:
            return
        self.bridge = bridge
        bridge.memory_loaded.connect(self.panel.show_snapshot)
        bridge.memory_paused.connect(self.panel.set_switch)
        bridge.memory_changed.connect(self._changed)
        bridge.memory_failed.connect(self._failed)
        bridge.logged.connect(self._logged)
        self.transfer.attach(bridge)  # after _changed / _failed: its note is the last word
        self._stale = True
        if self.isVisible():
            self.refresh()

    # ── reading ───────────────────────────────────────────────────────────
    def refresh(self) -> None:
        """Read memory again (off the GUI thread), now if shown, else when next shown."""
        if self.bridge is None:
            return
        if not self.isVisible():
            self._stale = True
            return
        self._stale = False
        self.bridge.load_memory(self.panel.query)

    def _shown(self, visible: bool) -> None:
        if visible and self._stale:
            self.refresh()

    def _logged(self, event: object) -> None:
        kind = str(getattr(getattr(event, "kind", ""), "value", getattr(event, "kind", "")))
        if kind.startswith("memory.") or kind == "memory_committed":
            self._stale = True
            self._reload.start()

    # ── writing (through the bridge, off the GUI thread) ───────────────────
    def _act(self, name: str, *args: object) -> None:
        if self.bridge is None:
            self.panel.note.setText("Memory is not open yet.")
            return
        self.panel.note.setText("Saving…")
        self.bridge.memory_action(name, *args)

    def _edit(self, entry: Any) -> None:
        text = self.ask_edit(entry)
        if text is None:
            return
        if not text.strip():
            self.panel.note.setText("An entry cannot be empty: delete it instead.")
            return
        if text.strip() != entry.text:
            self._act("edit", entry.kind, entry.entry_id, text.strip())

    def _delete(self, entries: list[Any]) -> None:
        n = len(entries)
        what = f"“{entries[0].text[:80]}”" if n == 1 else f"these {n} entries"
        if not self.confirm(f"Delete {what}? Rilai will never recall it again."):
            return
        if n == 1:
            self._act("delete", entries[0].kind, entries[0].entry_id)
        else:
            self._act("delete_many", [(e.kind, e.entry_id) for e in entries])

    def _forget(self) -> None:
        if self.confirm_forget():
            self._act("forget_everything")

    def _changed(self, name: str, _result: object = None) -> None:
        if name == "set_recording_paused" and self.bridge is not None:
            self.bridge.refresh_memory_paused()
        self.panel.note.setText(DONE.get(name, "Saved."))
        self._stale = True
        self.refresh()

    def _failed(self, _name: str, why: str) -> None:
        self.panel.note.setText(why)
        if self.bridge is not None:
            self.bridge.refresh_memory_paused()  # the switch shows the engine's state again
