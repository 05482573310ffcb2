"""Advisory file locks (``flock``): the one place that talks to ``fcntl``.

Two users: every open EventLog holds ``<db>.lock`` (``store/_writer_lock.py``: am I the
only process with this log open?), and the daemon's job runner holds
``scheduler.db.lock`` with its pid in it (one scheduler per data directory). A
:class:`FileLock` is one open descriptor on the lock file; the kernel drops its lock when
the process dies, even by SIGKILL, so a crash never leaves a stale lock behind. Where
``fcntl`` is missing (Windows) :data:`SUPPORTED` is False and every lock is a no-op: the
callers decide what that means (the log never claims to be alone; the scheduler runs
unguarded).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

SUPPORTED: Final = fcntl is not None


class FileLock:
    """An advisory lock on ``path`` (created owner-only), held through one descriptor."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def _open(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        return self._fd

    def try_exclusive(self) -> bool:
        """Take the lock exclusively without waiting. False: another descriptor (another
        process, or another FileLock here) holds it; ours stays open, unlocked."""
        if fcntl is None:
            return False
        fd = self._open()
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def share(self) -> None:
        """Take the lock shared, or downgrade an exclusive one (waits for an exclusive
        holder elsewhere to let go)."""
        if fcntl is not None:
            fcntl.flock(self._open(), fcntl.LOCK_SH)

    def write_note(self, text: str) -> None:
        """Replace the lock file's content (the holder's pid) through our descriptor."""
        fd = self._open()
        os.ftruncate(fd, 0)
        os.pwrite(fd, text.encode(), 0)

    def release(self) -> None:
        """Unlock and close; safe to call twice."""
        if self._fd is not None:
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def exclusive_holder_note(path: Path | str) -> str | None:
    """The note in ``path`` while someone holds it exclusively ("?" when empty), else None
    (nobody holds it, the file does not exist, or locks are unsupported here)."""
    path = Path(path)
    if fcntl is None or not path.exists():
        return None
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.read(fd, 32).decode(errors="replace").strip() or "?"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
