"""One maintenance pass: the housekeeping that keeps a long-lived companion small and safe.

The scheduler calls :meth:`Maintenance.run` every ``daemon.maintenance_hours``;
``rilai daemon maintenance [--dry-run]`` calls it once. The work itself lives behind
:class:`~rilai_desktop.daemon.ports.MaintenanceTasks` (the real stores in
``rilai_desktop/app/maintenance_tasks.py``, a fake in tests), so this module only decides
the order, isolates failures and reports.

The order is on purpose: first what removes data by policy (expired contexts, old daily
files, raw conversation text past retention), then consolidation and the index snapshot
(which read what is left), then ``PRAGMA optimize`` + WAL checkpoint, and the backup last,
so the copy is of the tidied, checkpointed database and holds no text retention removed.
Each step runs on its own: one failing step is recorded with its error and the rest still
run. Steps that call into memory (and may load a model) are deferred while a turn is
running, because on two cores they would fight the turn for the CPU.

Also here: the backup/snapshot file naming and rotation shared with the store adapter,
and a small ``maintenance-last.json`` record so ``due()`` survives a restart.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rilai_desktop.config import Settings
from rilai_desktop.contracts.clock import Clock
from rilai_desktop.daemon.ports import MaintenanceTasks
from rilai_desktop.errors import RilaiError

log = logging.getLogger(__name__)

STEPS: tuple[str, ...] = (
    "expired_contexts",
    "old_daily_logs",
    "resource_retention",
    "consolidation",
    "index_snapshot",
    "optimize",
    "backup",
)
# steps that go through the memory manager (and may load a model): not during a turn
MEMORY_STEPS = frozenset({"resource_retention", "consolidation", "index_snapshot"})
BACKUPS_DIRNAME = "backups"
LAST_RUN_FILE = "maintenance-last.json"

DB_BACKUP = re.compile(r"^rilai-(\d{8})-(\d{6})(?:-(\d+))?\.db$")
INDEX_SNAPSHOT = re.compile(r"^index-(\d{8})-(\d{6})(?:-(\d+))?\.faiss$")


# ── file names and rotation ──────────────────────────────────────────────────
def stamp(now: datetime) -> str:
    """``YYYYmmdd-HHMMSS`` in UTC: sortable, and unambiguous across DST changes."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"naive datetime {now.isoformat()}: give it a timezone")
    return now.astimezone(UTC).strftime("%Y%m%d-%H%M%S")


def unique_name(folder: Path, prefix: str, suffix: str, now: datetime) -> Path:
    """``folder/{prefix}-{stamp}{suffix}``, or ``…-{stamp}-N{suffix}`` if that exists."""
    base = f"{prefix}-{stamp(now)}"
    path = folder / f"{base}{suffix}"
    n = 0
    while path.exists():
        n += 1
        path = folder / f"{base}-{n}{suffix}"
    return path


def rotation_key(pattern: re.Pattern[str], name: str) -> tuple[str, str, int] | None:
    m = pattern.match(name)
    if m is None:
        return None
    return (m.group(1), m.group(2), int(m.group(3) or 0))


def rotate(
    folder: Path, pattern: re.Pattern[str], keep: int, *, companions: tuple[str, ...] = ()
) -> list[Path]:
    """Delete all but the newest ``keep`` files whose name matches ``pattern``.

    Only files we named are ever touched (anything else in the folder is the user's);
    ``companions`` are suffixes of files that go with each one (an index's ``.json``).
    Returns the paths deleted.
    """
    if keep < 1:
        raise ValueError(f"keep must be at least 1, got {keep}")
    if not folder.is_dir():
        return []
    found: list[tuple[tuple[str, str, int], Path]] = []
    for entry in folder.iterdir():
        key = rotation_key(pattern, entry.name)
        if key is not None and entry.is_file() and not entry.is_symlink():
            found.append((key, entry))
    found.sort()
    removed: list[Path] = []
    for _, path in found[: max(0, len(found) - keep)]:
        path.unlink(missing_ok=True)
        removed.append(path)
        for extra in companions:
            path.with_name(path.name + extra).unlink(missing_ok=True)
    return removed


