"""Retrieval: RAG (lexical + dense fused), LLM re-ranking, and a hybrid that escalates.

RAGRetriever takes the top candidates of two channels — FTS5 BM25 over item text and FAISS
cosine over item embeddings — and fuses them with normalised scores plus recency and
importance as features::

    score = w_dense·cos + w_lexical·(bm25 / max bm25) + w_recency·2^(-age/half_life)
            + w_importance·{low 0, normal 0.5, high 1}

The weights were tuned on our own tuning transcript (tests/data/memory/tune_*), never on
the reported one; ``tools/tune_memory.py`` reproduces the search. LLMRetriever asks a model
to pick among ≤ max_candidates RAG candidates through a JSON schema. HybridRetriever runs
RAG, scores its confidence (top score, gap to the next, spread of the top k) and escalates
to the LLM only under a threshold calibrated on the tuning data.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rilai_desktop.errors import MemoryInputError, RetrievalError, RilaiError
from rilai_desktop.memory._sql import Clock, utc_now
from rilai_desktop.memory.items import ItemLayer
from rilai_desktop.memory.ports import Embedder, TextModel
from rilai_desktop.memory.query_plan import plan
from rilai_desktop.memory.types import (
    MAX_QUERY_CHARS,
    TURN_KIND,
    MemoryItem,
    RetrievalMode,
    RetrievalResult,
)

IMPORTANCE_VALUE = {"low": 0.0, "normal": 0.5, "high": 1.0}


@dataclass(frozen=True)
class FusionWeights:
    """Tuned by ``tools/tune_memory.py`` on the tuning split (recall@5 0.987 for every set
    near the top, so mean recall@1-3 decided: 0.747 with lexical 0.1 against 0.720 dense
    only). Recency breaks ties towards the latest statement of a fact; importance is kept
    at a small tie-break weight so "high" items win ties, as seed 003 asks."""

    dense: float = 1.0
    lexical: float = 0.33
    recency: float = 0.05
    importance: float = 0.02
    speaker: float = 0.2  # a turn record said by someone the question names (query_plan.py)
    order: float = 0.05  # "first…" / "latest…": the oldest / newest candidate, by when said
    half_life_days: float = 30.0
    candidates: int = 50  # per channel


def check_query(query: Any, k: Any, *, k_max: int = 100) -> str:
    if not isinstance(query, str) or not query.strip():
        raise MemoryInputError(
            "the query is empty", recovery_suggestions=["Ask for something, 1-10,000 characters"]
        )
    if len(query) > MAX_QUERY_CHARS:
        raise MemoryInputError(
            f"the query has {len(query):,} characters (limit 10,000)",
            recovery_suggestions=["Shorten the query to its key words"],
        )
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= k_max:
        raise MemoryInputError(
            f"k must be an integer from 1 to {k_max}, got {k!r}",
            recovery_suggestions=[f"Use 1 ≤ k ≤ {k_max}"],
        )
    return query


@dataclass
class Scored:
    item: MemoryItem
    score: float
    dense: float
    lexical: float
    row_id: int = 0


class RAGRetriever:
    """Lexical (FTS5 BM25) + dense (FAISS) candidates, fused; fast and model-free."""

    def __init__(
        self,
        items: ItemLayer,
        embedder: Embedder,
        *,
        weights: FusionWeights | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.items = items
        self.embedder = embedder
        self.weights = weights or FusionWeights()
        self._clock = clock

    def candidates(
        self, query: str, k: int, category_filter: str | None = None
    ) -> tuple[list[Scored], int]:
        """All fused candidates, best first, and how many matched before the k limit."""
        w = self.weights
        n_cand = max(w.candidates, k)
        speakers = self.items.speakers()
        asked = plan(query, speakers)
        # a name only tells people apart where memory holds more than one person's turns
        # (in a chat every record is the user's: "I" would lift them all alike)
        speaker_weight = w.speaker if len(speakers) > 1 else 0.0
        qvec = self.embedder.embed_one(asked.matched)
        dense = self.items.dense_search(qvec, n_cand, category=category_filter)
        lexical = self.items.lexical_search(asked.matched, n_cand, category=category_filter)
        dense_by_id = {h.row_id: h.score for h in dense}
        lex_by_id = {h.row_id: h.score for h in lexical}
        ids = list(dict.fromkeys([*dense_by_id, *lex_by_id]))
        if not ids:
            return [], 0
        rows = self.items.get_rows(ids)
        missing_dense = [i for i in ids if i not in dense_by_id and i in rows]
        if missing_dense:
            dense_by_id.update(self.items.cosines(qvec, missing_dense))
        max_lex = max(lex_by_id.values(), default=0.0)
        now = self._clock()
        when = _order_positions(rows, asked.order)
        out: list[Scored] = []
        for rid in ids:
            item = rows.get(rid)
            if item is None or item.invalid_at is not None:
                continue
            d = max(0.0, dense_by_id.get(rid, 0.0))
            lx = lex_by_id.get(rid, 0.0) / max_lex if max_lex > 0 else 0.0
            score = w.dense * d + w.lexical * lx
            score += w.recency * _recency(item.valid_at or item.created_at, now, w.half_life_days)
            score += w.importance * IMPORTANCE_VALUE.get(item.importance, 0.5)
            if item.speaker is not None and item.speaker in asked.named:
                score += speaker_weight
            score += w.order * when.get(rid, 0.0)
            out.append(Scored(item, score, d, lx, rid))
        out.sort(key=lambda s: s.score, reverse=True)
        return _one_per_turn(out), len(out)

    def with_answers(self, top: list[Scored]) -> list[Scored]:
        """A turn record that asks something comes back with the reply to it: half of a
        question/answer pair says nothing ("What inspired it?"). The hit keeps the
        question's item id; its content gains the next person's turn after a line break
        ("Melanie: ..."), its turns both ids. Only when the next record of the same
        conversation is someone else's."""
        asking = [s for s in top if s.item.kind == TURN_KIND and _asks(s.item.content)]
        if not asking:
            return top
        replies = self.items.next_records([s.row_id for s in asking])
        out: list[Scored] = []
        for s in top:
            reply = replies.get(s.row_id) if s.item.kind == TURN_KIND else None
            if reply is None or reply.speaker == s.item.speaker:
                out.append(s)
                continue
            who = f"{reply.speaker}: " if reply.speaker else ""
            item = s.item.model_copy(
                update={
                    "content": f"{s.item.content}\n{who}{reply.content}",
                    "source_turn_ids": [*s.item.source_turn_ids, *reply.source_turn_ids],
                }
            )
            out.append(Scored(item, s.score, s.dense, s.lexical, s.row_id))
        return out

    def retrieve(
        self, query: str, k: int = 5, category_filter: str | None = None
    ) -> RetrievalResult:
        check_query(query, k)
        start = time.perf_counter()
        scored, total = self.candidates(query, k, category_filter)
        top = self.with_answers(scored[:k])
        return RetrievalResult.model_construct(
            items=[s.item for s in top],
            mode_used=RetrievalMode.RAG,
            total_found=total,
            search_time_ms=(time.perf_counter() - start) * 1000,
            confidence_scores=[round(s.score, 6) for s in top],
            escalated=False,
        )


