"""Proof 8, threads that touch the database (docs/architecture.md, "Threads and the
database"): every thread that reaches SQLite or the FAISS index, run at once for some
seconds against one engine, as the window, the scheduler and the local API run them.

The threads, as the product has them:
- the UI loader (``ui/app.py``, ``rilai-ui-load``) opens and migrates the database, then
  hands the engine to others: here the engine is opened on such a thread;
- the engine's worker (``app/worker.py``): turns (and, inside a turn, the agents' pool
  appending events), daemon ticks (the scheduler's tick job calls ``worker.call``), memory
  edits and every FAISS read of the facade;
- the scheduler's pool (``daemon/jobs.py``): the maintenance pass, on its own thread;
- the bridge's reader threads (``ui/bridge.py``): conversations, message search, an earlier
  turn's events and its explanation on the log's connection under its lock; the memory
  browser on its own read-only connection; memory stats and search through the worker;
- the local API's threads (``api/``): ``log_api_request`` appends from the server thread.

Held: no exception on any thread (no ``sqlite3.ProgrammingError``, no "database is
locked"), every read consistent (a completed turn replays whole and in order, a
conversation's messages only grow, a fact said is found), every memory event of a turn
carries that turn's id (not the daemon's turn 0), ``PRAGMA integrity_check`` ok and the
FAISS index holding exactly the items SQLite says it should.
"""

from __future__ import annotations

import functools
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from rilai_desktop.app import slash_commands as slash
from rilai_desktop.app.engine import Engine
from rilai_desktop.contracts import EventKind
from rilai_desktop.ui.memory_browser.snapshot import read_snapshot
from tests.fake_engine import open_fake_engine

# memory events only a turn's commit emits: one at turn 0 was misattributed to the daemon
TURN_ONLY_KINDS = frozenset({"memory.resource_stored", "memory.items_extracted"})
MESSAGES = (
    "I had a long day at work and I'm tired.",
    "remember that my sister is called Ana",
    "What do you think about taking a walk tonight?",
    "My manager asked me to redo the whole report. " * 20,
    "remember that I work as a nurse in Porto",
    "Not much to say, just checking in.",
)


class Errors:
    """Every exception any thread met, by kind, and the operations done."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: list[str] = []
        self.ops: Counter[str] = Counter()

    def run(self, name: str, fn: Callable[[], Any]) -> Any:
        try:
            result = fn()
        except Exception as exc:
            with self.lock:
                self.seen.append(f"{name}: {type(exc).__name__}: {exc}")
            return None
        with self.lock:
            self.ops[name] += 1
        return result

    def wrong(self, what: str) -> None:
        with self.lock:
            self.seen.append(f"wrong result: {what}")


def _open_on_loader_thread() -> Engine:
    """As the window does: the engine opened (and the database migrated) on a helper
    thread, then used from every other thread."""
    box: dict[str, Any] = {}

    def load() -> None:
        try:
            box["engine"] = open_fake_engine()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    loader = threading.Thread(target=load, name="rilai-ui-load")
    loader.start()
    loader.join(60)
    if "error" in box:
        raise box["error"]
    engine: Engine = box["engine"]
    return engine


def _check_turn(errors: Errors, engine: Engine, sid: str, turn_id: int) -> None:
    events = engine.turn_events(sid, turn_id)
    kinds = [e.kind for e in events]
    if EventKind.TURN_COMPLETED not in kinds:
        return  # still running when read: the read is of a prefix, checked below
    if kinds[0] is not EventKind.TURN_STARTED:
        errors.wrong(f"turn {turn_id} does not start with turn_started: {kinds[:3]}")
    seqs = [e.seq for e in events]
    if seqs != sorted(seqs) or len(set(seqs)) != len(seqs):
        errors.wrong(f"turn {turn_id} replays out of order")


def _read_once(engine: Engine, errors: Errors, done: list[int], last_messages: int) -> int:
    """Each of the bridge's read paths once (on this thread, as the bridge's threads do);
    returns how many messages the conversation showed."""
    memory = engine.memory
    sid = engine.session_id
    errors.run("conversations", engine.conversations)
    errors.run("search_messages", lambda: engine.search_messages("sister Ana"))
    messages = errors.run("conversation_messages", lambda: engine.conversation_messages(sid))
    if messages is not None:
        if len(messages) < last_messages:
            errors.wrong(f"messages went from {last_messages} to {len(messages)}")
        last_messages = len(messages)
    if done:
        turn_id = done[-1]
        errors.run("turn_events", lambda: _check_turn(errors, engine, sid, turn_id))
        errors.run("explain_turn", lambda: engine.explain_turn(sid, turn_id))
    errors.run("memory_stats", memory.stats)
    errors.run("memory_snapshot", lambda: read_snapshot(memory, ""))
    errors.run("memory_search_all", lambda: read_snapshot(memory, "sister"))
    errors.run("daemon_status", engine.daemon_status)
    errors.run("slash_status", lambda: slash.status_text(engine))
    errors.run("slash_memory", lambda: slash.memory_text(engine))
    return last_messages


def _readers(engine: Engine, errors: Errors, stop: threading.Event, done: list[int]) -> None:
    """The bridge's read paths, round and round."""
    last_messages = 0
    while not stop.is_set():
        last_messages = _read_once(engine, errors, done, last_messages)


