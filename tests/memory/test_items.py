"""Layer 2: items in SQLite with their embeddings, dedupe, slots, search, and the index file."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rilai_desktop.errors import MemoryInputError, VectorIndexError
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.item_search import from_blob
from rilai_desktop.memory.items import (
    ItemLayer,
    StoreOutcome,
    content_hash,
    to_blob,
)
from rilai_desktop.memory.resources import ResourceLayer
from rilai_desktop.memory.types import ItemDraft
from rilai_desktop.memory.vector_index import sidecar_path
from rilai_desktop.store import EventLog
from tests.memory.conftest import T0, Clock


def new_layer(
    log: EventLog, tmp_path: Path, clock: Clock, embedder: HashEmbedder | None = None
) -> ItemLayer:
    layer = ItemLayer(
        log, embedder or HashEmbedder(), tmp_path / "memory" / "index.faiss", clock=clock
    )
    layer.ensure_model_recorded()
    return layer


@pytest.fixture
def layer(log: EventLog, tmp_path: Path, clock: Clock) -> ItemLayer:
    return new_layer(log, tmp_path, clock)


@pytest.fixture
def rid(log: EventLog, clock: Clock) -> str:
    return ResourceLayer(log, clock=clock).store("a source text", "conversation").resource_id


def store(log: EventLog, layer: ItemLayer, rid: str, *drafts: ItemDraft | str) -> StoreOutcome:
    ds = [d if isinstance(d, ItemDraft) else ItemDraft(content=d) for d in drafts]
    with log.transaction() as conn:
        return layer.store_drafts(conn, ds, rid)


def rows(log: EventLog) -> dict[str, int]:
    found = log.connection.execute("SELECT item_id, id FROM memory_items").fetchall()
    return {str(item_id): int(row) for item_id, row in found}


def in_sync(layer: ItemLayer, log: EventLog) -> bool:
    valid = log.connection.execute("SELECT id FROM memory_items WHERE invalid_at IS NULL")
    return sorted(layer.index.ids().tolist()) == sorted(int(r[0]) for r in valid.fetchall())


def test_store_one_item(layer: ItemLayer, log: EventLog, rid: str, clock: Clock) -> None:
    draft = ItemDraft(
        content="The user plays the cello",
        kind="biography",
        category="biography",
        confidence=0.8,
        importance="high",
        source_turn_ids=["t1", "t2", "t1"],
    )
    out = store(log, layer, rid, draft)
    assert out.reinforced == [] and out.invalidated == []
    (item,) = out.stored
    assert item.item_id.startswith("item_") and len(item.item_id) == 41
    assert item.content == "The user plays the cello"
    assert item.source_resource_id == rid
    assert item.source_turn_ids == ["t1", "t2"]  # deduped, order kept
    assert (item.kind, item.category, item.importance) == ("biography", "biography", "high")
    assert item.confidence == pytest.approx(0.8)
    assert item.created_at == clock.now() and item.valid_at == clock.now()
    assert item.reinforcement_count == 0 and item.is_valid
    assert len(layer.index) == 1 and in_sync(layer, log)

    got = layer.get(item.item_id, with_embedding=True)
    assert got is not None and got.embedding is not None
    assert len(got.embedding) == 64
    assert float(np.linalg.norm(got.embedding)) == pytest.approx(1.0, abs=1e-6)
    assert layer.get(item.item_id) == item
    assert layer.get("item_missing") is None
    assert layer.get_by_resource(rid) == [item]
    assert layer.count() == 1 and layer.count_by_category() == {"biography": 1}


def test_empty_batch_stores_nothing(layer: ItemLayer, log: EventLog, rid: str) -> None:
    out = store(log, layer, rid)
    assert out == StoreOutcome()
    assert layer.count() == 0


def test_content_hash_folds_case_and_whitespace() -> None:
    assert content_hash("I love Green Tea.") == content_hash("  i LOVE   green\ttea. \n")
    assert content_hash("I love green tea.") != content_hash("I love green tea!")


@pytest.mark.parametrize("same_batch", [False, True])
def test_dedupe_by_hash_reinforces(
    layer: ItemLayer, log: EventLog, rid: str, same_batch: bool
) -> None:
    a = ItemDraft(content="I love Green Tea.", confidence=0.6, source_turn_ids=["t1"])
    b = ItemDraft(content="  i love   green tea. ", confidence=0.9, source_turn_ids=["t2", "t1"])
    if same_batch:
        out = store(log, layer, rid, a, b)
        first = out.stored[0]
    else:
        first = store(log, layer, rid, a).stored[0]
        out = store(log, layer, rid, b)
    assert [i.item_id for i in out.reinforced] == [first.item_id]
    again = layer.get(first.item_id)
    assert again is not None
    assert again.content == "I love Green Tea."  # the first wording is kept
    assert again.reinforcement_count == 1
    assert again.source_turn_ids == ["t1", "t2"]
    assert again.confidence == pytest.approx(0.9)
    assert layer.count() == 1 and len(layer.index) == 1


def test_dedupe_by_similarity_reinforces(layer: ItemLayer, log: EventLog, rid: str) -> None:
    first = store(
        log, layer, rid, ItemDraft(content="I love hiking in the Alps", source_turn_ids=["t1"])
    ).stored[0]
    # same words, other order and punctuation: another hash, the same embedding
    out = store(
        log, layer, rid, ItemDraft(content="Alps! hiking in the... I love", source_turn_ids=["t9"])
    )
    assert out.stored == []
    assert [i.item_id for i in out.reinforced] == [first.item_id]
    got = layer.get(first.item_id)
    assert got is not None
    assert got.reinforcement_count == 1 and got.source_turn_ids == ["t1", "t9"]
    out = store(log, layer, rid, ItemDraft(content="hiking Alps the in love I", source_turn_ids=[]))
    assert layer.get(first.item_id).reinforcement_count == 2  # type: ignore[union-attr]
    assert layer.count() == 1 and len(layer.index) == 1


def test_similar_items_of_another_kind_or_slot_are_kept_apart(
    layer: ItemLayer, log: EventLog, rid: str
) -> None:
    store(log, layer, rid, ItemDraft(content="I love hiking in the Alps", kind="preference"))
    out = store(log, layer, rid, ItemDraft(content="Alps: I love hiking in the", kind="event"))
    assert len(out.stored) == 1 and out.reinforced == []
    out = store(
        log, layer, rid, ItemDraft(content="the Alps, I love hiking in", kind="event", slot="x")
    )
    assert len(out.stored) == 1
    # and different facts are never merged
    out = store(log, layer, rid, "My sister Anna lives in Lyon")
    assert len(out.stored) == 1
    assert layer.count() == 4 and in_sync(layer, log)


def test_slot_invalidates_the_older_fact(
    layer: ItemLayer, log: EventLog, rid: str, clock: Clock
) -> None:
    berlin = store(
        log,
        layer,
        rid,
        ItemDraft(
            content="I live in Berlin",
            kind="biography",
            category="bio",
            slot="lives_in",
            valid_at=T0,
        ),
    ).stored[0]
    later = T0.replace(day=T0.day + 1)
    out = store(
        log,
        layer,
        rid,
        ItemDraft(
            content="I moved to Paris",
            kind="biography",
            category="bio",
            slot="lives_in",
            valid_at=later,
        ),
    )
    (paris,) = out.stored
    assert out.invalidated == [berlin.item_id]
    old = layer.get(berlin.item_id)
    assert old is not None  # still readable: invalidated, not deleted
    assert old.invalid_at == later and not old.is_valid
    assert old.content == "I live in Berlin"
    by = log.connection.execute(
        "SELECT invalidated_by FROM memory_items WHERE item_id = ?", (berlin.item_id,)
    ).fetchone()[0]
    assert by == paris.item_id
    # out of the index and of the valid views
    assert rows(log)[berlin.item_id] not in layer.index.ids()
    assert len(layer.index) == 1 and in_sync(layer, log)
    assert [i.item_id for i in layer.get_by_category("bio")] == [paris.item_id]
    assert [i.item_id for i in layer.get_by_category("bio", include_invalid=True)] == [
        berlin.item_id,
        paris.item_id,
    ]
    assert layer.lexical_search("Berlin", 5) == []
    assert layer.count() == 1 and layer.count(valid_only=False) == 2
    # an older statement of the slot does not invalidate the newer one
    earlier = T0.replace(day=T0.day - 1)
    out = store(
        log,
        layer,
        rid,
        ItemDraft(
            content="I lived in Rome",
            kind="biography",
            category="bio",
            slot="lives_in",
            valid_at=earlier,
        ),
    )
    # ... and is itself stored as history, superseded by the current value from the start
    (rome,) = out.stored
    assert out.invalidated == [rome.item_id]
    assert layer.get(paris.item_id).is_valid  # type: ignore[union-attr]
    assert not layer.get(rome.item_id).is_valid  # type: ignore[union-attr]
    assert in_sync(layer, log)


def test_get_by_category_excludes_invalid(layer: ItemLayer, log: EventLog, rid: str) -> None:
    out = store(
        log,
        layer,
        rid,
        ItemDraft(content="Owls hunt at night", category="birds"),
        ItemDraft(content="Robins sing at dawn", category="birds"),
        ItemDraft(content="Bees make honey", category="insects"),
    )
    owl, robin, bee = out.stored
    with log.transaction() as conn:
        assert layer.invalidate(conn, owl.item_id, by="user") is True
        assert layer.invalidate(conn, owl.item_id) is False  # already invalid
        assert layer.invalidate(conn, "item_missing") is False
    assert [i.item_id for i in layer.get_by_category("birds")] == [robin.item_id]
    assert layer.get_by_category("nothing") == []
    assert layer.count_by_category() == {"birds": 1, "insects": 1}
    assert in_sync(layer, log)
    assert [i.item_id for i in layer.valid_candidates(10, category="birds")] == [robin.item_id]
    assert bee.item_id in [i.item_id for i in layer.valid_candidates(10)]


def random_words(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    letters = np.array(list("bcdfghjklmnpqrstvwxz"))
    return ["".join(rng.choice(letters, 7)) for _ in range(n)]


def test_dense_search_top_k_matches_brute_force(
    log: EventLog, tmp_path: Path, clock: Clock, rid: str
) -> None:
    layer = new_layer(log, tmp_path, clock, HashEmbedder(dimension=256))
    words = random_words(90, seed=1)
    texts = [" ".join(words[i : i + 3]) for i in range(0, 90, 3)]
    store(log, layer, rid, *texts)
    query = layer.embedder.embed_one(f"{words[3]} {words[4]} {words[50]}")
    hits = layer.dense_search(query, 5)
    assert len(hits) == 5
    mapping = rows(log)
    exact = layer.cosines(query, list(mapping.values()))
    best = sorted(exact.values(), reverse=True)[:5]
    assert [h.score for h in hits] == pytest.approx(best, abs=1e-5)
    assert all(h.score == pytest.approx(exact[h.row_id], abs=1e-5) for h in hits)
    assert hits[0].row_id == mapping[layer.get_by_resource(rid)[1].item_id]  # words 3, 4, 5
    assert len(layer.dense_search(query, 100)) == 30  # k above the size: everything


def test_dense_search_with_a_small_category_far_from_the_query(
    log: EventLog, tmp_path: Path, clock: Clock, rid: str
) -> None:
    layer = new_layer(log, tmp_path, clock, HashEmbedder(dimension=512))
    many = random_words(3 * 260, seed=2)
    near = [f"alpha {' '.join(many[i : i + 3])}" for i in range(0, len(many), 3)]
    far_words = random_words(12, seed=3)
    far = [
        ItemDraft(content=" ".join(far_words[i : i + 3]), category="far") for i in range(0, 12, 3)
    ]
    store(log, layer, rid, *near, *far)
    assert len(layer.index) == 264
    query = layer.embedder.embed_one("alpha")
    # the plain top 200 holds no "far" item at all
    _, top = layer.index.search(query, 200)
    far_rows = {rows(log)[i.item_id] for i in layer.get_by_category("far")}
    assert not far_rows & set(top[0].tolist())

    hits = layer.dense_search(query, 3, category="far")
    exact = layer.cosines(query, sorted(far_rows))
    assert [h.score for h in hits] == pytest.approx(sorted(exact.values(), reverse=True)[:3])
    assert {h.row_id for h in hits} <= far_rows
    assert {h.row_id for h in layer.dense_search(query, 10, category="far")} == far_rows
    assert layer.dense_search(query, 3, category="missing") == []
    # a category close to the query is served from the wide search
    near_hits = layer.dense_search(query, 3)
    assert all(h.row_id not in far_rows for h in near_hits)


def test_lexical_search_with_category(layer: ItemLayer, log: EventLog, rid: str) -> None:
    out = store(
        log,
        layer,
        rid,
        ItemDraft(content="Cello practice every evening", category="music"),
        ItemDraft(content="Bought a cello case", category="shopping"),
    )
    mapping = rows(log)
    hits = layer.lexical_search("cello", 5, category="music")
    assert [h.row_id for h in hits] == [mapping[out.stored[0].item_id]]
    assert layer.lexical_search("cello", 5, category="nope") == []
    assert len(layer.lexical_search("cello", 5)) == 2


def test_update_content_set_fields_and_delete(layer: ItemLayer, log: EventLog, rid: str) -> None:
    item = store(log, layer, rid, "I drink coffee every morning").stored[0]
    vec = layer.embedder.embed_one("I drink tea every morning")[0]
    with log.transaction() as conn:
        assert layer.update_content(conn, item.item_id, "I drink tea every morning", vec)
        assert not layer.update_content(conn, "item_missing", "x", vec)
        assert layer.set_fields(conn, item.item_id, importance="high", category="drinks")
        assert not layer.set_fields(conn, item.item_id)
        with pytest.raises(MemoryInputError, match="cannot set content"):
            layer.set_fields(conn, item.item_id, content="sneaky")
    got = layer.get(item.item_id)
    assert got is not None
    assert (got.content, got.importance, got.category) == (
        "I drink tea every morning",
        "high",
        "drinks",
    )
    assert len(layer.index) == 1  # the vector was replaced, not added
    hits = layer.dense_search(vec, 1)
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert [h.row_id for h in layer.lexical_search("tea", 5)] == [rows(log)[item.item_id]]
    assert layer.lexical_search("coffee", 5) == []
    with log.transaction() as conn:
        assert layer.delete_rows(conn, "item_id = ?", (item.item_id,)) == [item.item_id]
        assert layer.delete_rows(conn, "item_id = ?", (item.item_id,)) == []
    assert layer.get(item.item_id) is None
    assert len(layer.index) == 0
    assert layer.lexical_search("tea", 5) == []


def test_a_failed_batch_leaves_index_and_rows_in_sync(
    layer: ItemLayer, log: EventLog, rid: str
) -> None:
    store(log, layer, rid, "Already stored before")
    layer.save_index()
    with pytest.raises(sqlite3.IntegrityError), log.transaction() as conn:
        # the foreign key to memory_resources refuses the unknown resource mid-batch
        layer.store_drafts(conn, [ItemDraft(content="orphan fact here")], "res_missing")
    assert layer.count() == 1
    assert in_sync(layer, log)


def test_stored_embedding_of_the_wrong_size() -> None:
    with pytest.raises(VectorIndexError) as err:
        from_blob(to_blob(np.ones(8, dtype=np.float32)), 16)
    assert err.value.code == "MEM-008"
    assert from_blob(to_blob(np.ones(16, dtype=np.float32)), 16).shape == (16,)


# ── the index file: reopen, stale, missing, corrupt, model change ──────────


def seeded(log: EventLog, layer: ItemLayer, rid: str) -> list[str]:
    out = store(log, layer, rid, "Cello on Tuesdays", "Sister Anna in Lyon", "Allergic to cats")
    layer.save_index()
    return [i.item_id for i in out.stored]


def test_reopen_loads_the_saved_index_without_a_rebuild(
    layer: ItemLayer, log: EventLog, rid: str, tmp_path: Path, clock: Clock
) -> None:
    ids = seeded(log, layer, rid)
    path = layer.index_path
    mtime = path.stat().st_mtime_ns
    embedder = HashEmbedder()
    again = new_layer(log, tmp_path, clock, embedder)
    assert again.open() is None
    assert again.last_rebuild_reason is None
    assert again.index_loaded and len(again.index) == 3
    assert embedder.calls == 0  # nothing was re-embedded
    assert path.stat().st_mtime_ns == mtime  # nor rewritten
    query = embedder.embed_one("Sister Anna in Lyon")
    assert again.dense_search(query, 1)[0].row_id == rows(log)[ids[1]]


def test_empty_memory_without_an_index_file_is_not_a_rebuild(layer: ItemLayer) -> None:
    assert layer.open() is None
    assert len(layer.index) == 0
    assert layer.last_rebuild_reason is None
    layer.save_index()
    assert layer.index_path.is_file() and sidecar_path(layer.index_path).is_file()


def insert_out_of_band(log: EventLog, rid: str, content: str, embedder: HashEmbedder) -> int:
    """A row written behind the layer's back (another process, a crash before the save)."""
    with log.transaction() as conn:
        cur = conn.execute(
            "INSERT INTO memory_items (item_id, content, content_hash, embedding,"
            " source_resource_id, confidence, created_at, valid_at)"
            " VALUES (?, ?, ?, ?, ?, 0.7, ?, ?)",
            (
                "item_00000000-0000-0000-0000-000000000001",
                content,
                content_hash(content),
                to_blob(embedder.embed_one(content)[0]),
                rid,
                T0.isoformat(),
                T0.isoformat(),
            ),
        )
    return int(cur.lastrowid or 0)


