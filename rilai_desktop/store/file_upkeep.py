"""The database file's upkeep: ``PRAGMA optimize`` with a WAL checkpoint, and online backups.

- ``PRAGMA optimize`` runs on the shared connection inside the EventLog's write
  transaction (it is per-connection; the lock means it never interleaves with a turn);
  the WAL checkpoint cannot run inside a transaction, so it runs on a short-lived second
  connection, where SQLite's own locks keep it from disturbing a writer.
- A backup reads through a second, read-only connection with SQLite's backup API: one
  step, so the copy is a consistent snapshot while turns keep writing (WAL). The copy is
  written beside its destination as a ``.partial`` of its own (0600), made self-contained
  (journal_mode DELETE), integrity-checked, and only then renamed into place, so a bad copy
  never replaces a good one. Naming the copies and rotating old ones out is the caller's.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from rilai_desktop.errors import DatabaseError, StorageError
from rilai_desktop.store.db import translate

CHECKPOINT_TIMEOUT_S = 2.0
ANALYSIS_LIMIT = 400  # bounds the ANALYZE that PRAGMA optimize may run (SQLite's advice)

Transaction = Callable[[], AbstractContextManager[sqlite3.Connection]]


def optimize(path: Path, transaction: Transaction) -> dict[str, int] | None:
    """``PRAGMA optimize`` under the writers' lock, then a WAL checkpoint (TRUNCATE).

    Returns the checkpoint's figures (``busy`` 1: a reader or writer was active, and the
    frames are folded in next time), or None when the database is not in WAL mode.
    """
    try:
        with transaction() as conn:
            conn.execute(f"PRAGMA analysis_limit = {ANALYSIS_LIMIT}")
            conn.execute("PRAGMA optimize")
            mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
        if mode != "wal":
            return None
        with contextlib.closing(
            sqlite3.connect(path, timeout=CHECKPOINT_TIMEOUT_S, isolation_level=None)
        ) as side:
            busy, frames, done = side.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc
    return {"busy": int(busy), "log_frames": int(frames), "done": int(done)}


def partial_path(dest: Path) -> Path:
    """Where the copy for ``dest`` is written before it is checked:
    ``.{stem}.{pid}-{random}{suffix}.partial``, this writer's own. Two processes on one
    data folder (the window and `rilai chat`) may back up within the same second, to the
    same ``dest``: with one shared partial name the second failed, or renamed away the
    first's copy while it was being written."""
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    return dest.with_name(f".{dest.stem}.{token}{dest.suffix}.partial")


def backup(src_path: Path, dest: Path) -> Path:
    """An integrity-checked online copy of the database at ``dest`` (0600); ``dest``."""
    partial = partial_path(dest)
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
        os.replace(partial, dest)
    except sqlite3.Error as exc:
        partial.unlink(missing_ok=True)
        raise translate(exc, src_path) from exc
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise StorageError(
            f"Could not write the backup {dest}: {exc}", context={"path": str(dest)}
        ) from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return dest


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
