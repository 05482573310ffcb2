"""MemoryManager end to end on the fakes: seed 003's API, events, errors and retry policy."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rilai_desktop import errors
from rilai_desktop.errors import (
    MEMORY_ERRORS,
    CategoryExistsError,
    CategoryNotFoundError,
    ConsolidationError,
    EmbeddingError,
    ExtractionError,
    MemoryInputError,
    ResourceNotFoundError,
    RetrievalError,
    StorageError,
    VectorIndexError,
)
from rilai_desktop.llm.errors import ModelCallError
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.manager import MemoryConfig, MemoryManager, MemoryRetryConfig
from rilai_desktop.memory.types import (
    TURN_KIND,
    ItemDraft,
    MemoryItem,
    MemoryStats,
    RetrievalMode,
    Turn,
)
from rilai_desktop.store import EventLog
from tests.memory.conftest import (
    T0,
    Clock,
    CorruptingSink,
    SleepRecorder,
    event_payloads,
    make_manager,
)

CHAT = "User: I love hiking in the Alps.\nRilai: That sounds lovely!\nUser: I live in Berlin now."


def count(log: EventLog, table: str) -> int:
    return int(log.connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def kinds(log: EventLog) -> list[str]:
    return [e.kind.value for e in log.events()]


def in_sync(manager: MemoryManager) -> bool:
    layer = manager.item_layer
    return sorted(layer.index.ids().tolist()) == sorted(layer.expected_ids().tolist())


def ingest(manager: MemoryManager, text: str = CHAT) -> tuple[str, list[str]]:
    """Store and extract ``text``; returns the resource id and its FACTS' ids (what
    extract_and_store returns; the turn records are in ``records``)."""
    res = manager.store_resource(text, "conversation")
    items = manager.extract_and_store(res.resource_id, mode="rules")
    return res.resource_id, [i.item_id for i in items]


def records(manager: MemoryManager, resource_id: str) -> list[MemoryItem]:
    """The resource's turn records (kind "turn"), in the order they were stored."""
    items = manager.item_layer.get_by_resource(resource_id)
    return [i for i in items if i.kind == TURN_KIND]


# ── Layer 1 ────────────────────────────────────────────────────────────────


def test_store_resource_and_its_event(manager: MemoryManager, log: EventLog, clock: Clock) -> None:
    res = manager.store_resource("Pricing starts at $99", "document", {"title": "T", "a": 1})
    assert res.resource_type == "document" and res.created_at == clock.now()
    assert manager.get_resource(res.resource_id) == res
    (event,) = log.events(kind="memory.resource_stored")
    assert (event.session_id, event.turn_id) == ("memory", 0)
    assert event.payload == {
        "resource_id": res.resource_id,
        "resource_type": "document",
        "content_length": 21,
        "metadata_keys": ["a", "title"],
    }
    manager.bind_turn("s1", 7)
    manager.store_resource("more", "feedback")
    event = log.events(kind="memory.resource_stored")[-1]
    assert (event.session_id, event.turn_id) == ("s1", 7)
    assert event.payload["metadata_keys"] == []


@pytest.mark.parametrize(
    ("content", "rtype"), [("", "document"), ("x" * 1_000_001, "document"), ("ok", "email")]
)
def test_bad_resources_write_nothing(
    manager: MemoryManager, log: EventLog, content: str, rtype: str
) -> None:
    with pytest.raises(MemoryInputError) as err:
        manager.store_resource(content, rtype)
    assert isinstance(err.value, ValueError)
    assert count(log, "memory_resources") == 0 and log.count() == 0


# ── Layer 2 ────────────────────────────────────────────────────────────────


def test_extract_and_store_with_rules(manager: MemoryManager, log: EventLog) -> None:
    res = manager.store_resource(CHAT, "conversation")
    items = manager.extract_and_store(res.resource_id, mode="rules")
    assert [(i.content, i.category) for i in items] == [
        ("I love hiking in the Alps.", "preferences"),
        ("I live in Berlin now.", "biography"),
    ]
    assert items[1].slot == "lives_in"
    assert items[0].source_turn_ids == [f"{res.resource_id}#L0"]
    assert all(i.source_resource_id == res.resource_id for i in items)
    # beside the facts, one turn record per user turn (none for Rilai's line 1)
    recs = records(manager, res.resource_id)
    assert [(r.content, r.speaker, r.source_turn_ids, r.category) for r in recs] == [
        ("I love hiking in the Alps.", "User", [f"{res.resource_id}#L0"], None),
        ("I live in Berlin now.", "User", [f"{res.resource_id}#L2"], None),
    ]
    (payload,) = event_payloads(log, "memory.items_extracted")
    assert set(payload) == {
        "resource_id",
        "item_ids",
        "item_count",
        "categories",
        "extraction_time_ms",
    }
    assert payload["resource_id"] == res.resource_id
    assert payload["item_ids"] == [i.item_id for i in [*items, *recs]]
    assert payload["item_count"] == 4
    assert payload["categories"] == ["biography", "preferences"]
    assert payload["extraction_time_ms"] >= 0
    # the categories the items needed were created, each with its event and its file
    created = event_payloads(log, "memory.category_created")
    assert sorted(p["name"] for p in created) == ["biography", "preferences"]
    assert [c.name for c in manager.list_categories()] == ["biography", "preferences"]
    text = (manager.category_layer.folder / "preferences.md").read_text()
    assert "I love hiking in the Alps." in text
    assert len(manager.item_layer.index) == 4 and in_sync(manager)


