"""FAISS with ids: exact inner product up to a size, an IVF index beyond it; a checked file.

Vectors are L2-normalised, so inner product is cosine similarity. Ids are int64 (the
``memory_items.id`` rowid). Up to ``exact_max`` vectors the index is flat (exact, ~6.5 ms a
query at 100K on this machine); beyond it an ``IndexIVFFlat`` (removal by id works, build
cost is one k-means training over a sample). Single queries run with one OpenMP thread.

On disk: ``index.faiss`` plus a JSON sidecar with the kind, dimension, item count and a
sha256 of the sorted ids. ``load_checked`` compares the sidecar and the loaded index with
what SQLite says should be there and raises ``StaleIndexError`` (with the reason) when they
differ, so the caller rebuilds from the embeddings stored in SQLite.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Literal

import faiss
import numpy as np
import numpy.typing as npt

from rilai_desktop.errors import MemoryInputError, VectorIndexError
from rilai_desktop.memory.ports import Vectors

Ids = npt.NDArray[np.int64]
IndexKind = Literal["flat", "ivf"]
SIDECAR_VERSION = 1


class StaleIndexError(VectorIndexError):
    """The index file is missing, unreadable, or does not match SQLite."""

    def __init__(self, reason: str, path: Path) -> None:
        super().__init__(
            f"The vector index at {path} needs a rebuild: {reason}",
            context={"path": str(path), "reason": reason},
        )
        self.reason = reason


def ids_checksum(ids: Ids) -> str:
    """sha256 of the sorted int64 ids (little-endian), the sidecar's identity of the set."""
    arr = np.sort(np.asarray(ids, dtype="<i8"))
    return hashlib.sha256(arr.tobytes()).hexdigest()


def ivf_nlist(count: int) -> int:
    """Clusters for IVF: about 4·sqrt(n), at least 16, a power of two."""
    target = max(16, int(4 * math.sqrt(max(count, 1))))
    return int(2 ** round(math.log2(target)))


