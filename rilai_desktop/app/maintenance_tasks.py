"""The daemon's maintenance tasks over the real stores (ports.MaintenanceTasks).

``daemon/`` may not touch SQLite, memory or FAISS; this top-level adapter does, and
``app.py`` hands it to :class:`rilai_desktop.daemon.maintenance.Maintenance`. Every write
goes through the same doors a turn uses: the EventLog's write transaction (one lock,
``BEGIN IMMEDIATE``) and the MemoryManager's own mutation paths, so events are emitted
and the FAISS index stays consistent.

Decisions worth knowing:
- Resource retention removes raw *text*, never memory. A conversation with no items is
  deleted through ``MemoryManager.delete_resource(cascade=False)``. One that items were
  extracted from cannot be deleted (``memory_items.source_resource_id`` is a foreign key,
  and ``cascade=True`` would delete the items, which are the memory), so its text and
  the turn texts in its metadata are replaced by a short marker in place: the row, its
  turn ids (which the items cite) and its content hash (so re-importing the same
  transcript is still recognised) stay. The FTS5 entry is swapped by hand in the same
  transaction (the schema has no update trigger for resources), with a
  MEMORY_RESOURCE_DELETED event whose ``scope`` is ``"raw_text"``.
- "New items since the last consolidation" is already in the data:
  ``memory_categories.items_since_consolidation`` is bumped when items are stored and reset
  by a consolidation; a category is consolidated when it is at least ``min_new_items``.
- ``PRAGMA optimize`` runs on the shared connection inside the EventLog's write
  transaction (it is per-connection; the lock means it never interleaves with a turn);
  the WAL checkpoint cannot run inside a transaction, so it runs on a short-lived second
  connection, where SQLite's own locks keep it from disturbing a writer.
- Backups read through a second, read-only connection with SQLite's backup API: one step,
  so the copy is a consistent snapshot while turns keep writing (WAL). The copy is made
  self-contained (journal_mode DELETE), integrity-checked, and only then renamed into
  place and older copies rotated out, so a bad copy never replaces a good one.
- Memory events are emitted as daemon events: turn 0 of the log's latest session.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rilai_desktop.contracts import EventKind
from rilai_desktop.daemon.clock import SystemClock
from rilai_desktop.daemon.maintenance import (
    DB_BACKUP,
    ensure_backups_dir,
    rotate,
    unique_name,
)
from rilai_desktop.daemon.ports import Clock
from rilai_desktop.errors import (
    ConfigError,
    ConsolidationError,
    DatabaseError,
    MemoryInputError,
    RilaiError,
    StorageError,
)
from rilai_desktop.memory.journal_format import AGENT_ID
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.memory.vector_index import sidecar_path
from rilai_desktop.store import EventLog
from rilai_desktop.store.db import translate

log = logging.getLogger(__name__)

RAW_TEXT_MARKER = "[raw text removed by retention]"
PARTIAL_MAX_AGE_S = 3600.0  # a .partial older than this is a crashed backup's leftover
CHECKPOINT_TIMEOUT_S = 2.0
ANALYSIS_LIMIT = 400  # bounds the ANALYZE that PRAGMA optimize may run (SQLite's advice)


def _check_days(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise MemoryInputError(f"{field} must be a whole number of days, 1 or more: {value!r}")
    return value


def _iso(moment: datetime) -> str:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise MemoryInputError(f"now must carry a time zone: {moment.isoformat()}")
    return moment.astimezone(UTC).isoformat()


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
        return self._memory.contexts.delete_expired(now)

    def journal_agents(self) -> list[str]:
        """The agents that have a daily-journal folder."""
        root = self._memory.journal.root
        if not root.is_dir():
            return []
        return sorted(
            e.name
            for e in root.iterdir()
            if AGENT_ID.fullmatch(e.name)
            and e.name not in {".", ".."}
            and not e.is_symlink()
            and (e / "memory" / "daily").is_dir()
        )

    def cleanup_old_daily(self, retention_days: int) -> int:
        days = _check_days(retention_days, "retention_days")
        deleted = 0
        failed: dict[str, str] = {}
        for agent in self.journal_agents():
            try:
                deleted += self._memory.journal.cleanup_old_daily(agent, days)
            except (RilaiError, OSError) as exc:
                failed[agent] = str(exc)
        if failed:
            raise StorageError(
                f"Deleted {deleted} old daily files, but could not clean up for "
                f"{', '.join(sorted(failed))}",
                context={"deleted": deleted, "failed": failed},
                recovery_suggestions=["Check the permissions of the agents' daily folders"],
            )
        return deleted

    # ── resource retention ────────────────────────────────────────────────
    def apply_resource_retention(self, now: datetime, retention_days: int) -> int:
        """Remove the raw text of conversations stored more than ``retention_days`` ago.

        Returns how many resources lost their text (deleted outright, or marked in place
        when items cite them). Each resource is its own short transaction, so a turn never
        waits long; one that fails is reported after the others were done.
        """
        days = _check_days(retention_days, "retention_days")
        cutoff = _iso(now - timedelta(days=days))
        with self._log.transaction() as conn:
            rows = conn.execute(
                "SELECT r.resource_id, EXISTS (SELECT 1 FROM memory_items i"
                "  WHERE i.source_resource_id = r.resource_id)"
                " FROM memory_resources r WHERE r.resource_type = 'conversation'"
                " AND r.created_at < ?"
                " AND (CASE WHEN json_valid(r.metadata)"
                "      THEN json_extract(r.metadata, '$.raw_removed_at') END) IS NULL"
                " ORDER BY r.id",
                (cutoff,),
            ).fetchall()
        done = 0
        failed: dict[str, str] = {}
        with self._as_daemon() as session:
            for resource_id, has_items in rows:
                rid = str(resource_id)
                try:
                    gone = not has_items and self._delete_unused(rid)
                    if gone or self._remove_raw_text(rid, now, days, session):
                        done += 1
                except (RilaiError, sqlite3.Error) as exc:
                    failed[rid] = str(exc)
        if failed:
            raise StorageError(
                f"Removed the raw text of {done} old conversations; {len(failed)} failed",
                context={"done": done, "failed": failed},
            )
        return done

    def _delete_unused(self, resource_id: str) -> bool:
        """Delete a resource no item cites, through the manager (event, index, FTS)."""
        try:
            return self._memory.delete_resource(resource_id, cascade=False)
        except MemoryInputError:
            return False  # items were extracted from it meanwhile: mark it instead

    def _remove_raw_text(self, resource_id: str, now: datetime, days: int, session: str) -> bool:
        with self._log.transaction() as conn:
            row = conn.execute(
                "SELECT id, content, metadata FROM memory_resources WHERE resource_id = ?",
                (resource_id,),
            ).fetchone()
            if row is None:
                return False
            rowid, old_content, raw_meta = int(row[0]), str(row[1]), row[2]
            kept = [
                str(r[0])
                for r in conn.execute(
                    "SELECT item_id FROM memory_items WHERE source_resource_id = ? ORDER BY id",
                    (resource_id,),
                ).fetchall()
            ]
            meta = _without_turn_text(raw_meta)
            meta["raw_removed_at"] = _iso(now)
            meta["raw_removed_reason"] = f"retention: older than {days} days"
            # external-content FTS5: take out what was indexed, index the marker instead
            conn.execute(
                "INSERT INTO memory_resources_fts (memory_resources_fts, rowid, content)"
                " VALUES ('delete', ?, ?)",
                (rowid, old_content),
            )
            conn.execute(
                "UPDATE memory_resources SET content = ?, metadata = ? WHERE id = ?",
                (
                    RAW_TEXT_MARKER,
                    json.dumps(meta, ensure_ascii=False, separators=(",", ":")),
                    rowid,
                ),
            )
            conn.execute(
                "INSERT INTO memory_resources_fts (rowid, content) VALUES (?, ?)",
                (rowid, RAW_TEXT_MARKER),
            )
            self._log.append(
                session,
                0,
                EventKind.MEMORY_RESOURCE_DELETED,
                {
                    "resource_id": resource_id,
                    "item_ids": [],
                    "scope": "raw_text",
                    "kept_item_ids": kept,
                    "reason": f"retention: older than {days} days",
                },
            )
        return True

    # ── consolidation and the index ───────────────────────────────────────
    def pending_categories(self) -> list[str]:
        """Categories with at least ``min_new_items`` new items since their consolidation."""
        rows = self._log.connection.execute(
            "SELECT name FROM memory_categories WHERE items_since_consolidation >= ? ORDER BY name",
            (self.min_new_items,),
        ).fetchall()
        return [str(r[0]) for r in rows]

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
        layer = self._memory.item_layer
        layer.save_index()
        if not layer.index_path.is_file():
            return None
        partial = dest.with_name(f".{dest.name}.partial")
        try:
            ensure_backups_dir(dest.parent)
            self._memory.export_index_snapshot(partial)
            os.chmod(partial, 0o600)
            os.replace(partial, dest)
            side = sidecar_path(layer.index_path)
            if side.is_file():
                shutil.copyfile(side, sidecar_path(dest))
                os.chmod(sidecar_path(dest), 0o600)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise StorageError(
                f"Could not snapshot the vector index to {dest}: {exc}",
                context={"path": str(dest)},
            ) from exc
        return dest

    # ── the database file ─────────────────────────────────────────────────
    def optimize_database(self) -> None:
        """``PRAGMA optimize`` under the writers' lock, then a WAL checkpoint (TRUNCATE)."""
        path = self._log.path
        try:
            with self._log.transaction() as conn:
                conn.execute(f"PRAGMA analysis_limit = {ANALYSIS_LIMIT}")
                conn.execute("PRAGMA optimize")
                mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
            if mode != "wal":
                self.last_checkpoint = None
                return
            with contextlib.closing(
                sqlite3.connect(path, timeout=CHECKPOINT_TIMEOUT_S, isolation_level=None)
            ) as side:
                busy, frames, done = side.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:
            raise translate(exc, path) from exc
        # busy=1: a reader or writer was active; the frames are folded in next time
        self.last_checkpoint = {"busy": int(busy), "log_frames": int(frames), "done": int(done)}

    def backup_database(self, dest_dir: Path, keep: int) -> Path:
        """An integrity-checked online copy ``dest_dir/rilai-YYYYmmdd-HHMMSS.db`` (UTC,
        0600, folder 0700); then all but the newest ``keep`` copies are deleted."""
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ConfigError(f"backups to keep must be 1 or more, got {keep!r}")
        src_path = self._log.path
        try:
            folder = ensure_backups_dir(Path(dest_dir))
        except OSError as exc:
            raise StorageError(
                f"Cannot create the backup folder {dest_dir}: {exc}",
                context={"path": str(dest_dir)},
            ) from exc
        _drop_stale_partials(folder)
        final = unique_name(folder, "rilai", ".db", self._clock.now())
        partial = folder / f".{final.name}.partial"
        try:
            fd = os.open(partial, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            os.close(fd)
            _copy_db(src_path, partial)
            verdict = _integrity(partial)
            if verdict != "ok":
                raise DatabaseError(
                    f"The backup copy failed its integrity check ({verdict}); it was discarded"
                    " and the older backups were kept",
                    context={"source": str(src_path)},
                    recovery_suggestions=["Run `rilai doctor` to check the database itself"],
                )
            os.replace(partial, final)
        except sqlite3.Error as exc:
            partial.unlink(missing_ok=True)
            raise translate(exc, src_path) from exc
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise StorageError(
                f"Could not write the backup {final}: {exc}", context={"path": str(final)}
            ) from exc
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        for old in rotate(folder, DB_BACKUP, keep):
            log.info("rotated out backup %s", old.name)
        return final


def _without_turn_text(raw: Any) -> dict[str, Any]:
    """The metadata with each turn's text dropped (ids, speakers and times stay: the items
    cite the turn ids). Unreadable metadata becomes ``{}``."""
    try:
        meta = json.loads(raw) if isinstance(raw, str) else {}
    except ValueError:
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    turns = meta.get("turns")
    if isinstance(turns, list):
        meta["turns"] = [
            {k: v for k, v in t.items() if k != "text"} for t in turns if isinstance(t, dict)
        ]
    return meta


def _copy_db(src_path: Path, dest: Path) -> None:
    """SQLite's backup API in one step from a read-only connection: a consistent snapshot
    (WAL readers never block writers); the copy becomes a single self-contained file."""
    uri = Path(src_path).resolve().as_uri() + "?mode=ro"
    with (
        contextlib.closing(sqlite3.connect(uri, uri=True, timeout=5.0)) as src,
        contextlib.closing(sqlite3.connect(dest, isolation_level=None)) as dst,
    ):
        src.backup(dst)
        dst.execute("PRAGMA journal_mode=DELETE")


def _integrity(path: Path) -> str:
    uri = path.resolve().as_uri() + "?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as conn:
        row = conn.execute("PRAGMA integrity_check").fetchone()
    return str(row[0]) if row else "no answer"


def _drop_stale_partials(folder: Path) -> None:
    now = time.time()
    for entry in folder.glob(".rilai-*.db.partial"):
        with contextlib.suppress(OSError):
            if now - entry.stat().st_mtime > PARTIAL_MAX_AGE_S:
                entry.unlink()
