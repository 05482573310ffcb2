"""An index snapshot never takes over another writer's copy in progress: two processes on
one data folder snapshot to the same name within a second (found by the two-writer
stress, issue 30; the database backup's twin is in tests/store/test_repair.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.test_store_maintenance import Env, build, ingest_facts


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    e = build(tmp_path)
    yield e
    e.memory.close()
    e.log.close()


def test_an_index_snapshot_leaves_another_writers_partial_alone(env: Env) -> None:
    ingest_facts(env, "a", "I live in Lisbon these days.")
    dest = env.tmp / "backups" / "index-20260301-030000.faiss"
    dest.parent.mkdir()
    theirs = dest.with_name(f".{dest.name}.partial")  # the other process's, being written
    theirs.write_bytes(b"half written")
    assert env.memory.snapshot_index(dest) == dest
    assert dest.read_bytes() == env.memory.item_layer.index_path.read_bytes()
    assert theirs.read_bytes() == b"half written"