def test_extracting_again_reinforces(manager: MemoryManager, log: EventLog) -> None:
    rid, first = ingest(manager)
    recorded = [r.item_id for r in records(manager, rid)]
    assert len(recorded) == 2
    again = manager.extract_and_store(rid, mode="rules")
    assert [i.item_id for i in again] == first
    assert all(i.reinforcement_count == 1 for i in again)
    payload = event_payloads(log, "memory.items_extracted")[-1]
    assert payload["item_count"] == 0 and payload["item_ids"] == first
    updates = event_payloads(log, "memory.item_updated")
    assert updates == [{"item_id": i, "change": "reinforced"} for i in first]
    # the same turns again: each keeps its one record (none added, none reinforced)
    after = records(manager, rid)
    assert [r.item_id for r in after] == recorded
    assert all(r.reinforcement_count == 0 for r in after)
    assert manager.item_layer.count() == 4


def test_resource_not_found(manager: MemoryManager, log: EventLog) -> None:
    with pytest.raises(ResourceNotFoundError) as err:
        manager.extract_and_store("res_missing")
    assert err.value.code == "MEM-001"
    assert err.value.message == "Resource 'res_missing' not found"
    assert err.value.resource_id == "res_missing"
    assert err.value.recovery_suggestions == [
        "Verify the resource ID is correct",
        "Use list_by_type() to see available resources",
    ]
    with pytest.raises(ResourceNotFoundError):
        manager.store_drafts("res_missing", [ItemDraft(content="a fact")])
    with pytest.raises(ResourceNotFoundError):
        manager.get_resource("res_missing")
    assert log.count() == 0 and count(log, "memory_items") == 0
    assert in_sync(manager)


@pytest.mark.parametrize("hint", ["Bad Name", "x" * 65, "a-b", ""])
def test_invalid_category_hint(manager: MemoryManager, log: EventLog, hint: str) -> None:
    res = manager.store_resource(CHAT, "conversation")
    with pytest.raises(MemoryInputError, match="snake_case"):
        manager.extract_and_store(res.resource_id, category_hint=hint)
    assert count(log, "memory_items") == 0


def test_category_hint_files_every_item(manager: MemoryManager) -> None:
    res = manager.store_resource(CHAT, "conversation")
    items = manager.extract_and_store(res.resource_id, "travel_notes", mode="rules")
    assert {i.category for i in items} == {"travel_notes"}
    assert manager.category_layer.names() == ["travel_notes"]


def test_llm_extraction_failure_falls_back_to_the_rules_in_mode_both(
    log: EventLog, tmp_path: Path, sleeps: SleepRecorder
) -> None:
    llm = ScriptedLLM()
    for _ in range(3):
        llm.enqueue_error(ModelCallError("no model today"))
    manager = make_manager(log, tmp_path, sleeps=sleeps, extraction_model=llm)
    manager.open()
    res = manager.store_resource(CHAT, "conversation")
    items = manager.extract_and_store(res.resource_id, mode="both")
    assert len(items) == 2  # the rules still ran
    assert manager.last_warnings and "llm extraction failed" in manager.last_warnings[0]
    assert sleeps.calls == [2.0, 4.0]  # extraction_backoff_base 2, retried twice
    llm_only = manager.store_resource("User: I adore long walks on the beach.", "conversation")
    for _ in range(3):
        llm.enqueue_error(ModelCallError("no model today"))
    with pytest.raises(ExtractionError) as err:
        manager.extract_and_store(llm_only.resource_id, mode="llm")
    assert err.value.code == "MEM-005"


def test_llm_extraction_items_keep_their_turns(log: EventLog, tmp_path: Path) -> None:
    turns = [
        Turn(id="t1", speaker="user", text="My daughter Mia starts school in September."),
        Turn(id="t2", speaker="rilai", text="How exciting!"),
    ]
    llm = ScriptedLLM()
    llm.enqueue(
        {
            "items": [
                {
                    "content": "The user's daughter Mia starts school in September",
                    "kind": "biography",
                    "importance": "high",
                    "confidence": "high",
                    "turn_ids": ["t1"],
                }
            ]
        }
    )
    manager = make_manager(log, tmp_path, extraction_model=llm)
    manager.open()
    result = manager.ingest_turns(turns, mode="llm")
    (item,) = result.stored
    assert item.source_turn_ids == ["t1"]
    assert item.importance == "high" and item.kind == "biography"


# ── retrieval through the manager ──────────────────────────────────────────


def test_retrieve_modes(manager: MemoryManager) -> None:
    ingest(manager)
    rag = manager.retrieve("where does the user live", mode="rag", k=1)
    assert rag.items[0].content == "I live in Berlin now."
    assert rag.mode_used is RetrievalMode.RAG
    hybrid = manager.retrieve("where does the user live")  # no model: hybrid stays RAG
    assert hybrid.mode_used is RetrievalMode.RAG and not hybrid.escalated
    with pytest.raises(MemoryInputError) as err:
        manager.retrieve("where", mode="llm")
    assert "needs a model" in err.value.message
    assert "Use mode rag or hybrid" in err.value.recovery_suggestions
    with pytest.raises(MemoryInputError, match="mode must be"):
        manager.retrieve("where", mode="fast")
    with pytest.raises(MemoryInputError):
        manager.retrieve("where", k=101)
    with pytest.raises(MemoryInputError):
        manager.retrieve("")


