"""Seed 004's eight knowledge bases on a real EventLog file: search, upsert, errors, reopen."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.knowledge_bases import (
    KB_NAMES,
    KBHit,
    KBPoint,
    KnowledgeBases,
    UpsertResult,
    snippet,
)
from rilai_desktop.store import EventLog

DIM = 64
SQLISH = "'; DROP TABLE kb_points; --"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "rilai.db"


@pytest.fixture
def log(db_path: Path) -> Iterator[EventLog]:
    with EventLog(db_path) as opened:
        yield opened


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder(dimension=DIM)


@pytest.fixture
def kbs(log: EventLog, embedder: HashEmbedder) -> KnowledgeBases:
    return KnowledgeBases(log, embedder)


def axis(i: int, scale: float = 1.0) -> list[float]:
    vec = [0.0] * DIM
    vec[i] = scale
    return vec


def rows(log: EventLog, kb: str | None = None) -> int:
    if kb is None:
        return int(log.connection.execute("SELECT COUNT(*) FROM kb_points").fetchone()[0])
    return int(
        log.connection.execute(
            "SELECT COUNT(*) FROM kb_points WHERE kb_name = ?", (kb,)
        ).fetchone()[0]
    )


def test_names_are_the_seed_eight() -> None:
    assert KB_NAMES == ("kb_core", "kb_skills", "kb_1", "kb_2", "kb_3", "kb_4", "kb_5", "kb_6")


@pytest.mark.parametrize("kb", KB_NAMES)
def test_each_kb_upserts_and_searches(kbs: KnowledgeBases, log: EventLog, kb: str) -> None:
    result = kbs.upsert_vectors(
        kb,
        [
            KBPoint(id=f"{kb}-a", vector=axis(0), payload={"content": f"alpha in {kb}"}),
            {"id": f"{kb}-b", "vector": axis(1), "payload": {"text": "beta"}},
        ],
    )
    assert result == UpsertResult(success=True, upserted_count=2)
    assert kbs.count(kb) == 2
    hits = kbs.semantic_search("", kb, limit=5, query_vector=axis(0, 3.0))
    assert [h.document_id for h in hits] == [f"{kb}-a", f"{kb}-b"]
    assert hits[0].score == pytest.approx(1.0) and hits[1].score == pytest.approx(0.0)
    assert hits[0].content_snippet == f"alpha in {kb}"
    assert hits[1].content_snippet == "beta"
    assert all(isinstance(h, KBHit) for h in hits)
    # the other knowledge bases are untouched
    assert rows(log) == 2


def test_kbs_are_separate(kbs: KnowledgeBases) -> None:
    kbs.upsert_texts("kb_1", {"doc": "the cat sat on the mat"})
    kbs.upsert_texts("kb_2", {"doc": "quarterly revenue report"})
    assert [h.content_snippet for h in kbs.semantic_search("cat mat", "kb_1")] == [
        "the cat sat on the mat"
    ]
    assert [h.content_snippet for h in kbs.semantic_search("cat mat", "kb_2")] == [
        "quarterly revenue report"
    ]
    assert kbs.semantic_search("cat", "kb_3") == []


def test_text_search_ranks_by_meaning(kbs: KnowledgeBases) -> None:
    kbs.upsert_texts(
        "kb_core",
        {
            "d1": "How to brew green tea properly",
            "d2": "Changing a bicycle tyre",
            "d3": "Green tea and black tea compared",
        },
    )
    hits = kbs.semantic_search("green tea", "kb_core", limit=2)
    assert {h.document_id for h in hits} == {"d1", "d3"}
    assert hits[0].score >= hits[1].score
    assert len(kbs.semantic_search("green tea", "kb_core", limit=100)) == 3


@pytest.mark.parametrize("bad", ["kb_7", "KB_CORE", "", "kb_core ", None, 1, SQLISH])
def test_unknown_kb_name(kbs: KnowledgeBases, bad: Any) -> None:
    with pytest.raises(MemoryInputError, match="valid names: kb_core, kb_skills, kb_1") as info:
        kbs.semantic_search("q", bad)
    assert all(name in str(info.value) for name in KB_NAMES)
    with pytest.raises(MemoryInputError, match="Unknown knowledge base"):
        kbs.upsert_vectors(bad, [])
    with pytest.raises(MemoryInputError):
        kbs.count(bad)
    with pytest.raises(MemoryInputError):
        kbs.delete(bad, ["x"])


@pytest.mark.parametrize("limit", [0, 101, -1, 1.5, True, "10"])
def test_limit_out_of_range(kbs: KnowledgeBases, limit: Any) -> None:
    with pytest.raises(MemoryInputError, match="limit must be an integer from 1 to 100"):
        kbs.semantic_search("q", "kb_core", limit=limit)


@pytest.mark.parametrize("limit", [1, 100])
def test_limit_bounds_accepted(kbs: KnowledgeBases, limit: int) -> None:
    kbs.upsert_texts("kb_core", {f"d{i}": f"document {i}" for i in range(3)})
    assert len(kbs.semantic_search("document", "kb_core", limit=limit)) == min(limit, 3)


def test_empty_query_without_vector(kbs: KnowledgeBases) -> None:
    with pytest.raises(MemoryInputError, match="query is empty"):
        kbs.semantic_search("   ", "kb_core")
    with pytest.raises(MemoryInputError, match="string"):
        kbs.semantic_search(None, "kb_core")  # type: ignore[arg-type]


def test_query_vector_wrong_dimension(kbs: KnowledgeBases) -> None:
    with pytest.raises(MemoryInputError, match=r"dimension 1536.*dimension is 64"):
        kbs.semantic_search("q", "kb_core", query_vector=[0.1] * 1536)
    with pytest.raises(MemoryInputError, match="dimension"):
        kbs.semantic_search("q", "kb_core", query_vector=[])


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_query_vector_not_finite(kbs: KnowledgeBases, bad: float) -> None:
    vec = axis(0)
    vec[5] = bad
    with pytest.raises(MemoryInputError, match="NaN or infinity"):
        kbs.semantic_search("q", "kb_core", query_vector=vec)


def test_query_vector_zero_or_garbage(kbs: KnowledgeBases) -> None:
    with pytest.raises(MemoryInputError, match="zero vector"):
        kbs.semantic_search("q", "kb_core", query_vector=[0.0] * DIM)
    with pytest.raises(MemoryInputError, match="list of 64 numbers"):
        kbs.semantic_search("q", "kb_core", query_vector="0.1, 0.2")  # type: ignore[arg-type]
    with pytest.raises(MemoryInputError, match="list of 64 numbers"):
        kbs.semantic_search("q", "kb_core", query_vector=["a"] * DIM)  # type: ignore[list-item]


def test_query_vector_path_skips_the_embedder(kbs: KnowledgeBases, embedder: HashEmbedder) -> None:
    kbs.upsert_vectors("kb_skills", [{"id": "x", "vector": axis(3), "payload": {}}])
    calls = embedder.calls
    hits = kbs.semantic_search("ignored text", "kb_skills", query_vector=np.array(axis(3)))
    assert [h.document_id for h in hits] == ["x"]
    assert embedder.calls == calls
    # numpy input and the query text's embedding agree with the list path
    assert kbs.semantic_search("", "kb_skills", query_vector=axis(3))[0].score == pytest.approx(1)


def test_upsert_normalises_vectors(kbs: KnowledgeBases, log: EventLog) -> None:
    kbs.upsert_vectors("kb_1", [{"id": "p", "vector": axis(2, 7.5), "payload": {}}])
    blob = log.connection.execute("SELECT vector FROM kb_points").fetchone()[0]
    stored = np.frombuffer(blob, dtype="<f4")
    assert stored.shape == (DIM,) and float(np.linalg.norm(stored)) == pytest.approx(1.0)
    hit = kbs.semantic_search("", "kb_1", query_vector=axis(2, 0.01))[0]
    assert hit.score == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("bad_point", "match"),
    [
        ({"id": "", "vector": axis(0), "payload": {}}, "id is empty"),
        ({"id": "   ", "vector": axis(0), "payload": {}}, "id is empty"),
        ({"id": "x" * 201, "vector": axis(0), "payload": {}}, "201 characters"),
        ({"id": "bad", "vector": [1.0] * 3, "payload": {}}, "dimension 3.*dimension is 64"),
        ({"id": "bad", "vector": [math.nan] * DIM, "payload": {}}, "finite"),
        ({"id": "bad", "vector": [0.0] * DIM, "payload": {}}, "zero vector"),
        ({"id": "bad", "vector": axis(0), "payload": {"n": 1}}, "payload"),
        ({"id": "bad", "vector": axis(0), "payload": ["a"]}, "payload"),
        ({"id": "bad", "vector": axis(0), "payload": {}, "extra": 1}, "extra"),
        ({"vector": axis(0), "payload": {}}, "id"),
        ({"id": "bad\ud800", "vector": axis(0), "payload": {}}, "surrogate"),
        ({"id": "bad", "vector": axis(0), "payload": {"k": "nul\x00"}}, "NUL"),
        ("not a point", "KBPoint or a mapping"),
    ],
)
def test_upsert_is_all_or_nothing(
    kbs: KnowledgeBases, log: EventLog, bad_point: Any, match: str
) -> None:
    kbs.upsert_vectors("kb_2", [{"id": "old", "vector": axis(9), "payload": {"content": "v1"}}])
    good = [
        {"id": "old", "vector": axis(1), "payload": {"content": "v2"}},
        {"id": "new", "vector": axis(2), "payload": {"content": "new"}},
    ]
    with pytest.raises(MemoryInputError, match=match) as info:
        kbs.upsert_vectors("kb_2", [*good, bad_point])
    assert "point 2" in str(info.value)
    assert rows(log) == 1
    (hit,) = kbs.semantic_search("", "kb_2", query_vector=axis(9))
    assert (hit.document_id, hit.content_snippet) == ("old", "v1")


def test_upsert_updates_existing_id(kbs: KnowledgeBases, log: EventLog) -> None:
    kbs.upsert_vectors(
        "kb_3",
        [
            {"id": "a", "vector": axis(0), "payload": {"content": "first"}},
            {"id": "b", "vector": axis(1), "payload": {"content": "other"}},
        ],
    )
    assert kbs.semantic_search("", "kb_3", limit=1, query_vector=axis(0))[0].document_id == "a"
    result = kbs.upsert_vectors(
        "kb_3", [{"id": "a", "vector": axis(5), "payload": {"content": "moved"}}]
    )
    assert result.upserted_count == 1
    assert rows(log, "kb_3") == 2
    top = kbs.semantic_search("", "kb_3", limit=1, query_vector=axis(5))[0]
    assert (top.document_id, top.content_snippet) == ("a", "moved")
    assert top.score == pytest.approx(1.0)
    old_axis = kbs.semantic_search("", "kb_3", limit=2, query_vector=axis(0))
    assert all(h.score == pytest.approx(0.0) for h in old_axis)


def test_repeated_id_in_one_call_last_wins(kbs: KnowledgeBases) -> None:
    result = kbs.upsert_vectors(
        "kb_4",
        [
            {"id": "dup", "vector": axis(0), "payload": {"content": "one"}},
            {"id": "dup", "vector": axis(1), "payload": {"content": "two"}},
        ],
    )
    assert result == UpsertResult(success=True, upserted_count=1)
    (hit,) = kbs.semantic_search("", "kb_4", query_vector=axis(1))
    assert hit.content_snippet == "two" and hit.score == pytest.approx(1.0)


def test_empty_upsert(kbs: KnowledgeBases) -> None:
    assert kbs.upsert_vectors("kb_5", []) == UpsertResult(success=True, upserted_count=0)
    assert kbs.upsert_texts("kb_5", {}) == UpsertResult(success=True, upserted_count=0)
    with pytest.raises(MemoryInputError, match="list of points"):
        kbs.upsert_vectors("kb_5", {"id": "x"})  # type: ignore[arg-type]


def test_persistence_across_reopen(db_path: Path, log: EventLog) -> None:
    kbs = KnowledgeBases(log, HashEmbedder(dimension=DIM))
    kbs.upsert_texts("kb_6", {"a": "persistent memory of apples", "b": "bananas are yellow"})
    kbs.upsert_vectors("kb_core", [{"id": "v", "vector": axis(4), "payload": {"k": "v"}}])
    kbs.delete("kb_6", ["b"])
    log.close()
    with EventLog(db_path) as again:
        fresh = KnowledgeBases(again, HashEmbedder(dimension=DIM))
        assert fresh.count("kb_6") == 1
        assert [h.document_id for h in fresh.semantic_search("apples", "kb_6")] == ["a"]
        (hit,) = fresh.semantic_search("", "kb_core", query_vector=axis(4))
        assert hit.content_snippet == json.dumps({"k": "v"})


def test_delete(kbs: KnowledgeBases) -> None:
    kbs.upsert_texts("kb_1", {"a": "alpha text", "b": "beta text", "c": "gamma text"})
    assert len(kbs.semantic_search("text", "kb_1")) == 3  # index built
    assert kbs.delete("kb_1", ["a", "a", "missing"]) == 1
    assert {h.document_id for h in kbs.semantic_search("text", "kb_1")} == {"b", "c"}
    assert kbs.delete("kb_1", []) == 0
    with pytest.raises(MemoryInputError):
        kbs.delete("kb_1", "b")
    kbs.upsert_texts("kb_1", {"a": "alpha is back"})
    assert {h.document_id for h in kbs.semantic_search("text alpha", "kb_1")} == {"a", "b", "c"}


@pytest.mark.parametrize(
    "text",
    [
        SQLISH,
        "ünïcödé — 日本語 — עברית",
        "emoji 🎉🔥👩‍👩‍👧‍👦",
        "x" * 5000,
        "quotes \" ' ` \\ %s {0}",
    ],
)
def test_hostile_payloads_stored_verbatim(
    db_path: Path, log: EventLog, kbs: KnowledgeBases, text: str
) -> None:
    kbs.upsert_vectors(
        "kb_core",
        [{"id": text[:200], "vector": axis(7), "payload": {"content": text, text[:50]: "k"}}],
    )
    kbs.upsert_texts("kb_1", {text[:200]: text})
    log.close()
    with EventLog(db_path) as again:
        fresh = KnowledgeBases(again, HashEmbedder(dimension=DIM))
        (hit,) = fresh.semantic_search("", "kb_core", query_vector=axis(7))
        assert hit.document_id == text[:200]
        assert hit.content_snippet == text[:200]
        payload = json.loads(
            again.connection.execute(
                "SELECT payload FROM kb_points WHERE kb_name='kb_core'"
            ).fetchone()[0]
        )
        assert payload["content"] == text
        (hit,) = fresh.semantic_search(text[:1000], "kb_1")
        assert hit.document_id == text[:200]
        assert again.connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_sql_looking_query_is_just_text(kbs: KnowledgeBases, log: EventLog) -> None:
    kbs.upsert_texts("kb_2", {"d": "drop table lessons"})
    assert kbs.semantic_search(SQLISH, "kb_2")[0].document_id == "d"
    assert rows(log) == 1


def test_snippet_rules() -> None:
    assert snippet({"content": "c", "text": "t"}) == "c"
    assert snippet({"content": "", "text": "t"}) == "t"
    assert snippet({"title": "T", "author": "A"}) == '{"author": "A", "title": "T"}'
    assert snippet({"content": "é" * 300}) == "é" * 200
    assert snippet({}) == "{}"


def test_upsert_texts_validation(kbs: KnowledgeBases, log: EventLog) -> None:
    with pytest.raises(MemoryInputError, match="empty"):
        kbs.upsert_texts("kb_1", {"a": "fine", "b": "  "})
    with pytest.raises(MemoryInputError, match="surrogate"):
        kbs.upsert_texts("kb_1", {"a": "bad \udc80"})
    with pytest.raises(MemoryInputError, match="strings"):
        kbs.upsert_texts("kb_1", {"a": 3})  # type: ignore[dict-item]
    assert rows(log) == 0


def test_upsert_inside_rolled_back_transaction(kbs: KnowledgeBases, log: EventLog) -> None:
    kbs.upsert_vectors("kb_core", [{"id": "keep", "vector": axis(0), "payload": {}}])
    assert len(kbs.semantic_search("", "kb_core", query_vector=axis(0))) == 1
    with pytest.raises(RuntimeError), log.transaction():
        kbs.upsert_vectors("kb_core", [{"id": "doomed", "vector": axis(0), "payload": {}}])
        assert len(kbs.semantic_search("", "kb_core", query_vector=axis(0))) == 2
        raise RuntimeError("roll back")
    assert [h.document_id for h in kbs.semantic_search("", "kb_core", query_vector=axis(0))] == [
        "keep"
    ]


def test_wrong_dimension_rows_are_skipped(db_path: Path, log: EventLog) -> None:
    KnowledgeBases(log, HashEmbedder(dimension=32)).upsert_texts("kb_1", {"old": "old model"})
    kbs = KnowledgeBases(log, HashEmbedder(dimension=DIM))
    kbs.upsert_texts("kb_1", {"new": "new model"})
    assert [h.document_id for h in kbs.semantic_search("model", "kb_1")] == ["new"]
    assert kbs.skipped["kb_1"] == 1
    assert kbs.count("kb_1") == 2
