"""Opening the one SQLite file: owner-only permissions, WAL, migrations, clear errors.

The order matters so that a bad file is never modified: check the header, read the schema
version (refusing a newer one), and only then switch to WAL and migrate.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from rilai_desktop.errors import (
    DatabaseError,
    DatabaseLockedError,
    DataDirError,
    DiskFullError,
    NotADatabaseError,
)
from rilai_desktop.store.schema import check_not_newer, migrate

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise DatabaseError(
            f"Cannot read {path}: {exc.strerror}", context={"path": str(path)}
        ) from exc
    if head and head != SQLITE_HEADER:
        raise NotADatabaseError(
            f"{path} is not an SQLite database (it was left untouched)",
            context={"path": str(path)},
        )


def _create_private_file(path: Path) -> None:
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    except OSError as exc:
        raise DataDirError(
            f"Cannot create the database {path}: {exc.strerror}",
            context={"path": str(path)},
        ) from exc
    os.close(fd)


def translate(exc: sqlite3.Error, path: Path) -> DatabaseError:
    """Map a raw sqlite3 error to one of ours, with the file named."""
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "locked" in text:
        return DatabaseLockedError(f"The database {path} is locked: {text}")
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in text:
        return DiskFullError(
            f"The disk is full: the change to {path} could not be saved (everything saved"
            " before it is safe)",
            context={"path": str(path)},
        )
    if "not a database" in text or "malformed" in text:
        return NotADatabaseError(
            f"{path} is damaged or not an SQLite database: {text}", context={"path": str(path)}
        )
    if "readonly" in text or "read-only" in text:
        return DatabaseError(
            f"The database {path} is read-only: {text}",
            context={"path": str(path)},
            recovery_suggestions=[
                "Make the file and its directory writable by your user",
                "Or point Rilai elsewhere with RILAI_HOME",
            ],
        )
    return DatabaseError(f"SQLite error on {path}: {text}", context={"path": str(path)})


def _busy(exc: sqlite3.Error) -> bool:
    """Worth trying the BEGIN again: another writer holds the lock (SQLITE_BUSY), or the
    schema changed under the statement (SQLITE_SCHEMA: ``PRAGMA optimize``'s ANALYZE on the
    shared connection while another thread was stepping a read on it; seen once in a few
    runs of the threads proof, with the other thread's "no more rows available" as its
    message)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_SCHEMA)
    return "database is locked" in str(exc)


def begin_immediate(
    conn: sqlite3.Connection,
    path: Path,
    *,
    timeout_s: float = BUSY_TIMEOUT_MS / 1000,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """``BEGIN IMMEDIATE`` on ``conn``, waiting up to ``timeout_s`` for another writer.

    The busy timeout alone is not enough: SQLite skips its busy handler, and says
    "database is locked" at once, when the connection already holds a read (a statement
    another thread is still stepping on the shared connection) while another connection
    holds the write lock (a WAL checkpoint, a backup's writer, a second process), because
    waiting could deadlock. Here nothing of the transaction has run yet, so trying again
    until the reader is done is safe (issue 30, proof 8); the same for SQLITE_SCHEMA (a
    schema change under the statement: trying again prepares it anew).
    """
    deadline = clock() + timeout_s
    delay = 0.002
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.Error as exc:
            if not _busy(exc) or clock() >= deadline:
                raise translate(exc, path) from exc
        sleep(delay)
        delay = min(delay * 2, 0.05)


def connect(
    path: Path, *, migrate_to: int | None = None, readonly: bool = False
) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` and bring it to the latest schema."""
    path = Path(path)
    if path.exists():
        if not path.is_file():
            raise NotADatabaseError(f"{path} is not a file", context={"path": str(path)})
        _check_header(path)
    elif readonly:
        raise DatabaseError(f"No database at {path} yet", context={"path": str(path)})
    else:
        if not os.access(path.parent, os.W_OK | os.X_OK):
            raise DataDirError(
                f"Cannot create the database: {path.parent} is not writable",
                context={"path": str(path.parent)},
            )
        _create_private_file(path)
    if not readonly and not os.access(path.parent, os.W_OK | os.X_OK):
        raise DataDirError(
            f"The data directory {path.parent} is not writable (WAL needs to write beside the db)",
            context={"path": str(path.parent)},
        )
    try:
        uri = f"file:{path}?mode=ro" if readonly else f"file:{path}"
        conn = sqlite3.connect(
            uri,
            uri=True,
            timeout=BUSY_TIMEOUT_MS / 1000,
            check_same_thread=False,
            isolation_level=None,
        )
    except sqlite3.Error as exc:
        raise translate(exc, path) from exc
    try:
        check_not_newer(conn, str(path))
        if not readonly:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            migrate(conn, migrate_to)
    except sqlite3.Error as exc:
        conn.close()
        raise translate(exc, path) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def integrity_check(conn: sqlite3.Connection) -> str:
    """``ok`` or the first problem SQLite reports."""
    row = conn.execute("PRAGMA integrity_check").fetchone()
    return str(row[0])
