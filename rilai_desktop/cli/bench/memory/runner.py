"""The whole run: every size, the ingest, and the bars the report is judged by."""

from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
from argparse import Namespace
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import faiss

from rilai_desktop.cli.bench.memory.ann import bench_ann
from rilai_desktop.cli.bench.memory.common import (
    BAR_ITEMS,
    FULL_MAX,
    INGEST_BAR,
    INGEST_TURNS,
    QUERIES,
    RECALL_BAR,
    SEARCH_BAR,
    SESSION_TURNS,
    WARMUP_QUERIES,
    BareEncoder,
    Progress,
    ms_since,
    open_memory,
)
from rilai_desktop.cli.bench.memory.corpus import (
    CLUSTERS,
    clustered_vectors,
    synthetic_items,
    synthetic_queries,
    synthetic_turns,
)
from rilai_desktop.cli.bench.memory.ingest import bench_ingest
from rilai_desktop.cli.bench.memory.report import print_report
from rilai_desktop.cli.bench.memory.search import bench_search, insert_items
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json
from rilai_desktop.config import Settings
from rilai_desktop.errors import MemoryInputError


def parse_items(text: str) -> list[int]:
    try:
        sizes = sorted({int(p.replace("_", "")) for p in str(text).split(",") if p.strip()})
    except ValueError:
        sizes = []
    if not sizes or sizes[0] < 10:
        raise MemoryInputError(
            f"--items expects a comma list of item counts ≥ 10, got {text!r}",
            recovery_suggestions=["Example: rilai bench memory --items 10000,100000"],
        )
    return sizes