def test_retrieve_with_a_category_filter(manager: MemoryManager) -> None:
    ingest(manager)
    result = manager.retrieve("Alps Berlin", mode="rag", category_filter="biography")
    assert [i.category for i in result.items] == ["biography"]
    with pytest.raises(CategoryNotFoundError) as err:
        manager.retrieve("Alps", category_filter="hobbies")
    assert "Available categories: biography, preferences" in err.value.recovery_suggestions
    with pytest.raises(MemoryInputError):
        manager.retrieve("Alps", category_filter="Not Snake")


def test_retrieve_in_llm_mode_with_a_model(log: EventLog, tmp_path: Path) -> None:
    llm = ScriptedLLM([{"picks": [{"n": 2, "relevance": "high"}]}])
    manager = make_manager(log, tmp_path, retrieval_model=llm)
    manager.open()
    ingest(manager)
    result = manager.retrieve("tell me about the user", mode=RetrievalMode.LLM, k=1)
    assert result.mode_used is RetrievalMode.LLM
    assert len(result.items) == 1 and result.confidence_scores == [0.9]
    assert len(llm.requests) == 1


def test_llm_retrieval_failure_is_retrieval_error(
    log: EventLog, tmp_path: Path, sleeps: SleepRecorder
) -> None:
    llm = ScriptedLLM()
    for _ in range(3):
        llm.enqueue_error(ModelCallError("down"))
    manager = make_manager(log, tmp_path, retrieval_model=llm, sleeps=sleeps)
    manager.open()
    ingest(manager)
    with pytest.raises(RetrievalError) as err:
        manager.retrieve("user", mode="llm")
    assert err.value.code == "MEM-007"
    assert sleeps.calls == [1.0, 2.0]


def test_log_retrieval_stores_only_the_query_hash(manager: MemoryManager, log: EventLog) -> None:
    ingest(manager)
    result = manager.retrieve("private question", mode="rag")
    manager.log_retrieval("private question", "rag", result)
    (payload,) = event_payloads(log, "memory.retrieval_performed")
    assert len(payload["query_hash"]) == 64 and "private" not in json.dumps(payload)
    assert payload["result_count"] == len(result.items) and payload["escalated"] is False


# ── Layer 3 ────────────────────────────────────────────────────────────────


def test_create_category_and_exists(manager: MemoryManager, log: EventLog) -> None:
    cat = manager.create_category("lead_preferences", "Captured preferences from leads")
    assert cat.markdown_content == "# Lead Preferences\n\n*No items yet.*\n"
    assert event_payloads(log, "memory.category_created") == [
        {
            "category_id": cat.category_id,
            "name": "lead_preferences",
            "description": "Captured preferences from leads",
        }
    ]
    with pytest.raises(CategoryExistsError) as err:
        manager.create_category("lead_preferences", "Another description here")
    assert err.value.code == "MEM-003"
    assert len(event_payloads(log, "memory.category_created")) == 1
    assert manager.item_layer.index_loaded  # a refused category costs no index reload
    with pytest.raises(MemoryInputError):
        manager.create_category("Lead Prefs", "Captured preferences from leads")
    with pytest.raises(MemoryInputError):
        manager.create_category("short_desc", "too short")
    assert [c.name for c in manager.list_categories()] == ["lead_preferences"]


def test_get_category_content_and_not_found(manager: MemoryManager) -> None:
    manager.create_category("b_topic", "The second topic of two")
    manager.create_category("a_topic", "The first topic of two")
    assert manager.get_category_content("a_topic") == "# A Topic\n\n*No items yet.*\n"
    with pytest.raises(CategoryNotFoundError) as err:
        manager.get_category_content("c_topic")
    assert err.value.code == "MEM-002"
    assert err.value.message == "Category 'c_topic' not found"
    assert err.value.context["available"] == ["a_topic", "b_topic"]
    assert err.value.recovery_suggestions == [
        "Create the category with create_category()",
        "Available categories: a_topic, b_topic",
    ]
    with pytest.raises(CategoryNotFoundError):
        manager.consolidate_category("c_topic")


def consolidating_manager(
    log: EventLog, tmp_path: Path, llm: ScriptedLLM, sleeps: SleepRecorder, **config: Any
) -> MemoryManager:
    cfg = MemoryConfig(storage_dir=tmp_path / "memory", **config)
    manager = make_manager(
        log, tmp_path, consolidation_model=llm, sleeps=sleeps, config=cfg, clock=Clock()
    )
    manager.open()
    return manager


def test_consolidate_category_with_a_summary(
    log: EventLog, tmp_path: Path, sleeps: SleepRecorder
) -> None:
    llm = ScriptedLLM([{"summary": "The user loves the mountains and hiking."}])
    manager = consolidating_manager(log, tmp_path, llm, sleeps)
    rid, _ = ingest(manager, "User: I love hiking in the Alps.\nUser: I really enjoy climbing.")
    items = manager.item_layer.get_by_category("preferences")
    assert len(items) == 2
    content = manager.consolidate_category("preferences")
    assert content == manager.get_category_content("preferences")
    assert content == (manager.category_layer.folder / "preferences.md").read_text()
    lines = content.rstrip("\n").split("\n")
    assert lines[0] == "# Preferences"
    assert "The user loves the mountains and hiking." in lines
    bullets = [line for line in lines if line.startswith("- ")]
    assert len(bullets) == 2 and all(re.search(r" \[\^[12]\]$", b) for b in bullets)
    assert "## Sources" in lines
    notes = [line for line in lines if line.startswith("[^")]
    assert len(notes) == 2
    for item in items:
        (note,) = [n for n in notes if item.item_id in n]
        assert f"from conversation {rid}" in note
        assert item.source_turn_ids[0] in note
    assert lines[-2:] == ["*Last consolidated: 2026-01-20 10:00:00*", "*Items: 2 | Resources: 1*"]
    assert lines[-3] == "---"
    (payload,) = event_payloads(log, "memory.category_consolidated")
    assert payload["name"] == "preferences" and payload["item_count"] == 2
    assert payload["content_length"] == len(content)
    assert set(payload) == {
        "category_id",
        "name",
        "item_count",
        "content_length",
        "consolidation_time_ms",
    }
    assert manager.get_stats().last_consolidation_at is not None
    # a later refresh without the model keeps the summary
    manager.remember("I also love swimming in lakes", category="preferences")
    assert "The user loves the mountains and hiking." in manager.get_category_content("preferences")
    assert len(llm.requests) == 1


