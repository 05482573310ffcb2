"""LLMRetriever: the model picks among at most ``max_candidates`` RAG candidates (JSON schema)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from rilai_desktop.errors import MemoryInputError, RetrievalError, RilaiError
from rilai_desktop.memory.ports import TextModel
from rilai_desktop.memory.retrieval.rag import RAGRetriever, Scored, check_query
from rilai_desktop.memory.types import (
    MemoryItem,
    RetrievalMode,
    RetrievalResult,
)

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
