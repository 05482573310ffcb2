"""Retrieval: RAG (lexical + dense fused), LLM re-ranking, and a hybrid that escalates.

``rag.py``: RAGRetriever takes the top candidates of two channels — FTS5 BM25 over item
text and FAISS cosine over item embeddings — and fuses them with normalised scores plus
recency and importance as features (weights tuned on our own tuning transcript; see
``tools/tune_memory.py``). ``llm.py``: LLMRetriever asks a model to pick among
≤ max_candidates RAG candidates through a JSON schema. ``hybrid.py``: HybridRetriever runs
RAG, scores its confidence (top score, gap to the next, spread of the top k) and escalates
to the LLM only under a threshold calibrated on the tuning data.
"""

from rilai_desktop.memory.retrieval.hybrid import (
    ConfidenceScorer,
    ConfidenceWeights,
    HybridRetriever,
    calibrate_threshold,
)
from rilai_desktop.memory.retrieval.llm import LLMRetriever
from rilai_desktop.memory.retrieval.rag import (
    IMPORTANCE_VALUE,
    FusionWeights,
    RAGRetriever,
    Scored,
    check_query,
)

__all__ = [
    "IMPORTANCE_VALUE",
    "ConfidenceScorer",
    "ConfidenceWeights",
    "FusionWeights",
    "HybridRetriever",
    "LLMRetriever",
    "RAGRetriever",
    "Scored",
    "calibrate_threshold",
    "check_query",
]
