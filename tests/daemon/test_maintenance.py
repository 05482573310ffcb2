"""Maintenance over a fake MaintenanceTasks: order, failure isolation, dry runs, the summary,
deferral during a turn, the last-run record and the rotation of backup files."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rilai_desktop.config import Settings
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.maintenance import (
    DB_BACKUP,
    INDEX_SNAPSHOT,
    LAST_RUN_FILE,
    STEPS,
    Maintenance,
    due,
    read_last_run,
    rotate,
    stamp,
    unique_name,
)
from rilai_desktop.errors import ConsolidationError

T0 = datetime(2026, 3, 1, 3, 0, 0, tzinfo=UTC)


class FakeTasks:
    """Records each call; ``fail`` names the calls that raise, ``snapshot`` whether an
    index exists to snapshot."""

    def __init__(self, fail: dict[str, Exception] | None = None, *, snapshot: bool = True):
        self.calls: list[tuple[str, Any]] = []
        self.fail = fail or {}
        self.snapshot = snapshot

    def _call(self, name: str, arg: Any = None) -> None:
        self.calls.append((name, arg))
        if name in self.fail:
            raise self.fail[name]

    def delete_expired_contexts(self, now: datetime) -> int:
        self._call("delete_expired_contexts", now)
        return 2

    def cleanup_old_daily(self, retention_days: int) -> int:
        self._call("cleanup_old_daily", retention_days)
        return 1

    def apply_resource_retention(self, now: datetime, retention_days: int) -> int:
        self._call("apply_resource_retention", (now, retention_days))
        return 3

    def consolidate_pending(self) -> list[str]:
        self._call("consolidate_pending")
        return ["health"]

    def snapshot_index(self, dest: Path) -> Path | None:
        self._call("snapshot_index", dest)
        if not self.snapshot:
            return None
        dest.write_bytes(b"index")
        dest.with_name(dest.name + ".json").write_text("{}")
        return dest

    def optimize_database(self) -> None:
        self._call("optimize_database")

    def backup_database(self, dest_dir: Path, keep: int) -> Path:
        self._call("backup_database", (dest_dir, keep))
        return dest_dir / "rilai-20260301-030000.db"


def make(
    tmp_path: Path, tasks: FakeTasks, *, keep: int = 5, busy: Any = None
) -> tuple[Maintenance, FakeClock]:
    settings_ = Settings.model_validate(
        {
            "daemon": {"backups_keep": keep, "resource_retention_days": 90},
            "memory": {"journal_retention_days": 30},
        }
    )
    clock = FakeClock(T0)
    return Maintenance(tasks, settings_, tmp_path / "data", clock, busy=busy), clock


def test_runs_every_step_in_order_with_the_settings(tmp_path: Path) -> None:
    tasks = FakeTasks()
    m, _ = make(tmp_path, tasks, keep=4)
    summary = m.run(T0)
    assert [c[0] for c in tasks.calls] == [
        "delete_expired_contexts",
        "cleanup_old_daily",
        "apply_resource_retention",
        "consolidate_pending",
        "snapshot_index",
        "optimize_database",
        "backup_database",
    ]
    args = dict(tasks.calls)
    assert args["delete_expired_contexts"] == T0
    assert args["cleanup_old_daily"] == 30
    assert args["apply_resource_retention"] == (T0, 90)
    assert args["backup_database"] == (tmp_path / "data" / "backups", 4)
    assert args["snapshot_index"] == tmp_path / "data" / "backups" / "index-20260301-030000.faiss"
    assert list(summary["steps"]) == list(STEPS)
    assert summary["ok"] is True


def test_summary_shape_is_json_and_says_what_each_step_did(tmp_path: Path) -> None:
    m, _ = make(tmp_path, FakeTasks())
    summary = m.run(T0)
    assert json.loads(json.dumps(summary)) == summary
    assert summary["at"] == T0.isoformat() and summary["dry_run"] is False
    assert summary["ms"] >= 0
    steps = summary["steps"]
    assert steps["expired_contexts"]["result"] == 2
    assert steps["old_daily_logs"]["result"] == 1
    assert steps["resource_retention"]["result"] == 3
    assert steps["consolidation"]["result"] == ["health"]
    assert steps["optimize"]["result"] is None
    assert steps["backup"]["result"].endswith("rilai-20260301-030000.db")
    assert steps["index_snapshot"]["result"]["path"].endswith("index-20260301-030000.faiss")
    for step in steps.values():
        assert step["status"] == "done" and step["ms"] >= 0


def test_one_failing_step_is_recorded_and_the_others_still_run(tmp_path: Path) -> None:
    tasks = FakeTasks(
        {
            "consolidate_pending": ConsolidationError("the model said nothing useful"),
            "optimize_database": RuntimeError("boom"),
        }
    )
    m, _ = make(tmp_path, tasks)
    summary = m.run(T0)
    assert len(tasks.calls) == len(STEPS)  # every step was tried
    assert summary["ok"] is False
    failed = summary["steps"]["consolidation"]
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == "MEM-006"
    assert failed["error"]["type"] == "ConsolidationError"
    assert "useful" in failed["error"]["message"]
    assert summary["steps"]["optimize"]["error"] == {
        "type": "RuntimeError",
        "code": None,
        "message": "boom",
    }
    assert summary["steps"]["backup"]["status"] == "done"
    assert json.loads(json.dumps(summary)) == summary


def test_dry_run_does_nothing(tmp_path: Path) -> None:
    tasks = FakeTasks()
    m, _ = make(tmp_path, tasks)
    summary = m.run(T0, dry_run=True)
    assert tasks.calls == []
    assert summary["dry_run"] is True and summary["ok"] is True
    assert {s["status"] for s in summary["steps"].values()} == {"planned"}
    assert "90 days" in summary["steps"]["resource_retention"]["what"]
    assert not (tmp_path / "data").exists()  # no backups folder, no last-run record
    assert m.last_run() is None


def test_memory_steps_are_deferred_while_a_turn_runs(tmp_path: Path) -> None:
    tasks = FakeTasks()
    m, _ = make(tmp_path, tasks, busy=lambda: True)
    summary = m.run(T0)
    names = [c[0] for c in tasks.calls]
    assert names == [
        "delete_expired_contexts",
        "cleanup_old_daily",
        "optimize_database",
        "backup_database",
    ]
    for step in ("resource_retention", "consolidation", "index_snapshot"):
        assert summary["steps"][step] == {"status": "deferred", "reason": "a turn is running"}
    assert summary["ok"] is True


def test_a_busy_probe_that_fails_counts_as_busy(tmp_path: Path) -> None:
    def broken() -> bool:
        raise RuntimeError("no runner")

    tasks = FakeTasks()
    m, _ = make(tmp_path, tasks, busy=broken)
    assert m.run(T0)["steps"]["consolidation"]["status"] == "deferred"


def test_the_clock_supplies_now_when_none_is_given(tmp_path: Path) -> None:
    tasks = FakeTasks()
    m, clock = make(tmp_path, tasks)
    clock.advance(3600)
    summary = m.run()
    assert summary["at"] == (T0 + timedelta(hours=1)).isoformat()
    assert dict(tasks.calls)["delete_expired_contexts"] == T0 + timedelta(hours=1)


def test_index_snapshots_rotate_with_their_sidecars(tmp_path: Path) -> None:
    tasks = FakeTasks()
    m, _ = make(tmp_path, tasks, keep=2)
    for hour in range(4):
        summary = m.run(T0 + timedelta(hours=6 * hour))
    backups = tmp_path / "data" / "backups"
    assert sorted(p.name for p in backups.iterdir()) == [
        "index-20260301-150000.faiss",
        "index-20260301-150000.faiss.json",
        "index-20260301-210000.faiss",
        "index-20260301-210000.faiss.json",
    ]
    assert summary["steps"]["index_snapshot"]["result"]["rotated_out"] == [
        "index-20260301-090000.faiss"
    ]
    assert oct(backups.stat().st_mode & 0o777) == "0o700"


def test_no_index_means_no_snapshot_and_no_rotation(tmp_path: Path) -> None:
    m, _ = make(tmp_path, FakeTasks(snapshot=False))
    step = m.run(T0)["steps"]["index_snapshot"]
    assert step["result"] == {"path": None, "rotated_out": []}


def test_last_run_is_recorded_and_due_follows_it(tmp_path: Path) -> None:
    m, clock = make(tmp_path, FakeTasks())
    assert m.due(T0) is True  # never ran
    m.run(T0)
    record = tmp_path / "data" / LAST_RUN_FILE
    assert oct(record.stat().st_mode & 0o777) == "0o600"
    assert m.last_run() == T0
    assert m.due(T0 + timedelta(hours=5, minutes=59)) is False
    assert m.due(T0 + timedelta(hours=6)) is True
    assert m.due(T0 - timedelta(minutes=1)) is True  # the clock went back: run again
    clock.advance(7 * 3600)
    assert m.due() is True


@pytest.mark.parametrize(
    "content", ["", "{", "[]", '{"at": 5}', '{"at": "yesterday"}', '{"at": "2026-03-01T03:00:00"}']
)
def test_a_bad_last_run_record_reads_as_never(tmp_path: Path, content: str) -> None:
    (tmp_path / LAST_RUN_FILE).write_text(content)
    assert read_last_run(tmp_path) is None


def test_due_helper() -> None:
    assert due(T0, None, 6) is True
    assert due(T0, T0 - timedelta(hours=1), 6) is False
    assert due(T0, T0 - timedelta(hours=6), 6) is True


def test_stamp_and_unique_names(tmp_path: Path) -> None:
    local = datetime(2026, 3, 1, 4, 0, 0, tzinfo=UTC).astimezone(timezone(timedelta(hours=1)))
    assert stamp(local) == "20260301-040000"  # always UTC
    with pytest.raises(ValueError, match="naive"):
        stamp(datetime(2026, 3, 1))
    first = unique_name(tmp_path, "rilai", ".db", T0)
    assert first.name == "rilai-20260301-030000.db"
    first.touch()
    second = unique_name(tmp_path, "rilai", ".db", T0)
    assert second.name == "rilai-20260301-030000-1.db"


def test_rotate_keeps_the_newest_and_touches_nothing_else(tmp_path: Path) -> None:
    names = [
        "rilai-20260301-030000.db",
        "rilai-20260301-030000-1.db",  # same second, made later
        "rilai-20260301-090000.db",
        "rilai-20260228-230000.db",
        "notes.txt",
        "rilai-latest.db",
        "index-20260301-030000.faiss",
    ]
    for name in names:
        (tmp_path / name).write_text("x")
    removed = rotate(tmp_path, DB_BACKUP, 2)
    assert sorted(p.name for p in removed) == [
        "rilai-20260228-230000.db",
        "rilai-20260301-030000.db",
    ]
    assert sorted(os.listdir(tmp_path)) == sorted(
        [
            "rilai-20260301-030000-1.db",
            "rilai-20260301-090000.db",
            "notes.txt",
            "rilai-latest.db",
            "index-20260301-030000.faiss",
        ]
    )
    with pytest.raises(ValueError, match="at least 1"):
        rotate(tmp_path, DB_BACKUP, 0)
    assert rotate(tmp_path / "missing", INDEX_SNAPSHOT, 3) == []


@settings(max_examples=50, deadline=None)
@given(
    hours=st.lists(st.integers(min_value=0, max_value=10_000), min_size=0, max_size=12),
    keep=st.integers(min_value=1, max_value=6),
)
def test_rotation_property(tmp_path_factory: pytest.TempPathFactory, hours: list[int], keep: int):
    folder = tmp_path_factory.mktemp("rot")
    made = []
    for h in hours:
        path = unique_name(folder, "rilai", ".db", T0 + timedelta(hours=h))
        path.write_text("x")
        made.append((T0 + timedelta(hours=h), path.name))
    rotate(folder, DB_BACKUP, keep)
    left = sorted(os.listdir(folder))
    assert len(left) == min(len(made), keep)
    newest = sorted(made, key=lambda m: (m[0], len(m[1]), m[1]))[len(made) - len(left) :]
    assert left == sorted(name for _, name in newest)