def _order_positions(rows: dict[int, MemoryItem], order: int) -> dict[int, float]:
    """row id -> 1 for the candidate said first ("first…", order -1) or last (order 1),
    falling linearly to 0 for the other end; {} when the question asks no order."""
    if not order:
        return {}
    dated = sorted((item.valid_at, rid) for rid, item in rows.items() if item.valid_at is not None)
    if len(dated) < 2:
        return {}
    span = len(dated) - 1
    return {rid: (span - i) / span if order < 0 else i / span for i, (_at, rid) in enumerate(dated)}


def _asks(text: str) -> bool:
    return text.rstrip(" \"'”)").endswith("?")


def _one_per_turn(ranked: list[Scored]) -> list[Scored]:
    """Best first, without saying a turn twice: a turn record after a better hit from the
    same turn, or a fact after the record of the turns it came from, is left out (two
    facts from one turn are two things and both stay)."""
    any_hit: set[str] = set()
    recorded: set[str] = set()
    out: list[Scored] = []
    for s in ranked:
        turns = set(s.item.source_turn_ids)
        record = s.item.kind == TURN_KIND
        if turns and turns <= (any_hit if record else recorded):
            continue
        any_hit |= turns
        if record:
            recorded |= turns
        out.append(s)
    return out


def _recency(when: datetime | None, now: datetime, half_life_days: float) -> float:
    if when is None:
        return 0.0
    age = max(0.0, (now - when).total_seconds() / 86400)
    return float(2.0 ** (-age / half_life_days))


_RELEVANCE = {"high": 0.9, "medium": 0.7, "low": 0.5}


