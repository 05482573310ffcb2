"""The Engine: the one object a client holds (the shell, `rilai chat`, the window, the API).

- ``send(text)`` queues a turn on the engine's one worker and returns a :class:`TurnHandle`
  at once: its ``updates()`` stream every logged event of the turn and every reply piece,
  ``cancel()`` ends the turn at its next stage boundary or reply piece (TURN_ABORTED,
  reason "cancelled", is logged), ``result()`` waits for the TurnResult;
- ``regenerate()`` / ``edit_last(text)`` take the last turn back (TURN_RETRACTED; its events
  stay in the log) and run it again / send ``text`` in its place, handled like ``send``;
- ``reset()`` starts a new conversation (memory and stance stay);
- ``conversations()``, ``search_messages(query)`` and ``conversation_messages(sid)`` read
  the past conversations (FTS5 over the log's messages), ``switch_conversation(sid)`` goes
  on with one of them;
- ``subscribe(callback)`` receives every event the log stores — turns, daemon ticks, nudges,
  memory changes — from one bus fed by the log itself;
- ``memory``, ``nudges``, ``settings``: the facades clients need (``facades.py``);
  ``model_files``: each tier's GGUF file, shown and changed (``model_files.py``);
- ``start_daemon()`` runs the daemon over this engine's conversation; its ticks run on
  the same worker as the turns (maintenance keeps its own thread and defers to a turn);
- ``close()`` stops the daemon, finishes the queued work, waits for the between-turns
  warm-up, closes memory, models and the log: no thread of the engine is left running.

``open_engine(core)`` builds the real one; tests hand the constructor fakes.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from rilai_desktop.app.bus import EventBus, Subscriber
from rilai_desktop.app.engine_parts import EngineParts
from rilai_desktop.app.facades import MemoryFacade, NudgesFacade, SettingsFacade
from rilai_desktop.app.model_files import ModelFiles
from rilai_desktop.app.worker import Worker
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.errors import EngineClosedError, RilaiError
from rilai_desktop.store.conversations import Conversation, Conversations, Message, MessageHit
from rilai_desktop.turn.result import TurnResult
from rilai_desktop.turn.runner import TurnCancelled, TurnRunner, Update

T = TypeVar("T")

if TYPE_CHECKING:
    from rilai_desktop.app.build import SharedModels
    from rilai_desktop.app.core import Core
    from rilai_desktop.app.daemon_status import DaemonStatus
    from rilai_desktop.app.explain import TurnExplanation
    from rilai_desktop.contracts.clock import Clock
    from rilai_desktop.daemon.jobs import DaemonScheduler
    from rilai_desktop.daemon.ports import Delivery
    from rilai_desktop.daemon.service import Daemon
    from rilai_desktop.turn.session import SessionState

log = logging.getLogger(__name__)

__all__ = ["Engine", "EngineParts", "TurnCancelled", "TurnHandle", "open_engine"]


_END = object()


class TurnHandle:
    """One sent message: its updates as they happen, its cancellation, its result."""

    def __init__(
        self,
        text: str,
        on_update: Callable[[Update], None] | None = None,
        on_done: Callable[[TurnHandle], None] | None = None,
    ) -> None:
        self.text = text
        self._on_update = on_update
        self._on_done = on_done
        self._queue: queue.Queue[Any] = queue.Queue()
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._result: TurnResult | None = None
        self._error: BaseException | None = None

    # the worker's side
    def _deliver(self, update: Update) -> None:
        self._queue.put(update)
        if self._on_update is not None:
            self._on_update(update)

    def _finish(self, result: TurnResult | None, error: BaseException | None) -> None:
        self._result, self._error = result, error
        self._done.set()
        self._queue.put(_END)
        if self._on_done is not None:
            try:
                self._on_done(self)
            except Exception:
                log.exception("a turn's on_done callback failed")

    @property
    def error(self) -> BaseException | None:
        """What ended the turn when it did not finish (TurnCancelled, or the failure)."""
        return self._error

    # the client's side
    def updates(self, timeout: float | None = None) -> Iterator[Update]:
        """Every update of the turn, in order, until it ends (one reader per handle)."""
        while True:
            item = self._queue.get(timeout=timeout)
            if item is _END:
                return
            yield item

    def cancel(self) -> None:
        """End the turn at its next stage boundary or reply piece (a queued turn never
        starts). Idempotent; a finished turn stays finished."""
        self._cancel.set()

    @property
    def cancel_event(self) -> threading.Event:
        return self._cancel

    @property
    def cancelled(self) -> bool:
        return isinstance(self._error, TurnCancelled)

    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def result(self, timeout: float | None = None) -> TurnResult:
        """The TurnResult; raises :class:`TurnCancelled` for a cancelled turn, the turn's
        error for a failed one, TimeoutError when it is still running at ``timeout``."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"the turn is still running after {timeout} s")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result