def _ticks(engine: Engine, errors: Errors, stop: threading.Event) -> None:
    """The scheduler's tick job: each tick through the worker, as ``tick_job`` runs it."""
    daemon = engine.daemon
    assert daemon is not None
    while not stop.is_set():
        errors.run("daemon_tick", lambda: engine.run_job(daemon.tick))
        time.sleep(0.01)


def _maintenance(engine: Engine, errors: Errors, stop: threading.Event) -> None:
    """The scheduler's maintenance job: on its own thread (the pool's), not the worker."""
    daemon = engine.daemon
    assert daemon is not None
    while not stop.is_set():
        report = errors.run("maintenance", daemon.maintenance_pass)
        if isinstance(report, dict) and "error" in report:
            errors.wrong(f"maintenance: {report['error']}")
        elif isinstance(report, dict):
            for name, step in report.get("steps", {}).items():
                if step.get("status") == "failed":
                    errors.wrong(f"maintenance step {name}: {step}")
        time.sleep(0.02)


def _api(engine: Engine, errors: Errors, stop: threading.Event) -> None:
    """The local API's thread: a request logged, a memory read through the worker."""
    while not stop.is_set():
        errors.run("api_log", lambda: engine.log_api_request("GET", "/v1/status", 200, 1.0))
        errors.run("api_memory", lambda: engine.memory.search("sister", k=3))
        time.sleep(0.01)


def _memory_event_turns(engine: Engine) -> list[tuple[str, int]]:
    """(kind, turn_id) of every memory event a turn's commit alone emits."""
    marks = ",".join("?" * len(TURN_ONLY_KINDS))

    def query(c: sqlite3.Connection) -> list[tuple[str, int]]:
        rows = c.execute(
            f"SELECT kind, turn_id FROM events WHERE kind IN ({marks})", sorted(TURN_ONLY_KINDS)
        ).fetchall()
        return [(str(k), int(t)) for k, t in rows]

    return engine.parts.core.event_log.read(query)


def test_threads_touching_the_database_stay_safe(
    monkeypatch: pytest.MonkeyPatch, scale: Any, report: Any
) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    seconds = scale.pick(4, 120)
    engine = _open_on_loader_thread()
    errors = Errors()
    stop = threading.Event()
    done: list[int] = []
    try:
        engine.start_daemon(schedule=False)
        workers = [
            threading.Thread(target=_readers, args=(engine, errors, stop, done), name=f"ui-{i}")
            for i in range(2)
        ]
        workers += [
            threading.Thread(target=_ticks, args=(engine, errors, stop), name="tick"),
            threading.Thread(target=_maintenance, args=(engine, errors, stop), name="pool"),
            threading.Thread(target=_api, args=(engine, errors, stop), name="api"),
        ]
        for w in workers:
            w.start()
        start = time.monotonic()
        n = 0
        try:
            while time.monotonic() - start < seconds:
                handle = engine.send(MESSAGES[n % len(MESSAGES)])
                result = errors.run("turn", functools.partial(handle.result, timeout=60))
                if result is not None:
                    done.append(result.turn_id)
                n += 1
        finally:
            stop.set()
            for w in workers:
                w.join(60)
        elapsed = time.monotonic() - start
        found = engine.memory.search("sister Ana", k=5)
        if not any("Ana" in item.content for item in found.items):
            errors.wrong("the fact 'my sister is called Ana' is not found after the stress")
        misattributed = [k for k, t in _memory_event_turns(engine) if t == 0]
        log = engine.parts.core.event_log
        integrity = log.integrity_check()
        layer = engine.parts.memory.item_layer if engine.parts.memory is not None else None
        assert layer is not None
        expected = {int(i) for i in engine.run_job(layer.expected_ids)}
        indexed = {int(i) for i in engine.run_job(lambda: layer.index.ids())}
    finally:
        stop.set()
        engine.close()

    kinds_of_error = Counter(
        "ProgrammingError"
        if "ProgrammingError" in e
        else "locked"
        if "locked" in e
        else "wrong"
        if e.startswith("wrong")
        else "other"
        for e in errors.seen
    )
    figures = {
        "threads_inventoried": 9,
        "paths": {
            "ui-load (open + migrate)": "safe: hands over before any other use (stress)",
            "engine worker (turns, ticks, edits, FAISS reads)": "the one writer",
            "agents' pool inside a turn": "appends under the log's lock (stress)",
            "bridge readers on the log's connection": "safe: under the log's lock (stress)",
            "memory browser (own read-only connection)": "safe: WAL snapshot reads (stress)",
            "bridge memory stats/search/actions": "routed through the worker",
            "scheduler pool (maintenance)": "safe: its writes take the log's lock (stress)",
            "scheduler tick": "routed through the worker",
            "api server thread (request log)": "safe: an append under the log's lock (stress)",
        },
        "stress_seconds": round(elapsed, 1),
        "turns": len(done),
        "operations": sum(errors.ops.values()),
        "operations_by_path": dict(errors.ops),
        "errors": len(errors.seen),
        "errors_by_kind": dict(kinds_of_error),
        "first_errors": errors.seen[:5],
        "misattributed_memory_events": len(misattributed),
        "integrity": integrity,
        "index_matches_tables": expected == indexed,
    }
    bars = {
        "no_errors": not errors.seen,
        "memory_events_attributed": not misattributed,
        "integrity_ok": integrity == "ok",
        "index_matches_tables": expected == indexed,
        "turns_ran": len(done) > 0,
    }
    report.record("threads", figures, bars)
    assert not errors.seen, errors.seen[:10]
    assert not misattributed, misattributed[:10]
    assert integrity == "ok"
    assert expected == indexed
