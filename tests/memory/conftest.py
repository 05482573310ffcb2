"""Shared fakes for the memory-core tests: a real EventLog in tmp_path, HashEmbedder,
a settable clock and a recording sleep. Nothing of ours is patched."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.manager import MemoryConfig, MemoryManager
from rilai_desktop.memory.ports import TextModel
from rilai_desktop.store import EventLog

T0 = datetime(2026, 1, 20, 10, 0, 0, tzinfo=UTC)


class Clock:
    """A settable clock: tests move time by hand."""

    def __init__(self, now: datetime = T0) -> None:
        self.at = now

    def now(self) -> datetime:
        return self.at

    def advance(self, **delta: float) -> None:
        self.at += timedelta(**delta)


class SleepRecorder:
    """A fake ``time.sleep``: records each requested delay and returns at once."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


class CorruptingSink:
    """An EventSink over the real log that sends an invalid payload (NaN) for one kind.

    The real EventLog refuses it inside the mutation's transaction, which is how the tests
    make a mutation fail half-way through and check that nothing of it was written.
    """

    def __init__(self, log: EventLog, fail_on: str) -> None:
        self.log = log
        self.fail_on = fail_on

    def append(
        self, session_id: str, turn_id: int, kind: Any, payload: Mapping[str, Any] | None = None
    ) -> Any:
        if str(kind) == self.fail_on:
            payload = {**(payload or {}), "broken": float("nan")}
        return self.log.append(session_id, turn_id, kind, payload)


@pytest.fixture(scope="session")
def migrated_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One freshly created and migrated database, copied for each test: creating one costs
    ~40 ms of fsyncs, copying it ~1 ms."""
    path = tmp_path_factory.mktemp("template") / "rilai.db"
    EventLog(path).close()
    return path


@pytest.fixture
def log(tmp_path: Path, migrated_db: Path) -> Iterator[EventLog]:
    path = tmp_path / "rilai.db"
    shutil.copyfile(migrated_db, path)
    with EventLog(path) as opened:
        yield opened


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


def make_manager(
    log: EventLog,
    tmp_path: Path,
    *,
    embedder: HashEmbedder | None = None,
    clock: Clock | None = None,
    sleeps: SleepRecorder | None = None,
    events: Any = "log",
    config: MemoryConfig | None = None,
    extraction_model: TextModel | None = None,
    consolidation_model: TextModel | None = None,
    retrieval_model: TextModel | None = None,
) -> MemoryManager:
    """A MemoryManager on the fakes (not opened)."""
    return MemoryManager(
        log,
        embedder or HashEmbedder(),
        storage_dir=tmp_path / "memory",
        categories_dir=tmp_path / "categories",
        events=log if events == "log" else events,
        config=config,
        extraction_model=extraction_model,
        consolidation_model=consolidation_model,
        retrieval_model=retrieval_model,
        clock=clock or Clock(),
        sleep=sleeps or SleepRecorder(),
    )


@pytest.fixture
def manager(
    log: EventLog,
    tmp_path: Path,
    embedder: HashEmbedder,
    clock: Clock,
    sleeps: SleepRecorder,
) -> Iterator[MemoryManager]:
    m = make_manager(log, tmp_path, embedder=embedder, clock=clock, sleeps=sleeps)
    m.open()
    yield m
    m.close()


def event_payloads(log: EventLog, kind: str) -> list[dict[str, Any]]:
    return [e.payload for e in log.events(kind=kind)]
