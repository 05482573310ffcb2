"""HybridRetriever: RAG first, the model only when RAG's confidence is low.

RAG's confidence comes from its top score, the gap to the next and the spread of the top k;
the escalation threshold is calibrated on the tuning data (``calibrate_threshold``).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from rilai_desktop.errors import MemoryInputError, RetrievalError
from rilai_desktop.memory.retrieval.llm import LLMRetriever
from rilai_desktop.memory.retrieval.rag import RAGRetriever, check_query
from rilai_desktop.memory.types import (
    MemoryItem,
    RetrievalMode,
    RetrievalResult,
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
