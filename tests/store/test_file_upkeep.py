"""EventLog.optimize() and EventLog.backup() (store/file_upkeep.py) on a real file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.errors import StorageError
from rilai_desktop.store import EventLog

SESSION = "0b6c6f1e-5a43-4d52-9a3b-2f1d1c0e9a11"


def test_optimize_checkpoints_the_wal(tmp_path: Path) -> None:
    with EventLog(tmp_path / "rilai.db") as log:
        log.append(SESSION, 1, EventKind.SESSION_STARTED, {})
        figures = log.optimize()
        assert figures is not None and set(figures) == {"busy", "log_frames", "done"}
        assert log.integrity_check() == "ok"


def test_backup_is_a_checked_self_contained_copy(tmp_path: Path) -> None:
    with EventLog(tmp_path / "rilai.db") as log:
        log.append(SESSION, 1, EventKind.SESSION_STARTED, {})
        dest = log.backup(tmp_path / "copy.db")
        assert dest == tmp_path / "copy.db"
        assert oct(dest.stat().st_mode & 0o777) == "0o600"
        assert not (tmp_path / ".copy.db.partial").exists()
        with sqlite3.connect(dest) as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
            assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == log.count()
        conn.close()


def test_backup_into_a_missing_folder_is_a_storage_error(tmp_path: Path) -> None:
    with EventLog(tmp_path / "rilai.db") as log, pytest.raises(StorageError):
        log.backup(tmp_path / "nowhere" / "copy.db")
    assert not (tmp_path / "nowhere").exists()