@pytest.mark.parametrize("failure", ["errors", "parrot"])
def test_consolidation_failure_keeps_the_previous_content(
    log: EventLog, tmp_path: Path, sleeps: SleepRecorder, failure: str
) -> None:
    llm = ScriptedLLM()
    manager = consolidating_manager(log, tmp_path, llm, sleeps)
    ingest(manager)
    before = manager.get_category_content("preferences")
    path = manager.category_layer.folder / "preferences.md"
    for _ in range(3):
        if failure == "errors":
            llm.enqueue_error(ModelCallError("model crashed"))
        else:
            llm.enqueue({"summary": "Summarise the facts below as JSON bullets."})
    with pytest.raises(ConsolidationError) as err:
        manager.consolidate_category("preferences")
    assert err.value.code == "MEM-006"
    assert err.value.recovery_suggestions[0] == "Previous category content is preserved"
    assert manager.get_category_content("preferences") == before
    assert path.read_text() == before
    assert event_payloads(log, "memory.category_consolidated") == []
    assert len(llm.requests) == 3 and sleeps.calls == [2.0, 4.0]


def test_consolidation_without_a_model_still_renders(manager: MemoryManager, log: EventLog) -> None:
    ingest(manager)
    content = manager.consolidate_category("biography", force=True)
    assert "- I live in Berlin now. [^1]" in content
    assert content.rstrip().endswith("*Items: 1 | Resources: 1*")
    assert len(event_payloads(log, "memory.category_consolidated")) == 1


def test_auto_consolidation_after_the_interval(
    log: EventLog, tmp_path: Path, sleeps: SleepRecorder
) -> None:
    llm = ScriptedLLM(default={"summary": "Notes the user asked to keep."})
    manager = consolidating_manager(log, tmp_path, llm, sleeps, consolidation_interval=3)
    manager.remember("The wifi password is on the fridge", category="notes")
    manager.remember("Bins go out on Thursday evening", category="notes")
    assert event_payloads(log, "memory.category_consolidated") == []
    assert llm.requests == []
    manager.remember("The spare key is under the blue pot", category="notes")
    (payload,) = event_payloads(log, "memory.category_consolidated")
    assert payload["name"] == "notes" and payload["item_count"] == 3
    assert "Notes the user asked to keep." in manager.get_category_content("notes")
    manager.remember("Dentist number is in the phone", category="notes")
    manager.remember("Recycling goes out every other week", category="notes")
    assert len(event_payloads(log, "memory.category_consolidated")) == 1  # counter was reset
    manager.remember("Boiler service is due in March", category="notes")
    assert len(event_payloads(log, "memory.category_consolidated")) == 2


def test_auto_consolidation_failure_is_a_warning(
    log: EventLog, tmp_path: Path, sleeps: SleepRecorder
) -> None:
    llm = ScriptedLLM()
    for _ in range(3):
        llm.enqueue_error(ModelCallError("down"))
    manager = consolidating_manager(log, tmp_path, llm, sleeps, consolidation_interval=1)
    item = manager.remember("The spare key is under the blue pot", category="notes")
    assert any("Consolidation of 'notes' failed" in w for w in manager.last_warnings)
    assert item.content in manager.get_category_content("notes")  # refreshed anyway
    assert event_payloads(log, "memory.category_consolidated") == []


# ── the embedding retry policy ─────────────────────────────────────────────


def test_embedding_failures_are_retried_with_backoff(
    manager: MemoryManager, embedder: HashEmbedder, sleeps: SleepRecorder
) -> None:
    res = manager.store_resource(CHAT, "conversation")
    embedder.fail_next = 2
    items = manager.extract_and_store(res.resource_id, mode="rules")
    assert len(items) == 2
    assert sleeps.calls == [1.0, 2.0]
    assert embedder.calls == 3


def test_embedding_gives_up_after_three_retries_and_writes_nothing(
    manager: MemoryManager, embedder: HashEmbedder, sleeps: SleepRecorder, log: EventLog
) -> None:
    res = manager.store_resource(CHAT, "conversation")
    events_before = log.count()
    embedder.fail_next = 10
    with pytest.raises(EmbeddingError) as err:
        manager.extract_and_store(res.resource_id, mode="rules")
    assert err.value.code == "MEM-004"
    assert err.value.recovery_suggestions
    assert sleeps.calls == [1.0, 2.0, 4.0]
    assert embedder.calls == 4  # one try and three retries
    assert count(log, "memory_items") == 0 and count(log, "memory_categories") == 0
    assert log.count() == events_before
    assert not manager.category_layer.folder.exists() or not any(
        manager.category_layer.folder.iterdir()
    )
    # remember embeds before it writes anything, so not even its resource is left behind
    sleeps.calls.clear()
    with pytest.raises(EmbeddingError):
        manager.remember("Remember that I like figs")
    assert count(log, "memory_resources") == 1 and log.count() == events_before
    assert sleeps.calls == [1.0, 2.0, 4.0]


