"""StoreMaintenance on a real EventLog + MemoryManager (hash embedder, no model) in tmp_path."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.app.maintenance_tasks import StoreMaintenance
from rilai_desktop.config import Settings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.maintenance import STEPS, Maintenance
from rilai_desktop.errors import (
    ConfigError,
    ConsolidationError,
    MemoryInputError,
    ResourceNotFoundError,
)
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.memory.operations.retention import RAW_TEXT_MARKER
from rilai_desktop.memory.types import Turn
from rilai_desktop.store import EventLog

T0 = datetime(2026, 3, 1, 3, 0, 0, tzinfo=UTC)
SESSION = "0b6c6f1e-5a43-4d52-9a3b-2f1d1c0e9a11"


@dataclass
class Reply:
    text: str


class SummaryModel:
    """A consolidation model: a JSON summary, or junk for topics in ``fail_on``."""

    model_id = "fake-summary"

    def __init__(self, fail_on: Sequence[str] = ()) -> None:
        self.fail_on = list(fail_on)

    def complete(self, messages: Sequence[Mapping[str, str]], **_: Any) -> Reply:
        prompt = messages[-1]["content"]
        if any(topic in prompt for topic in self.fail_on):
            return Reply("not json at all")
        return Reply(json.dumps({"summary": "The user shared a few things about life."}))


@dataclass
class Env:
    log: EventLog
    memory: MemoryManager
    clock: FakeClock
    tasks: StoreMaintenance
    tmp: Path


def build(tmp_path: Path, model: SummaryModel | None = None) -> Env:
    log = EventLog(tmp_path / "rilai.db")
    clock = FakeClock(T0)
    memory = MemoryManager(
        log,
        HashEmbedder(),
        storage_dir=tmp_path / "memory",
        categories_dir=tmp_path / "categories",
        journal_dir=tmp_path / "agents",
        events=log,
        consolidation_model=model,
        clock=clock,
        sleep=lambda _s: None,
    )
    memory.open()
    log.append(SESSION, 1, EventKind.SESSION_STARTED, {})
    memory.bind_turn(SESSION, 1)  # as a turn's commit does: memory events join turn 1
    return Env(log, memory, clock, StoreMaintenance(log, memory, clock=clock), tmp_path)


@pytest.fixture
def env(tmp_path: Path) -> Iterator[Env]:
    e = build(tmp_path)
    yield e
    e.memory.close()
    e.log.close()


def ingest_facts(env: Env, prefix: str, *facts: str) -> list[str]:
    turns = [
        Turn(id=f"{prefix}-t{n}", speaker="Sam", text=text, at=env.clock.now())
        for n, text in enumerate(facts)
    ]
    result = env.memory.ingest_turns(turns, mode="rules")
    assert result.stored, "the rules should find facts in these sentences"
    return [result.resource.resource_id, *(i.item_id for i in result.stored)]


def fts_ok(log: EventLog) -> None:
    """FTS5's own check that the external-content index matches memory_resources."""
    with log.transaction() as conn:
        conn.execute(
            "INSERT INTO memory_resources_fts (memory_resources_fts, rank)"
            " VALUES ('integrity-check', 1)"
        )


# ── contexts and daily files ──────────────────────────────────────────────────
def test_expired_contexts_go(env: Env) -> None:
    store = env.memory.contexts
    short = store.save("scratch", {"a": 1}, expires_at=T0 + timedelta(hours=1))
    forever = store.save("scratch", {"b": 2})
    assert env.tasks.delete_expired_contexts(T0 + timedelta(minutes=30)) == 0
    assert env.tasks.delete_expired_contexts(T0 + timedelta(hours=2)) == 1
    assert store.get(short.id) is None and store.get(forever.id) is not None


