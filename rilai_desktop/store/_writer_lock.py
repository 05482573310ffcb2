"""Who else has this database open? An advisory lock file beside the database.

Every open EventLog holds a shared ``flock`` on ``<db>.lock`` for its lifetime. On open it
first tries to take it exclusively without waiting: if that succeeds, no other live process
has the log open, so any turn without TURN_COMPLETED belongs to a dead process and may be
marked aborted. The kernel drops the lock when a process dies (even by SIGKILL), so a crash
never leaves a stale lock behind (``rilai_desktop.locks``). Where ``fcntl`` is missing
(Windows) we never claim to be alone, and aborted turns are only marked by
``EventLog.mark_aborted_turns(force=True)``.
"""

from __future__ import annotations

from pathlib import Path

from rilai_desktop.locks import SUPPORTED, FileLock


class WriterLock:
    def __init__(self, db_path: Path) -> None:
        self._lock = FileLock(str(db_path) + ".lock")
        self.path = self._lock.path

    def acquire(self) -> bool:
        """Take the lock. True: we are alone and hold it exclusively until ``settle()``,
        so nobody can start a turn while we look for dead ones. False: shared only."""
        if not SUPPORTED:
            return False
        if self._lock.try_exclusive():
            return True
        self._lock.share()
        return False

    def settle(self) -> None:
        """Downgrade to the shared lock, letting other processes open the log."""
        if self._lock.is_open:
            self._lock.share()

    def release(self) -> None:
        self._lock.release()