def test_backoff_is_capped(log: EventLog, tmp_path: Path, sleeps: SleepRecorder) -> None:
    embedder = HashEmbedder()
    manager = MemoryManager(
        log,
        embedder,
        storage_dir=tmp_path / "memory",
        categories_dir=tmp_path / "categories",
        retry=MemoryRetryConfig(embedding_backoff_base=20.0, embedding_backoff_max=30.0),
        sleep=sleeps,
    )
    embedder.fail_next = 3
    assert manager.embed(["some text"]).shape == (1, 64)
    assert sleeps.calls == [20.0, 30.0, 30.0]


def test_query_embedding_is_retried_too(
    manager: MemoryManager, embedder: HashEmbedder, sleeps: SleepRecorder
) -> None:
    ingest(manager)
    embedder.fail_next = 1
    assert manager.retrieve("a brand new question", mode="rag").items
    assert sleeps.calls == [1.0]
    embedder.fail_next = 4
    with pytest.raises(EmbeddingError):
        manager.retrieve("another new question", mode="rag")


# ── deleting ───────────────────────────────────────────────────────────────


def test_delete_resource_cascades(manager: MemoryManager, log: EventLog) -> None:
    keep_rid, keep = ingest(manager, "User: I really enjoy climbing.")
    kept = [*keep, *(r.item_id for r in records(manager, keep_rid))]
    rid, facts = ingest(manager)
    gone = [*facts, *(r.item_id for r in records(manager, rid))]  # its facts, then its records
    assert len(kept) == 2 and len(gone) == 4
    path = manager.category_layer.folder / "biography.md"
    assert "Berlin" in path.read_text()
    assert manager.delete_resource(rid) is True
    assert all(manager.get_item(i) is None for i in gone)
    assert manager.resource_layer.get(rid) is None
    assert count(log, "memory_items") == 2
    assert [i.item_id for i in manager.item_layer.get_by_resource(keep_rid)] == kept
    assert manager.item_layer.count() == len(manager.item_layer.index) == 2 and in_sync(manager)
    assert event_payloads(log, "memory.item_deleted") == [{"item_id": i} for i in gone]
    assert event_payloads(log, "memory.resource_deleted") == [
        {"resource_id": rid, "item_ids": gone}
    ]
    # the categories' markdown no longer cites the deleted items
    bio = path.read_text()
    assert "Berlin" not in bio and "*No items yet.*" in bio
    prefs = manager.get_category_content("preferences")
    assert "Alps" not in prefs and "climbing" in prefs
    found = manager.retrieve("Berlin Alps", mode="rag").items
    assert {i.source_resource_id for i in found} == {keep_rid}
    assert [i.item_id for i in found if i.kind != TURN_KIND] == keep  # the one fact left
    assert manager.delete_resource(rid) is False
    assert manager.resource_layer.get(keep_rid) is not None


def test_delete_resource_without_cascade(manager: MemoryManager, log: EventLog) -> None:
    rid, facts = ingest(manager)
    items = [*facts, *(r.item_id for r in records(manager, rid))]
    events = log.count()
    with pytest.raises(MemoryInputError) as err:
        manager.delete_resource(rid, cascade=False)
    assert "still has 4 items" in err.value.message  # 2 facts and 2 turn records
    assert manager.resource_layer.get(rid) is not None
    assert all(manager.get_item(i) is not None for i in items)
    assert log.count() == events and in_sync(manager)
    lone = manager.store_resource("Just a document", "document")
    assert manager.delete_resource(lone.resource_id, cascade=False) is True
    assert event_payloads(log, "memory.resource_deleted")[-1] == {
        "resource_id": lone.resource_id,
        "item_ids": [],
    }


# ── stats, health, items, export ───────────────────────────────────────────


def test_get_stats(manager: MemoryManager, clock: Clock) -> None:
    empty = manager.get_stats()
    assert isinstance(empty, MemoryStats)
    assert (empty.total_resources, empty.total_items, empty.total_categories) == (0, 0, 0)
    assert empty.vector_index_size == 0 and empty.last_extraction_at is None
    ingest(manager)
    manager.store_resource("A document", "document")
    stats = manager.get_stats()
    assert stats.total_resources == 2
    assert stats.resources_by_type == {"conversation": 1, "document": 1}
    assert stats.total_items == 4 and stats.vector_index_size == 4  # 2 facts + 2 records
    assert stats.items_by_category == {"biography": 1, "preferences": 1}  # records: no category
    assert stats.total_categories == 2
    assert stats.last_extraction_at == clock.now()
    assert stats.last_consolidation_at is None  # refreshed, never consolidated
    assert stats.storage_bytes > 0
    manager.consolidate_category("biography")
    assert manager.get_stats().last_consolidation_at == clock.now()


def test_is_healthy(manager: MemoryManager, embedder: HashEmbedder) -> None:
    ingest(manager)
    embedder.fail_next = 1
    assert manager.is_healthy is False  # the embedder did not answer
    assert manager.is_healthy is True
    assert manager.get_stats().vector_index_size == 4  # 2 facts + 2 turn records


