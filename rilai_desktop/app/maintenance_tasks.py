"""The daemon's maintenance tasks over the real stores (ports.MaintenanceTasks).

``daemon/`` may not touch SQLite, memory or FAISS; this adapter, in the composition root,
hands each task to the store that owns the data, and ``build.py`` hands it to
:class:`rilai_desktop.daemon.maintenance.Maintenance`. It holds no SQL: every write goes
through the same doors a turn uses, the MemoryManager's own operations (events emitted,
the FAISS index kept consistent) and the EventLog's (its write transaction: one lock,
``BEGIN IMMEDIATE``).

Where each task lives:
- resource retention: ``MemoryManager.apply_resource_retention`` (raw text removed, never
  memory; see memory/operations/retention.py);
- expired contexts and old daily files: ``MemoryManager.delete_expired_contexts`` and
  ``cleanup_old_daily`` (the context store and the journal);
- consolidation: ``MemoryManager.pending_categories`` (categories with at least
  ``min_new_items`` new items since their consolidation) and ``consolidate_category``;
- the index snapshot: ``MemoryManager.snapshot_index`` (named here, in the daemon's style);
- the database file: ``EventLog.optimize`` and ``EventLog.backup`` (store/file_upkeep.py);
  naming the copies, dropping a crashed backup's leftovers and rotating old copies out are
  the daemon's conventions, kept here.
- Memory events are emitted as daemon events: turn 0 of the live (or latest) session.
"""

from __future__ import annotations

import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

from rilai_desktop.contracts.clock import Clock, SystemClock
from rilai_desktop.daemon.maintenance import (
    DB_BACKUP,
    ensure_backups_dir,
    rotate,
    unique_name,
)
from rilai_desktop.errors import ConfigError, ConsolidationError, RilaiError, StorageError
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.store import EventLog

log = logging.getLogger(__name__)

PARTIAL_MAX_AGE_S = 3600.0  # a .partial older than this is a crashed backup's leftover


class StoreMaintenance:
    """ports.MaintenanceTasks over the shared SQLite file and the MemoryManager."""

    def __init__(
        self,
        log: EventLog,
        memory: MemoryManager,
        *,
        clock: Clock | None = None,
        min_new_items: int = 1,
        session_id: Callable[[], str] | None = None,
    ) -> None:
        if min_new_items < 1:
            raise ConfigError(f"min_new_items must be 1 or more, got {min_new_items}")
        self._log = log
        self._memory = memory
        self._clock: Clock = clock or SystemClock()
        self.min_new_items = min_new_items
        self._session_provider = session_id
        self.last_checkpoint: dict[str, int] | None = None

    # ── events as the daemon ──────────────────────────────────────────────
    def _session_id(self) -> str:
        """``session_id()`` if given (the live runner's session, as the daemon's sink
        uses), else the log's latest session, else a fresh one."""
        if self._session_provider is not None:
            with contextlib.suppress(Exception):
                given = self._session_provider()
                if isinstance(given, str) and given:
                    return given
        return self._log.latest_session_id() or str(uuid.uuid4())

    @contextlib.contextmanager
    def _as_daemon(self) -> Iterator[str]:
        """Memory events inside belong to turn 0 of the latest session; the manager's
        previous binding (a turn's) is put back afterwards."""
        before = (self._memory.session_id, self._memory.turn_id)
        session = self._session_id()
        self._memory.bind_turn(session, 0)
        try:
            yield session
        finally:
            self._memory.bind_turn(*before)

    # ── contexts and the journal ──────────────────────────────────────────
    def delete_expired_contexts(self, now: datetime) -> int:
        return self._memory.delete_expired_contexts(now)

    def journal_agents(self) -> list[str]:
        """The agents that have a daily-journal folder."""
        return self._memory.journal.agents()

    def cleanup_old_daily(self, retention_days: int) -> int:
        return self._memory.cleanup_old_daily(retention_days)

    # ── resource retention ────────────────────────────────────────────────
    def apply_resource_retention(self, now: datetime, retention_days: int) -> int:
        """Remove the raw text of conversations stored more than ``retention_days`` ago;
        how many resources lost their text (their events are the daemon's)."""
        with self._as_daemon():
            return self._memory.apply_resource_retention(now, retention_days)

    # ── consolidation and the index ───────────────────────────────────────
    def pending_categories(self) -> list[str]:
        """Categories with at least ``min_new_items`` new items since their consolidation."""
        return self._memory.pending_categories(self.min_new_items)

    def consolidate_pending(self) -> list[str]:
        """Consolidate each pending category; one that fails keeps its page and stays
        pending (the next pass retries it) and is reported after the others are done."""
        done: list[str] = []
        failed: dict[str, str] = {}
        with self._as_daemon():
            for name in self.pending_categories():
                try:
                    self._memory.consolidate_category(name)
                except RilaiError as exc:
                    failed[name] = exc.message
                else:
                    done.append(name)
                    try:  # seed 002: the consolidated insight reaches long-term.md
                        self._memory.promote_category(name)
                    except RilaiError as exc:
                        log.warning("promoting %s to long-term.md failed: %s", name, exc)
        if failed:
            raise ConsolidationError(
                f"Consolidated {', '.join(done) or 'nothing'}; failed: {', '.join(failed)}",
                context={"consolidated": done, "failed": failed},
            )
        return done

    def snapshot_index(self, dest: Path) -> Path | None:
        """Copy the saved vector index (and its sidecar) to ``dest`` (a file, or a folder
        to name one in). None when there is no index file yet (an empty memory)."""
        dest = Path(dest)
        if dest.is_dir():
            dest = unique_name(dest, "index", ".faiss", self._clock.now())
        return self._memory.snapshot_index(dest)

    # ── the database file ─────────────────────────────────────────────────
    def optimize_database(self) -> None:
        """``PRAGMA optimize`` under the writers' lock, then a WAL checkpoint (TRUNCATE)."""
        self.last_checkpoint = self._log.optimize()

    def backup_database(self, dest_dir: Path, keep: int) -> Path:
        """An integrity-checked online copy ``dest_dir/rilai-YYYYmmdd-HHMMSS.db`` (UTC,
        0600, folder 0700); then all but the newest ``keep`` copies are deleted."""
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ConfigError(f"backups to keep must be 1 or more, got {keep!r}")
        try:
            folder = ensure_backups_dir(Path(dest_dir))
        except OSError as exc:
            raise StorageError(
                f"Cannot create the backup folder {dest_dir}: {exc}",
                context={"path": str(dest_dir)},
            ) from exc
        _drop_stale_partials(folder)
        final = self._log.backup(unique_name(folder, "rilai", ".db", self._clock.now()))
        for old in rotate(folder, DB_BACKUP, keep):
            log.info("rotated out backup %s", old.name)
        return final


def _drop_stale_partials(folder: Path) -> None:
    now = time.time()
    for entry in folder.glob(".rilai-*.db.partial"):
        with contextlib.suppress(OSError):
            if now - entry.stat().st_mtime > PARTIAL_MAX_AGE_S:
                entry.unlink()
