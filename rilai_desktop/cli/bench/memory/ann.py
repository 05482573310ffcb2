"""Step 4: the approximate (IVF) index at each N beside the exact flat index — build time,
search latency, recall@10 and an nprobe sweep."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from rilai_desktop.cli.bench.memory.common import (
    NPROBES,
    RECALL_BAR,
    K,
    Progress,
    latency_stats,
    ms_since,
)
from rilai_desktop.cli.bench.memory.corpus import near_queries
from rilai_desktop.memory.vector_index import VectorIndex, ids_checksum, ivf_nlist


def _search_timed(index: VectorIndex, qs: np.ndarray[Any, Any]) -> tuple[list[float], Any]:
    ms: list[float] = []
    found = []
    for i in range(len(qs)):
        t0 = time.perf_counter()
        _, ids = index.search(qs[i : i + 1], K)
        ms.append(ms_since(t0))
        found.append(ids[0])
    return ms, found


def _recall(found: Sequence[Any], truth: np.ndarray[Any, Any]) -> float:
    hits = sum(len(set(f.tolist()) & set(t.tolist())) for f, t in zip(found, truth, strict=True))
    return float(hits) / float(len(truth) * truth.shape[1])


def bench_ann(
    vectors: np.ndarray[Any, np.dtype[np.float32]],
    flat: Any,
    workdir: Path,
    n_queries: int,
    progress: Progress,
) -> dict[str, Any]:
    n, dim = vectors.shape
    ids = np.arange(n, dtype=np.int64)
    progress(f"N={n:,}: building the IVF index (nlist {ivf_nlist(n)}, 1 thread)")
    t0 = time.perf_counter()
    ivf = VectorIndex.build(dim, ids, vectors, exact_max=0)
    build_s = time.perf_counter() - t0
    qs = near_queries(vectors, n_queries)
    _, truth = flat.search(qs, K)
    # warm both, then alternate per query
    ivf.search(qs[:1], K)
    flat.search(qs[:1], K)
    ivf_ms: list[float] = []
    flat_ms: list[float] = []
    found = []
    for i in range(len(qs)):
        q = qs[i : i + 1]
        for side in ("ivf", "flat") if i % 2 == 0 else ("flat", "ivf"):
            t = time.perf_counter()
            if side == "ivf":
                _, got = ivf.search(q, K)
                ivf_ms.append(ms_since(t))
                found.append(got[0])
            else:
                flat.search(q, K)
                flat_ms.append(ms_since(t))
    recall = _recall(found, truth)
    default_nprobe = ivf.nprobe
    sweep = []
    path = workdir / f"ivf-{n}.faiss"
    progress(f"N={n:,}: nprobe sweep {', '.join(map(str, NPROBES))}")
    ivf.save(path, model_id="bench")
    del ivf
    checksum = ids_checksum(ids)
    for nprobe in NPROBES:
        if nprobe == default_nprobe:
            ms, rec = ivf_ms, recall
        else:
            loaded = VectorIndex.load_checked(
                path,
                dimension=dim,
                model_id="bench",
                expected_count=n,
                expected_checksum=checksum,
                exact_max=0,
                nprobe=nprobe,
            )
            loaded.search(qs[:1], K)
            ms, got = _search_timed(loaded, qs)
            rec = _recall(got, truth)
            del loaded
        st = latency_stats(ms)
        sweep.append(
            {
                "nprobe": nprobe,
                "recall_at_10": round(rec, 4),
                "p50_ms": st["p50_ms"],
                "p95_ms": st["p95_ms"],
                "pass": rec >= RECALL_BAR,
            }
        )
    path.unlink(missing_ok=True)
    Path(str(path) + ".json").unlink(missing_ok=True)
    return {
        "items": n,
        "kind": "ivf",
        "nlist": ivf_nlist(n),
        "nprobe": default_nprobe,
        "train_points": min(n, 100_000),
        "build_s": round(build_s, 3),
        "queries": len(qs),
        "ivf": latency_stats(ivf_ms),
        "exact_flat": latency_stats(flat_ms),
        "recall_at_10": round(recall, 4),
        "bar": RECALL_BAR,
        "pass": recall >= RECALL_BAR,
        "sweep": sweep,
        "passing_nprobes": [s["nprobe"] for s in sweep if s["pass"]],
    }
