"""SIGKILL mid-ingest loses no committed item; a stale, deleted or corrupt index is rebuilt.

Real SQLite file, real FAISS index, the hashed embedder (the model is not what is tested).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.manager import MemoryConfig, MemoryManager
from rilai_desktop.memory.types import Turn
from rilai_desktop.paths import REPO_ROOT, ensure_private_dir
from rilai_desktop.store import EventLog


def _open(home: Path) -> tuple[EventLog, MemoryManager]:
    log = EventLog(home / "rilai.db")
    manager = MemoryManager(
        log,
        HashEmbedder(),
        storage_dir=home / "memory",
        categories_dir=home / "categories",
        events=log,
        config=MemoryConfig(storage_dir=home / "memory", auto_consolidate=False),
    )
    return log, manager


def _rebuilt_events(log: EventLog) -> list[dict[str, object]]:
    return [dict(e.payload) for e in log.events(kind=EventKind.MEMORY_INDEX_REBUILT)]


@pytest.mark.slow
def test_sigkill_during_ingest_then_reopen(tmp_path: Path) -> None:
    home = ensure_private_dir(tmp_path / "data")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.memory._ingest_child", str(home)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    reported: list[str] = []
    deadline = time.monotonic() + 90
    while len(reported) < 150 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        reported.append(line.strip())
    proc.send_signal(signal.SIGKILL)  # mid-ingest, no clean-up of any kind
    proc.wait(timeout=10)
    proc.stdout.close()
    assert len(reported) >= 150, "the child did not get going"

    log, manager = _open(home)
    with log:
        assert log.integrity_check() == "ok"
        rebuilt = manager.open()
        assert rebuilt is not None, "the stale index was not detected"
        assert "database has" in rebuilt[0]
        events = _rebuilt_events(log)
        assert len(events) == 1 and events[0]["item_count"] == manager.item_layer.count()
        # every item the child saw committed is there, and in the index
        for item_id in reported:
            assert manager.get_item(item_id) is not None, item_id
        # (the child's "favourite food" sentences share a slot: the newer one invalidates)
        assert manager.item_layer.count(valid_only=False) >= len(reported)
        assert len(manager.item_layer.index) == manager.item_layer.count()
        hit = manager.retrieve("favourite tomato soup", mode="rag", k=3)
        assert hit.items
        manager.close()

    # a clean reopen finds the saved index in sync: no second rebuild
    log, manager = _open(home)
    with log:
        assert manager.open() is None
        assert len(_rebuilt_events(log)) == 1


def _ingest_some(home: Path) -> int:
    log, manager = _open(home)
    with log:
        manager.open()
        manager.ingest_turns(
            [
                Turn(id="t1", speaker="user", text="I love jazz music on rainy evenings"),
                Turn(id="t2", speaker="user", text="My favourite food is lentil soup"),
            ],
            mode="rules",
        )
        manager.close()
        return manager.item_layer.count()


@pytest.mark.parametrize("damage", ["delete", "corrupt", "truncate", "sidecar"])
def test_a_damaged_index_is_rebuilt_with_an_event(tmp_path: Path, damage: str) -> None:
    home = ensure_private_dir(tmp_path / "data")
    count = _ingest_some(home)
    index = home / "memory" / "index.faiss"
    sidecar = home / "memory" / "index.faiss.json"
    assert index.is_file() and sidecar.is_file()
    if damage == "delete":
        index.unlink()
    elif damage == "corrupt":
        index.write_bytes(b"\x00garbage\xff" * 100)
    elif damage == "truncate":
        data = index.read_bytes()
        index.write_bytes(data[: len(data) // 2])
    else:
        sidecar.write_text("{not json")
    log, manager = _open(home)
    with log:
        rebuilt = manager.open()
        assert rebuilt is not None
        events = _rebuilt_events(log)
        assert [e["reason"] for e in events] == [rebuilt[0]]
        assert events[0]["item_count"] == count
        assert len(manager.item_layer.index) == count
        assert manager.retrieve("jazz music", mode="rag", k=1).items
