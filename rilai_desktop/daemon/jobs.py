"""When the daemon's jobs run: APScheduler 3.x with an SQLite job store (docs/daemon.md).

Choices, on purpose:

- **BackgroundScheduler**, not AsyncIOScheduler: the app has no asyncio loop to lend (the
  window runs Qt's loop, the shell blocks on ``readline``, the turn runs in a worker
  thread). A BackgroundScheduler brings its own thread and needs nothing from its host.
  Jobs run in a ThreadPoolExecutor of 2 workers, so a slow maintenance pass never delays
  a tick; ``max_instances=1`` keeps each job from overlapping itself.
- **SQLAlchemyJobStore** in ``data_dir/scheduler.db`` (its own file: APScheduler owns its
  schema; the event log stays ours). Jobs have fixed ids and are re-added with
  ``replace_existing=True`` on every start, KEEPING their stored ``next_run_time``, so a
  restart neither loses a due run nor runs one twice.
- **coalesce=True, misfire_grace_time=None**: a laptop that wakes after 8 hours finds 480
  missed ticks; coalescing runs ONE (no lateness limit, so that one is never dropped), and
  because decay is computed from elapsed wall-clock time, that one tick decays by the whole
  8 hours. Maintenance misfires the same way: one pass, not many.
- **Picklable job references**: the stored job is ``rilai_desktop.daemon.jobs:tick_job``
  with one argument, a registry key; the function looks up the live :class:`Daemon` of this
  process. Nothing about the daemon itself is pickled, so a stored job always restores.
- **One scheduler per data directory**: ``scheduler.db.lock`` (an flock the kernel drops
  when the process dies) keeps the shell and ``rilai daemon run`` from ticking twice.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor  # type: ignore[import-untyped]
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore  # type: ignore[import-untyped]
from apscheduler.schedulers.background import BackgroundScheduler  # type: ignore[import-untyped]
from apscheduler.schedulers.base import STATE_STOPPED  # type: ignore[import-untyped]
from apscheduler.triggers.interval import IntervalTrigger  # type: ignore[import-untyped]
from sqlalchemy.exc import SQLAlchemyError

from rilai_desktop.daemon.errors import DaemonError
from rilai_desktop.daemon.service import Daemon
from rilai_desktop.locks import SUPPORTED, FileLock, exclusive_holder_note
from rilai_desktop.paths import make_private_dirs, private_opener

log = logging.getLogger(__name__)

STORE_FILENAME = "scheduler.db"  # in data_dir, beside rilai.db
TICK_JOB = "rilai.daemon.tick"
MAINTENANCE_JOB = "rilai.daemon.maintenance"
JOB_DEFAULTS: dict[str, Any] = {"coalesce": True, "max_instances": 1, "misfire_grace_time": None}

# the live daemons by store, each with what runs its tick (its owner's writer thread)
TickRunner = Callable[[Callable[[], object]], object]
_REGISTRY: dict[str, tuple[Daemon, TickRunner]] = {}
_REGISTRY_LOCK = threading.Lock()


class _Scheduler(BackgroundScheduler):  # type: ignore[misc]
    """APScheduler 3.x's loop wakes once more after ``shutdown()`` and would submit a job
    that fell due meanwhile to the executor it just shut down: an ERROR traceback, and the
    stored due time moves on as if the job had run. A stopped scheduler processes nothing,
    so that run stays due and is the next start's catch-up."""

    def _process_jobs(self) -> float | None:
        if self.state == STATE_STOPPED:
            return None
        result: float | None = super()._process_jobs()
        return result


def _lookup(key: str) -> tuple[Daemon, TickRunner] | None:
    with _REGISTRY_LOCK:
        entry = _REGISTRY.get(key)
    if entry is None:
        log.warning("no live daemon for %s: job skipped", key)
    return entry


def tick_job(key: str) -> None:
    """The stored tick job: a module-level function, so the job store can pickle it. The
    tick runs through its daemon's tick runner (the Engine's one writer thread, so a tick
    never interleaves with a turn; headless, in place)."""
    entry = _lookup(key)
    if entry is not None:
        daemon, run = entry
        run(daemon.tick)


