"""DaemonScheduler on the real APScheduler: fixed jobs, kept due times, one catch-up,
one scheduler per data directory, a damaged store moved aside."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler

from rilai_desktop.config import Settings
from rilai_desktop.contracts.clock import SystemClock
from rilai_desktop.daemon.errors import DaemonError
from rilai_desktop.daemon.jobs import (
    MAINTENANCE_JOB,
    STORE_FILENAME,
    TICK_JOB,
    DaemonScheduler,
    maintenance_job,
    running_daemon_pid,
    stored_jobs,
    tick_job,
)
from rilai_desktop.daemon.service import Daemon
from tests.daemon.core_fakes import FakeState, ListSink

WAIT_S = 20.0  # how long to wait for something that must happen (not a timing bar)


class CountingDaemon(Daemon):
    def __init__(self) -> None:
        state = FakeState({}, {}, datetime.now(UTC))
        super().__init__(SystemClock(), ListSink(), state, Settings(), session_id=lambda: "s")
        self.ticked = threading.Event()
        self.maintained = 0

    def tick(self, now: datetime | None = None):  # type: ignore[no-untyped-def]
        result = super().tick(now)
        self.ticked.set()
        return result

    def maintenance_pass(self, now: datetime | None = None) -> dict[str, object]:
        self.maintained += 1
        return {}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / STORE_FILENAME


@pytest.fixture
def started() -> Iterator[list[DaemonScheduler]]:
    schedulers: list[DaemonScheduler] = []
    yield schedulers
    for scheduler in schedulers:
        scheduler.shutdown()


def _start(
    db: Path, started: list[DaemonScheduler], daemon: Daemon | None = None, **kw: float
) -> DaemonScheduler:
    scheduler = DaemonScheduler(daemon or CountingDaemon(), db, **kw)  # type: ignore[arg-type]
    scheduler.start()
    started.append(scheduler)
    return scheduler


def _due(scheduler: DaemonScheduler) -> dict[str, datetime | None]:
    return {job.id: job.next_run for job in scheduler.jobs()}


def _set_due(db: Path, job_id: str, when: datetime) -> None:
    """Move a stored job's due time, as if the app had been closed since then (through
    the job store alone: a scheduler's own thread could act on the job meanwhile)."""
    store = SQLAlchemyJobStore(url=f"sqlite:///{db}")
    store.start(BackgroundScheduler(timezone=UTC), "default")
    try:
        job = store.lookup_job(job_id)
        job._modify(next_run_time=when)
        store.update_job(job)
    finally:
        store.shutdown()


def test_a_fresh_store_gets_both_jobs_and_ticks_at_once(
    db: Path, started: list[DaemonScheduler]
) -> None:
    before = datetime.now(UTC)
    daemon = CountingDaemon()
    scheduler = _start(db, started, daemon)
    jobs = {job.id: job for job in scheduler.jobs()}
    assert set(jobs) == {TICK_JOB, MAINTENANCE_JOB}
    assert jobs[TICK_JOB].interval_s == 60 and jobs[MAINTENANCE_JOB].interval_s == 6 * 3600
    maintenance_due = jobs[MAINTENANCE_JOB].next_run
    assert maintenance_due is not None and maintenance_due >= before + timedelta(hours=6)
    assert daemon.ticked.wait(WAIT_S)  # the first tick catches up on start
    assert daemon.maintained == 0
    scheduler.shutdown()
    stored = {job.id: job for job in stored_jobs(db)}
    assert stored[MAINTENANCE_JOB].next_run == maintenance_due
    assert stored[TICK_JOB].as_dict()["interval_s"] == 60


def test_a_restart_keeps_the_due_times_and_runs_nothing_early(
    db: Path, started: list[DaemonScheduler]
) -> None:
    first = _start(db, started)
    assert isinstance(first.daemon, CountingDaemon) and first.daemon.ticked.wait(WAIT_S)
    first.shutdown()
    due = {job.id: job.next_run for job in stored_jobs(db)}
    daemon = CountingDaemon()
    again = _start(db, started, daemon)
    assert _due(again) == due
    assert daemon.ticks == 0  # the tick is not due yet: it does not run twice


def test_a_past_due_time_gives_one_catch_up_run(db: Path, started: list[DaemonScheduler]) -> None:
    _start(db, started).shutdown()
    _set_due(db, TICK_JOB, datetime.now(UTC) - timedelta(hours=8))  # asleep for 8 hours
    daemon = CountingDaemon()
    restarted = datetime.now(UTC)
    scheduler = _start(db, started, daemon)
    assert daemon.ticked.wait(WAIT_S)
    time.sleep(0.3)
    assert daemon.ticks == 1  # one catch-up, not 480
    tick_due = _due(scheduler)[TICK_JOB]
    assert tick_due is not None and tick_due >= restarted + timedelta(seconds=59)


def test_a_shorter_interval_pulls_the_due_time_in(db: Path, started: list[DaemonScheduler]) -> None:
    _start(db, started).shutdown()
    later = datetime.now(UTC) + timedelta(minutes=30)
    _set_due(db, TICK_JOB, later)
    scheduler = _start(db, started, tick_seconds=5)
    job = next(j for j in scheduler.jobs() if j.id == TICK_JOB)
    assert job.interval_s == 5
    assert job.next_run is not None and job.next_run <= datetime.now(UTC) + timedelta(seconds=5)


def test_one_scheduler_per_data_directory(db: Path, started: list[DaemonScheduler]) -> None:
    assert running_daemon_pid(db) is None
    first = _start(db, started)
    assert running_daemon_pid(db) == str(os.getpid())
    second = DaemonScheduler(CountingDaemon(), db)
    with pytest.raises(DaemonError, match=f"pid {os.getpid()}") as err:
        second.start()
    assert err.value.recovery_suggestions
    assert not second.running
    first.shutdown()
    first.shutdown()  # idempotent
    assert running_daemon_pid(db) is None
    with DaemonScheduler(CountingDaemon(), db) as third:
        assert third.running
    assert not third.running


def test_a_damaged_store_is_moved_aside_and_rebuilt(
    db: Path, started: list[DaemonScheduler]
) -> None:
    db.write_bytes(b"this is not a database" * 100)
    scheduler = _start(db, started)
    assert scheduler.recovered is not None and scheduler.recovered.exists()
    assert scheduler.recovered.read_bytes().startswith(b"this is not")
    assert {job.id for job in scheduler.jobs()} == {TICK_JOB, MAINTENANCE_JOB}


def test_reading_a_missing_store_creates_nothing(db: Path) -> None:
    assert stored_jobs(db) == []
    assert not db.exists()


def test_reading_a_damaged_store_is_a_clear_error(db: Path) -> None:
    db.write_bytes(b"garbage" * 200)
    with pytest.raises(DaemonError, match="cannot be read") as err:
        stored_jobs(db)
    assert "move it aside" in err.value.recovery_suggestions[0]


def test_a_job_for_a_daemon_that_is_gone_does_nothing() -> None:
    tick_job("/nowhere/scheduler.db")
    maintenance_job("/nowhere/scheduler.db")


@pytest.mark.parametrize("kw", [{"tick_seconds": 86401}, {"maintenance_hours": 721}])
def test_an_interval_out_of_range_is_refused(db: Path, kw: dict[str, float]) -> None:
    with pytest.raises(DaemonError, match="out of range"):
        DaemonScheduler(CountingDaemon(), db, **kw)  # type: ignore[arg-type]