def test_old_daily_files_go_and_fresh_ones_stay(env: Env) -> None:
    journal = env.memory.journal
    old_a = journal.daily_path("agent_a", T0.date() - timedelta(days=40))
    fresh_a = journal.daily_path("agent_a", T0.date() - timedelta(days=1))
    old_b = journal.daily_path("agent.b", T0.date() - timedelta(days=31))
    for path in (old_a, fresh_a, old_b):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    (journal.root / "not an agent!" / "memory" / "daily").mkdir(parents=True)
    (journal.root / "stray-file").write_text("x")
    assert env.tasks.journal_agents() == ["agent.b", "agent_a"]
    assert env.tasks.cleanup_old_daily(30) == 2
    assert not old_a.exists() and not old_b.exists() and fresh_a.exists()
    assert env.tasks.cleanup_old_daily(30) == 0


def test_no_journal_folder_is_nothing_to_do(env: Env) -> None:
    assert env.tasks.cleanup_old_daily(30) == 0


@pytest.mark.parametrize("days", [0, -3, "30", 2.5, True])
def test_garbage_retention_is_refused_clearly(env: Env, days: Any) -> None:
    with pytest.raises(MemoryInputError, match="days"):
        env.tasks.cleanup_old_daily(days)
    with pytest.raises(MemoryInputError, match="days"):
        env.tasks.apply_resource_retention(T0, days)


def test_a_naive_now_is_refused(env: Env) -> None:
    with pytest.raises(MemoryInputError, match="time zone"):
        env.tasks.apply_resource_retention(datetime(2026, 3, 1), 90)


# ── resource retention ────────────────────────────────────────────────────────
def test_old_raw_text_goes_and_the_items_stay_searchable(env: Env) -> None:
    env.clock.set(T0 - timedelta(days=100))
    old_id, *old_items = ingest_facts(
        env, "old", "I live in Lisbon these days.", "My favourite food is grilled sardines."
    )
    chat = env.memory.store_resource("Sam: hi\nRilai: hello", "conversation", {})
    note = env.memory.store_resource("a pasted document", "document", {})
    env.clock.set(T0 - timedelta(days=10))
    fresh_id, *_ = ingest_facts(env, "new", "I work as a nurse.")
    env.clock.set(T0)
    vectors_before = len(env.memory.item_layer.index)

    assert env.tasks.apply_resource_retention(T0, 90) == 2

    # the conversation nothing was learnt from is gone, through the manager's delete path
    with pytest.raises(ResourceNotFoundError):
        env.memory.get_resource(chat.resource_id)
    # the one items came from keeps its row, turn ids and hash, but not its text
    old = env.memory.get_resource(old_id)
    assert old.content == RAW_TEXT_MARKER
    assert [set(t) for t in old.metadata["turns"]] == [{"id", "speaker", "at"}] * 2
    assert old.metadata["raw_removed_at"] == T0.isoformat()
    assert "Lisbon" not in json.dumps(old.metadata)
    assert env.memory.resource_layer.search("Lisbon") == []
    assert [r.resource_id for r in env.memory.resource_layer.search("retention")] == [old_id]
    # the memory is intact: items, vectors, dense + lexical search
    for item_id in old_items:
        assert env.memory.get_item(item_id) is not None
    assert len(env.memory.item_layer.index) == vectors_before
    hits = env.memory.retrieve("where does Sam live? Lisbon", mode="rag", k=3)
    assert old_items[0] in [i.item_id for i in hits.items]
    assert env.memory.is_healthy
    # younger conversations and other resource types are untouched
    assert "nurse" in env.memory.get_resource(fresh_id).content
    assert env.memory.get_resource(note.resource_id).content == "a pasted document"
    fts_ok(env.log)

    # events: both as daemon events (turn 0 of the latest session)
    deleted = env.log.events(kind=EventKind.MEMORY_RESOURCE_DELETED)
    assert [(e.session_id, e.turn_id) for e in deleted] == [(SESSION, 0)] * 2
    by_id = {e.payload["resource_id"]: e.payload for e in deleted}
    assert by_id[chat.resource_id]["item_ids"] == []
    assert by_id[old_id]["scope"] == "raw_text"
    records = [i.item_id for i in env.memory.item_layer.get_by_resource(old_id) if i.kind == "turn"]
    assert len(records) == 2  # each of Sam's turns kept as itself, beside the facts
    assert by_id[old_id]["kept_item_ids"] == [*old_items, *records]
    assert (env.memory.session_id, env.memory.turn_id) == (SESSION, 1)  # binding put back

    # idempotent, and re-importing the same old transcript is still recognised
    assert env.tasks.apply_resource_retention(T0, 90) == 0
    again = env.memory.ingest_turns(
        [
            Turn(id="old-t0", speaker="Sam", text="I live in Lisbon these days.", at=T0),
            Turn(id="old-t1", speaker="Sam", text="My favourite food is grilled sardines.", at=T0),
        ],
        mode="rules",
    )
    assert again.stored == [] and again.warnings == [f"already ingested: {old_id}"]
    # the marked row can still be deleted for good, and FTS stays consistent
    assert env.memory.delete_resource(old_id, cascade=True)
    fts_ok(env.log)


