"""Numbered migrations, and files that must never be overwritten."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.errors import DataDirError, NotADatabaseError, SchemaTooNewError
from rilai_desktop.paths import REPO_ROOT, ensure_private_dir
from rilai_desktop.store import LATEST_VERSION, EventLog, current_version, migrate
from rilai_desktop.store.schema import available_migrations


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return ensure_private_dir(tmp_path / "data")


def test_migrations_are_numbered_without_gaps() -> None:
    versions = [m.version for m in available_migrations()]
    assert versions == list(range(1, LATEST_VERSION + 1))
    assert LATEST_VERSION >= 2


def test_migrate_from_an_empty_file(data: Path) -> None:
    db = data / "rilai.db"
    db.touch(mode=0o600)
    with EventLog(db) as log:
        assert current_version(log.connection) == LATEST_VERSION
        recorded = log.connection.execute("SELECT version, name FROM schema_version").fetchall()
        assert [v for v, _ in recorded] == list(range(1, LATEST_VERSION + 1))
        log.append("s", 1, EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": 1})
        assert log.count() == 1


def test_migrate_from_the_previous_version_keeps_data(data: Path) -> None:
    db = data / "rilai.db"
    conn = sqlite3.connect(db, isolation_level=None)
    assert migrate(conn, target=LATEST_VERSION - 1) == list(range(1, LATEST_VERSION))
    conn.execute(
        "INSERT INTO events (session_id, turn_id, seq, ts_monotonic, ts_wall, kind, payload)"
        " VALUES ('old', 1, 0, 1.0, '2026-01-01T10:00:00+00:00', 'turn_started',"
        ' \'{"user_input": "from v1", "turn_id": 1}\')'
    )
    conn.execute(
        "INSERT INTO events (session_id, turn_id, seq, ts_monotonic, ts_wall, kind, payload)"
        " VALUES ('old', 1, 1, 2.0, '2026-01-01T10:00:01+00:00', 'turn_completed',"
        ' \'{"total_time_ms": 5, "response": "hello"}\')'
    )
    conn.close()
    with EventLog(db) as log:
        assert current_version(log.connection) == LATEST_VERSION
        indexes = {
            r[0]
            for r in log.connection.execute("SELECT name FROM sqlite_master WHERE type='index'")
        }
        assert "idx_events_kind" in indexes
        events = log.replay_session("old")
        assert [e.payload.get("user_input") for e in events] == ["from v1", None]
        assert log.aborted_on_open == []
        assert log.append("old", 1, EventKind.ERROR, {"error": "x"}).seq == 2


def test_a_failed_migration_rolls_back(data: Path) -> None:
    import rilai_desktop.store.schema as mig

    real = mig.available_migrations()
    broken = [
        *real,
        mig.Migration(len(real) + 1, "broken", "CREATE TABLE t (x); SELECT * FROM nope;"),
    ]
    conn = sqlite3.connect(data / "rilai.db", isolation_level=None)
    with pytest.raises(sqlite3.OperationalError):
        mig.migrate(conn, target=len(broken), migrations=broken)
    assert mig.current_version(conn) == len(real)
    assert conn.execute("SELECT name FROM sqlite_master WHERE name='t'").fetchone() is None
    conn.close()


def test_newer_schema_is_refused_untouched(data: Path) -> None:
    db = data / "rilai.db"
    with EventLog(db) as log:
        log.append("s", 1, EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": 1})
        log.connection.execute("INSERT INTO schema_version (version, name) VALUES (99, 'future')")
        log.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = digest(db)
    with pytest.raises(SchemaTooNewError) as info:
        EventLog(db)
    assert info.value.code == "RIL-005"
    assert "99" in info.value.message
    assert any("upgrade" in h for h in info.value.hints)
    assert digest(db) == before


@pytest.mark.parametrize(
    "content",
    [
        b"hello, I am a text file\n" * 10,
        bytes(range(256)) * 8,
        b"SQLite format 3\x00" + b"\xff" * 600,
    ],
    ids=["text", "binary", "fake-header"],
)
def test_a_non_sqlite_file_is_never_overwritten(data: Path, content: bytes) -> None:
    db = data / "rilai.db"
    db.write_bytes(content)
    with pytest.raises(NotADatabaseError) as info:
        EventLog(db)
    assert info.value.code == "RIL-004"
    assert str(db) in info.value.message
    assert db.read_bytes() == content
    assert not Path(f"{db}-wal").exists()


def test_a_directory_where_the_db_should_be(data: Path) -> None:
    (data / "rilai.db").mkdir()
    with pytest.raises(NotADatabaseError):
        EventLog(data / "rilai.db")


def test_data_dir_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("not a directory")
    with pytest.raises(DataDirError):
        ensure_private_dir(blocker)


READONLY_PROBE = """
import sys
from rilai_desktop.errors import RilaiError
from rilai_desktop.store import EventLog
try:
    EventLog(sys.argv[1])
except RilaiError as exc:
    print(exc.code, exc.message)
else:
    print("opened")
"""


def _probe_read_only(data: Path, db: Path) -> str:
    """Open the log in a read-only ``data``. Root ignores permission bits, so as root the
    probe runs in a private mount namespace where ``data`` is bind-mounted read-only (the
    mount vanishes with the namespace); otherwise ``data`` is simply chmod 0555."""
    probe = [sys.executable, "-c", READONLY_PROBE, str(db)]
    if os.geteuid() == 0:
        if shutil.which("unshare") is None or shutil.which("mount") is None:
            pytest.skip("running as root without unshare/mount: cannot make a read-only dir")
        script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'
        cmd = ["unshare", "-m", "sh", "-c", script, "sh", str(data), *probe]
    else:
        data.chmod(0o555)
        cmd = probe
    proc = subprocess.run(
        cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    if os.geteuid() == 0 and proc.returncode != 0 and "mount" in proc.stderr:
        pytest.skip(f"cannot bind-mount read-only here: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize("with_existing_db", [False, True])
def test_read_only_data_dir(with_existing_db: bool) -> None:
    root = Path(tempfile.mkdtemp(prefix="rilai-ro-"))
    try:
        root.chmod(0o755)
        data = root / "data"
        data.mkdir(mode=0o755)
        db = data / "rilai.db"
        if with_existing_db:
            with EventLog(db) as log:
                log.append("s", 1, EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": 1})
                log.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for p in data.iterdir():
                p.chmod(0o644)
            before = digest(db)
        out = _probe_read_only(data, db)
        assert out.startswith("RIL-002"), out
        assert "not writable" in out
        if with_existing_db:
            assert digest(db) == before
        else:
            assert not db.exists()
    finally:
        data.chmod(0o755)
        shutil.rmtree(root)
