"""`rilai bench memory`: our memory beside bare FAISS, bare FTS5 and the bare encoder.

Everything runs in a throwaway directory (never the user's data), in one process:

1. Build, for each N of ``--items``: N synthetic items — sentences from templates with a
   varied vocabulary, so FTS5 has real work — whose embeddings are random *clustered* unit
   vectors (200 Gaussian clusters; embedding 100K real sentences would take many minutes)
   are inserted straight into ``memory_items`` in one transaction; then the FAISS index is
   rebuilt from SQLite (``ItemLayer.rebuild_index``, timed: "index rebuild").
2. Search at N: 200 distinct short questions. Ours: ``retrieve(q, mode="rag", k=10)`` (a
   real query embedding, FAISS, FTS5, fusion, row fetch). Bare, on the same data, per query,
   alternating which side goes first: one ``model.encode([q])``, ``IndexFlatIP.search`` of
   that vector for the same 50 candidates our RAG asks for, and the same FTS5 MATCH
   expression ``ORDER BY bm25 LIMIT 50`` on a plain sqlite3 connection to the same file.
   Bar: ours p95 ≤ 1.5 × the p95 of the per-query bare sum, at 100K.
3. Ingest: ~1,000 distinct user turns in sessions of 20 through
   ``ingest_sessions(mode="rules")`` (what `rilai memory ingest` runs) into a fresh memory
   (extraction, embedding, dedupe,
   SQLite, index), counted as drafts embedded per second, beside bare ``model.encode`` of
   the same draft texts (batch 64). Best of ``--repeats``, alternating order. Bar ≥ 0.8.
4. Approximate index at each N: ``VectorIndex.build(exact_max=0)`` (IVF) on the same
   vectors — build time, search p50/p95, recall@10 against the exact flat index for 200
   queries near the data, and an nprobe sweep. Bar: recall@10 ≥ 0.95 at the default nprobe.
   Above 250K items only this part runs (``--items 1000000``: slow to build).

Threads: FAISS runs with one OpenMP thread and torch with ``embedding.torch_threads``, on
both sides. With ``embedding.backend = "hash"`` no torch model loads and the bare encoder
is the HashEmbedder's own ``embed`` with its cache off (said so in the output); with
``"onnx"`` it is the same onnxruntime session run directly (``rilai bench embedding`` compares
the two MiniLM paths themselves).

Modules: ``corpus`` (the synthetic sentences, questions, turns and clustered vectors),
``common`` (bars, sizes, latency statistics, the throwaway memory, the bare encoder),
``search`` (1 and 2), ``ingest`` (3), ``ann`` (4), ``runner`` (the whole run and the
``rilai bench memory`` entry point) and ``report`` (the text report).
"""

from rilai_desktop.cli.bench.memory.common import (
    FULL_MAX,
    INGEST_BAR,
    INGEST_TURNS,
    NPROBES,
    QUERIES,
    RECALL_BAR,
)
from rilai_desktop.cli.bench.memory.corpus import (
    clustered_vectors,
    near_queries,
    synthetic_items,
    synthetic_queries,
    synthetic_turns,
)
from rilai_desktop.cli.bench.memory.report import print_report
from rilai_desktop.cli.bench.memory.runner import parse_items, run, run_bench

__all__ = [
    "FULL_MAX",
    "INGEST_BAR",
    "INGEST_TURNS",
    "NPROBES",
    "QUERIES",
    "RECALL_BAR",
    "clustered_vectors",
    "near_queries",
    "parse_items",
    "print_report",
    "run",
    "run_bench",
    "synthetic_items",
    "synthetic_queries",
    "synthetic_turns",
]
