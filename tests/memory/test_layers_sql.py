"""Layer 1 (resources) and Layer 3 (categories) on a real EventLog file, and FTS5 search."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.errors import (
    CategoryExistsError,
    CategoryNotFoundError,
    MemoryInputError,
    StorageError,
)
from rilai_desktop.memory._sql import STOPWORDS, fts_query
from rilai_desktop.memory.categories import CategoryLayer, check_category_name, title_of
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.items import ItemLayer
from rilai_desktop.memory.resources import ResourceLayer
from rilai_desktop.memory.types import ItemDraft, Resource
from rilai_desktop.store import EventLog
from tests.memory.conftest import Clock


@pytest.fixture
def resources(log: EventLog, clock: Clock) -> ResourceLayer:
    return ResourceLayer(log, clock=clock)


@pytest.fixture
def categories(log: EventLog, tmp_path: Path, clock: Clock) -> CategoryLayer:
    return CategoryLayer(log, tmp_path / "categories", clock=clock)


def count(log: EventLog, table: str) -> int:
    return int(log.connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


# ── Layer 1: resources ──────────────────────────────────────────────────────


@pytest.mark.parametrize("rtype", ["conversation", "document", "config", "feedback"])
def test_store_and_get_each_type(resources: ResourceLayer, clock: Clock, rtype: str) -> None:
    meta = {"title": "Notes", "n": 2, "nested": {"ok": [1, None, True]}}
    res = resources.store("User: hi\nRilai: hello", rtype, meta)
    assert res.resource_id.startswith("res_") and len(res.resource_id) == 40
    assert res.resource_type == rtype
    assert res.created_at == clock.now()
    got = resources.get(res.resource_id)
    assert got is not None
    assert got.to_dict() == res.to_dict()
    assert Resource.from_dict(got.to_dict()) == res
    assert resources.get("res_missing") is None


def test_list_by_type_recent_count_and_delete(
    resources: ResourceLayer, log: EventLog, clock: Clock
) -> None:
    ids = []
    for n, rtype in enumerate(["document", "feedback", "document", "config"]):
        ids.append(resources.store(f"text number {n}", rtype).resource_id)
        clock.advance(minutes=1)
    assert [r.resource_id for r in resources.list_by_type("document")] == [ids[2], ids[0]]
    assert [r.resource_id for r in resources.list_by_type("document", limit=1)] == [ids[2]]
    assert resources.list_by_type("conversation") == []
    assert [r.resource_id for r in resources.list_recent(2)] == [ids[3], ids[2]]
    assert resources.count_by_type() == {"document": 2, "feedback": 1, "config": 1}
    with log.transaction() as conn:
        assert resources.delete(conn, ids[0]) is True
        assert resources.delete(conn, ids[0]) is False
    assert resources.get(ids[0]) is None
    assert resources.count_by_type()["document"] == 1


def test_content_of_exactly_one_million_characters_is_stored(resources: ResourceLayer) -> None:
    res = resources.store("x" * 1_000_000, "document")
    got = resources.get(res.resource_id)
    assert got is not None and len(got.content) == 1_000_000


@pytest.mark.parametrize(
    ("content", "rtype", "metadata", "fragment"),
    [
        ("x" * 1_000_001, "document", None, "at most 1,000,000"),
        ("", "document", None, "empty"),
        (" \n\t ", "document", None, "empty"),
        ("bin\x00ary", "document", None, "NUL"),
        ("lone \udc80 surrogate", "document", None, "surrogate"),
        (b"bytes", "document", None, "must be text"),
        (None, "document", None, "must be text"),
        (42, "document", None, "must be text"),
        ("ok", "email", None, "not one of"),
        ("ok", "Document", None, "not one of"),
        ("ok", None, None, "not one of"),
        ("ok", "document", ["a", "list"], "JSON object"),
        ("ok", "document", "a string", "JSON object"),
        ("ok", "document", {"when": object()}, "JSON-serialisable"),
        ("ok", "document", {"score": float("nan")}, "JSON-serialisable"),
        ("ok", "document", {"tags": {1, 2}}, "JSON-serialisable"),
    ],
    ids=[
        "1000001",
        "empty",
        "whitespace",
        "nul",
        "surrogate",
        "bytes",
        "none",
        "int",
        "bad-type",
        "bad-case",
        "none-type",
        "meta-list",
        "meta-str",
        "meta-object",
        "meta-nan",
        "meta-set",
    ],
)
def test_bad_resources_are_refused_and_nothing_is_written(
    resources: ResourceLayer,
    log: EventLog,
    content: Any,
    rtype: Any,
    metadata: Any,
    fragment: str,
) -> None:
    with pytest.raises(MemoryInputError) as err:
        resources.store(content, rtype, metadata)
    assert fragment in err.value.message
    assert err.value.code == "RIL-040"
    assert isinstance(err.value, ValueError)  # the seed raises ValueError here
    assert err.value.recovery_suggestions
    assert count(log, "memory_resources") == 0


def test_the_database_refuses_what_validation_would_refuse(log: EventLog) -> None:
    """The CHECK constraints back the Python checks up."""
    with pytest.raises(sqlite3.IntegrityError), log.transaction() as conn:
        conn.execute(
            "INSERT INTO memory_resources (resource_id, resource_type, content, content_hash,"
            " created_at) VALUES ('res_x', 'email', 'hi', 'h', '2026-01-01')"
        )
    assert count(log, "memory_resources") == 0


def test_resource_search_is_bm25_ranked_and_filtered(resources: ResourceLayer) -> None:
    a = resources.store("We talked about the garden and the tomatoes in the garden", "document")
    b = resources.store("User: my garden is small", "conversation")
    resources.store("Nothing relevant here at all", "document")
    assert [r.resource_id for r in resources.search("garden")] == [a.resource_id, b.resource_id]
    assert [r.resource_id for r in resources.search("garden", "conversation")] == [b.resource_id]
    assert [r.resource_id for r in resources.search("Gardens!", limit=1)] == [a.resource_id]
    assert resources.search("tomato") == [resources.get(a.resource_id)]  # porter stemming
    assert resources.search("spaceship") == []
    assert resources.search("...") == []


def test_search_after_delete_forgets_the_text(resources: ResourceLayer, log: EventLog) -> None:
    res = resources.store("a unique zeppelin story", "document")
    assert resources.search("zeppelin")
    with log.transaction() as conn:
        resources.delete(conn, res.resource_id)
    assert resources.search("zeppelin") == []


@pytest.fixture
def items(log: EventLog, tmp_path: Path, clock: Clock) -> ItemLayer:
    return ItemLayer(log, HashEmbedder(), tmp_path / "memory" / "index.faiss", clock=clock)


def store_items(log: EventLog, layer: ItemLayer, resource_id: str, *texts: str) -> list[str]:
    with log.transaction() as conn:
        out = layer.store_drafts(conn, [ItemDraft(content=t) for t in texts], resource_id)
    return [i.item_id for i in out.stored]


def row_ids(log: EventLog) -> dict[str, int]:
    rows = log.connection.execute("SELECT item_id, id FROM memory_items").fetchall()
    return {str(item_id): int(row) for item_id, row in rows}


def test_item_lexical_search(resources: ResourceLayer, items: ItemLayer, log: EventLog) -> None:
    rid = resources.store("source", "document").resource_id
    ids = store_items(
        log, items, rid, "The user plays the cello", "Cello lessons on Tuesdays", "Likes tea"
    )
    rows = row_ids(log)
    hits = items.lexical_search("cello", 10)
    assert {h.row_id for h in hits} == {rows[ids[0]], rows[ids[1]]}
    assert all(h.score > 0 for h in hits)  # -bm25: higher is better
    assert hits[0].score >= hits[1].score
    assert len(items.lexical_search("cello", 1)) == 1
    assert [h.row_id for h in items.lexical_search("TEA!", 10)] == [rows[ids[2]]]
    assert items.lexical_search("the", 10)  # only stopwords: searched as they are
    assert items.lexical_search("?!", 10) == []
    # invalid items are not found
    with log.transaction() as conn:
        items.invalidate(conn, ids[2])
    assert items.lexical_search("tea", 10) == []


QUERIES = [
    '"',
    '"unbalanced quote',
    "it's O'Brien's",
    "NEAR(garden tomato, 5)",
    "NEAR",
    "garden*",
    "*",
    "content:garden",
    "col:x:y",
    "(garden",
    "garden)",
    "((()))",
    "garden OR",
    "AND OR NOT",
    "-garden +tomato ^start",
    "{a b c}",
    "'; DROP TABLE memory_resources; --",
    "Robert'); DROP TABLE memory_items_fts;--",
    "1 OR 1=1",
    "café naïve Zürich",
    "東京 ラーメン",
    "Ünïcödé ﬁ ǅ",
    "😀🔥🌱",
    "garden 🌱 tomatoes 🍅",
    "_",
    "²³",
    "\x00\x01",
    "\\",
    "%_%",
    "garden " * 200,
    "x" * 10_000,
]


@pytest.mark.parametrize("query", QUERIES)
def test_fts_queries_never_break(
    resources: ResourceLayer, items: ItemLayer, log: EventLog, query: str
) -> None:
    res = resources.store("A garden with tomatoes in Zürich, near a café", "document")
    store_items(log, items, res.resource_id, "The garden has tomatoes", "東京 ラーメン is great")
    found = resources.search(query)
    hits = items.lexical_search(query, 10)
    assert isinstance(found, list) and isinstance(hits, list)
    # nothing was dropped or altered by the query text
    assert count(log, "memory_resources") == 1
    assert count(log, "memory_items") == 2
    assert resources.search("garden") and items.lexical_search("garden", 5)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("café", True),
        ("cafe", True),  # remove_diacritics
        ("ZÜRICH", True),
        ("東京", True),
        ("NEAR(garden tomato)", True),
        ("garden*", True),
        ("😀 garden", True),
        ("😀", False),
        ("spaceship", False),
    ],
)
def test_fts_unicode_and_syntax_are_searched_as_words(
    resources: ResourceLayer, query: str, expected: bool
) -> None:
    resources.store("A garden with tomatoes in Zürich, near a café, 東京 too", "document")
    assert bool(resources.search(query)) is expected


def test_fts_query_builder() -> None:
    assert fts_query("") is None
    assert fts_query("?!* ()") is None
    assert fts_query("The garden") == '"garden"'  # stopwords out
    assert fts_query("the and of") == '"the" OR "and" OR "of"'  # unless nothing else is left
    assert fts_query("Garden garden GARDEN tomato") == '"garden" OR "tomato"'
    assert fts_query('say "NEAR" now') == '"say" OR "near" OR "now"'
    many = " ".join(f"w{n}" for n in range(50))
    assert fts_query(many) is not None
    assert fts_query(many).count(" OR ") == 31  # type: ignore[union-attr]
    assert "what" in STOPWORDS


# ── Layer 3: categories ─────────────────────────────────────────────────────

DESC = "Preferences captured from conversations"


@pytest.mark.parametrize(
    "name", ["a", "lead_preferences", "a1", "a_1_b", "x" * 64, "x" * 62 + "_y"]
)
def test_valid_category_names(categories: CategoryLayer, log: EventLog, name: str) -> None:
    assert check_category_name(name) == name
    with log.transaction() as conn:
        cat = categories.insert(conn, name, DESC)
    assert cat.name == name
    assert categories.get_by_name(name) == cat


@pytest.mark.parametrize(
    "name",
    [
        "",
        "x" * 65,
        "Lead",
        "LEAD_PREFS",
        "lead-preferences",
        "lead preferences",
        "_lead",
        "lead_",
        "lead__prefs",
        "1lead",
        "léad",
        "lead\n",
        "../etc/passwd",
        None,
        42,
    ],
)
def test_invalid_category_names(categories: CategoryLayer, log: EventLog, name: Any) -> None:
    with pytest.raises(MemoryInputError) as err:
        check_category_name(name)
    assert "snake_case" in err.value.message
    assert any("snake_case" in h for h in err.value.recovery_suggestions)
    with pytest.raises(MemoryInputError), log.transaction() as conn:
        categories.insert(conn, name, DESC)
    assert count(log, "memory_categories") == 0
    assert not categories.folder.exists() or list(categories.folder.iterdir()) == []


@pytest.mark.parametrize(
    ("length", "ok"), [(9, False), (10, True), (500, True), (501, False), (0, False)]
)
def test_description_length(
    categories: CategoryLayer, log: EventLog, length: int, ok: bool
) -> None:
    description = "d" * length
    if ok:
        with log.transaction() as conn:
            cat = categories.insert(conn, "topic", description)
        assert cat.description == description
        return
    with pytest.raises(MemoryInputError, match="10-500 characters"), log.transaction() as conn:
        categories.insert(conn, "topic", description)
    assert count(log, "memory_categories") == 0


def test_description_is_stripped_before_it_is_measured(
    categories: CategoryLayer, log: EventLog
) -> None:
    with pytest.raises(MemoryInputError), log.transaction() as conn:
        categories.insert(conn, "topic", "   " + "d" * 9 + "   ")
    with log.transaction() as conn:
        cat = categories.insert(conn, "topic", "  " + "d" * 10 + "\n")
    assert cat.description == "d" * 10
    with pytest.raises(MemoryInputError), log.transaction() as conn:
        categories.insert(conn, "other", 12345)  # type: ignore[arg-type]


def test_category_exists_error(categories: CategoryLayer, log: EventLog) -> None:
    with log.transaction() as conn:
        first = categories.insert(conn, "lead_preferences", DESC)
    with pytest.raises(CategoryExistsError) as err, log.transaction() as conn:
        categories.insert(conn, "lead_preferences", "Another description entirely")
    assert err.value.code == "MEM-003"
    assert err.value.message == "Category 'lead_preferences' already exists"
    assert err.value.context == {"category_name": "lead_preferences"}
    assert err.value.recovery_suggestions == [
        "Use a different name",
        "Use get_by_name() to access existing category",
    ]
    assert categories.list_all() == [first]


def test_category_markdown_file_is_written(categories: CategoryLayer, log: EventLog) -> None:
    with log.transaction() as conn:
        cat = categories.insert(conn, "lead_preferences", DESC)
    path = categories.folder / "lead_preferences.md"
    assert cat.markdown_content == "# Lead Preferences\n\n*No items yet.*\n"
    assert path.read_text(encoding="utf-8") == cat.markdown_content
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    assert cat.category_id.startswith("cat_")
    assert cat.item_ids == []
    assert title_of("a_b_c") == "A B C"


def test_category_file_is_rewritten_atomically(
    categories: CategoryLayer, log: EventLog, clock: Clock
) -> None:
    with log.transaction() as conn:
        categories.insert(conn, "notes", DESC)
    path = categories.folder / "notes.md"
    inode = path.stat().st_ino
    clock.advance(hours=1)
    with log.transaction() as conn:
        categories.update_content(
            conn, "notes", "# Notes\n\n- new line ünïcode\n", consolidated=True
        )
    assert path.read_text(encoding="utf-8") == "# Notes\n\n- new line ünïcode\n"
    # written to a temporary file, then renamed over the old one: a new inode, no leftovers
    assert path.stat().st_ino != inode
    assert sorted(p.name for p in categories.folder.iterdir()) == ["notes.md"]
    cat = categories.require("notes")
    assert cat.markdown_content == "# Notes\n\n- new line ünïcode\n"
    assert cat.updated_at == clock.now()
    assert categories.last_consolidated() is not None


def test_category_lookup_and_not_found(categories: CategoryLayer, log: EventLog) -> None:
    with log.transaction() as conn:
        b = categories.insert(conn, "b_topic", DESC)
        a = categories.insert(conn, "a_topic", DESC)
    assert [c.name for c in categories.list_all()] == ["a_topic", "b_topic"]
    assert categories.names() == ["a_topic", "b_topic"]
    assert categories.get(a.category_id) == a
    assert categories.get("cat_missing") is None
    assert categories.get_by_name("nope") is None
    assert categories.require("b_topic") == b
    with pytest.raises(CategoryNotFoundError) as err:
        categories.require("c_topic")
    assert err.value.code == "MEM-002"
    assert err.value.message == "Category 'c_topic' not found"
    assert err.value.context == {"category_name": "c_topic", "available": ["a_topic", "b_topic"]}
    assert err.value.recovery_suggestions == [
        "Create the category with create_category()",
        "Available categories: a_topic, b_topic",
    ]
    with pytest.raises(CategoryNotFoundError), log.transaction() as conn:
        categories.update_content(conn, "c_topic", "# C", consolidated=False)
    assert not (categories.folder / "c_topic.md").exists()


def test_not_found_without_categories_has_one_hint(categories: CategoryLayer) -> None:
    with pytest.raises(CategoryNotFoundError) as err:
        categories.require("anything")
    assert err.value.recovery_suggestions == ["Create the category with create_category()"]


def test_ensure_creates_defaults_once(categories: CategoryLayer, log: EventLog) -> None:
    with log.transaction() as conn:
        first = categories.ensure(conn, "preferences")
        again = categories.ensure(conn, "preferences")
        custom = categories.ensure(conn, "ab")
    assert first is not None and again == first
    assert first.description.startswith("What the user likes")
    assert custom is not None and len(custom.description) >= 10
    assert count(log, "memory_categories") == 2


def test_category_item_ids_are_its_valid_items(
    categories: CategoryLayer, resources: ResourceLayer, items: ItemLayer, log: EventLog
) -> None:
    rid = resources.store("source", "document").resource_id
    with log.transaction() as conn:
        categories.insert(conn, "notes", DESC)
        out = items.store_drafts(
            conn,
            [
                ItemDraft(content="first note about owls", category="notes"),
                ItemDraft(content="second note about bees", category="notes"),
                ItemDraft(content="elsewhere entirely", category="other"),
            ],
            rid,
        )
    stored = [i.item_id for i in out.stored]
    assert categories.require("notes").item_ids == stored[:2]
    with log.transaction() as conn:
        items.invalidate(conn, stored[0])
    assert categories.require("notes").item_ids == stored[1:2]


def test_pending_counter(categories: CategoryLayer, log: EventLog) -> None:
    with log.transaction() as conn:
        categories.insert(conn, "notes", DESC)
        assert categories.bump_pending(conn, "notes", 2) == 2
        assert categories.bump_pending(conn, "notes", 3) == 5
        assert categories.bump_pending(conn, "missing", 3) == 0
        categories.update_content(conn, "notes", "# N", consolidated=True)
        assert categories.bump_pending(conn, "notes", 1) == 1


def test_delete_category_removes_row_and_file(categories: CategoryLayer, log: EventLog) -> None:
    with log.transaction() as conn:
        categories.insert(conn, "notes", DESC)
    with log.transaction() as conn:
        assert categories.delete(conn, "notes") is True
        assert categories.delete(conn, "notes") is False
    assert not (categories.folder / "notes.md").exists()
    assert categories.names() == []


def test_files_follow_a_rolled_back_transaction(categories: CategoryLayer, log: EventLog) -> None:
    with log.transaction() as conn:
        categories.insert(conn, "kept", DESC)
    path = categories.folder / "kept.md"
    before = path.read_text()
    with (
        pytest.raises(RuntimeError),
        log.transaction() as conn,
        categories.files_follow(),
    ):
        categories.insert(conn, "new_one", DESC)
        categories.update_content(conn, "kept", "# changed", consolidated=False)
        categories.delete(conn, "kept")
        raise RuntimeError("the event was refused")
    assert categories.names() == ["kept"]
    assert path.read_text() == before  # restored after the update and the delete
    assert not (categories.folder / "new_one.md").exists()
    assert sorted(p.name for p in categories.folder.iterdir()) == ["kept.md"]


def test_a_file_that_cannot_be_written_is_a_storage_error(log: EventLog, tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the folder should be")
    layer = CategoryLayer(log, blocker / "categories")
    with pytest.raises(StorageError) as err, log.transaction() as conn:
        layer.insert(conn, "notes", DESC)
    assert err.value.code == "MEM-009"
    assert err.value.recovery_suggestions
    assert count(log, "memory_categories") == 0  # the transaction rolled back


def test_timestamps_are_utc_round_trips(resources: ResourceLayer, clock: Clock) -> None:
    clock.advance(days=3, microseconds=5)
    res = resources.store("time check", "document")
    got = resources.get(res.resource_id)
    assert got is not None and got.created_at == clock.now()
    assert got.created_at.utcoffset() == timedelta(0)