def maintenance_job(key: str) -> None:
    """The stored maintenance job (see :func:`tick_job`). Maintenance keeps its own thread:
    it can take minutes (consolidation is a model call) and defers itself while a turn runs,
    so a message is never queued behind it."""
    entry = _lookup(key)
    if entry is not None:
        entry[0].maintenance_pass()


def _in_place(fn: Callable[[], object]) -> object:
    return fn()


@dataclass(frozen=True)
class JobInfo:
    id: str
    name: str
    next_run: datetime | None
    interval_s: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "next_run": self.next_run.isoformat() if self.next_run else None,
            "interval_s": self.interval_s,
        }


def _info(job: Any) -> JobInfo:
    interval = getattr(job.trigger, "interval", None)
    next_run = job.next_run_time
    return JobInfo(
        id=str(job.id),
        name=str(job.name),
        next_run=next_run.astimezone(UTC) if next_run is not None else None,
        interval_s=interval.total_seconds() if isinstance(interval, timedelta) else None,
    )


class _ProcessLock:
    """An exclusive flock on ``scheduler.db.lock`` holding the owner's pid (where flock
    is missing, Windows, there is no guard against a second scheduler)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = FileLock(path)

    def acquire(self) -> bool:
        if not SUPPORTED:
            return True
        if not self._lock.try_exclusive():
            self._lock.release()
            return False
        self._lock.write_note(str(os.getpid()))
        return True

    def release(self) -> None:
        self._lock.release()

    def holder(self) -> str | None:
        """The pid of the process holding the lock, or None when nobody does."""
        return exclusive_holder_note(self.path)


def running_daemon_pid(db_path: Path) -> str | None:
    """The pid of the process whose scheduler owns ``db_path`` right now, else None."""
    return exclusive_holder_note(str(db_path) + ".lock")


def stored_jobs(db_path: Path) -> list[JobInfo]:
    """The jobs in the store without starting anything (``rilai daemon status``)."""
    if not db_path.exists():
        return []
    store = SQLAlchemyJobStore(url=f"sqlite:///{db_path}")
    try:
        store.start(BackgroundScheduler(timezone=UTC), "default")
        return [_info(job) for job in store.get_all_jobs()]
    except SQLAlchemyError as exc:
        raise _store_error(db_path, exc) from None
    finally:
        store.shutdown()


def _store_error(db_path: Path, exc: Exception) -> DaemonError:
    return DaemonError(
        f"The scheduler store {db_path} cannot be read: {type(exc).__name__}",
        context={"path": str(db_path)},
        recovery_suggestions=[
            f"It holds only the two job definitions: move it aside ({db_path.name}.bad) "
            "and start again; the jobs are re-created",
        ],
    )


class DaemonScheduler:
    """Runs a :class:`Daemon`'s tick and maintenance on APScheduler."""

    def __init__(
        self,
        daemon: Daemon,
        db_path: Path,
        *,
        tick_seconds: float | None = None,
        maintenance_hours: float | None = None,
        run_tick: TickRunner | None = None,
    ) -> None:
        """``run_tick`` runs each tick (the Engine passes its worker's ``call``, so ticks
        and turns are serialised); default: on the scheduler's thread."""
        settings = daemon.settings.daemon
        self.daemon = daemon
        self._run_tick: TickRunner = run_tick or _in_place
        self.db_path = Path(db_path)
        self.tick_seconds = float(tick_seconds or settings.tick_seconds)
        self.maintenance_hours = float(maintenance_hours or settings.maintenance_hours)
        if not (0 < self.tick_seconds <= 86400) or not (0 < self.maintenance_hours <= 720):
            raise DaemonError(
                f"tick interval {self.tick_seconds!r} s / maintenance every "
                f"{self.maintenance_hours!r} h is out of range",
                recovery_suggestions=["The tick: 0 < seconds ≤ 86400; maintenance: ≤ 720 h"],
            )
        self.key = str(self.db_path.resolve())
        self.recovered: Path | None = None  # where a corrupt store was moved, if it was
        self._lock = _ProcessLock(Path(str(self.db_path) + ".lock"))
        self._scheduler: BackgroundScheduler | None = None

    @property
    def running(self) -> bool:
        return self._scheduler is not None

    def start(self) -> None:
        """Open the store, (re-)add the two jobs keeping their due times, and run."""
        if self._scheduler is not None:
            return
        make_private_dirs(self.db_path.parent)
        if not self._lock.acquire():
            pid = self._lock.holder() or "?"
            raise DaemonError(
                f"Another Rilai daemon is already running on this data directory (pid {pid})",
                context={"pid": pid, "path": str(self.db_path)},
                recovery_suggestions=[
                    "Only one process may run the daemon: close the other shell, window or "
                    "`rilai daemon run`, or leave the daemon to it",
                ],
            )
        with _REGISTRY_LOCK:
            _REGISTRY[self.key] = (self.daemon, self._run_tick)
        try:
            self._scheduler = self._open()
            now = datetime.now(UTC)
            tick = timedelta(seconds=self.tick_seconds)
            maintenance = timedelta(hours=self.maintenance_hours)
            self._ensure(TICK_JOB, "daemon tick", tick_job, tick, first=now)
            self._ensure(
                MAINTENANCE_JOB,
                "daemon maintenance",
                maintenance_job,
                maintenance,
                now + maintenance,
            )
            self._scheduler.resume()
        except BaseException:
            self._stop(wait=False)
            raise

    def _open(self) -> BackgroundScheduler:
        try:
            return self._started()
        except SQLAlchemyError as exc:  # not a database / damaged: it is only job definitions
            bad = self.db_path.with_name(
                f"{self.db_path.name}.bad-{datetime.now(UTC):%Y%m%dT%H%M%S}"
            )
            try:
                self.db_path.replace(bad)
            except OSError:
                raise _store_error(self.db_path, exc) from None
            log.warning(
                "scheduler store %s was unreadable (%s): moved to %s", self.db_path, exc, bad
            )
            self.recovered = bad
            return self._started()

    def _started(self) -> BackgroundScheduler:
        # SQLite would create the store 0644 (and its journal alike): make it 0600 first
        os.close(private_opener(str(self.db_path), os.O_CREAT | os.O_WRONLY))
        scheduler = _Scheduler(
            jobstores={"default": SQLAlchemyJobStore(url=f"sqlite:///{self.db_path}")},
            executors={"default": ThreadPoolExecutor(max_workers=2)},
            job_defaults=JOB_DEFAULTS,
            timezone=UTC,
        )
        try:
            scheduler.start(paused=True)
        except BaseException:
            with contextlib.suppress(Exception):
                scheduler.shutdown(wait=False)
            raise
        return scheduler

    def _ensure(
        self, job_id: str, name: str, func: Any, interval: timedelta, first: datetime
    ) -> None:
        """Add (or replace) a job, keeping its stored due time. A due time in the past
        (the app was closed, or asleep) means ONE catch-up run now, then every interval
        from now; one in the future is kept, but never later than one interval from now
        (the interval may have shrunk). The trigger's grid starts at that first run, so a
        catch-up is never followed at once by a grid point that was already due."""
        assert self._scheduler is not None
        now = datetime.now(UTC)
        existing = self._scheduler.get_job(job_id)
        due = existing.next_run_time if existing is not None else None
        if due is None:
            next_run = first
        elif due.astimezone(UTC) <= now:
            next_run = now
        else:
            next_run = min(due.astimezone(UTC), now + interval)
        self._scheduler.add_job(
            f"{func.__module__}:{func.__name__}",
            trigger=IntervalTrigger(
                seconds=interval.total_seconds(), start_date=next_run, timezone=UTC
            ),
            id=job_id,
            name=name,
            args=[self.key],
            replace_existing=True,
            next_run_time=next_run,
            **JOB_DEFAULTS,
        )

    def jobs(self) -> list[JobInfo]:
        """Each job with its next run (from the live scheduler, or from the store)."""
        if self._scheduler is not None:
            return [_info(job) for job in self._scheduler.get_jobs()]
        return stored_jobs(self.db_path)

    def shutdown(self, wait: bool = True) -> None:
        """Stop: wait for a running job (by default), close the store, free the lock."""
        self._stop(wait=wait)

    def _stop(self, *, wait: bool) -> None:
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is not None:
            with contextlib.suppress(Exception):
                scheduler.shutdown(wait=wait)
        with _REGISTRY_LOCK:
            if (entry := _REGISTRY.get(self.key)) is not None and entry[0] is self.daemon:
                del _REGISTRY[self.key]
        self._lock.release()

    def __enter__(self) -> DaemonScheduler:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