def test_is_healthy_only_once_open(log: EventLog, tmp_path: Path, clock: Clock) -> None:
    manager = make_manager(log, tmp_path, clock=clock)
    assert manager.is_healthy is False  # the index is not loaded yet
    assert manager.open() is None
    assert manager.is_healthy is True


def test_remember_update_invalidate_forget(manager: MemoryManager, log: EventLog) -> None:
    item = manager.remember("I love figs", importance="high", source_turn_ids=["t7"])
    assert (item.category, item.kind, item.importance) == ("preferences", "preference", "high")
    assert item.source_turn_ids == ["t7"] and item.confidence == 0.9
    note = manager.remember("The boiler code is 4411")
    assert note.category == "notes" and note.kind == "fact"
    resource = manager.resource_layer.get(note.source_resource_id)
    assert resource is not None and resource.resource_type == "feedback"
    assert manager.remember("i love  FIGS").item_id == item.item_id  # reinforced
    with pytest.raises(MemoryInputError):
        manager.remember("x", importance="urgent")
    with pytest.raises(MemoryInputError):
        manager.remember("x" * 2001)
    with pytest.raises(MemoryInputError):
        manager.remember("   ")

    edited = manager.update_item(
        note.item_id, content="The boiler code is 9876", category="house", importance="low"
    )
    assert (edited.content, edited.category, edited.importance) == (
        "The boiler code is 9876",
        "house",
        "low",
    )
    assert "house" in manager.category_layer.names()
    assert manager.retrieve("boiler code 9876", mode="rag", k=1).items[0].item_id == note.item_id
    assert len(manager.item_layer.index) == 2 and in_sync(manager)
    with pytest.raises(MemoryInputError):
        manager.update_item("item_missing", importance="low")
    with pytest.raises(MemoryInputError):
        manager.update_item(note.item_id, importance="urgent")
    with pytest.raises(MemoryInputError):
        manager.update_item(note.item_id, content="")

    assert manager.invalidate_item(item.item_id, by="user") is True
    assert manager.invalidate_item(item.item_id) is False
    got = manager.get_item(item.item_id)
    assert got is not None and got.invalid_at is not None
    assert in_sync(manager) and len(manager.item_layer.index) == 1

    assert manager.forget_item(note.item_id) is True
    assert manager.forget_item(note.item_id) is False
    assert manager.get_item(note.item_id) is None
    assert len(manager.item_layer.index) == 0
    changes = [p["change"] for p in event_payloads(log, "memory.item_updated")]
    assert changes == ["reinforced", "edited", "invalidated"]
    assert event_payloads(log, "memory.item_deleted") == [{"item_id": note.item_id}]


def test_export(manager: MemoryManager, tmp_path: Path) -> None:
    rid, facts = ingest(manager)
    recs = records(manager, rid)
    items = [*facts, *(r.item_id for r in recs)]
    manager.store_resource("ünïcode document", "document", {"k": "v"})
    out = tmp_path / "export"
    counts = manager.export(out)
    assert counts == {"resources": 2, "items": 4, "categories": 2}
    assert sorted(p.name for p in out.iterdir()) == ["categories", "items.jsonl", "resources.jsonl"]
    resources = [json.loads(line) for line in (out / "resources.jsonl").read_text().splitlines()]
    assert resources[0]["resource_id"] == rid
    assert resources[1]["content"] == "ünïcode document" and resources[1]["metadata"] == {"k": "v"}
    exported = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert [i["item_id"] for i in exported] == items
    assert "embedding" not in exported[0]
    assert exported[0]["source_turn_ids"] == [f"{rid}#L0"]
    assert (exported[0]["kind"], exported[0]["speaker"]) == (
        "preference",
        "User",
    )  # a fact keeps who said it
    assert exported[2] == json.loads(recs[0].model_dump_json(exclude={"embedding"}))
    assert (exported[2]["kind"], exported[2]["speaker"]) == (TURN_KIND, "User")
    assert exported[2]["source_turn_ids"] == [f"{rid}#L0"]
    assert sorted(p.name for p in (out / "categories").iterdir()) == [
        "biography.md",
        "preferences.md",
    ]
    assert (out / "categories" / "biography.md").read_text() == manager.get_category_content(
        "biography"
    )


def test_ingest_turns(manager: MemoryManager, log: EventLog) -> None:
    turns = [
        Turn(id="s1-t1", speaker="Sam", text="I live in Lisbon these days.", at=T0),
        Turn(id="s1-t2", speaker="Rilai", text="Lovely city!", at=T0, is_user=False),
        Turn(id="s1-t3", speaker="Sam", text="My favourite food is grilled sardines.", at=T0),
    ]
    result = manager.ingest_turns(turns, metadata={"session": "s1"})
    assert result.resource.resource_type == "conversation"
    assert result.resource.content == (
        "Sam: I live in Lisbon these days.\nRilai: Lovely city!\n"
        "Sam: My favourite food is grilled sardines."
    )
    meta = result.resource.metadata
    assert meta["session"] == "s1"
    assert meta["turns"][0] == {
        "id": "s1-t1",
        "speaker": "Sam",
        "text": "I live in Lisbon these days.",
        "at": T0.isoformat(),
    }
    assert [i.source_turn_ids for i in result.stored] == [["s1-t1"], ["s1-t3"]]
    assert all(i.valid_at == T0 for i in result.stored)
    assert result.reinforced == [] and result.invalidated == [] and result.warnings
    # a later session that contradicts a slot invalidates the older fact
    later = [
        Turn(id="s2-t1", speaker="Sam", text="I live in Porto now.", at=T0 + timedelta(days=9))
    ]
    second = manager.ingest_turns(later, mode="rules")
    assert second.invalidated == [result.stored[0].item_id]
    assert second.stored[0].source_turn_ids == ["s2-t1"]
    with pytest.raises(MemoryInputError):
        manager.ingest_turns([])