class Engine:
    def __init__(self, parts: EngineParts) -> None:
        from rilai_desktop.daemon.nudges import NudgeControls

        self._parts = parts
        self._closed = False
        self.bus = EventBus()
        self._unlisten = parts.core.event_log.add_listener(self.bus.publish)
        self._unlisten_used = parts.core.event_log.add_listener(self._mark_used)
        self._worker = Worker()
        self.memory = MemoryFacade(
            parts.memory,
            self._worker,
            parts.core.paths.db_path,
            settings_file=parts.core.paths.settings_file,
        )
        self.nudges = NudgesFacade(
            NudgeControls.in_data_dir(parts.core.paths.data_dir), self._worker
        )
        self.settings = SettingsFacade(parts.core.paths, parts.core.settings, self._worker)
        # each tier's GGUF, for settings: shown, chosen, installed, removed between turns
        self.model_files = ModelFiles(
            parts.core.paths, loaded=self.loaded_models, exclusive=self._between_turns
        )
        self._daemon: Daemon | None = None
        self._scheduler: DaemonScheduler | None = None
        self._daemon_elsewhere = False  # start_daemon found another process running it
        self._closers: list[Callable[[], None]] = []

    def _mark_used(self, event: EngineEvent) -> None:
        """memory.used (a turn's voice prompt held these entries): each entry's "last used
        in a reply" (memory_controls), on the writing thread, after the event committed."""
        memory = self._parts.memory
        if memory is None or event.kind.value != "memory.used":
            return
        refs = [
            (str(e.get("kind", "")), str(e.get("entry_id", "")))
            for e in event.payload.get("entries", [])
            if isinstance(e, dict) and e.get("entry_id")
        ]
        if refs:
            memory.controls.mark_used(refs, event.ts_wall)

    # ── conversation ──────────────────────────────────────────────────────
    def send(
        self,
        text: str,
        on_update: Callable[[Update], None] | None = None,
        on_done: Callable[[TurnHandle], None] | None = None,
    ) -> TurnHandle:
        """Queue one turn; ``on_update`` (optional) is called on the worker thread with each
        update, besides the handle's ``updates()`` stream; ``on_done`` once the turn has
        ended (finished, cancelled or failed: ask the handle), also on the worker thread."""
        return self._queue_turn(text, lambda: text, on_update, on_done)

    def regenerate(
        self,
        on_update: Callable[[Update], None] | None = None,
        on_done: Callable[[TurnHandle], None] | None = None,
    ) -> TurnHandle:
        """Take the last turn back (TURN_RETRACTED) and run its message again: a new turn
        id, the same words. One job on the worker, so nothing runs in between; the handle
        reports as ``send``'s does (a RilaiError when there is no turn to take back)."""
        runner = self._parts.runner
        return self._queue_turn(
            "", lambda: runner.retract_last("regenerate")[1], on_update, on_done
        )

    def edit_last(
        self,
        text: str,
        on_update: Callable[[Update], None] | None = None,
        on_done: Callable[[TurnHandle], None] | None = None,
    ) -> TurnHandle:
        """Take the last turn back (TURN_RETRACTED, reason "edit") and send ``text`` in its
        place, in one job on the worker; the handle reports as ``send``'s does."""
        runner = self._parts.runner

        def prepare() -> str:
            runner.retract_last("edit")
            return text

        return self._queue_turn(text, prepare, on_update, on_done)

    def _queue_turn(
        self,
        text: str,
        prepare: Callable[[], str],
        on_update: Callable[[Update], None] | None,
        on_done: Callable[[TurnHandle], None] | None,
    ) -> TurnHandle:
        """One job on the worker: ``prepare`` (on the worker: what to say), then the turn."""
        self._check_open()
        handle = TurnHandle(text, on_update, on_done)
        runner = self._parts.runner

        def turn() -> None:
            if handle.cancel_event.is_set():  # cancelled while queued: never started
                handle._finish(None, TurnCancelled(0, "queued"))
                return
            try:
                handle.text = prepare()
                result = runner.run_turn(handle.text, handle._deliver, handle.cancel_event)
            except BaseException as exc:
                handle._finish(None, exc)
            else:
                handle._finish(result, None)

        self._worker.submit(turn)
        return handle

    def reset(self) -> str:
        """A new conversation (after any queued turn); memory and stance stay."""
        self._check_open()
        return self._worker.call(self._parts.runner.reset)

    # ── past conversations (reads on the log's connection, under its lock: any thread
    # but a GUI's; the switch itself runs on the worker, after any queued turn) ──────
    def conversations(self, limit: int = 200) -> list[Conversation]:
        """Past conversations with at least one turn, most recently active first."""
        self._check_open()
        return Conversations(self._parts.core.event_log).recent(limit)

    def search_messages(self, query: str, limit: int = 50) -> list[MessageHit]:
        """Messages of every conversation holding each word of ``query`` (FTS5, bm25)."""
        self._check_open()
        return Conversations(self._parts.core.event_log).search(query, limit)

    def conversation_messages(self, session_id: str) -> list[Message]:
        """All of one conversation's messages, in order (the view; the prompt keeps fewer)."""
        self._check_open()
        return Conversations(self._parts.core.event_log).messages(session_id)

    def switch_conversation(self, session_id: str) -> str:
        """Go on with an earlier conversation (after any queued turn); memory and stance
        stay. The current one is a no-op; an id the log never saw is a RilaiError."""
        self._check_open()
        runner, found = self._parts.runner, Conversations(self._parts.core.event_log)

        def switch() -> str:
            if session_id != runner.session_id and not found.exists(session_id):
                raise RilaiError(
                    f"There is no conversation {session_id!r} in this Rilai's log",
                    context={"session_id": session_id},
                    recovery_suggestions=["Pick one from engine.conversations()"],
                )
            return runner.switch(session_id)

        return self._worker.call(switch)

    def turn_events(self, session_id: str, turn_id: int) -> list[EngineEvent]:
        """An earlier turn's events, from the log (a read: any thread but a GUI's)."""
        return self._parts.core.event_log.replay_turn(session_id, turn_id)

    def explain_turn(self, session_id: str, turn_id: int) -> TurnExplanation:
        """ "Why did you say that?" for one turn, rebuilt from its events in the log (a
        read: any thread but a GUI's). Nothing of it goes back into a prompt."""
        from rilai_desktop.app.explain import explain_turn

        return explain_turn(self.turn_events(session_id, turn_id))

    def note_nudge_shown(self, text: str) -> None:
        """A nudge the person saw in the conversation joins it (on the worker, so never in
        the middle of a turn): the next reply answers it."""
        runner = self._parts.runner
        self._worker.submit(lambda: runner.session.add_nudge(text))

    def run_job(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the engine's one worker (after the turn in progress, if any) and
        return its result: the local API's database work goes where every write goes."""
        return self._worker.call(fn)

    def log_api_request(self, method: str, path: str, status: int, ms: float) -> None:
        """An ``api.request`` event at turn 0 of the conversation (never the body)."""
        payload = {"method": method[:16], "path": path[:500], "status": status, "ms": ms}
        self._parts.core.event_log.append(self.session_id, 0, EventKind.API_REQUEST, payload)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Every event the log stores from now on; returns the unsubscribe."""
        return self.bus.subscribe(callback)

    @property
    def session_id(self) -> str:
        return self._parts.runner.session_id

    @property
    def session(self) -> SessionState:
        """The conversation so far, the stance and the modulators (read them, do not edit)."""
        return self._parts.runner.session

    @property
    def last_result(self) -> TurnResult | None:
        return self._parts.runner.last_result

    @property
    def busy(self) -> bool:
        """A turn is running."""
        return self._parts.runner.running

    def turns_in_session(self) -> int:
        return self._parts.core.event_log.last_turn_id(self.session_id)

    def loaded_models(self) -> list[str]:
        return self._parts.models.loaded_models()

    def _between_turns(self, fn: Callable[[], T]) -> T:
        """``fn`` on the worker once the warm-up is done: no model loads while it runs."""
        return self.run_job(lambda: (self._parts.runner.wait_warm(), fn())[1])

    def voice_tier(self) -> str:
        """The tier that speaks (``roles.voice``), without loading anything."""
        tier_for_role = getattr(self._parts.models, "tier_for_role", None)
        return str(tier_for_role("voice")) if callable(tier_for_role) else ""

    # the parts, for the clients that inspect or bench the turn itself
    @property
    def runner(self) -> TurnRunner:
        return self._parts.runner

    @property
    def parts(self) -> EngineParts:
        return self._parts

    # ── daemon ────────────────────────────────────────────────────────────
    def start_daemon(
        self,
        delivery: Delivery | None = None,
        *,
        clock: Clock | None = None,
        schedule: bool = True,
    ) -> Daemon:
        """The daemon over this engine's conversation (ticks, decay, nudges, maintenance).

        With ``schedule`` its jobs run on APScheduler (a RilaiError if another process runs
        the daemon); without, the caller drives ``daemon.tick()`` (tests, simulations).
        """
        from rilai_desktop.app.build import build_daemon
        from rilai_desktop.daemon.errors import DaemonError
        from rilai_desktop.daemon.jobs import STORE_FILENAME, DaemonScheduler

        self._check_open()
        if self._daemon is not None:
            return self._daemon
        memory = self._parts.memory
        daemon = build_daemon(
            self._parts.core,
            runner=self._parts.runner,
            delivery=delivery,
            clock=clock,
            memory=(lambda: memory) if memory is not None else None,
        )
        if schedule:
            scheduler = DaemonScheduler(
                daemon,
                self._parts.core.paths.data_dir / STORE_FILENAME,
                run_tick=self._worker.call,  # a tick never interleaves with a turn
            )
            try:
                scheduler.start()
            except BaseException as exc:
                daemon.close()
                # the process lock is held: another shell, window or `rilai daemon run`
                self._daemon_elsewhere = isinstance(exc, DaemonError) and "pid" in exc.context
                raise
            self._scheduler = scheduler
        self._daemon = daemon
        return daemon

    @property
    def daemon(self) -> Daemon | None:
        return self._daemon

    def daemon_status(self, now: datetime | None = None) -> DaemonStatus:
        """Where the check-ins stand (``app/daemon_status.py``): the saved nudge settings,
        the snooze/mute controls, whether this engine runs the daemon. Reads two small
        files, not the database; still, not on a GUI thread."""
        from rilai_desktop.app.daemon_status import daemon_status
        from rilai_desktop.errors import RilaiError

        try:
            nudges = self.settings.saved().settings.nudges
        except RilaiError:  # a bad settings file: the daemon keeps the start-up ones too
            nudges = self.settings.current.nudges
        return daemon_status(
            nudges,
            self.nudges.state(),
            runs_here=self._daemon is not None,
            elsewhere=self._daemon_elsewhere,
            now=now if now is not None else datetime.now(UTC),
        )

    def stop_daemon(self) -> None:
        if self._scheduler is not None:
            self._scheduler.shutdown()
            self._scheduler = None
        if self._daemon is not None:
            self._daemon.close()
            self._daemon = None

    # ── lifecycle ─────────────────────────────────────────────────────────
    def on_close(self, closer: Callable[[], None]) -> None:
        """Run ``closer`` when the engine closes (before its parts are closed)."""
        self._closers.append(closer)

    def _check_open(self) -> None:
        if self._closed:
            raise EngineClosedError("The engine is closed")

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Stop the daemon, finish queued work, close every part. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self.stop_daemon()
        self._worker.close()
        for closer in reversed(self._closers):
            try:
                closer()
            except Exception:
                log.exception("a close hook failed")
        parts = self._parts
        parts.runner.wait_warm()  # the between-turns warm-up still holds a model
        self.memory.close()
        if parts.memory is not None:
            parts.memory.close()
        parts.models.close()
        self._unlisten()
        self._unlisten_used()
        parts.core.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_engine(
    core: Core, *, session_id: str | None = None, shared: SharedModels | None = None
) -> Engine:
    """The real Engine over ``core`` (loads the models' router and MiniLM: seconds).
    ``shared``: models already loaded (``build.SharedModels``; default: new ones)."""
    from rilai_desktop.app.build import build_engine_parts

    return Engine(build_engine_parts(core, session_id=session_id, shared=shared))