def _model_name(model: TextModel) -> str:
    """The model's id for an error message, even when resolving it is what failed."""
    try:
        return model.model_id
    except Exception:
        return getattr(model, "role", "unknown")


class LLMRetriever:
    """The model picks the most relevant of ≤ ``max_candidates`` RAG candidates."""

    def __init__(
        self,
        rag: RAGRetriever,
        model: TextModel,
        *,
        max_candidates: int = 20,
        max_retries: int = 2,
        backoff_base: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not 1 <= max_candidates <= 50:
            raise MemoryInputError("max_candidates must be from 1 to 50")
        self.rag = rag
        self.model = model
        self.max_candidates = max_candidates
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self._sleep = sleep

    @staticmethod
    def schema(n: int, k: int) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "picks": {
                    "type": "array",
                    "maxItems": min(k, n),
                    "items": {
                        "type": "object",
                        "properties": {
                            "n": {"enum": list(range(1, n + 1))},
                            "relevance": {"enum": ["high", "medium", "low"]},
                        },
                        "required": ["n", "relevance"],
                        "additionalProperties": False,
                    },
                }
            },
            "required": ["picks"],
            "additionalProperties": False,
        }

    @staticmethod
    def prompt(query: str, candidates: Sequence[MemoryItem]) -> list[dict[str, str]]:
        lines = "\n".join(
            f"{n}. {item.content[:240].replace(chr(10), ' ')}"
            for n, item in enumerate(candidates, 1)
        )
        return [
            {
                "role": "system",
                "content": "You pick which numbered memories answer a question. "
                "Reply in JSON with the best numbers first.",
            },
            {"role": "user", "content": f"Question: {query[:500]}\n\nMemories:\n{lines}"},
        ]

    def rerank(
        self, query: str, candidates: Sequence[Scored], k: int
    ) -> tuple[list[MemoryItem], list[float]]:
        pool = list(candidates[: self.max_candidates])
        if not pool:
            return [], []
        schema = self.schema(len(pool), k)
        messages = self.prompt(query, [s.item for s in pool])
        last: Exception | None = None
        for attempt in range(self.max_retries + 1):
            try:
                reply = self.model.complete(
                    messages,
                    schema=schema,
                    max_tokens=24 + 16 * min(k, len(pool)),
                    temperature=0.0,
                )
                picks = json.loads(reply.text)["picks"]
                chosen: list[int] = []
                scores: list[float] = []
                for pick in picks:
                    n = int(pick["n"])
                    if 1 <= n <= len(pool) and n - 1 not in chosen:
                        chosen.append(n - 1)
                        scores.append(_RELEVANCE.get(str(pick.get("relevance")), 0.5))
                break
            except (RilaiError, ValueError, KeyError, TypeError) as exc:
                last = exc
                if attempt < self.max_retries:
                    self._sleep(self.backoff_base * (2**attempt))
        else:
            raise RetrievalError(
                f"LLM retrieval failed after {self.max_retries + 1} tries: {last}",
                context={"model": _model_name(self.model)},
            ) from last
        items = [pool[i].item for i in chosen]
        # the model may pick fewer than k: the rest follow in RAG order, scored below its picks
        floor = min(scores, default=0.5)
        for idx, s in enumerate(pool):
            if len(items) >= k:
                break
            if idx not in chosen:
                items.append(s.item)
                scores.append(round(min(floor, 0.5) * s.score, 6))
        return items[:k], scores[:k]

    def retrieve(
        self, query: str, k: int = 5, category_filter: str | None = None
    ) -> RetrievalResult:
        check_query(query, k)
        start = time.perf_counter()
        candidates, total = self.rag.candidates(query, self.max_candidates, category_filter)
        items, scores = self.rerank(query, candidates, k)
        return RetrievalResult.model_construct(
            items=items,
            mode_used=RetrievalMode.LLM,
            total_found=total,
            search_time_ms=(time.perf_counter() - start) * 1000,
            confidence_scores=scores,
            escalated=False,
        )


@dataclass(frozen=True)
class ConfidenceWeights:
    """confidence = sigmoid(bias + top·w_top + gap·w_gap − spread·w_spread)."""

    bias: float = -4.0
    top: float = 8.0
    gap: float = 10.0
    spread: float = 2.0