def test_a_user_turn_gets_one_record_and_an_assistant_turn_none(manager: MemoryManager) -> None:
    turns = [
        Turn(id="c1-t1", speaker="User", text="I went to a pottery class yesterday.", at=T0),
        Turn(id="c1-t2", speaker="Rilai", text="How did it go?", at=T0, is_user=False),
    ]
    result = manager.ingest_turns(turns, mode="rules")
    (record,) = result.records
    assert (record.kind, record.content, record.speaker) == (
        TURN_KIND,
        "I went to a pottery class yesterday.",
        "User",
    )
    assert record.source_turn_ids == ["c1-t1"] and record.valid_at == T0
    assert (record.category, record.importance, record.confidence) == (None, "low", 1.0)
    assert record.dates == [
        {"phrase": "yesterday", "date": "2026-01-19", "label": "19 January 2026"}
    ]
    assert all(i.kind != TURN_KIND for i in [*result.stored, *result.reinforced])
    # stored as it was returned; nothing at all cites the assistant's turn
    stored = manager.item_layer.get_by_resource(result.resource.resource_id)
    assert records(manager, result.resource.resource_id) == [record]
    assert all("c1-t2" not in i.source_turn_ids for i in stored)
    assert all(i.kind != "utterance" for i in stored)  # the record replaced the fallback


def test_turn_records_are_never_merged(manager: MemoryManager) -> None:
    later = T0 + timedelta(days=1)
    first = manager.ingest_turns([Turn(id="a-t1", speaker="User", text="Thanks!", at=T0)])
    second = manager.ingest_turns([Turn(id="b-t1", speaker="User", text="Thanks!", at=later)])
    (one,) = first.records
    (two,) = second.records
    assert one.item_id != two.item_id  # the same words in two conversations: two records
    assert (one.source_turn_ids, one.valid_at) == (["a-t1"], T0)
    assert (two.source_turn_ids, two.valid_at) == (["b-t1"], later)
    assert first.reinforced == second.reinforced == []
    # a fact with the same words as a turn is a fact of its own, not a reinforced record
    fact = manager.remember("Thanks!")
    assert fact.item_id not in {one.item_id, two.item_id}
    assert (fact.kind, fact.content, fact.reinforcement_count) == ("fact", "Thanks!", 0)
    assert [manager.get_item(r.item_id) for r in (one, two)] == [one, two]  # untouched
    assert manager.item_layer.count() == 3 and in_sync(manager)


# ── atomicity: a mutation and its event land together or not at all ────────


@pytest.fixture
def sink(log: EventLog) -> CorruptingSink:
    return CorruptingSink(log, fail_on="")


@pytest.fixture
def fragile(
    log: EventLog, tmp_path: Path, sink: CorruptingSink, clock: Clock
) -> Iterator[MemoryManager]:
    manager = make_manager(log, tmp_path, events=sink, clock=clock)
    manager.open()
    yield manager
    manager.close()


def snapshot(manager: MemoryManager, log: EventLog) -> dict[str, Any]:
    conn = log.connection
    files = manager.category_layer.folder
    return {
        "resources": conn.execute("SELECT * FROM memory_resources ORDER BY id").fetchall(),
        "items": conn.execute(
            "SELECT id, item_id, content, category, importance, invalid_at,"
            " reinforcement_count, embedding FROM memory_items ORDER BY id"
        ).fetchall(),
        "categories": conn.execute(
            "SELECT name, markdown_content, items_since_consolidation FROM memory_categories"
            " ORDER BY name"
        ).fetchall(),
        "events": log.count(),
        "files": {p.name: p.read_text() for p in sorted(files.iterdir())} if files.exists() else {},
    }


Mutation = Callable[[MemoryManager, dict[str, Any]], Any]

