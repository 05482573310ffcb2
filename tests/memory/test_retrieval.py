"""Retrieval: RAG fusion, the LLM re-ranker, the hybrid's escalation, confidence, calibration."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.errors import MemoryInputError, RetrievalError
from rilai_desktop.llm.errors import ModelCallError
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.items import ItemLayer
from rilai_desktop.memory.resources import ResourceLayer
from rilai_desktop.memory.retrieval import (
    ConfidenceScorer,
    ConfidenceWeights,
    FusionWeights,
    HybridRetriever,
    LLMRetriever,
    RAGRetriever,
    calibrate_threshold,
    check_query,
)
from rilai_desktop.memory.types import ItemDraft, MemoryItem, RetrievalMode, RetrievalResult
from rilai_desktop.store import EventLog
from tests.memory.conftest import Clock, SleepRecorder


@dataclass
class Env:
    log: EventLog
    layer: ItemLayer
    rag: RAGRetriever
    rid: str
    clock: Clock

    def add(self, *drafts: ItemDraft | str) -> list[MemoryItem]:
        ds = [d if isinstance(d, ItemDraft) else ItemDraft(content=d) for d in drafts]
        with self.log.transaction() as conn:
            out = self.layer.store_drafts(conn, ds, self.rid)
        assert out.reinforced == []
        return out.stored


@pytest.fixture
def env(log: EventLog, tmp_path: Path, clock: Clock) -> Env:
    # 512 dimensions: hashed words of unrelated texts practically never collide
    embedder = HashEmbedder(dimension=512)
    layer = ItemLayer(log, embedder, tmp_path / "memory" / "index.faiss", clock=clock)
    rid = ResourceLayer(log, clock=clock).store("source", "conversation").resource_id
    return Env(log, layer, RAGRetriever(layer, embedder, clock=clock), rid, clock)


DISTRACTORS = ["Tax forms due soon", "Weekly grocery shopping", "Bicycle repair notes"]


def ids(items: Sequence[MemoryItem]) -> list[str]:
    return [i.item_id for i in items]


# ── RAG ─────────────────────────────────────────────────────────────────────


def test_fusion_finds_a_lexical_only_and_a_dense_only_match(env: Env) -> None:
    # "study" ~ "Studies" only through the FTS5 porter stemmer (the hash embedder's stems
    # "study"/"studi" differ); "photon" ~ "Photograph" only through the embedding (the
    # stems agree on "photo", the FTS5 tokens do not).
    lexical_only, dense_only, *_ = env.add(
        "Studies of medieval castles", "Photograph collection archive", *DISTRACTORS
    )
    scored, total = env.rag.candidates("study photon", 5)
    by_id = {s.item.item_id: s for s in scored}
    assert total == 5
    lex = by_id[lexical_only.item_id]
    dense = by_id[dense_only.item_id]
    assert lex.lexical == pytest.approx(1.0) and lex.dense == pytest.approx(0.0, abs=1e-6)
    assert dense.lexical == 0.0 and dense.dense > 0.3
    others = [s for s in scored if s.item.content in DISTRACTORS]
    assert [(s.dense, s.lexical) for s in others] == [(0.0, 0.0)] * 3  # no hash collisions
    result = env.rag.retrieve("study photon", k=2)
    assert set(ids(result.items)) == {lexical_only.item_id, dense_only.item_id}
    assert result.total_found == 5


def test_importance_breaks_a_tie(env: Env) -> None:
    # same words (so the same cosine and BM25), different kinds (so no dedupe)
    low, high = env.add(
        ItemDraft(content="green tea every morning", kind="preference", importance="low"),
        ItemDraft(content="Green tea, every morning!", kind="fact", importance="high"),
    )
    scored, _ = env.rag.candidates("green tea", 5)
    assert scored[0].dense == pytest.approx(scored[1].dense)
    assert scored[0].lexical == pytest.approx(scored[1].lexical)
    assert ids(env.rag.retrieve("green tea", k=2).items) == [high.item_id, low.item_id]


def test_recency_breaks_a_tie(env: Env) -> None:
    now = env.clock.now()
    recent, older = env.add(
        ItemDraft(
            content="jazz on vinyl records", kind="preference", valid_at=now - timedelta(days=1)
        ),
        ItemDraft(
            content="Jazz, on vinyl records.", kind="fact", valid_at=now - timedelta(days=90)
        ),
    )
    res = env.rag.retrieve("jazz vinyl", k=2)
    assert ids(res.items) == [recent.item_id, older.item_id]
    assert res.confidence_scores[0] > res.confidence_scores[1]
    # stored the other way round, the more recent statement still wins
    env.clock.advance(days=1)
    newest = env.add(
        ItemDraft(content="Jazz on vinyl records!!", kind="event", valid_at=env.clock.now())
    )[0]
    assert ids(env.rag.retrieve("jazz vinyl", k=1).items) == [newest.item_id]


def test_k_limits_scores_and_total_found(env: Env) -> None:
    env.add(*[f"note {w} about gardening" for w in ("one", "two", "three", "four", "five")])
    env.add(*DISTRACTORS)
    result = env.rag.retrieve("gardening note", k=3)
    assert isinstance(result, RetrievalResult)
    assert len(result.items) == len(result.confidence_scores) == 3
    assert result.total_found == 8  # every candidate, before the k limit
    assert result.confidence_scores == sorted(result.confidence_scores, reverse=True)
    assert all("gardening" in i.content for i in result.items)
    assert result.mode_used is RetrievalMode.RAG and result.escalated is False
    assert result.search_time_ms >= 0
    assert len(env.rag.retrieve("gardening note", k=100).items) == 8
    assert len(env.rag.retrieve("gardening note", k=1).items) == 1


def test_empty_memory_finds_nothing(env: Env) -> None:
    result = env.rag.retrieve("anything at all", k=5)
    assert result.items == [] and result.total_found == 0 and result.confidence_scores == []


def test_category_filter(env: Env) -> None:
    env.add(
        ItemDraft(content="Cello practice on Tuesdays", category="music"),
        ItemDraft(content="Piano lessons on Fridays", category="music"),
        ItemDraft(content="Cello case bought on sale", category="shopping"),
    )
    result = env.rag.retrieve("cello", k=5, category_filter="music")
    assert {i.category for i in result.items} == {"music"}
    assert result.total_found == 2
    assert result.items[0].content == "Cello practice on Tuesdays"
    assert env.rag.retrieve("cello", k=5, category_filter="nothing_here").items == []


def test_invalidated_items_are_never_retrieved(env: Env) -> None:
    gone, kept = env.add("Lives in Berlin city centre", "Works in Berlin as a nurse")
    with env.log.transaction() as conn:
        env.layer.invalidate(conn, gone.item_id)
    assert ids(env.rag.retrieve("Berlin", k=5).items) == [kept.item_id]


@pytest.mark.parametrize(
    ("query", "k", "fragment"),
    [
        ("", 5, "empty"),
        ("   \n", 5, "empty"),
        (None, 5, "empty"),
        (42, 5, "empty"),
        ("x" * 10_001, 5, "10,001 characters"),
        ("q", 0, "k must be"),
        ("q", 101, "k must be"),
        ("q", -1, "k must be"),
        ("q", True, "k must be"),
        ("q", 2.0, "k must be"),
        ("q", "5", "k must be"),
    ],
)
def test_check_query_errors(query: Any, k: Any, fragment: str) -> None:
    with pytest.raises(MemoryInputError) as err:
        check_query(query, k)
    assert fragment in err.value.message
    assert err.value.recovery_suggestions


def test_check_query_limits_are_inclusive(env: Env) -> None:
    assert check_query("x" * 10_000, 1) == "x" * 10_000
    assert check_query("q", 100) == "q"
    with pytest.raises(MemoryInputError):
        env.rag.retrieve("q", k=0)


# ── LLM re-ranking ──────────────────────────────────────────────────────────


class RawLLM:
    """A model port fake that answers with raw text, unchecked against the schema."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.calls = 0

    @property
    def model_id(self) -> str:
        return "raw"

    def complete(self, messages: Sequence[Mapping[str, str]], **kwargs: Any) -> Any:
        self.calls += 1

        @dataclass
        class Reply:
            text: str

        return Reply(self.replies.pop(0))