def test_unreadable_metadata_on_an_old_resource_is_still_handled(env: Env) -> None:
    env.clock.set(T0 - timedelta(days=100))
    old_id, *_ = ingest_facts(env, "odd", "I live in Lisbon these days.")
    with env.log.transaction() as conn:
        conn.execute(
            "UPDATE memory_resources SET metadata = 'not json' WHERE resource_id = ?", (old_id,)
        )
    assert env.tasks.apply_resource_retention(T0, 90) == 1
    row = env.log.connection.execute(
        "SELECT content, metadata FROM memory_resources WHERE resource_id = ?", (old_id,)
    ).fetchone()
    assert row[0] == RAW_TEXT_MARKER
    assert set(json.loads(row[1])) == {"raw_removed_at", "raw_removed_reason"}
    fts_ok(env.log)


# ── consolidation ─────────────────────────────────────────────────────────────
def test_consolidation_runs_only_for_categories_with_new_items(env: Env) -> None:
    assert env.tasks.consolidate_pending() == []
    ingest_facts(env, "a", "I live in Lisbon these days.", "My favourite food is grilled sardines.")
    pending = env.tasks.pending_categories()
    assert pending
    assert env.tasks.consolidate_pending() == pending
    assert env.tasks.consolidate_pending() == []  # nothing new since
    env.memory.remember("My sister is called Ana.", category="family")
    assert env.tasks.consolidate_pending() == ["family"]
    events = env.log.events(kind=EventKind.MEMORY_CATEGORY_CONSOLIDATED)
    assert [e.payload["name"] for e in events] == [*pending, "family"]
    assert {(e.session_id, e.turn_id) for e in events} == {(SESSION, 0)}
    # seed 002: each consolidated page's insight is promoted to Rilai's long-term.md
    long_term = env.memory.journal.read_long_term("rilai")
    assert long_term.count("Promoted: ") == len(pending) + 1
    assert "Promoted: family:" in long_term


def test_a_category_whose_consolidation_fails_stays_pending(tmp_path: Path) -> None:
    env = build(tmp_path, SummaryModel(fail_on=["family"]))
    try:
        env.memory.remember("My sister is called Ana.", category="family")
        env.memory.remember("I like long walks by the sea.", category="preferences")
        with pytest.raises(ConsolidationError) as err:
            env.tasks.consolidate_pending()
        assert err.value.context["consolidated"] == ["preferences"]
        assert list(err.value.context["failed"]) == ["family"]
        assert env.tasks.pending_categories() == ["family"]
        assert (env.memory.session_id, env.memory.turn_id) == (SESSION, 1)
    finally:
        env.memory.close()
        env.log.close()


# ── index snapshot ────────────────────────────────────────────────────────────
def test_index_snapshot_copies_the_index_and_its_sidecar(env: Env) -> None:
    ingest_facts(env, "a", "I live in Lisbon these days.")
    dest_dir = env.tmp / "backups"
    dest_dir.mkdir()
    path = env.tasks.snapshot_index(dest_dir)
    assert path is not None and path.name == "index-20260301-030000.faiss"
    index = env.memory.item_layer.index_path
    assert path.read_bytes() == index.read_bytes()
    assert Path(str(path) + ".json").read_text() == Path(str(index) + ".json").read_text()
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    named = env.tasks.snapshot_index(dest_dir / "chosen.faiss")
    assert named == dest_dir / "chosen.faiss" and named.is_file()
    assert not [p for p in dest_dir.iterdir() if p.name.endswith(".partial")]


