"""A damaged database is moved aside, never overwritten, and the last good backup restored
(store/repair.py, `rilai doctor --repair`); a full disk says so (issue 30, proof 7)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.errors import DatabaseLockedError, DiskFullError, NotADatabaseError
from rilai_desktop.paths import ensure_private_dir
from rilai_desktop.store import EventLog
from rilai_desktop.store.db import translate
from rilai_desktop.store.repair import diagnose, repair


def _log_with_turns(db: Path, turns: range) -> None:
    with EventLog(db) as log:
        for turn in turns:
            log.append("s", turn, EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": turn})


def test_repair_moves_the_damaged_file_aside_and_restores_the_newest_good_backup(
    tmp_path: Path,
) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    backups = ensure_private_dir(tmp_path / "data" / "backups")
    _log_with_turns(db, range(1, 4))
    with EventLog(db) as log:
        old = log.backup(backups / "rilai-20260101-000000.db")
    _log_with_turns(db, range(4, 6))
    with EventLog(db) as log:
        good = log.backup(backups / "rilai-20260102-000000.db")
    newest_bad = backups / "rilai-20260103-000000.db"
    newest_bad.write_bytes(b"half a backup")
    _log_with_turns(db, range(6, 8))  # written after the last good backup
    with db.open("r+b") as fh:  # damage the page of the events' rows, keep the header
        fh.seek(4096)
        fh.write(b"\xff" * 4096)
    damaged = db.read_bytes()
    assert diagnose(db) is not None

    outcome = repair(db, [newest_bad, good, old])

    assert outcome.moved_to is not None and outcome.moved_to.read_bytes() == damaged
    assert outcome.restored_from == good
    assert outcome.tried and newest_bad.name in outcome.tried[0]
    # each reopen marks the unfinished turns aborted: two events a turn
    assert outcome.backup_events == 10
    assert outcome.lost_since_backup == 2  # turns 6 and 7, still counted in the damaged file
    assert "moved aside" in outcome.summary() and good.name in outcome.summary()
    assert diagnose(db) is None
    with EventLog(db) as log:
        assert {e.turn_id for e in log.replay_session("s")} == {1, 2, 3, 4, 5}


def test_repair_leaves_a_healthy_database_alone(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    _log_with_turns(db, range(1, 3))
    before = db.read_bytes()
    outcome = repair(db, [])
    assert outcome.damage is None and db.read_bytes() == before
    assert not list(db.parent.glob("*.damaged-*"))


def test_repair_without_a_backup_still_keeps_the_damaged_file(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    db.write_bytes(b"garbage " * 100)
    outcome = repair(db, [])
    assert not db.exists()
    assert outcome.moved_to is not None and outcome.moved_to.read_bytes() == b"garbage " * 100
    assert "no good backup" in outcome.summary()


def test_repair_refuses_while_another_process_has_the_log_open(tmp_path: Path) -> None:
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    _log_with_turns(db, range(1, 2))
    with EventLog(db):
        with db.open("r+b") as fh:
            fh.seek(4096)
            fh.write(b"\xff" * 4096)
        with pytest.raises(DatabaseLockedError) as refused:
            repair(db, [])
    assert "nothing was changed" in refused.value.message
    assert db.exists()


def test_a_damaged_database_names_doctor_repair() -> None:
    error = NotADatabaseError("x is damaged")
    assert any("rilai doctor --repair" in hint for hint in error.hints)


def test_a_full_disk_is_reported_as_such(tmp_path: Path) -> None:
    error = translate(sqlite3.OperationalError("database or disk is full"), tmp_path / "r.db")
    assert isinstance(error, DiskFullError)
    assert error.message.startswith("The disk is full")
    assert any("Free some space" in hint for hint in error.hints)


def test_a_backup_never_collides_with_another_writers_copy_in_progress(tmp_path: Path) -> None:
    """Two processes backing up in the same second name the same backup; the second used to
    fail on the first's ``.partial`` (found by the two-writer stress, issue 30)."""
    db = ensure_private_dir(tmp_path / "data") / "rilai.db"
    backups = ensure_private_dir(tmp_path / "data" / "backups")
    _log_with_turns(db, range(1, 3))
    dest = backups / "rilai-20260101-000000.db"
    theirs = backups / f".{dest.name}.partial"  # the other process's copy, being written
    theirs.write_bytes(b"half written")
    with EventLog(db) as log:
        assert log.backup(dest) == dest
    assert diagnose(dest) is None
    assert theirs.read_bytes() == b"half written"
    assert not [p for p in backups.iterdir() if p.name.endswith(".partial") and p != theirs]
