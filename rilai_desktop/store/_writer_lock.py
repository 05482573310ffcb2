"""Who else has this database open? An advisory lock file beside the database.

Every open EventLog holds a shared ``flock`` on ``<db>.lock`` for its lifetime. On open it
first tries to take it exclusively without waiting: if that succeeds, no other live process
has the log open, so any turn without TURN_COMPLETED belongs to a dead process and may be
marked aborted. The kernel drops the lock when a process dies (even by SIGKILL), so a crash
never leaves a stale lock behind. Where ``fcntl`` is missing (Windows) we never claim to be
alone, and aborted turns are only marked by ``EventLog.mark_aborted_turns(force=True)``.
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class WriterLock:
    def __init__(self, db_path: Path) -> None:
        self.path = Path(str(db_path) + ".lock")
        self._fd: int | None = None

    def acquire(self) -> bool:
        """Take the lock. True: we are alone and hold it exclusively until ``settle()``,
        so nobody can start a turn while we look for dead ones. False: shared only."""
        if fcntl is None:
            return False
        self._fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fcntl.flock(self._fd, fcntl.LOCK_SH)
            return False
        return True

    def settle(self) -> None:
        """Downgrade to the shared lock, letting other processes open the log."""
        if fcntl is not None and self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_SH)

    def release(self) -> None:
        if self._fd is not None:
            if fcntl is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None