def test_stale_index_after_an_out_of_band_insert_is_rebuilt(
    layer: ItemLayer, log: EventLog, rid: str, tmp_path: Path, clock: Clock
) -> None:
    seeded(log, layer, rid)
    row = insert_out_of_band(log, rid, "Runs marathons in spring", HashEmbedder())
    again = new_layer(log, tmp_path, clock)
    rebuilt = again.open()
    assert rebuilt is not None
    reason, ms = rebuilt
    assert reason == "it holds 3 items but the database has 4 (or a different set)"
    assert ms >= 0
    assert again.last_rebuild_reason == reason
    assert len(again.index) == 4 and in_sync(again, log)
    query = again.embedder.embed_one("Runs marathons in spring")
    assert again.dense_search(query, 1)[0].row_id == row
    # the rebuilt index was saved: the next open loads it
    assert new_layer(log, tmp_path, clock).open() is None


def test_a_deleted_index_file_is_rebuilt(
    layer: ItemLayer, log: EventLog, rid: str, tmp_path: Path, clock: Clock
) -> None:
    seeded(log, layer, rid)
    layer.index_path.unlink()
    again = new_layer(log, tmp_path, clock)
    rebuilt = again.open()
    assert rebuilt is not None and rebuilt[0] == "the index file is missing"
    assert len(again.index) == 3 and in_sync(again, log)
    assert layer.index_path.is_file()