def ensure_backups_dir(folder: Path) -> Path:
    """The backups folder, owner-only (0700): it holds copies of everything."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder


# ── the last run, remembered across restarts ─────────────────────────────────
def read_last_run(data_dir: Path) -> datetime | None:
    """When the last (non-dry) pass ran; None if never, or if the record is unreadable."""
    try:
        raw = json.loads((data_dir / LAST_RUN_FILE).read_text(encoding="utf-8"))
        at = datetime.fromisoformat(str(raw["at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return at if at.tzinfo is not None and at.utcoffset() is not None else None


def _write_last_run(data_dir: Path, summary: dict[str, Any]) -> None:
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".maintenance-", dir=data_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=1)
        os.chmod(tmp, 0o600)
        os.replace(tmp, data_dir / LAST_RUN_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def due(now: datetime, last_run: datetime | None, every_hours: float) -> bool:
    """True when a pass is owed: never ran, ran ``every_hours`` ago or more, or the
    recorded time is in the future (the clock was set back: better one pass too many)."""
    if last_run is None:
        return True
    elapsed = now - last_run
    return elapsed >= timedelta(hours=every_hours) or elapsed < timedelta(0)


# ── the pass ─────────────────────────────────────────────────────────────────
def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _error(exc: Exception) -> dict[str, Any]:
    if isinstance(exc, RilaiError):
        return {
            "type": type(exc).__name__,
            "code": exc.code,
            "message": exc.message,
            "recovery_suggestions": list(exc.recovery_suggestions),
        }
    return {"type": type(exc).__name__, "code": None, "message": str(exc)}


class Maintenance:
    """Runs the maintenance steps over a :class:`MaintenanceTasks` (ports.MaintenanceRunner).

    ``busy`` (e.g. ``LiveState.turn_running``) defers the memory steps while a turn runs.
    """

    def __init__(
        self,
        tasks: MaintenanceTasks,
        settings: Settings,
        data_dir: Path,
        clock: Clock,
        *,
        busy: Callable[[], bool] | None = None,
    ) -> None:
        self._tasks = tasks
        self._settings = settings
        self.data_dir = Path(data_dir)
        self.backups_dir = self.data_dir / BACKUPS_DIRNAME
        self._clock = clock
        self._busy = busy

    @property
    def keep(self) -> int:
        return self._settings.daemon.backups_keep

    def last_run(self) -> datetime | None:
        return read_last_run(self.data_dir)

    def due(self, now: datetime | None = None) -> bool:
        moment = self._clock.now() if now is None else now
        return due(moment, self.last_run(), self._settings.daemon.maintenance_hours)

    def _plan(self, now: datetime) -> dict[str, tuple[str, Callable[[], Any]]]:
        """Each step: what it does (for --dry-run) and the call that does it."""
        d, m = self._settings.daemon, self._settings.memory
        snap = unique_name(self.backups_dir, "index", ".faiss", now)
        return {
            "expired_contexts": (
                "delete context-store items whose expires_at has passed",
                lambda: self._tasks.delete_expired_contexts(now),
            ),
            "old_daily_logs": (
                f"delete daily journal files older than {m.journal_retention_days} days",
                lambda: self._tasks.cleanup_old_daily(m.journal_retention_days),
            ),
            "resource_retention": (
                f"remove the raw text of conversations older than {d.resource_retention_days}"
                " days (the memory items extracted from them stay)",
                lambda: self._tasks.apply_resource_retention(now, d.resource_retention_days),
            ),
            "consolidation": (
                "re-write the page of each category with new items since its last consolidation",
                self._tasks.consolidate_pending,
            ),
            "index_snapshot": (
                f"copy the vector index into {self.backups_dir} (keep {self.keep})",
                lambda: self._snapshot(snap),
            ),
            "optimize": (
                "PRAGMA optimize and a WAL checkpoint",
                self._tasks.optimize_database,
            ),
            "backup": (
                f"online backup of the database into {self.backups_dir}, integrity-checked"
                f" (keep {self.keep})",
                lambda: self._tasks.backup_database(self.backups_dir, self.keep),
            ),
        }

    def _snapshot(self, dest: Path) -> dict[str, Any]:
        ensure_backups_dir(self.backups_dir)
        path = self._tasks.snapshot_index(dest)
        removed = (
            []
            if path is None
            else rotate(self.backups_dir, INDEX_SNAPSHOT, self.keep, companions=(".json",))
        )
        return {"path": path, "rotated_out": [p.name for p in removed]}

    def run(self, now: datetime | None = None, *, dry_run: bool = False) -> dict[str, Any]:
        """One pass. Returns ``{"at", "dry_run", "ok", "ms", "steps": {name: {...}}}``;
        each step is ``{"status": "done", "result", "ms"}``, ``{"status": "failed",
        "error": {type, code, message, …}, "ms"}``, ``{"status": "deferred", "reason"}``
        or, on a dry run, ``{"status": "planned", "what"}``."""
        moment = self._clock.now() if now is None else now
        started = time.perf_counter()
        steps: dict[str, dict[str, Any]] = {}
        for name, (what, call) in self._plan(moment).items():
            if dry_run:
                steps[name] = {"status": "planned", "what": what}
                continue
            if name in MEMORY_STEPS and self._turn_running():
                steps[name] = {"status": "deferred", "reason": "a turn is running"}
                continue
            t0 = time.perf_counter()
            try:
                result = call()
            except Exception as exc:  # one step's failure must not stop the others
                log.warning("maintenance step %s failed: %s", name, exc, exc_info=True)
                steps[name] = {"status": "failed", "error": _error(exc)}
            else:
                steps[name] = {"status": "done", "result": _jsonable(result)}
            steps[name]["ms"] = round((time.perf_counter() - t0) * 1000, 3)
        summary: dict[str, Any] = {
            "at": moment.astimezone(UTC).isoformat(),
            "dry_run": dry_run,
            "ok": all(s["status"] != "failed" for s in steps.values()),
            "ms": round((time.perf_counter() - started) * 1000, 3),
            "steps": steps,
        }
        if not dry_run:
            try:
                _write_last_run(self.data_dir, summary)
            except OSError as exc:  # the pass itself is done; only the record is lost
                log.warning("could not record the maintenance run: %s", exc)
        return summary

    def _turn_running(self) -> bool:
        if self._busy is None:
            return False
        try:
            return bool(self._busy())
        except Exception:  # an unanswerable "busy?" must not cost a pass: assume busy
            return True