class VectorIndex:
    """A FAISS index over (id, vector) pairs; thread-safe."""

    def __init__(
        self,
        dimension: int,
        *,
        exact_max: int = 250_000,
        nprobe: int = 32,
        kind: IndexKind = "flat",
        nlist: int | None = None,
    ) -> None:
        if dimension < 1:
            raise MemoryInputError(f"dimension must be ≥ 1, got {dimension}")
        self.dimension = dimension
        self.exact_max = exact_max
        self.nprobe = nprobe
        self._lock = threading.RLock()
        self._index: Any = self._new(kind, nlist)
        self.kind: IndexKind = kind

    # ── construction ──────────────────────────────────────────────────────
    def _new(self, kind: IndexKind, nlist: int | None) -> Any:
        if kind == "flat":
            return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dimension))
        quantizer = faiss.IndexFlatIP(self.dimension)
        index = faiss.IndexIVFFlat(
            quantizer, self.dimension, nlist or 1024, faiss.METRIC_INNER_PRODUCT
        )
        index.nprobe = self.nprobe
        return index

    @classmethod
    def build(
        cls,
        dimension: int,
        ids: Ids,
        vectors: Vectors,
        *,
        exact_max: int = 250_000,
        nprobe: int = 32,
        train_sample: int = 100_000,
        threads: int | None = None,
    ) -> VectorIndex:
        """A fresh index over ``ids``/``vectors``: flat up to ``exact_max``, IVF beyond."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        vectors = cls._as_matrix(vectors, dimension)
        if len(ids) != len(vectors):
            raise MemoryInputError(f"{len(ids)} ids for {len(vectors)} vectors")
        kind: IndexKind = "flat" if len(ids) <= exact_max else "ivf"
        nlist = ivf_nlist(len(ids)) if kind == "ivf" else None
        index = cls(dimension, exact_max=exact_max, nprobe=nprobe, kind=kind, nlist=nlist)
        if threads is not None:
            faiss.omp_set_num_threads(threads)
        try:
            if kind == "ivf":
                rng = np.random.default_rng(0)
                sample = vectors
                if len(vectors) > train_sample:
                    sample = vectors[rng.choice(len(vectors), train_sample, replace=False)]
                index._index.train(sample)
            if len(ids):
                index._index.add_with_ids(vectors, ids)
        finally:
            if threads is not None:
                faiss.omp_set_num_threads(1)
        return index

    @staticmethod
    def _as_matrix(vectors: Vectors, dimension: int) -> Vectors:
        arr = np.asarray(vectors, dtype=np.float32)
        if arr.ndim == 1:
            arr = arr.reshape(1, -1)
        if arr.ndim != 2 or arr.shape[1] != dimension:
            raise MemoryInputError(
                f"vectors must have dimension {dimension}, got shape {tuple(arr.shape)}",
                recovery_suggestions=[f"Pass vectors of length {dimension}"],
            )
        if not np.all(np.isfinite(arr)):
            raise MemoryInputError("vectors contain NaN or infinity")
        return np.ascontiguousarray(arr)

    # ── contents ──────────────────────────────────────────────────────────
    def __len__(self) -> int:
        return int(self._index.ntotal)

    def ids(self) -> Ids:
        with self._lock:
            if self.kind == "flat":
                return np.asarray(faiss.vector_to_array(self._index.id_map), dtype=np.int64)
            invlists = self._index.invlists
            parts = []
            for lst in range(self._index.nlist):
                size = invlists.list_size(lst)
                if size:
                    ptr = invlists.get_ids(lst)
                    parts.append(faiss.rev_swig_ptr(ptr, size).copy())
            if not parts:
                return np.empty(0, dtype=np.int64)
            return np.concatenate(parts).astype(np.int64)

    def add(self, ids: Ids, vectors: Vectors, *, replace: bool = False) -> None:
        """Add vectors under ``ids``. Ids must be new unless ``replace`` (which first removes
        them: O(n) for the flat index, so not for the ingest path)."""
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        vectors = self._as_matrix(vectors, self.dimension)
        if len(ids) != len(vectors):
            raise MemoryInputError(f"{len(ids)} ids for {len(vectors)} vectors")
        if not len(ids):
            return
        with self._lock:
            if replace:
                self._index.remove_ids(ids)
            self._index.add_with_ids(vectors, ids)

    def remove(self, ids: Ids) -> int:
        ids = np.ascontiguousarray(ids, dtype=np.int64)
        if not len(ids):
            return 0
        with self._lock:
            return int(self._index.remove_ids(ids))

    def search(self, queries: Vectors, k: int) -> tuple[npt.NDArray[np.float32], Ids]:
        """Top-``k`` (scores, ids) per query row; missing slots have id -1."""
        if k < 1:
            raise MemoryInputError(f"k must be ≥ 1, got {k}")
        q = self._as_matrix(queries, self.dimension)
        with self._lock:
            if len(self) == 0:
                return (
                    np.zeros((len(q), k), dtype=np.float32),
                    np.full((len(q), k), -1, dtype=np.int64),
                )
            if len(q) == 1:
                faiss.omp_set_num_threads(1)
            scores, ids = self._index.search(q, k)
        return scores, ids

    # ── persistence ───────────────────────────────────────────────────────
    def sidecar(self, model_id: str) -> dict[str, Any]:
        ids = self.ids()
        return {
            "version": SIDECAR_VERSION,
            "kind": self.kind,
            "dimension": self.dimension,
            "count": len(ids),
            "ids_sha256": ids_checksum(ids),
            "model_id": model_id,
        }

    def save(self, path: Path, *, model_id: str) -> dict[str, Any]:
        """Write the index and its sidecar atomically (temp files + rename; sidecar last)."""
        with self._lock:
            meta = self.sidecar(model_id)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=".index-", dir=path.parent)
                os.close(fd)
            except OSError as exc:
                raise VectorIndexError(f"Could not write the index to {path}: {exc}") from exc
            try:
                faiss.write_index(self._index, tmp)
                os.chmod(tmp, 0o600)
                os.replace(tmp, path)
            except (RuntimeError, OSError) as exc:
                Path(tmp).unlink(missing_ok=True)
                raise VectorIndexError(f"Could not write the index to {path}: {exc}") from exc
            side = sidecar_path(path)
            side_tmp = side.with_suffix(".json.tmp")
            try:
                side_tmp.write_text(json.dumps(meta, indent=1))
                os.chmod(side_tmp, 0o600)
                os.replace(side_tmp, side)
            except OSError as exc:
                side_tmp.unlink(missing_ok=True)
                raise VectorIndexError(f"Could not write the index sidecar {side}: {exc}") from exc
        return meta

    @classmethod
    def load_checked(
        cls,
        path: Path,
        *,
        dimension: int,
        model_id: str,
        expected_count: int,
        expected_checksum: str,
        exact_max: int = 250_000,
        nprobe: int = 32,
    ) -> VectorIndex:
        """Load ``path`` if it is exactly what SQLite says it should be; else StaleIndexError."""
        side = sidecar_path(path)
        if not path.is_file():
            raise StaleIndexError("the index file is missing", path)
        if not side.is_file():
            raise StaleIndexError("the sidecar file is missing", path)
        try:
            meta = json.loads(side.read_text())
        except (OSError, ValueError) as exc:
            raise StaleIndexError(f"the sidecar is unreadable ({exc})", path) from exc
        if not isinstance(meta, dict) or meta.get("version") != SIDECAR_VERSION:
            raise StaleIndexError("the sidecar has an unknown format", path)
        if meta.get("dimension") != dimension or meta.get("model_id") != model_id:
            raise StaleIndexError(
                f"it was built for {meta.get('model_id')}/{meta.get('dimension')} dims, "
                f"not {model_id}/{dimension}",
                path,
            )
        if meta.get("count") != expected_count or meta.get("ids_sha256") != expected_checksum:
            raise StaleIndexError(
                f"it holds {meta.get('count')} items but the database has {expected_count} "
                "(or a different set)",
                path,
            )
        try:
            raw = faiss.read_index(str(path))
        except RuntimeError as exc:
            raise StaleIndexError(f"the index file is corrupt ({str(exc)[:120]})", path) from exc
        kind: IndexKind = "ivf" if isinstance(raw, faiss.IndexIVFFlat) else "flat"
        if raw.d != dimension or raw.ntotal != expected_count:
            raise StaleIndexError(
                f"the file holds {raw.ntotal} vectors of {raw.d} dims, expected "
                f"{expected_count} of {dimension}",
                path,
            )
        index = cls(dimension, exact_max=exact_max, nprobe=nprobe)
        if kind == "ivf":
            faiss.extract_index_ivf(raw).nprobe = nprobe
        index._index = raw
        index.kind = kind
        if ids_checksum(index.ids()) != expected_checksum:
            raise StaleIndexError("the ids in the file do not match its sidecar", path)
        return index


def sidecar_path(path: Path) -> Path:
    return path.with_name(path.name + ".json")
