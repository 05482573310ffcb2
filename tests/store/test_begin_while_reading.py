"""Regression (issue 30, proof 8): a write on the event log's shared connection failed at
once with "database is locked" when another thread was still stepping a read on that
connection while a second connection held the write lock (maintenance's WAL checkpoint,
a second process). SQLite skips the busy handler in that case; the log now retries its
``BEGIN IMMEDIATE`` until the read is done (``store.db.begin_immediate``)."""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest

from rilai_desktop.errors import DatabaseLockedError
from rilai_desktop.store import EventLog
from rilai_desktop.store.db import begin_immediate


def test_an_append_waits_for_a_read_on_its_connection_and_another_writer(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rilai.db"
    with EventLog(path) as log:
        for n in range(5):
            log.append("s", 1, "turn_started", {"user_input": f"m{n}"})
        # another thread's read, still stepping on the shared connection: a read txn
        reading = log.connection.execute("SELECT id FROM events")
        assert reading.fetchone() is not None
        with closing(sqlite3.connect(path, isolation_level=None)) as other:
            other.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
            outcome: list[object] = []

            def append() -> None:
                try:
                    outcome.append(log.append("s", 0, "daemon_tick", {"timestamp": 1.0}))
                except Exception as exc:
                    outcome.append(exc)

            writer = threading.Thread(target=append)
            writer.start()
            time.sleep(0.3)
            other.execute("COMMIT")
            reading.close()  # the read ends: the append may begin
            writer.join(10)
        assert len(outcome) == 1 and not isinstance(outcome[0], Exception), outcome
        assert log.count() == 6


def test_begin_immediate_still_gives_up_after_its_timeout(tmp_path: Path) -> None:
    path = tmp_path / "rilai.db"
    with EventLog(path) as log:
        log.append("s", 1, "turn_started", {"user_input": "m"})
        log.append("s", 1, "turn_started", {"user_input": "n"})
        reading = log.connection.execute("SELECT id FROM events")
        reading.fetchone()
        with closing(sqlite3.connect(path, isolation_level=None)) as other:
            other.execute("BEGIN IMMEDIATE")
            started = time.monotonic()
            with pytest.raises(DatabaseLockedError):
                begin_immediate(log.connection, path, timeout_s=0.2)
            assert 0.15 <= time.monotonic() - started < 2.0
            other.execute("ROLLBACK")
        reading.close()


class _SchemaChangedOnce:
    """A connection whose first BEGIN meets SQLITE_SCHEMA, as the threads proof saw when
    ``PRAGMA optimize`` (ANALYZE) changed the schema under another thread's read."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def execute(self, sql: str) -> None:
        self.calls.append(sql)
        if len(self.calls) == 1:
            exc = sqlite3.OperationalError("no more rows available")
            exc.sqlite_errorcode = sqlite3.SQLITE_SCHEMA
            raise exc


def test_begin_immediate_tries_again_after_a_schema_change(tmp_path: Path) -> None:
    conn = _SchemaChangedOnce()
    begin_immediate(conn, tmp_path / "rilai.db", sleep=lambda _s: None)  # type: ignore[arg-type]
    assert conn.calls == ["BEGIN IMMEDIATE", "BEGIN IMMEDIATE"]
