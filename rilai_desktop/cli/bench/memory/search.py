"""Steps 1 and 2 at each N: synthetic items straight into ``memory_items``, then our
``retrieve(mode="rag")`` beside a bare encode + ``IndexFlatIP.search`` + FTS5 bm25 query,
interleaved per query."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from rilai_desktop.cli.bench.memory.common import (
    BareEncoder,
    K,
    encoded_count,
    latency_stats,
    ms_since,
)
from rilai_desktop.memory._sql import dumps, fts_query, iso
from rilai_desktop.memory.extraction import KIND_CATEGORIES
from rilai_desktop.memory.items import content_hash, to_blob
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.store import EventLog

# ── 1. build ─────────────────────────────────────────────────────────────────

_INSERT = (
    "INSERT INTO memory_items (item_id, content, content_hash, embedding, source_resource_id,"
    " source_turn_ids, category, kind, confidence, importance, created_at, valid_at)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
)


def insert_items(
    db: EventLog,
    mem: MemoryManager,
    items: Sequence[tuple[str, str]],
    vectors: np.ndarray[Any, np.dtype[np.float32]],
    start: int,
    stop: int,
    resource_id: str,
) -> None:
    """Rows ``start:stop`` straight into memory_items (one transaction, executemany)."""
    now = datetime.now(UTC)
    span = timedelta(days=730)
    total = max(stop, 1)
    with db.transaction() as conn:
        for name in sorted(set(KIND_CATEGORIES.values())):
            mem.category_layer.ensure(conn, name)
        for lo in range(start, stop, 20_000):
            rows = []
            for i in range(lo, min(stop, lo + 20_000)):
                text, kind = items[i]
                when = iso(now - span + span * (i / total))
                importance = "high" if i % 10 == 0 else ("low" if i % 10 == 1 else "normal")
                rows.append(
                    (
                        f"item_bench_{i}",
                        text,
                        content_hash(text),
                        to_blob(vectors[i]),
                        resource_id,
                        dumps([f"bench-turn-{i}"]),
                        KIND_CATEGORIES[kind],
                        kind,
                        0.7,
                        importance,
                        when,
                        when,
                    )
                )
            conn.executemany(_INSERT, rows)


# ── 2. search ────────────────────────────────────────────────────────────────

_BARE_FTS = (
    "SELECT rowid, bm25(memory_items_fts) FROM memory_items_fts"
    " WHERE memory_items_fts MATCH ? ORDER BY bm25(memory_items_fts) LIMIT ?"
)


def bench_search(
    mem: MemoryManager,
    bare: BareEncoder,
    flat: Any,
    fts: sqlite3.Connection,
    queries: Sequence[str],
    warmup: Sequence[str],
) -> dict[str, Any]:
    """Ours vs the bare parts, interleaved per query, order alternating."""
    n_cand = max(mem.rag.weights.candidates, K)
    ours_ms: list[float] = []
    enc_ms: list[float] = []
    faiss_ms: list[float] = []
    fts_ms: list[float] = []
    returned: list[int] = []

    def ours(q: str) -> None:
        t0 = time.perf_counter()
        result = mem.retrieve(q, mode="rag", k=K)
        ours_ms.append(ms_since(t0))
        returned.append(len(result.items))

    def bare_side(q: str) -> None:
        t0 = time.perf_counter()
        vec = np.asarray(bare.encode([q]), dtype=np.float32).reshape(1, -1)
        t1 = time.perf_counter()
        flat.search(vec, n_cand)
        t2 = time.perf_counter()
        match = fts_query(q)
        if match is not None:
            fts.execute(_BARE_FTS, (match, n_cand)).fetchall()
        t3 = time.perf_counter()
        enc_ms.append((t1 - t0) * 1000)
        faiss_ms.append((t2 - t1) * 1000)
        fts_ms.append((t3 - t2) * 1000)

    for q in warmup:
        ours(q)
        bare_side(q)
    for lst in (ours_ms, enc_ms, faiss_ms, fts_ms, returned):
        lst.clear()
    before = encoded_count(mem)
    for i, q in enumerate(queries):
        if i % 2 == 0:
            ours(q)
            bare_side(q)
        else:
            bare_side(q)
            ours(q)
    embedded = encoded_count(mem) - before
    sums = [a + b + c for a, b, c in zip(enc_ms, faiss_ms, fts_ms, strict=True)]
    out: dict[str, Any] = {
        "queries": len(queries),
        "k": K,
        "candidates": n_cand,
        "ours_embedded_queries": embedded,
        "ours_mean_hits": round(sum(returned) / max(1, len(returned)), 2),
        "ours": latency_stats(ours_ms),
        "bare_encode": latency_stats(enc_ms),
        "bare_faiss": latency_stats(faiss_ms),
        "bare_fts": latency_stats(fts_ms),
        "bare_sum": latency_stats(sums),
    }
    out["ratio_p50"] = round(out["ours"]["p50_ms"] / max(out["bare_sum"]["p50_ms"], 1e-9), 3)
    out["ratio_p95"] = round(out["ours"]["p95_ms"] / max(out["bare_sum"]["p95_ms"], 1e-9), 3)
    return out