def run_bench(
    settings: Settings,
    sizes: Sequence[int],
    *,
    repeats: int = 3,
    queries: int = QUERIES,
    ingest_turns: int = INGEST_TURNS,
    full_max: int = FULL_MAX,
    workdir: Path | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Every measurement; returns the report (``--json`` prints it as is).

    ``queries`` per size, ``ingest_turns`` for the ingest, and sizes above ``full_max`` get
    the approximate index only.
    """
    started = time.perf_counter()

    def say(msg: str) -> None:
        if progress is not None:
            progress(f"[bench memory {time.perf_counter() - started:6.1f}s] {msg}")

    faiss.omp_set_num_threads(1)
    sizes = sorted(set(sizes))
    repeats = max(1, int(repeats))
    with tempfile.TemporaryDirectory(prefix="rilai-bench-memory-", dir=workdir) as tmp:
        root = Path(tmp)
        full = [n for n in sizes if n <= full_max]
        index_only = [n for n in sizes if n > full_max]
        say(f"opening a throwaway memory ({settings.embedding.backend} embedder)")
        mem = open_memory(settings, root, "search")
        try:
            dim = mem.manager.embedder.dimension
            model_id = mem.manager.embedder.model_id
            bare = BareEncoder(mem.manager, settings)
            say(f"generating {sizes[-1]:,} clustered {dim}-dim vectors")
            vectors = clustered_vectors(sizes[-1], dim)
            items = synthetic_items(max(full, default=0))
            per_n = WARMUP_QUERIES + queries
            pool = synthetic_queries(per_n * max(1, len(full)))
            reports: list[dict[str, Any]] = []
            resource_id = ""
            if full:
                resource_id = mem.manager.store_resource(
                    "Synthetic memory items written by `rilai bench memory`.",
                    "document",
                    {"bench": "memory"},
                ).resource_id
            have = 0
            for idx, n in enumerate(full):
                say(f"N={n:,}: inserting {n - have:,} items (one transaction)")
                t0 = time.perf_counter()
                insert_items(mem.core.event_log, mem.manager, items, vectors, have, n, resource_id)
                insert_s = time.perf_counter() - t0
                have = n
                say(f"N={n:,}: rebuilding the index from SQLite")
                _, rebuild_ms = mem.manager.item_layer.rebuild_index("bench")
                kind = mem.manager.item_layer.index.kind
                flat = faiss.IndexFlatIP(dim)
                t0 = time.perf_counter()
                flat.add(vectors[:n])
                flat_add_ms = ms_since(t0)
                say(f"N={n:,}: {queries} queries, ours and bare interleaved")
                fts = sqlite3.connect(mem.core.paths.db_path)
                try:
                    search = bench_search(
                        mem.manager,
                        bare,
                        flat,
                        fts,
                        pool[idx * per_n + WARMUP_QUERIES : (idx + 1) * per_n],
                        pool[idx * per_n : idx * per_n + WARMUP_QUERIES],
                    )
                finally:
                    fts.close()
                search["index_kind"] = kind
                ann = bench_ann(vectors[:n], flat, root, queries, say)
                del flat
                reports.append(
                    {
                        "items": n,
                        "mode": "full",
                        "build": {
                            "insert_s": round(insert_s, 3),
                            "rebuild_ms": round(rebuild_ms, 1),
                            "bare_flat_add_ms": round(flat_add_ms, 1),
                            "index_kind": kind,
                        },
                        "search": search,
                        "ann": ann,
                    }
                )
            for n in index_only:
                say(f"N={n:,}: approximate index only (slow to build)")
                flat = faiss.IndexFlatIP(dim)
                flat.add(vectors[:n])
                ann = bench_ann(vectors[:n], flat, root, queries, say)
                del flat
                reports.append({"items": n, "mode": "index_only", "search": None, "ann": ann})
            torch_threads = bare.torch_threads
            bare_label = bare.label
        finally:
            mem.close()
        del vectors
        say(f"ingest: {ingest_turns} turns in sessions of {SESSION_TURNS}, best of {repeats}")
        ingest = bench_ingest(settings, root, synthetic_turns(ingest_turns), repeats, say)
    bars = _bars(reports, ingest)
    judged = [b["pass"] for b in bars if b["pass"] is not None]
    return {
        "benchmark": "memory",
        "backend": settings.embedding.backend,
        "embedding_model": model_id,
        "dimension": dim,
        "bare_encoder": bare_label,
        "torch_threads": torch_threads,
        "faiss_threads": 1,
        "items": list(sizes),
        "repeats": repeats,
        "queries": queries,
        "data": f"{CLUSTERS} Gaussian clusters, unit vectors, within-cluster cosine ~0.5",
        "sizes": reports,
        "ingest": ingest,
        "bars": bars,
        "pass": all(judged),
        "wall_s": round(time.perf_counter() - started, 1),
    }


def _bars(reports: Sequence[dict[str, Any]], ingest: dict[str, Any]) -> list[dict[str, Any]]:
    bars: list[dict[str, Any]] = []
    at_bar = next((r for r in reports if r["items"] == BAR_ITEMS and r["search"]), None)
    ratio = None if at_bar is None else at_bar["search"]["ratio_p95"]
    bars.append(
        {
            "bar": f"retrieve p95 / bare sum p95 at {BAR_ITEMS:,} items",
            "value": ratio,
            "limit": f"<= {SEARCH_BAR}",
            "pass": None if ratio is None else ratio <= SEARCH_BAR,
        }
    )
    for r in reports:
        ann = r["ann"]
        bars.append(
            {
                "bar": f"IVF recall@10 (nprobe {ann['nprobe']}) at {r['items']:,} items",
                "value": ann["recall_at_10"],
                "limit": f">= {RECALL_BAR}",
                "pass": ann["pass"],
            }
        )
    bars.append(
        {
            "bar": "ingest drafts/s / bare encode texts/s",
            "value": ingest["ratio"],
            "limit": f">= {INGEST_BAR}",
            "pass": ingest["pass"],
        }
    )
    return bars


def run(
    args: Namespace, ctx: Context, *, queries: int = QUERIES, ingest_turns: int = INGEST_TURNS
) -> int:
    """`rilai bench memory`; ``queries`` and ``ingest_turns`` as in ``run_bench``."""
    sizes = parse_items(getattr(args, "items", "10000,100000"))
    report = run_bench(
        ctx.loaded.settings,
        sizes,
        repeats=int(args.repeats),
        queries=queries,
        ingest_turns=ingest_turns,
        progress=lambda msg: print(msg, file=sys.stderr, flush=True),
    )
    if ctx.json:
        emit_json(report)
    else:
        print_report(report)
    return 0
