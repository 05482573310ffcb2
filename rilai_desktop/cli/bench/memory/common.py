"""What every part of the memory benchmark shares: its bars and sizes, latency statistics,
a throwaway memory (never the user's data) and the bare encoder it is compared with."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from rilai_desktop.app.build import build_memory
from rilai_desktop.app.core import Core, build_core
from rilai_desktop.config import Settings
from rilai_desktop.memory.embedding import EmbeddingService, HashEmbedder
from rilai_desktop.memory.embedding_onnx import OnnxEmbedder
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.paths import Paths

SEARCH_BAR = 1.5  # ours p95 / bare-sum p95, at BAR_ITEMS
BAR_ITEMS = 100_000
RECALL_BAR = 0.95
INGEST_BAR = 0.8
FULL_MAX = 250_000  # above this only the approximate index runs (the db would be GBs)
QUERIES = 200
WARMUP_QUERIES = 20
INGEST_TURNS = 1_000
SESSION_TURNS = 20
BATCH_SIZE = 64  # EmbeddingService's batch size
K = 10
NPROBES = (8, 16, 32, 64)
Progress = Callable[[str], None]


def latency_stats(ms: Sequence[float]) -> dict[str, float]:
    arr = np.asarray(ms, dtype=np.float64)
    return {
        "p50_ms": round(float(np.percentile(arr, 50)), 3),
        "p95_ms": round(float(np.percentile(arr, 95)), 3),
        "min_ms": round(float(arr.min()), 3),
        "mean_ms": round(float(arr.mean()), 3),
    }


def ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def bench_paths(root: Path, name: str) -> Paths:
    """A throwaway home; the cache (the model's verified stamp) is shared between them."""
    home = root / name
    return Paths(
        data_dir=home / "data",
        config_dir=home / "config",
        cache_dir=root / "cache",
        log_dir=home / "logs",
        home_override=home,
    )


@dataclass
class ThrowawayMemory:
    core: Core
    manager: MemoryManager

    def close(self) -> None:
        try:
            self.manager.close()
        finally:
            self.core.close()


def open_memory(settings: Settings, root: Path, name: str) -> ThrowawayMemory:
    core = build_core(bench_paths(root, name), settings)
    try:
        return ThrowawayMemory(core, build_memory(core, with_models=False))
    except BaseException:
        core.close()
        raise


class BareEncoder:
    """The bare encoder: the same SentenceTransformer (or, backend "onnx", the same
    onnxruntime session) called directly, or the fake's own."""

    def __init__(self, manager: MemoryManager, settings: Settings) -> None:
        emb = manager.embedder
        self.backend = settings.embedding.backend
        self._onnx: OnnxEmbedder | None = None
        self._model: Any = None
        self._fake: HashEmbedder | None = None
        self.torch_threads: int | None = None
        if isinstance(emb, OnnxEmbedder):
            emb.load()
            self._onnx = emb
            self.label = "onnxruntime InferenceSession.run (same ONNX file and tokenizer)"
        elif isinstance(emb, EmbeddingService):
            import torch

            self._model = emb.load()
            torch.set_num_threads(settings.embedding.torch_threads)
            self.torch_threads = torch.get_num_threads()
            self.label = "SentenceTransformer.encode (same weights, normalize_embeddings=True)"
        else:
            self._fake = HashEmbedder(emb.dimension, cache_size=0)
            self.label = "HashEmbedder.embed, cache off (hash backend: no torch model)"

    def encode(self, texts: list[str], batch_size: int = BATCH_SIZE) -> Any:
        if self._onnx is not None:
            runs = [
                self._onnx._run(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)
            ]
            return np.concatenate(runs)
        if self._fake is not None:
            return self._fake.embed(texts)
        return self._model.encode(texts, batch_size=batch_size, normalize_embeddings=True)


def encoded_count(manager: MemoryManager) -> int:
    return int(getattr(manager.embedder, "encoded_texts", 0))
