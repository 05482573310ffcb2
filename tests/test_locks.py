"""rilai_desktop.locks: the one flock both the event log and the job runner use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rilai_desktop.locks import SUPPORTED, FileLock, exclusive_holder_note

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="no fcntl.flock on this platform")


def test_an_exclusive_lock_keeps_out_a_second_holder(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    first, second = FileLock(path), FileLock(path)
    assert first.try_exclusive()
    assert not second.try_exclusive()
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    first.release()
    first.release()  # twice is harmless
    assert second.try_exclusive()
    second.release()


def test_shared_holders_coexist_and_block_an_exclusive_one(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    a, b, c = FileLock(path), FileLock(path), FileLock(path)
    a.share()
    b.share()
    assert not c.try_exclusive()
    a.release()
    b.release()
    assert c.try_exclusive()
    c.share()  # a downgrade lets shared holders in again
    assert not a.try_exclusive()
    a.share()
    for lock in (a, c):
        lock.release()


def test_the_note_names_the_exclusive_holder(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    assert exclusive_holder_note(path) is None  # no file yet
    lock = FileLock(path)
    assert lock.try_exclusive()
    lock.write_note("longer-than-the-next-one")
    lock.write_note(str(os.getpid()))
    assert exclusive_holder_note(path) == str(os.getpid())
    lock.release()
    assert exclusive_holder_note(path) is None  # the file stays, the lock is gone