MUTATIONS: dict[str, tuple[str, Mutation]] = {
    "store_resource": (
        "memory.resource_stored",
        lambda m, s: m.store_resource("Another document", "document"),
    ),
    "extract_new_categories": (
        "memory.items_extracted",
        lambda m, s: m.extract_and_store(s["fresh"], mode="rules"),
    ),
    "extract_reinforce": (
        "memory.items_extracted",
        lambda m, s: m.extract_and_store(s["rid"], mode="rules"),
    ),
    "implicit_category": (
        "memory.category_created",
        lambda m, s: m.extract_and_store(s["fresh"], mode="rules"),
    ),
    "remember": ("memory.items_extracted", lambda m, s: m.remember("The door code is 2580")),
    "create_category": (
        "memory.category_created",
        lambda m, s: m.create_category("new_topic", "A brand new topic to file"),
    ),
    "consolidate": (
        "memory.category_consolidated",
        lambda m, s: m.consolidate_category("biography"),
    ),
    "update_item": (
        "memory.item_updated",
        lambda m, s: m.update_item(
            s["items"][0], content="I adore sailing on lakes", category="hobbies"
        ),
    ),
    "invalidate_item": ("memory.item_updated", lambda m, s: m.invalidate_item(s["items"][1])),
    "slot_invalidation": (
        "memory.item_updated",
        lambda m, s: m.extract_and_store(s["moved"], mode="rules"),
    ),
    "forget_item": ("memory.item_deleted", lambda m, s: m.forget_item(s["items"][0])),
    "delete_resource": ("memory.resource_deleted", lambda m, s: m.delete_resource(s["rid"])),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_every_mutation_is_atomic_with_its_event(
    fragile: MemoryManager, log: EventLog, sink: CorruptingSink, clock: Clock, name: str
) -> None:
    rid, items = ingest(fragile)
    fragile.item_layer.save_index()
    state = {
        "rid": rid,
        "items": items,
        "fresh": fragile.store_resource(
            "User: I really enjoy sailing.\nUser: My goal is to run a marathon by 2027.",
            "conversation",
        ).resource_id,
        "moved": fragile.store_resource("User: I live in Madrid now.", "conversation").resource_id,
    }
    clock.advance(hours=1)  # so that a re-rendered markdown file differs from the old one
    before = snapshot(fragile, log)
    probe = fragile.embedder.embed_one("I love hiking in the Alps.")
    kind, mutate = MUTATIONS[name]
    sink.fail_on = kind
    with pytest.raises(errors.EventPayloadError):
        mutate(fragile, state)
    assert snapshot(fragile, log) == before
    # the in-memory index followed the rollback too
    assert in_sync(fragile)
    assert fragile.is_healthy
    hit = fragile.item_layer.dense_search(probe, 1)[0]
    assert hit.score == pytest.approx(1.0, abs=1e-5)
    # and the same mutation works once the events are accepted again
    sink.fail_on = ""
    mutate(fragile, state)
    assert in_sync(fragile)


# ── the error taxonomy ─────────────────────────────────────────────────────


def test_every_memory_error_has_a_code_and_recovery_hints() -> None:
    codes = [cls.code for cls in MEMORY_ERRORS]
    assert codes == [f"MEM-{n:03d}" for n in range(10)]
    for cls in MEMORY_ERRORS:
        assert issubclass(cls, errors.MemoryError)
        assert cls.recovery_suggestions or cls in (
            ResourceNotFoundError,
            CategoryNotFoundError,
            CategoryExistsError,
        )
    samples = [
        errors.MemoryError("x"),
        ResourceNotFoundError("res_1"),
        CategoryNotFoundError("c"),
        CategoryExistsError("c"),
        EmbeddingError("x"),
        ExtractionError("x"),
        ConsolidationError("x"),
        RetrievalError("x"),
        VectorIndexError("x"),
        StorageError("x"),
    ]
    for err in samples:
        assert err.recovery_suggestions, err.code
        assert all(isinstance(h, str) and h for h in err.recovery_suggestions)
        assert err.to_dict()["code"] == err.code
        assert str(err).startswith(f"[{err.code}] ")


def raise_each(log: EventLog, tmp_path: Path) -> dict[str, errors.MemoryError]:
    """Trigger every MEM code through a real code path; returns code -> the error raised."""
    seen: dict[str, errors.MemoryError] = {}

    def catch(fn: Callable[[], Any]) -> None:
        with pytest.raises(errors.MemoryError) as err:
            fn()
        seen.setdefault(err.value.code, err.value)

    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    catch(
        lambda: MemoryManager(
            log, HashEmbedder(), storage_dir=blocker / "memory", categories_dir=tmp_path / "c"
        )
    )  # MEM-009
    llm = ScriptedLLM()
    sleeps = SleepRecorder()
    embedder = HashEmbedder()
    manager = make_manager(
        log,
        tmp_path,
        embedder=embedder,
        sleeps=sleeps,
        extraction_model=llm,
        consolidation_model=llm,
        retrieval_model=llm,
    )
    manager.open()
    rid, items = ingest(manager)
    catch(lambda: manager.extract_and_store("res_nope"))  # MEM-001
    catch(lambda: manager.get_category_content("nope"))  # MEM-002
    catch(lambda: manager.create_category("biography", "Duplicate of an existing one"))  # 003
    embedder.fail_next = 4
    catch(lambda: manager.retrieve("a question never asked", mode="rag"))  # MEM-004
    for _ in range(3):
        llm.enqueue_error(ModelCallError("down"))
    catch(lambda: manager.extract_and_store(rid, mode="llm"))  # MEM-005
    for _ in range(3):
        llm.enqueue_error(ModelCallError("down"))
    catch(lambda: manager.consolidate_category("biography"))  # MEM-006
    for _ in range(3):
        llm.enqueue_error(ModelCallError("down"))
    catch(lambda: manager.retrieve("where", mode="llm"))  # MEM-007
    with log.transaction() as conn:  # a damaged embedding blob in SQLite
        conn.execute(
            "UPDATE memory_items SET embedding = ? WHERE item_id = ?",
            (np.ones(3, dtype="<f4").tobytes(), items[0]),
        )
    catch(manager.rebuild_index)  # MEM-008
    seen["MEM-000"] = seen["MEM-001"]  # the base class is raised through its subclasses
    return seen


def test_every_mem_code_is_raised_by_a_real_code_path(log: EventLog, tmp_path: Path) -> None:
    seen = raise_each(log, tmp_path)
    assert sorted(seen) == [f"MEM-{n:03d}" for n in range(10)]
    for code, err in seen.items():
        assert isinstance(err, errors.MemoryError)
        assert err.recovery_suggestions, code