def picks(*pairs: tuple[int, str]) -> dict[str, Any]:
    return {"picks": [{"n": n, "relevance": r} for n, r in pairs]}


@pytest.fixture
def five(env: Env) -> list[MemoryItem]:
    return env.add(
        "cats are my favourite animal",
        "my cat is called Tom",
        "the cat sleeps all day",
        "cat food is expensive",
        "a cat video made me laugh",
    )


def llm_retriever(env: Env, model: Any, sleeps: SleepRecorder, **kw: Any) -> LLMRetriever:
    return LLMRetriever(env.rag, model, sleep=sleeps, **kw)


def test_llm_picks_are_returned_in_the_models_order(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder
) -> None:
    pool, _ = env.rag.candidates("cat", 20)
    llm = ScriptedLLM()
    llm.enqueue(picks((3, "high"), (1, "low")))
    result = llm_retriever(env, llm, sleeps).retrieve("cat", k=2)
    assert ids(result.items) == [pool[2].item.item_id, pool[0].item.item_id]
    assert result.confidence_scores == [0.9, 0.5]
    assert result.mode_used is RetrievalMode.LLM and not result.escalated
    assert result.total_found == 5
    (request,) = llm.requests
    assert request.temperature == 0.0
    assert "Question: cat" in request.messages[-1].content
    assert "\n1. " in request.messages[-1].content and "\n5. " in request.messages[-1].content
    assert sleeps.calls == []


