"""The Engine, as the GUI thread sees it: calls that return at once and Qt signals back.

The window holds one :class:`EngineBridge` and nothing else from the engine. Everything the
Engine does runs off the GUI thread — turns, resets and memory edits on the Engine's worker,
loading on a helper thread — and reports through signals, which Qt queues onto the GUI
thread (the emitting thread is never the receiver's). The GUI thread never touches SQLite,
llama.cpp or torch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine, TurnHandle

log = logging.getLogger(__name__)


class EngineBridge(QObject):
    """Signals: ``update`` (each EngineEvent / VoiceDelta of the running turn), ``turn_done``
    (the TurnResult), ``turn_cancelled`` (the turn id or 0), ``turn_failed`` (a line for the
    person, from ``trouble.explain``), ``logged`` (every event the log stores: daemon ticks,
    nudges, memory changes), ``reset_done`` (the new session id), ``busy_changed``, ``said``
    (what a slash command asked of the Engine, in words). ``regenerate`` and ``edit_last``
    report as ``send``."""

    update = Signal(object)
    turn_done = Signal(object)
    turn_cancelled = Signal(int)
    turn_failed = Signal(str)
    logged = Signal(object)
    reset_done = Signal(str)
    busy_changed = Signal(bool)
    turn_loaded = Signal(object)  # an earlier turn's events, read from the log
    said = Signal(str)  # a slash command's answer (/status, /stance, /memory)
    conversations_loaded = Signal(object)  # list[Conversation], most recent first
    search_done = Signal(str, object)  # the query, list[MessageHit]
    switched = Signal(str, object, int)  # session id, list[Message], message id to show or 0
    daemon_status = Signal(object)  # app.daemon_status.DaemonStatus: where check-ins stand
    setting_failed = Signal(str)
    memory_stats = Signal(
        object
    )  # MemoryStats, or None where memory is off  # a setting the window saved was refused: why

    # the memory browser and the why panel (issue 20): a write's name and result when it is
    # done, or its name and a line saying why not
    memory_changed = Signal(str, object)  # the facade method's name, what it returned
    memory_failed = Signal(str, str)  # the facade method's name, why (for the person)
    memory_error = Signal(str, object)  # the same failure: the name and the exception itself
    memory_loaded = Signal(str, object)  # the query, MemorySnapshot
    memory_paused = Signal(bool)  # the global "memory paused" switch, as the engine has it
    explained = Signal(object)  # app.explain.TurnExplanation: "Why did you say that?"
    # session id, turn id, inspector.risk.TurnRisk or None: emitted just before ``explained``
    explained_risk = Signal(str, int, object)

    def __init__(self, engine: Engine, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self._handle: TurnHandle | None = None
        self._unsubscribe = engine.subscribe(self.logged.emit)

    @property
    def busy(self) -> bool:
        return self._handle is not None and not self._handle.done()

    def send(self, text: str) -> bool:
        """Start a turn; False (nothing sent) while another one runs or for empty text."""
        if self.busy or not text.strip():
            return False
        self._handle = self.engine.send(text, on_update=self.update.emit, on_done=self._ended)
        self.busy_changed.emit(True)
        return True

    def regenerate(self) -> bool:
        """Take the last turn back and run its message again (False while a turn runs)."""
        if self.busy:
            return False
        self._handle = self.engine.regenerate(on_update=self.update.emit, on_done=self._ended)
        self.busy_changed.emit(True)
        return True

    def edit_last(self, text: str) -> bool:
        """Take the last turn back and send ``text`` in its place (False while a turn runs
        or for empty text)."""
        if self.busy or not text.strip():
            return False
        self._handle = self.engine.edit_last(text, on_update=self.update.emit, on_done=self._ended)
        self.busy_changed.emit(True)
        return True

    def describe(self, command: str) -> None:
        """/status, /stance or /memory, read off the GUI thread; ``said`` has the answer."""
        from rilai_desktop.app import slash_commands as slash

        write = {
            "/status": slash.status_text,
            "/stance": slash.stance_text,
            "/memory": slash.memory_text,
        }[command]
        self._off_thread(lambda: write(self.engine), self.said.emit)

    def _ended(self, handle: TurnHandle) -> None:  # on the engine's worker
        from rilai_desktop.app.engine import TurnCancelled

        # not busy first: a slot of the outcome signal (the window's "ready", a test
        # waiting for the final reply) already sees the Send button and the buttons that
        # only show between turns
        self.busy_changed.emit(False)
        error = handle.error
        if error is None:
            self.turn_done.emit(handle.result())
        elif isinstance(error, TurnCancelled):
            self.turn_cancelled.emit(error.turn_id)
        else:
            from rilai_desktop.ui.trouble import explain

            log.error("the turn failed: %s", error)
            self.turn_failed.emit(explain(error))

    def cancel(self) -> bool:
        """Cancel the running turn (it ends at its next stage or reply piece)."""
        if not self.busy or self._handle is None:
            return False
        self._handle.cancel()
        return True

    def reset(self) -> None:
        """A new conversation, after any running turn; ``reset_done`` says its id."""
        self._off_thread(self.engine.reset, self.reset_done.emit)

    def load_turn(self, session_id: str, turn_id: int) -> None:
        """Read an earlier turn's events off the GUI thread; ``turn_loaded`` has them."""
        self._off_thread(
            lambda: self.engine.turn_events(session_id, turn_id), self.turn_loaded.emit
        )

    def explain_turn(self, session_id: str, turn_id: int) -> None:
        """That turn's explanation, rebuilt from the log off the GUI thread: first
        ``explained_risk`` (the conversation's risk the turn logged, or None), then
        ``explained``. The turn's events are read once for both."""
        from rilai_desktop.app.explain import explain_turn
        from rilai_desktop.ui.inspector.risk import turn_risk

        def work() -> object:
            events = self.engine.turn_events(session_id, turn_id)
            self.explained_risk.emit(session_id, turn_id, turn_risk(events))
            return explain_turn(events)

        self._off_thread(work, self.explained.emit)

    def memory_action(self, name: str, *args: Any, **kwargs: Any) -> None:
        """Call ``engine.memory.<name>(*args, **kwargs)`` (edit, set_paused, export,
        import_, …) off the GUI thread (the facade runs it on the engine's worker);
        ``memory_changed`` with the name and the result, or ``memory_failed`` with the name
        and why, then ``memory_error`` with the name and the exception."""

        def run() -> None:
            from rilai_desktop.errors import EngineClosedError

            try:
                done = getattr(self.engine.memory, name)(*args, **kwargs)
            except EngineClosedError:
                return  # the window closed meanwhile
            except Exception as exc:
                log.warning("memory %s failed: %s", name, exc)
                self.memory_failed.emit(name, str(getattr(exc, "message", None) or exc))
                self.memory_error.emit(name, exc)
                return
            self.memory_changed.emit(name, done)

        threading.Thread(target=run, name="rilai-ui-memory-action", daemon=True).start()

    def load_conversations(self) -> None:
        """The past conversations, read off the GUI thread; ``conversations_loaded``."""
        self._off_thread(self.engine.conversations, self.conversations_loaded.emit)

    def search_messages(self, query: str) -> None:
        """Search past messages off the GUI thread; ``search_done(query, hits)``."""
        self._off_thread(
            lambda: self.engine.search_messages(query),
            lambda hits: self.search_done.emit(query, hits),
        )

    def switch_conversation(self, session_id: str, message_id: int = 0) -> None:
        """Go on with an earlier conversation (after any running turn); ``switched`` has
        its id, all its messages and ``message_id`` (the message to show, or 0)."""

        def work() -> tuple[str, Any]:
            sid = self.engine.switch_conversation(session_id)
            return sid, self.engine.conversation_messages(sid)

        self._off_thread(work, lambda done: self.switched.emit(done[0], done[1], message_id))

    def refresh_daemon_status(self) -> None:
        """Ask where the check-ins stand (two small files, read off the GUI thread);
        ``daemon_status`` answers. A failed read is logged, never shown as a turn error."""

        def run() -> None:
            try:
                status = self.engine.daemon_status()
            except Exception:
                log.exception("could not read the check-ins' state")
                return
            self.daemon_status.emit(status)

        threading.Thread(target=run, name="rilai-ui-status", daemon=True).start()

    def refresh_memory_stats(self) -> None:
        """Memory's size, read off the GUI thread (SQLite); ``memory_stats`` answers. A
        failed read is logged, never shown as a turn error."""

        def run() -> None:
            from rilai_desktop.errors import EngineClosedError

            memory = self.engine.memory
            try:
                stats = memory.stats() if memory.available else None
            except EngineClosedError:
                return  # the window closed meanwhile
            except Exception:
                log.exception("could not read memory's size")
                return
            self.memory_stats.emit(stats)

        threading.Thread(target=run, name="rilai-ui-memory", daemon=True).start()

    def save_setting(self, key: str, value: str) -> None:
        """Write one setting to the settings file off the GUI thread (it waits for the
        engine's worker); a refusal comes back on ``setting_failed``."""

        def run() -> None:
            try:
                self.engine.settings.set(key, value)
            except Exception as exc:
                self.setting_failed.emit(f"{key}: {getattr(exc, 'message', None) or exc}")

        threading.Thread(target=run, name="rilai-ui-setting", daemon=True).start()

    # ── the memory browser (issue 20) ─────────────────────────────────────
    def load_memory(self, query: str = "") -> None:
        """Every entry and page (``query`` empty) or what a search across all of memory
        finds, read off the GUI thread; ``memory_loaded(query, MemorySnapshot)``."""
        from rilai_desktop.ui.memory_browser.snapshot import read_snapshot

        def run() -> None:
            from rilai_desktop.errors import EngineClosedError

            try:
                snapshot = read_snapshot(self.engine.memory, query)
            except EngineClosedError:
                return
            except Exception as exc:
                from rilai_desktop.ui.trouble import explain

                log.exception("could not read memory")
                self.memory_failed.emit("load_memory", explain(exc))
                return
            self.memory_loaded.emit(query, snapshot)
            self.memory_paused.emit(snapshot.recording_paused)

        threading.Thread(target=run, name="rilai-ui-memory-read", daemon=True).start()

    def refresh_memory_paused(self) -> None:
        """Whether "memory paused" is on (a setting), read off the GUI thread;
        ``memory_paused`` answers."""

        def run() -> None:
            try:
                paused = bool(getattr(self.engine.memory, "recording_paused", False))
            except Exception:
                log.exception("could not read whether memory is paused")
                return
            self.memory_paused.emit(paused)

        threading.Thread(target=run, name="rilai-ui-memory-switch", daemon=True).start()

    def _off_thread(self, work: Callable[[], Any], then: Callable[[Any], None]) -> None:
        def run() -> None:
            try:
                then(work())
            except Exception as exc:
                from rilai_desktop.ui.trouble import explain

                log.exception("engine call failed")
                self.turn_failed.emit(explain(exc))

        threading.Thread(target=run, name="rilai-ui-call", daemon=True).start()

    def close(self) -> None:
        """Stop listening and close the Engine (waits for a running turn to end)."""
        self._unsubscribe()
        if self._handle is not None and not self._handle.done():
            self._handle.cancel()
        self.engine.close()
