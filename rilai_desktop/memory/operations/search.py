"""Retrieval through the manager: the mode, the category filter, and the debug event."""

from __future__ import annotations

import hashlib

from rilai_desktop.errors import (
    CategoryNotFoundError,
    MemoryInputError,
)
from rilai_desktop.memory.categories import check_category_name
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.retrieval import (
    HybridRetriever,
    LLMRetriever,
    RAGRetriever,
    check_query,
)
from rilai_desktop.memory.types import (
    RetrievalMode,
    RetrievalResult,
)


class MemorySearch:
    """RAG, LLM or hybrid retrieval over the items."""

    def __init__(
        self,
        core: MemoryCore,
        rag: RAGRetriever,
        llm_retriever: LLMRetriever | None,
        hybrid: HybridRetriever,
    ) -> None:
        self._core = core
        self.rag = rag
        self.llm_retriever = llm_retriever
        self.hybrid = hybrid

    def retrieve(
        self,
        query: str,
        mode: RetrievalMode | str = RetrievalMode.HYBRID,
        k: int = 5,
        category_filter: str | None = None,
    ) -> RetrievalResult:
        check_query(query, k)
        try:
            mode = RetrievalMode(mode)
        except ValueError:
            raise MemoryInputError(f"mode must be rag, llm or hybrid, got {mode!r}") from None
        if category_filter is not None:
            check_category_name(category_filter)
            if self._core.category_layer.get_by_name(category_filter) is None:
                raise CategoryNotFoundError(category_filter, self._core.category_layer.names())
        if mode is RetrievalMode.RAG:
            result = self.rag.retrieve(query, k, category_filter)
        elif mode is RetrievalMode.LLM:
            if self.llm_retriever is None:
                raise MemoryInputError(
                    "LLM retrieval needs a model and none is configured",
                    recovery_suggestions=["Use mode rag or hybrid", "Install a model tier"],
                )
            result = self.llm_retriever.retrieve(query, k, category_filter)
        else:
            result = self.hybrid.retrieve(query, k, category_filter=category_filter)
        return result

    def log_retrieval(self, query: str, mode: str, result: RetrievalResult) -> None:
        """RETRIEVAL_PERFORMED (debug): the query is stored only as its sha256."""
        self._core.emit_now(
            "memory.retrieval_performed",
            {
                "query_hash": hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest(),
                "mode": mode,
                "result_count": len(result.items),
                "search_time_ms": round(result.search_time_ms, 3),
                "escalated": result.escalated,
            },
        )