def test_fewer_picks_than_k_are_filled_in_rag_order(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder
) -> None:
    pool, _ = env.rag.candidates("cat", 20)
    llm = ScriptedLLM([picks((4, "medium"))])
    result = llm_retriever(env, llm, sleeps).retrieve("cat", k=4)
    expected = [pool[3], pool[0], pool[1], pool[2]]
    assert ids(result.items) == [s.item.item_id for s in expected]
    assert result.confidence_scores[0] == 0.7
    assert result.confidence_scores[1:] == [round(0.5 * s.score, 6) for s in expected[1:]]
    assert all(s < 0.7 for s in result.confidence_scores[1:])  # below the model's pick


def test_duplicate_picks_are_ignored(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder
) -> None:
    pool, _ = env.rag.candidates("cat", 20)
    llm = ScriptedLLM([picks((2, "high"), (2, "low"), (5, "medium"))])
    result = llm_retriever(env, llm, sleeps).retrieve("cat", k=3)
    assert ids(result.items)[:2] == [pool[1].item.item_id, pool[4].item.item_id]
    assert result.confidence_scores[:2] == [0.9, 0.7]
    assert len(set(ids(result.items))) == 3


def test_out_of_range_picks_are_ignored(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder
) -> None:
    pool, _ = env.rag.candidates("cat", 20)
    model = RawLLM(json.dumps(picks((0, "high"), (99, "high"), (-1, "high"), (3, "odd"))))
    result = llm_retriever(env, model, sleeps).retrieve("cat", k=2)
    assert ids(result.items) == [pool[2].item.item_id, pool[0].item.item_id]
    assert result.confidence_scores[0] == 0.5  # an unknown relevance counts as 0.5
    assert model.calls == 1


def test_llm_failures_are_retried_then_raise_retrieval_error(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder
) -> None:
    llm = ScriptedLLM()
    for _ in range(3):
        llm.enqueue_error(ModelCallError("model crashed"))
    with pytest.raises(RetrievalError) as err:
        llm_retriever(env, llm, sleeps).retrieve("cat", k=2)
    assert err.value.code == "MEM-007"
    assert "after 3 tries" in err.value.message
    assert err.value.context == {"model": "scripted"}
    assert err.value.recovery_suggestions
    assert len(llm.requests) == 3  # 1 try + max_retries (2)
    assert sleeps.calls == [1.0, 2.0]  # backoff_base * 2**attempt


@pytest.mark.parametrize(
    "bad", ["not json", "{}", '{"picks": 3}', '{"picks": [{"relevance": "high"}]}', "[]"]
)
def test_unusable_replies_are_retried(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder, bad: str
) -> None:
    good = json.dumps(picks((2, "high")))
    model = RawLLM(bad, good)
    result = llm_retriever(env, model, sleeps, backoff_base=0.5).retrieve("cat", k=1)
    assert len(result.items) == 1
    assert model.calls == 2 and sleeps.calls == [0.5]
    model = RawLLM(bad, bad)
    with pytest.raises(RetrievalError):
        llm_retriever(env, model, sleeps, max_retries=1).retrieve("cat", k=1)


