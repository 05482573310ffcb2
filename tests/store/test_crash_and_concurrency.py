"""A killed writer loses nothing it committed; a live writer and a reader share the file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.paths import REPO_ROOT, ensure_private_dir
from rilai_desktop.store import EventLog
from rilai_desktop.store.projections import ConversationProjection, rebuild


@pytest.mark.slow
def test_sigkill_while_appending_loses_no_committed_event(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.store._crash_child", str(db), "3"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    last_reported = 0
    deadline = time.monotonic() + 60
    while last_reported < 400 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        last_reported = int(line)
    proc.send_signal(signal.SIGKILL)  # mid-append, no clean-up of any kind
    proc.wait(timeout=10)
    proc.stdout.close()
    assert last_reported >= 400, "the child did not get going"

    with EventLog(db) as log:
        assert log.integrity_check() == "ok"
        events = log.replay_session("crash")
        # every event the child saw committed is readable (more may have landed after)
        assert len(events) - len(log.aborted_on_open) >= last_reported
        # the partial turn, and only it, was marked aborted on open
        assert [(e.turn_id, e.kind) for e in log.aborted_on_open] == [(4, EventKind.TURN_ABORTED)]
        turn4 = log.replay_turn("crash", 4)
        assert turn4[-1].kind is EventKind.TURN_ABORTED
        assert turn4[-1].payload["last_seq"] == turn4[-2].seq
        assert [e.seq for e in turn4] == list(range(len(turn4)))
        conversation = rebuild(ConversationProjection(), events)
    # never replayed as complete: the aborted user message has no reply and is flagged
    assert [(m.role, m.turn_id, m.aborted) for m in conversation.messages][-2:] == [
        ("assistant", 3, False),
        ("user", 4, True),
    ]
    # a second open finds nothing more to mark
    with EventLog(db) as log:
        assert log.aborted_on_open == []


def test_a_live_process_turn_is_not_marked_aborted(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    with EventLog(db) as live:
        live.append("live", 1, EventKind.TURN_STARTED, {"user_input": "thinking…", "turn_id": 1})
        with EventLog(db) as other:  # e.g. `rilai status` while the app runs a turn
            assert other.aborted_on_open == []
        live.append("live", 1, EventKind.TURN_COMPLETED, {"total_time_ms": 5, "response": "done"})
    with EventLog(db) as later:
        assert later.aborted_on_open == []


def test_open_turn_of_a_closed_log_is_marked_on_next_open(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    with EventLog(db) as log:
        log.append("s", 7, EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": 7})
    with EventLog(db) as log:
        assert [(e.session_id, e.turn_id) for e in log.aborted_on_open] == [("s", 7)]
        assert log.open_turns() == []


def test_writer_and_reader_at_once(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    writer = EventLog(db)
    reader = EventLog(db)
    done = threading.Event()
    errors: list[BaseException] = []

    def write() -> None:
        try:
            for turn in range(1, 201):
                writer.append(
                    "w", turn, EventKind.TURN_STARTED, {"user_input": "x", "turn_id": turn}
                )
                writer.append("w", turn, EventKind.TURN_COMPLETED, {"total_time_ms": 1})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=write)
    thread.start()
    seen: list[int] = []
    while not done.is_set():
        n = reader.count()
        events = reader.replay_session("w")
        assert len(events) >= n  # never a torn read
        seen.append(n)
    thread.join()
    assert not errors
    assert seen == sorted(seen)  # the reader only ever sees the log grow
    assert reader.count() == 400
    writer.close()
    reader.close()


def test_readonly_log_reads_without_writing(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    with EventLog(db) as log:
        log.append("s", 1, EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": 1})
    with EventLog(db, readonly=True) as ro:
        assert ro.count() == 1
        assert ro.aborted_on_open == []  # a reader never marks anything
    assert os.path.exists(db)


def test_threads_appending_at_once_keep_log_order_equal_to_time_order(tmp_path: Path) -> None:
    """Two agents of a wave append from two threads: seq order must be ts order."""
    log = EventLog(tmp_path / "rilai.db")
    start = threading.Barrier(4)

    def writer(n: int) -> None:
        start.wait(timeout=5)
        for i in range(150):
            log.append("s1", 1, EventKind.AGENT_STARTED, {"agent_id": f"a{n}.{i}", "wave": 0})

    try:
        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        events = log.replay_turn("s1", 1)
    finally:
        log.close()
    assert len(events) == 600
    stamps = [e.ts_monotonic for e in events]
    assert stamps == sorted(stamps)