def test_a_corrupted_index_file_is_rebuilt(
    layer: ItemLayer, log: EventLog, rid: str, tmp_path: Path, clock: Clock
) -> None:
    seeded(log, layer, rid)
    layer.index_path.write_bytes(np.random.default_rng(5).bytes(2048))
    again = new_layer(log, tmp_path, clock)
    rebuilt = again.open()
    assert rebuilt is not None and rebuilt[0].startswith("the index file is corrupt")
    assert len(again.index) == 3 and in_sync(again, log)


def test_a_changed_embedder_dimension_re_embeds_and_rebuilds(
    layer: ItemLayer, log: EventLog, rid: str, tmp_path: Path, clock: Clock
) -> None:
    ids = seeded(log, layer, rid)
    small = HashEmbedder(dimension=32)
    again = new_layer(log, tmp_path, clock, small)
    rebuilt = again.open()
    assert rebuilt is not None
    assert rebuilt[0] == "it was built for fake-bow-64/64 dims, not fake-bow-32/32"
    assert small.encoded_texts == 3  # every stored item was embedded again
    assert again.index.dimension == 32 and len(again.index) == 3
    for item_id in ids:
        got = again.get(item_id, with_embedding=True)
        assert got is not None and got.embedding is not None and len(got.embedding) == 32
    meta = log.connection.execute(
        "SELECT value FROM memory_meta WHERE key = 'embedding_model'"
    ).fetchone()[0]
    assert meta == "fake-bow-32/32"
    side = json.loads(sidecar_path(again.index_path).read_text())
    assert (side["model_id"], side["dimension"]) == ("fake-bow-32", 32)
    query = small.embed_one("Allergic to cats")
    assert again.dense_search(query, 1)[0].row_id == rows(log)[ids[2]]


def test_invalid_items_are_not_rebuilt_into_the_index(
    layer: ItemLayer, log: EventLog, rid: str
) -> None:
    ids = seeded(log, layer, rid)
    with log.transaction() as conn:
        layer.invalidate(conn, ids[0])
    reason, _ = layer.rebuild_index()
    assert reason == "requested"
    assert len(layer.index) == 2 and in_sync(layer, log)


def _drafts(texts: Sequence[str], **kw: Any) -> list[ItemDraft]:
    return [ItemDraft(content=t, **kw) for t in texts]


def test_a_batch_with_repeats_and_slots(layer: ItemLayer, log: EventLog, rid: str) -> None:
    out = store(
        log,
        layer,
        rid,
        *_drafts(["Cat named Tom", "cat NAMED tom"], kind="biography", slot="pet_name"),
        ItemDraft(content="Cat named Felix", kind="biography", slot="pet_name"),
    )
    assert [i.content for i in out.stored] == ["Cat named Tom", "Cat named Felix"]
    assert [i.content for i in out.reinforced] == ["Cat named Tom"]
    assert out.invalidated == [out.stored[0].item_id]
    assert layer.count() == 1 and in_sync(layer, log)
