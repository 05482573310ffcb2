"""`rilai doctor --repair`: a damaged database is moved aside, never overwritten, and the
newest good backup put in its place, with an account of what that backup lacks.

Rilai never replaces a damaged file on its own: opening one raises NotADatabaseError and
leaves it untouched. Only when the person asks (``--repair``) does this run, and only when
no other Rilai process holds the log (the writer lock beside it). The damaged file and its
``-wal``/``-shm`` companions are renamed to ``rilai.db.damaged-<stamp>`` (+ ``-wal`` …):
a WAL left behind would be replayed into the restored copy and damage it again. The
backups (made by maintenance, ``daemon/maintenance.py``; the caller lists them, newest
first) are tried in turn; the first whose integrity check passes is copied (0600, through
a ``.partial`` file and a rename) into place. Events of the damaged file past what the
backup holds are counted where the file can still be read, so the person is told what
was lost since the backup (the damaged file stays, for a specialist's recovery).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rilai_desktop.errors import DatabaseError, DatabaseLockedError
from rilai_desktop.locks import SUPPORTED, FileLock
from rilai_desktop.store.db import SQLITE_HEADER

COMPANIONS = ("-wal", "-shm")


@dataclass
class RepairOutcome:
    """What ``repair`` did (``damage`` None: the database was fine, nothing was done)."""

    damage: str | None
    moved_to: Path | None = None
    restored_from: Path | None = None
    backup_events: int = 0
    lost_since_backup: int | None = None  # None: the damaged file could not be counted
    tried: list[str] = field(default_factory=list)  # backups rejected, and why

    def summary(self) -> str:
        if self.damage is None:
            return "the database is fine; nothing was changed"
        parts = [f"the database was damaged ({self.damage})"]
        parts.append(f"it was moved aside, untouched, to {self.moved_to}")
        if self.restored_from is None:
            parts.append(
                "no good backup was found: Rilai starts with an empty database "
                "(the damaged file stays where it was moved)"
            )
            return "; ".join(parts)
        parts.append(
            f"the backup {self.restored_from.name} ({self.backup_events} events) was restored"
        )
        if self.lost_since_backup is None:
            parts.append(
                "what was written after that backup could not be counted: it is only in the"
                " damaged file"
            )
        elif self.lost_since_backup:
            parts.append(
                f"{self.lost_since_backup} events written after that backup are not in it"
                " (they remain only in the damaged file)"
            )
        else:
            parts.append("nothing written before the damage is missing from it")
        return "; ".join(parts)


def _ro(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=1.0)


def diagnose(path: Path) -> str | None:
    """None when ``path`` is a healthy SQLite database (or absent); else what is wrong."""
    if not path.exists():
        return None
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    if head != SQLITE_HEADER:
        return "not an SQLite file" if head else "empty file"
    try:
        with contextlib.closing(_ro(path)) as conn:
            rows = conn.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.Error as exc:
        return str(exc)
    verdict = "; ".join(str(r[0]) for r in rows[:3])
    return None if verdict == "ok" else f"integrity check: {verdict}"


def _events(path: Path) -> tuple[int, int]:
    """(count, highest id) of the events table, read-only."""
    with contextlib.closing(_ro(path)) as conn:
        count, top = conn.execute("SELECT COUNT(*), MAX(id) FROM events").fetchone()
    return int(count), int(top or 0)


def _events_after(path: Path, last_id: int) -> int | None:
    try:
        with contextlib.closing(_ro(path)) as conn:
            row = conn.execute("SELECT COUNT(*) FROM events WHERE id > ?", (last_id,)).fetchone()
    except sqlite3.Error:
        return None
    return int(row[0])


def _move_aside(path: Path, now: datetime) -> Path:
    stamp = now.astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 0
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.replace(path, aside)
    for suffix in COMPANIONS:
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            os.replace(extra, aside.with_name(aside.name + suffix))
    return aside


def _restore(backup: Path, dest: Path) -> None:
    partial = dest.with_name(f".{dest.name}.partial")
    fd = os.open(partial, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    os.close(fd)
    try:
        shutil.copyfile(backup, partial)
        os.replace(partial, dest)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def repair(path: Path, backups: Sequence[Path], *, now: datetime | None = None) -> RepairOutcome:
    """Move a damaged database aside and restore the newest good backup (``backups``:
    newest first). A healthy database is left alone. A DatabaseLockedError when another
    Rilai process has the log open (the writer lock): it must be closed first."""
    path = Path(path)
    damage = diagnose(path)
    if damage is None:
        return RepairOutcome(None)
    lock = FileLock(str(path) + ".lock")
    try:
        if SUPPORTED and not lock.try_exclusive():
            raise DatabaseLockedError(
                f"Another Rilai process has {path} open; nothing was changed",
                context={"path": str(path)},
                recovery_suggestions=[
                    "Close the Rilai window, `rilai chat` and `rilai daemon`, then run"
                    " `rilai doctor --repair` again"
                ],
            )
        try:
            aside = _move_aside(path, now or datetime.now(UTC))
        except OSError as exc:
            raise DatabaseError(
                f"Could not move the damaged {path} aside: {exc}; nothing was changed",
                context={"path": str(path)},
                recovery_suggestions=["Make the data folder writable, then try again"],
            ) from exc
        outcome = RepairOutcome(damage, moved_to=aside)
        for backup in backups:
            problem = diagnose(backup)
            if problem is None:
                try:
                    count, top = _events(backup)
                except sqlite3.Error as exc:
                    problem = str(exc)
            if problem is not None:
                outcome.tried.append(f"{backup.name}: {problem}")
                continue
            _restore(backup, path)
            outcome.restored_from = backup
            outcome.backup_events = count
            outcome.lost_since_backup = _events_after(aside, top)
            break
        return outcome
    finally:
        lock.release()