def test_the_schema_constrains_n_with_an_enum(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder
) -> None:
    schema = LLMRetriever.schema(4, 2)
    item = schema["properties"]["picks"]["items"]
    assert item["properties"]["n"] == {"enum": [1, 2, 3, 4]}
    assert item["properties"]["relevance"] == {"enum": ["high", "medium", "low"]}
    assert item["required"] == ["n", "relevance"] and item["additionalProperties"] is False
    assert schema["properties"]["picks"]["maxItems"] == 2
    assert LLMRetriever.schema(2, 5)["properties"]["picks"]["maxItems"] == 2
    llm = ScriptedLLM([picks((1, "high"))])
    llm_retriever(env, llm, sleeps, max_candidates=3).retrieve("cat", k=2)
    assert llm.requests[0].schema == LLMRetriever.schema(3, 2)  # only 3 candidates shown
    # a reply outside the enum never gets through the (grammar-enforcing) fake
    llm = ScriptedLLM([picks((4, "high"))] * 3)
    with pytest.raises(RetrievalError):
        llm_retriever(env, llm, sleeps, max_candidates=3).retrieve("cat", k=2)


def test_llm_retriever_bounds_and_empty_memory(env: Env, sleeps: SleepRecorder) -> None:
    for bad in (0, 51):
        with pytest.raises(MemoryInputError):
            llm_retriever(env, ScriptedLLM(), sleeps, max_candidates=bad)
    llm = ScriptedLLM()
    result = llm_retriever(env, llm, sleeps).retrieve("anything", k=3)
    assert result.items == [] and llm.requests == []


# ── hybrid ──────────────────────────────────────────────────────────────────


def hybrid(env: Env, llm: ScriptedLLM | None, sleeps: SleepRecorder, **kw: Any) -> HybridRetriever:
    llm_r = None if llm is None else llm_retriever(env, llm, sleeps)
    return HybridRetriever(env.rag, llm_r, variance_threshold=1.0, **kw)


def test_hybrid_escalates_below_the_threshold_and_not_above(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder
) -> None:
    llm = ScriptedLLM(default=picks((5, "high")))
    probe = hybrid(env, llm, sleeps, escalation_threshold=0.0)
    rag_result = probe.retrieve("cat food", k=2)
    confidence = probe.last_confidence
    assert confidence is not None and 0.0 < confidence < 1.0
    assert rag_result.escalated is False and rag_result.mode_used is RetrievalMode.RAG
    assert llm.requests == []

    above = hybrid(env, llm, sleeps, escalation_threshold=confidence - 1e-6)
    result = above.retrieve("cat food", k=2)
    assert not result.escalated and len(llm.requests) == 0
    assert ids(result.items) == ids(rag_result.items)
    assert result.confidence_scores == rag_result.confidence_scores

    below = hybrid(env, llm, sleeps, escalation_threshold=confidence + 1e-6)
    result = below.retrieve("cat food", k=2)
    assert result.escalated is True and result.mode_used is RetrievalMode.LLM
    assert len(llm.requests) == 1
    pool, _ = env.rag.candidates("cat food", 20)
    assert result.items[0] == pool[4].item  # the model's pick comes first
    assert result.confidence_scores[0] == 0.9

    # the per-call threshold overrides the constructor's
    result = above.retrieve("cat food", k=2, escalation_threshold=1.0)
    assert result.escalated and len(llm.requests) == 2


def test_hybrid_escalates_on_spread(
    env: Env, five: list[MemoryItem], sleeps: SleepRecorder
) -> None:
    llm = ScriptedLLM(default=picks((1, "high")))
    retriever = HybridRetriever(
        env.rag, llm_retriever(env, llm, sleeps), escalation_threshold=0.0, variance_threshold=0.0
    )
    assert retriever.retrieve("cat food", k=3).escalated
    assert len(llm.requests) == 1


def test_hybrid_without_a_model_or_results_never_escalates(env: Env, sleeps: SleepRecorder) -> None:
    llm = ScriptedLLM(default=picks((1, "high")))
    result = hybrid(env, llm, sleeps, escalation_threshold=1.0).retrieve("cat", k=2)
    assert result.items == [] and not result.escalated and llm.requests == []
    env.add("a cat on the mat")
    result = hybrid(env, None, sleeps, escalation_threshold=1.0).retrieve("cat", k=2)
    assert len(result.items) == 1 and not result.escalated
    assert result.mode_used is RetrievalMode.RAG


