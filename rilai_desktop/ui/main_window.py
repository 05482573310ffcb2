"""The main window: the conversation, the input, the status strip; the Engine behind a
bridge (``bridge.py``), so the GUI thread only ever handles signals.

The inspector dock and the tray plug in through ``attach_inspector`` / the app
(``app.py``), as do the conversations list and the memory browser.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from rilai_desktop.paths import private_opener
from rilai_desktop.ui.conversation import ConversationView, MessageRow
from rilai_desktop.ui.message_input import MessageInput
from rilai_desktop.ui.status_strip import DAEMON_KINDS, StatusStrip

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget

    from rilai_desktop.contracts import EngineEvent
    from rilai_desktop.ui.bridge import EngineBridge
    from rilai_desktop.ui.help_overlay import HelpOverlay
    from rilai_desktop.ui.slash_commands import SlashCompleter
    from rilai_desktop.ui.why_panel import WhyPanel


class InspectorLike(Protocol):
    def on_event(self, event: EngineEvent) -> None: ...

    def show_turn(self, events: Sequence[EngineEvent]) -> None: ...


class MainWindow(QMainWindow):
    """Signals: ``hidden_to_tray`` (the window was closed into the tray), ``closed`` (it
    really closed: the Engine is closed), ``settings_saved`` (the dialog's changes)."""

    hidden_to_tray = Signal()
    closed = Signal()
    settings_saved = Signal(dict)

    def __init__(self, bridge: EngineBridge | None = None) -> None:
        super().__init__()
        self.setObjectName("main-window")
        self.setWindowTitle("Rilai")
        self.setAccessibleName("Rilai")
        self.resize(900, 700)
        self.bridge: EngineBridge | None = None
        self.inspector: InspectorLike | None = None
        self._font_delta = 0
        self._sent = ""  # the running turn's text: put back in the input if the turn fails
        self._troubles: list[dict[str, Any]] = []  # this turn's ERROR / AGENT_FAILED payloads
        # close-to-tray: the app sets this where a tray exists; Quit always quits
        self.hide_on_close: Callable[[], bool] = lambda: False
        self._quitting = False

        self.view = ConversationView()
        self.input = MessageInput()
        self.send_button = QPushButton("Send")
        self.send_button.setObjectName("send-button")
        self.send_button.setAccessibleName("Send the message, or stop Rilai's reply")
        self.send_button.clicked.connect(self._send_or_stop)
        self.input.submitted.connect(self.send)
        self.input.cancel_requested.connect(self.cancel)
        self.input.edit_last_requested.connect(self.edit_last)
        # the slash completer and the help overlay are built when first needed (after the
        # first paint: `rilai bench ui` times it)
        self.completer: SlashCompleter | None = None
        self.why_panel: WhyPanel | None = None  # "Why Rilai said this", built when asked
        self._help_overlay: HelpOverlay | None = None
        self.edit_banner = QLabel("Editing your last message: Enter resends it, Esc leaves")
        self.edit_banner.setObjectName("edit-banner")
        self.edit_banner.setAccessibleName("Editing your last message")
        self.edit_banner.setVisible(False)
        self.input.editing_changed.connect(self.edit_banner.setVisible)
        self.view.regenerate_requested.connect(self.regenerate)
        self.view.edit_requested.connect(self.edit_last)
        row = QHBoxLayout()
        row.addWidget(self.input, 1)
        row.addWidget(self.send_button)
        central = QWidget()
        layout = self._layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        row.setContentsMargins(12, 4, 12, 8)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.edit_banner)
        layout.addLayout(row)
        self.setCentralWidget(central)
        self._central = central

        self.status = StatusStrip(self.statusBar())
        # the labels, by the names tests and the app use
        self.stage_label = self.status.stage_label
        self.model_label = self.status.model_label
        self.memory_label = self.status.memory_label
        self.daemon_label = self.status.daemon_label
        self._actions()
        self.set_ready(False)
        if bridge is not None:
            self.attach(bridge)

    # ── wiring ────────────────────────────────────────────────────────────
    def _actions(self) -> None:
        def action(text: str, keys: QKeySequence | str, slot: Any) -> QAction:
            act = QAction(text, self)
            act.setShortcut(QKeySequence(keys))
            act.triggered.connect(slot)
            self.addAction(act)
            return act

        self.new_action = action("New conversation", "Ctrl+N", self.new_conversation)
        self.zoom_in_action = action("Larger text", "Ctrl+=", lambda: self.zoom(1))
        self.zoom_out_action = action("Smaller text", "Ctrl+-", lambda: self.zoom(-1))
        self.export_action = action("Export conversation…", "Ctrl+E", self.export_markdown)
        self.settings_action = action("Settings…", "Ctrl+,", self.open_settings)
        self.quit_action = action("Quit", "Ctrl+Q", self.quit)
        self.regenerate_action = action("Regenerate last reply", "Ctrl+R", self.regenerate)
        self.help_action = action("Keyboard shortcuts", "F1", self.show_help)
        self.help_action.setShortcuts([QKeySequence("F1"), QKeySequence("Ctrl+/")])
        menu = self.menuBar().addMenu("&Conversation")
        for act in (self.new_action, self.export_action, self.settings_action, self.quit_action):
            menu.addAction(act)
        view = self.menuBar().addMenu("&View")
        for act in (self.zoom_in_action, self.zoom_out_action):
            view.addAction(act)
        self.view_menu = view
        self.help_menu = self.menuBar().addMenu("&Help")
        self.help_menu.addAction(self.help_action)

    def attach(self, bridge: EngineBridge) -> None:
        """The Engine is ready: show the conversation so far and enable the input."""
        self.bridge = bridge
        if self.completer is None:
            from rilai_desktop.ui.slash_commands import SlashCompleter

            self.completer = SlashCompleter(self.input)
        bridge.update.connect(self._on_update)
        bridge.turn_done.connect(self._on_done)
        bridge.turn_cancelled.connect(self._on_cancelled)
        bridge.turn_failed.connect(self._on_failed)
        bridge.reset_done.connect(self._on_reset)
        bridge.busy_changed.connect(self._on_busy)
        bridge.turn_loaded.connect(self._show_loaded_turn)
        bridge.said.connect(self._say)
        self.view.inspect_requested.connect(self._inspect)
        self.view.why_requested.connect(self.explain)
        bridge.logged.connect(self._on_logged)
        bridge.daemon_status.connect(self._show_daemon_status)
        bridge.memory_stats.connect(self.status.memory)
        bridge.refresh_daemon_status()
        self.show_history(bridge.engine.session.history)
        tier = bridge.engine.voice_tier()
        self.model_label.setText(
            f"voice: {tier} tier (loads with the first message)" if tier else ""
        )
        self._show_memory()
        self.set_ready(True)

    def show_history(self, history: Sequence[Mapping[str, Any]]) -> list[MessageRow]:
        """Add a conversation's messages to the view (``engine.session.history``'s dicts:
        role, content, turn_id, nudge, and ``when`` where known); returns their rows."""
        rows = []
        for message in history:
            role = "nudge" if message.get("nudge") else str(message.get("role", "system"))
            turn = message.get("turn_id", 0)
            when = message.get("when")
            rows.append(
                self.view.add_message(
                    role,
                    str(message.get("content", "")),
                    when if isinstance(when, datetime) else None,
                    turn_id=turn if isinstance(turn, int) else 0,
                )
            )
        return rows

    def show_conversation(self, messages: Sequence[Any], message_id: int = 0) -> None:
        """Another conversation (``Message`` records, ``conversations.py``) replaces the
        view; with ``message_id`` that message is marked and scrolled to."""
        self.view.clear()
        history = [
            {"role": m.role, "content": m.text, "turn_id": m.turn_id, "when": m.ts}
            for m in messages
        ]
        rows = self.show_history(history)
        pairs = zip(rows, messages, strict=True)
        found = next((row for row, m in pairs if message_id and m.message_id == message_id), None)
        if found is not None:
            found.setProperty("found", True)
            found.style().unpolish(found)
            found.style().polish(found)
            QTimer.singleShot(0, lambda: self.view.ensureWidgetVisible(found, 0, 40))

    def add_banner(self, banner: QWidget) -> None:
        """A quiet line above the conversation (the check-ins' digest): never a pop-up."""
        self._layout.insertWidget(0, banner)

    def attach_inspector(self, dock: QDockWidget, inspector: InspectorLike) -> None:
        self.inspector = inspector
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        toggle = dock.toggleViewAction()
        toggle.setShortcut(QKeySequence("Ctrl+I"))
        self.view_menu.addAction(toggle)
        self.addAction(toggle)

    def set_ready(self, ready: bool, note: str = "") -> None:
        self.input.setEnabled(ready)
        self.send_button.setEnabled(ready)
        self.stage_label.setText(note or ("ready" if ready else "loading models…"))
        # the title says it too (the taskbar, a window switcher, a script waiting for it)
        self.setWindowTitle("Rilai" if ready else "Rilai (starting…)")
        if ready:
            self.input.setFocus()

    # ── sending ───────────────────────────────────────────────────────────
    def send(self, text: str) -> None:
        if self.bridge is None:
            return
        from rilai_desktop.app.slash_commands import looks_like_command

        if looks_like_command(text):
            self.input.clear()
            self.command(text.strip())
            return
        if self.bridge.busy:
            self.stage_label.setText("Rilai is still answering: Esc stops the reply")
            return
        if self.input.editing:
            if self.bridge.edit_last(text):
                self.input.end_edit()
                self.view.drop_from_last("user")  # the old message and its reply
                self.view.add_message("user", text, datetime.now(UTC))
                self.view.start_reply(datetime.now(UTC))
            return
        if self.bridge.send(text):
            self._sent, self._troubles = text, []
            self.input.clear()
            self.view.add_message("user", text, datetime.now(UTC))
            self.view.start_reply(datetime.now(UTC))

    def command(self, word: str) -> None:
        """A slash command typed in the input; it never reaches Rilai."""
        from rilai_desktop.app.slash_commands import lookup

        found = lookup(word, "window")
        name = found.name if found is not None else ""
        if found is None:
            self.view.add_message("system", f"Unknown command {word} — /help lists them")
        elif name == "/help":
            self.show_help()
        elif name in ("/new", "/reset"):
            self.new_conversation()
        elif name in ("/status", "/stance", "/memory") and self.bridge is not None:
            self.bridge.describe(name)  # read off the GUI thread; ``said`` shows it
        elif name == "/why":
            self._why()
        elif name == "/quit":
            self.close()

    def _say(self, text: str) -> None:
        self.view.add_message("system", text.replace("\n", "  \n"))  # markdown line breaks

    def _why(self) -> None:
        reply = self.view.last_row("assistant")
        if reply is None or reply.turn_id <= 0:
            self.view.add_message("system", "No reply yet in this conversation to explain.")
        elif self.inspector is None:
            self.view.add_message("system", "The inspector is still loading; try again.")
        else:
            self._inspect(reply.turn_id)

    @property
    def help_overlay(self) -> HelpOverlay:
        if self._help_overlay is None:
            from rilai_desktop.ui.help_overlay import HelpOverlay

            self._help_overlay = HelpOverlay(self._central)
        return self._help_overlay

    def show_help(self) -> None:
        self.help_overlay.show_help(self.actions())

    # ── the last exchange, again ──────────────────────────────────────────
    def _can_take_back(self) -> bool:
        """A finished last turn to take back (a read of the in-memory conversation)."""
        if self.bridge is None:
            return False
        if self.bridge.busy:
            self.stage_label.setText("Rilai is still answering: Esc stops the reply")
            return False
        if self.bridge.engine.session.last_exchange() is None:
            self.stage_label.setText("Nothing to take back: send a message first")
            return False
        return True

    def regenerate(self) -> None:
        """Rilai writes the last reply again: it replaces the old one (both are logged)."""
        if self._can_take_back() and self.bridge is not None and self.bridge.regenerate():
            self.input.end_edit(clear=False)
            self.view.drop_from_last("user", keep_it=True)
            self.view.start_reply(datetime.now(UTC))

    def edit_last(self) -> None:
        """The last message goes back into the input; Enter resends it, Esc leaves."""
        row = self.view.last_row("user")
        if row is not None and self._can_take_back():
            self.input.begin_edit(row.text)

    def _send_or_stop(self) -> None:
        if self.bridge is not None and self.bridge.busy:
            self.cancel()
        else:
            self.input.submit()

    def cancel(self) -> None:
        if self.bridge is not None and self.bridge.cancel():
            self.stage_label.setText("stopping…")

    def new_conversation(self) -> None:
        if self.bridge is not None:
            self.bridge.reset()

    def _inspect(self, turn_id: int) -> None:
        """Reopen an earlier turn's inspector, from the log (read off the GUI thread)."""
        if self.bridge is None or self.inspector is None or turn_id <= 0:
            return
        self.bridge.load_turn(self.bridge.engine.session_id, turn_id)

    def explain(self, turn_id: int) -> None:
        """ "Why?" under a reply: the "Why Rilai said this" panel for that turn (built when
        first asked for; the explanation is read off the GUI thread)."""
        if self.bridge is None or turn_id <= 0:
            return
        if self.why_panel is None:
            from rilai_desktop.ui.why_panel import WhyPanel

            self.why_panel = WhyPanel(self.bridge, self)
        self.why_panel.show_turn(self.bridge.engine.session_id, turn_id)

    def _show_loaded_turn(self, events: object) -> None:
        if self.inspector is not None and isinstance(events, list):
            self.inspector.show_turn(events)
            dock = getattr(self.inspector, "show", None)
            if callable(dock):
                dock()

    # ── what the turn says ────────────────────────────────────────────────
    def _on_update(self, update: object) -> None:
        # EngineEvents carry a kind, VoiceDeltas reply text (the contracts are not imported
        # here: the window paints before pydantic loads)
        kind = getattr(update, "kind", None)
        if kind is not None:
            if self.inspector is not None:
                self.inspector.on_event(update)  # type: ignore[arg-type]
            if str(kind) in ("error", "agent_failed"):  # a missing model file is said after
                self._troubles.append(dict(getattr(update, "payload", {}) or {}))
            if str(kind) == "turn_stage_changed":
                self.status.stage(str(getattr(update, "payload", {}).get("stage", "")))
        else:
            self.view.stream(
                getattr(update, "text", ""), reset=bool(getattr(update, "reset", False))
            )

    def _on_done(self, result: Any) -> None:
        model = str(getattr(result, "voice_model", "") or "")
        if model:
            self.model_label.setText(f"voice: {model.rsplit('/', 1)[-1]}")
        reply = str(getattr(result, "reply", "") or "")
        if self.view.finish_reply(reply, int(getattr(result, "turn_id", 0) or 0)) is None:
            self.view.add_message("system", "(Rilai stays quiet this turn)")
        self._say_missing_models()
        self._turn_over("ready")
        self._show_memory()

    def _on_cancelled(self, _turn_id: int) -> None:
        self.view.drop_reply()
        self.view.add_message("system", "(stopped — the turn is logged as cancelled)")
        self._turn_over("stopped")

    def _on_failed(self, message: str) -> None:
        """``message`` is ``trouble.explain``'s line; the text goes back into the input."""
        self.view.drop_reply()
        self.view.add_message("system", message)
        if self._sent and not self.input.toPlainText().strip():
            self.input.setPlainText(self._sent)
            self.input.moveCursor(self.input.textCursor().MoveOperation.End)
        self._sent = ""
        self._turn_over("error")

    def _say_missing_models(self) -> None:
        from rilai_desktop.ui.trouble import missing_model_note, remote_down_note

        notes = [missing_model_note(self._troubles), remote_down_note(self._troubles)]
        self._troubles, self._sent = [], ""
        for note in notes:
            if note:
                self.view.add_message("system", note)

    def _on_reset(self, _session_id: str) -> None:
        self.input.end_edit(clear=False)
        self.view.clear()
        self.view.add_message("system", "New conversation. What Rilai remembers about you stays.")
        self.stage_label.setText("ready")

    def _on_busy(self, busy: bool) -> None:
        self.send_button.setText("Stop" if busy else "Send")
        self.view.set_idle(not busy)

    def _turn_over(self, note: str) -> None:
        self.status.turn_over(note)

    def _show_memory(self) -> None:
        """Memory's size, read by the bridge off the GUI thread (``memory_stats``)."""
        if self.bridge is not None:
            self.bridge.refresh_memory_stats()

    # ── check-ins ─────────────────────────────────────────────────────────
    def _on_logged(self, event: object) -> None:
        """A daemon tick or a nudge: read where the check-ins stand again (off-thread)."""
        if self.bridge is not None and str(getattr(event, "kind", "")) in DAEMON_KINDS:
            self.bridge.refresh_daemon_status()

    def _show_daemon_status(self, status: object) -> None:
        self.status.daemon(status)

    def open_settings(self) -> None:
        """The settings dialog over the Engine's settings (the one settings file)."""
        if self.bridge is None:
            return
        from rilai_desktop.ui.settings_dialog import SettingsDialog

        engine = self.bridge.engine
        dialog = SettingsDialog(
            engine.settings, engine.parts.core.paths.data_dir, self, models=engine.model_files
        )
        if dialog.exec():
            self.statusBar().showMessage(
                "Settings saved; the theme, threads and model files apply at the next start",
                8000,
            )
            self.settings_saved.emit(dialog.changes())
            if self.bridge is not None:
                self.bridge.refresh_daemon_status()

    # ── view ──────────────────────────────────────────────────────────────
    def zoom(self, step: int) -> None:
        self._font_delta = max(-4, min(12, self._font_delta + step))
        font = self.view.font()
        font.setPointSize(max(6, 11 + self._font_delta))
        self.view.setFont(font)

    def export_markdown(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export conversation", "conversation.md", "Markdown (*.md)"
        )
        if path:
            with open(path, "w", encoding="utf-8", opener=private_opener) as out:  # 0600
                out.write(self.view.to_markdown() + "\n")

    def quit(self) -> None:
        """Really quit (Ctrl+Q, the tray's Quit): close even when closing goes to the tray."""
        self._quitting = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._quitting and self.hide_on_close():
            event.ignore()  # close-to-tray: the app keeps running, the Engine stays open
            self.hide()
            self.hidden_to_tray.emit()
            return
        if self.bridge is not None:
            self.bridge.close()  # a running turn is cancelled and ends cleanly
            self.bridge = None
        event.accept()
        self.closed.emit()