class ConfidenceScorer:
    """How sure is a RAG result? From its top score, the gap to #2 and the spread of the top k."""

    def __init__(self, weights: ConfidenceWeights | None = None) -> None:
        self.weights = weights or ConfidenceWeights()

    @staticmethod
    def features(scores: Sequence[float]) -> tuple[float, float, float]:
        if not scores:
            return 0.0, 0.0, 0.0
        top = scores[0]
        gap = top - scores[1] if len(scores) > 1 else top
        spread = statistics.pstdev(scores) if len(scores) > 1 else 0.0
        return top, gap, spread

    def score(self, results: Sequence[tuple[MemoryItem, float]], query: str = "") -> float:
        del query  # the seed passes it; the features come from the scores alone
        top, gap, spread = self.features([s for _, s in results])
        if not results:
            return 0.0
        w = self.weights
        z = w.bias + w.top * top + w.gap * gap - w.spread * spread
        return 1.0 / (1.0 + math.exp(-z))


def calibrate_threshold(
    confidences: Sequence[float], rag_correct: Sequence[bool], *, max_escalation: float = 0.35
) -> tuple[float, dict[str, float]]:
    """The escalation threshold that best separates RAG hits from misses.

    Maximises balanced accuracy of "escalate iff confidence < t" (escalations should be the
    misses) subject to escalating at most ``max_escalation`` of queries (each escalation
    costs a model call). Returns the threshold and its figures.
    """
    if len(confidences) != len(rag_correct) or not confidences:
        raise MemoryInputError("calibration needs one correctness flag per confidence")
    pairs = sorted(zip(confidences, rag_correct, strict=True))
    best = (0.0, -1.0, 0.0, 0.0, 0.0)
    n_miss = sum(1 for _, ok in pairs if not ok)
    n_hit = len(pairs) - n_miss
    for t in [0.0, *[c + 1e-9 for c, _ in pairs]]:
        esc = [ok for c, ok in pairs if c < t]
        rate = len(esc) / len(pairs)
        if rate > max_escalation:
            break
        caught = sum(1 for ok in esc if not ok)
        kept = n_hit - sum(1 for ok in esc if ok)
        tpr = caught / n_miss if n_miss else 1.0
        tnr = kept / n_hit if n_hit else 1.0
        bal = (tpr + tnr) / 2
        if bal > best[1]:
            best = (t, bal, rate, tpr, tnr)
    t, bal, rate, tpr, tnr = best
    return t, {
        "balanced_accuracy": bal,
        "escalation_rate": rate,
        "misses_caught": tpr,
        "hits_kept": tnr,
    }


class HybridRetriever:
    """RAG first; escalate to the LLM when the calibrated confidence is under threshold."""

    def __init__(
        self,
        rag_retriever: RAGRetriever,
        llm_retriever: LLMRetriever | None,
        escalation_threshold: float = 0.6,
        variance_threshold: float = 0.15,
        *,
        scorer: ConfidenceScorer | None = None,
    ) -> None:
        self.rag = rag_retriever
        self.llm = llm_retriever
        self.escalation_threshold = escalation_threshold
        self.variance_threshold = variance_threshold
        self.scorer = scorer or ConfidenceScorer()
        self.last_confidence: float | None = None
        self.last_error: RetrievalError | None = None

    def retrieve(
        self,
        query: str,
        k: int = 5,
        escalation_threshold: float | None = None,
        category_filter: str | None = None,
    ) -> RetrievalResult:
        check_query(query, k)
        start = time.perf_counter()
        limit = max(k, self.llm.max_candidates if self.llm else k)
        candidates, total = self.rag.candidates(query, limit, category_filter)
        top = candidates[:k]
        confidence = self.scorer.score([(s.item, s.score) for s in top], query)
        self.last_confidence = confidence
        threshold = (
            self.escalation_threshold if escalation_threshold is None else escalation_threshold
        )
        spread = ConfidenceScorer.features([s.score for s in top])[2]
        escalate = (
            bool(top)
            and self.llm is not None
            and (confidence < threshold or spread > self.variance_threshold)
        )
        self.last_error = None
        if escalate and self.llm is not None:
            try:
                items, scores = self.llm.rerank(query, candidates, k)
                mode = RetrievalMode.LLM
            except RetrievalError as exc:
                # graceful degradation (seed 003): the RAG answer is already in hand
                self.last_error = exc
                escalate = False
        if not escalate:
            top = self.rag.with_answers(top)
            items = [s.item for s in top]
            scores = [round(s.score, 6) for s in top]
            mode = RetrievalMode.RAG
        return RetrievalResult.model_construct(
            items=items,
            mode_used=mode,
            total_found=total,
            search_time_ms=(time.perf_counter() - start) * 1000,
            confidence_scores=scores,
            escalated=escalate,
        )