def test_hybrid_category_filter_reaches_the_model(env: Env, sleeps: SleepRecorder) -> None:
    env.add(
        ItemDraft(content="Cello practice on Tuesdays", category="music"),
        ItemDraft(content="Cello case bought on sale", category="shopping"),
    )
    llm = ScriptedLLM(default=picks((1, "high")))
    result = hybrid(env, llm, sleeps, escalation_threshold=1.0).retrieve(
        "cello", k=3, category_filter="music"
    )
    assert result.escalated
    assert [i.category for i in result.items] == ["music"]
    assert "Cello case" not in llm.requests[0].messages[-1].content


# ── confidence and calibration ──────────────────────────────────────────────


def test_confidence_features() -> None:
    top, gap, spread = ConfidenceScorer.features([0.9, 0.5, 0.4])
    assert top == 0.9
    assert gap == pytest.approx(0.4)
    assert spread == pytest.approx(statistics.pstdev([0.9, 0.5, 0.4]))
    assert ConfidenceScorer.features([0.7]) == (0.7, 0.7, 0.0)
    assert ConfidenceScorer.features([]) == (0.0, 0.0, 0.0)


def test_confidence_score() -> None:
    scorer = ConfidenceScorer()
    item = None
    assert scorer.score([]) == 0.0
    clear = scorer.score([(item, 0.9), (item, 0.3)])  # type: ignore[list-item]
    ambiguous = scorer.score([(item, 0.5), (item, 0.49)])  # type: ignore[list-item]
    assert 0.0 < ambiguous < clear < 1.0
    w = ConfidenceWeights()
    z = w.bias + w.top * 0.5 + w.gap * 0.01 - w.spread * 0.005
    assert ambiguous == pytest.approx(1 / (1 + pow(2.718281828459045, -z)), rel=1e-6)
    flat = ConfidenceScorer(ConfidenceWeights(bias=0.0, top=0.0, gap=0.0, spread=0.0))
    assert flat.score([(item, 0.9)], "any query") == 0.5  # type: ignore[list-item]


def test_calibrate_threshold_catches_the_misses() -> None:
    confidences = [0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9]
    correct = [False, False, False, True, True, True, True, True, True, True]
    t, figures = calibrate_threshold(confidences, correct)
    assert 0.3 < t <= 0.5
    assert figures == {
        "balanced_accuracy": 1.0,
        "escalation_rate": 0.3,
        "misses_caught": 1.0,
        "hits_kept": 1.0,
    }
    # escalating below t sends exactly the misses to the model
    assert [c < t for c in confidences] == [not ok for ok in correct]


def test_calibrate_threshold_respects_max_escalation() -> None:
    confidences = [0.1, 0.2, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9]
    correct = [False, False, False, True, True, True, True, True, True, True]
    t, figures = calibrate_threshold(confidences, correct, max_escalation=0.2)
    assert figures["escalation_rate"] <= 0.2
    assert sum(c < t for c in confidences) == 2
    assert figures["misses_caught"] == pytest.approx(2 / 3)
    t, figures = calibrate_threshold(confidences, correct, max_escalation=0.0)
    assert t == 0.0 and figures["escalation_rate"] == 0.0


def test_calibrate_threshold_with_interleaved_and_degenerate_sets() -> None:
    # a hit below a miss: the best threshold trades one for the other, never above the cap
    t, figures = calibrate_threshold(
        [0.1, 0.2, 0.3, 0.4, 0.8, 0.9], [False, True, False, True, True, True]
    )
    assert figures["escalation_rate"] <= 0.35
    assert figures["balanced_accuracy"] >= 0.5
    t, figures = calibrate_threshold([0.4, 0.6], [True, True])
    assert t == 0.0 and figures["hits_kept"] == 1.0
    with pytest.raises(MemoryInputError):
        calibrate_threshold([], [])
    with pytest.raises(MemoryInputError):
        calibrate_threshold([0.1, 0.2], [True])


def test_default_fusion_weights_favour_meaning_over_words() -> None:
    w = FusionWeights()
    assert w.dense > w.lexical > 0 and w.recency > 0 and w.importance > 0
    assert w.candidates >= 50