# ── the database file ─────────────────────────────────────────────────────────
def test_backups_open_pass_integrity_check_and_rotate(env: Env) -> None:
    dest = env.tmp / "data" / "backups"
    made = []
    for _ in range(4):
        made.append(env.tasks.backup_database(dest, keep=2))
        env.clock.advance(1)
    assert sorted(os.listdir(dest)) == [made[2].name, made[3].name]
    assert made[3].name == "rilai-20260301-030003.db"
    assert oct(dest.stat().st_mode & 0o777) == "0o700"
    for path in made[2:]:
        assert oct(path.stat().st_mode & 0o777) == "0o600"
        with sqlite3.connect(path) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
            assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == env.log.count()
        conn.close()


def test_backup_refuses_a_bad_keep(env: Env) -> None:
    for keep in (0, -1, True, "3"):
        with pytest.raises(ConfigError):
            env.tasks.backup_database(env.tmp / "b", keep)  # type: ignore[arg-type]


def test_optimize_and_backup_while_another_thread_appends(env: Env) -> None:
    errors: list[BaseException] = []
    stop = threading.Event()
    appended = [0]

    def writer() -> None:
        try:
            while not stop.is_set() or appended[0] < 200:
                env.log.append(SESSION, 2, EventKind.DAEMON_TICK, {"timestamp": 1.0})
                appended[0] += 1
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    before = env.log.count()
    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(5):
            env.tasks.optimize_database()
            env.tasks.backup_database(env.tmp / "backups", keep=2)
            env.clock.advance(1)
    finally:
        stop.set()
        thread.join()
    assert errors == []
    assert env.log.count() == before + appended[0]
    assert env.log.integrity_check() == "ok"
    assert env.tasks.last_checkpoint is not None
    assert set(env.tasks.last_checkpoint) == {"busy", "log_frames", "done"}


# ── the whole pass ────────────────────────────────────────────────────────────
def test_a_whole_pass_on_the_real_stores(env: Env) -> None:
    env.clock.set(T0 - timedelta(days=100))
    ingest_facts(env, "a", "I live in Lisbon these days.")
    env.clock.set(T0)
    data = env.tmp / "data"
    settings = Settings.model_validate({"daemon": {"backups_keep": 2}})
    m = Maintenance(env.tasks, settings, data, env.clock)
    summary = m.run(T0)
    assert summary["ok"], summary
    assert list(summary["steps"]) == list(STEPS)
    steps = summary["steps"]
    assert steps["resource_retention"]["result"] == 1
    assert steps["consolidation"]["result"]
    assert steps["index_snapshot"]["result"]["path"].endswith(".faiss")
    assert steps["backup"]["result"].endswith("rilai-20260301-030000.db")
    assert json.loads(json.dumps(summary)) == summary
    dry = m.run(T0 + timedelta(hours=6), dry_run=True)
    assert {s["status"] for s in dry["steps"].values()} == {"planned"}
    assert len(os.listdir(data / "backups")) == 3  # backup + index + its sidecar


def test_events_follow_a_given_session_provider(env: Env) -> None:
    env.memory.remember("My sister is called Ana.", category="family")
    tasks = StoreMaintenance(env.log, env.memory, clock=env.clock, session_id=lambda: "live")
    assert tasks.consolidate_pending() == ["family"]
    env.memory.remember("My brother is called Rui.", category="family")

    def broken() -> str:
        raise RuntimeError("no runner")

    fallback = StoreMaintenance(env.log, env.memory, clock=env.clock, session_id=broken)
    assert fallback.consolidate_pending() == ["family"]
    events = env.log.events(kind=EventKind.MEMORY_CATEGORY_CONSOLIDATED)
    # the broken provider falls back to the latest session in the log
    assert [(e.session_id, e.turn_id) for e in events] == [("live", 0), (SESSION, 0)]
