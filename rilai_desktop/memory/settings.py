"""The memory manager's settings: seed 003's MemoryConfig and its retry policy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

ExtractMode = Literal["rules", "llm", "both"]


@dataclass(frozen=True)
class MemoryRetryConfig:
    """Retry configuration for memory operations (seed 003)."""

    embedding_max_retries: int = 3
    embedding_backoff_base: float = 1.0
    embedding_backoff_max: float = 30.0
    extraction_max_retries: int = 2
    extraction_backoff_base: float = 2.0
    consolidation_max_retries: int = 2
    consolidation_backoff_base: float = 2.0
    retrieval_max_retries: int = 2
    retrieval_backoff_base: float = 1.0


@dataclass(frozen=True)
class MemoryConfig:
    """Configuration (seed 003's MemoryConfig, local defaults)."""

    storage_dir: Path = Path("memory")
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_dimension: int = 384
    extraction_model: str = "medium"
    consolidation_model: str = "medium"
    max_resource_size: int = 1_000_000
    default_k: int = 5
    # calibrated by tools/tune_memory.py on the tuning split: escalating below 0.65 sends
    # 32% of queries to the model and catches 56% of the top-1 misses (balanced acc. 0.68)
    escalation_threshold: float = 0.65
    consolidation_interval: int = 10
    retention_days: int = 90
    # ours
    exact_index_max: int = 250_000
    dedupe_similarity: float = 0.92
    llm_candidates: int = 20
    extract_mode: ExtractMode = "both"
    auto_consolidate: bool = True
