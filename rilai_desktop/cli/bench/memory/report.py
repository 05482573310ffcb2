"""The report as text (``--json`` prints the dict ``run_bench`` returns as is)."""

from __future__ import annotations

from typing import Any

from rilai_desktop.cli.bench.memory.common import BAR_ITEMS, RECALL_BAR, SEARCH_BAR, K
from rilai_desktop.cli.commands.output import table


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def print_report(rep: dict[str, Any]) -> None:
    threads = "" if rep["torch_threads"] is None else f", torch {rep['torch_threads']} thread(s)"
    print(
        f"memory benchmark: ours (MemoryManager) vs bare FAISS + FTS5 + encoder, one process"
        f" ({rep['backend']}: {rep['embedding_model']}, {rep['dimension']} dims{threads},"
        f" faiss {rep['faiss_threads']} thread)"
    )
    print(f"data: synthetic sentences; embeddings {rep['data']}")
    print(f"bare encoder: {rep['bare_encoder']}")
    if rep["backend"] == "hash":
        print(
            "note: hash backend — the fake encoder costs microseconds, so the ratios show our"
            " overhead only; the bars are meant for the minilm backend"
        )
    for r in rep["sizes"]:
        n = r["items"]
        print()
        if r["search"] is None:
            print(f"N = {n:,} items: approximate index only (slow to build; no SQLite memory)")
        else:
            b, s = r["build"], r["search"]
            print(
                f"N = {n:,} items: inserted in {b['insert_s']:.1f} s; index rebuild from SQLite"
                f" {b['rebuild_ms'] / 1000:.2f} s ({b['index_kind']}; bare IndexFlatIP.add"
                f" {b['bare_flat_add_ms']:.0f} ms)"
            )
            print(
                f"  search: {s['queries']} distinct queries, k={s['k']}, {s['candidates']}"
                f" candidates per channel; ours embedded {s['ours_embedded_queries']} of them"
                f" (no cache hits); mean hits {s['ours_mean_hits']}"
            )
            rows = [
                ("ours retrieve(mode=rag)", s["ours"]),
                ("bare encode (1 query)", s["bare_encode"]),
                (f"bare faiss flat search ({s['candidates']})", s["bare_faiss"]),
                (f"bare fts5 bm25 (LIMIT {s['candidates']})", s["bare_fts"]),
                ("bare sum (per query)", s["bare_sum"]),
            ]
            print(
                table(
                    [(name, st["p50_ms"], st["p95_ms"], st["min_ms"]) for name, st in rows],
                    ["", "p50 ms", "p95 ms", "best ms"],
                )
            )
            bar = n == BAR_ITEMS
            ok = s["ratio_p95"] <= SEARCH_BAR
            print(
                f"  ratio ours / bare sum: p50 {s['ratio_p50']}, p95 {s['ratio_p95']}"
                + (
                    f"  (bar <= {SEARCH_BAR}: {_verdict(ok)})"
                    if bar
                    else f"  (bar <= {SEARCH_BAR} applies at {BAR_ITEMS:,}; here {_verdict(ok)})"
                )
            )
        a = r["ann"]
        print(
            f"  approximate index: IVF nlist {a['nlist']}, nprobe {a['nprobe']}, trained on"
            f" {a['train_points']:,} points, built in {a['build_s']:.1f} s (1 thread)"
            + ("  [slow to build]" if r["search"] is None else "")
        )
        print(
            f"  IVF search k={K}: p50 {a['ivf']['p50_ms']} ms, p95 {a['ivf']['p95_ms']} ms"
            f" (exact flat: p50 {a['exact_flat']['p50_ms']} ms, p95 {a['exact_flat']['p95_ms']}"
            f" ms); recall@10 {a['recall_at_10']} over {a['queries']} near-data queries"
            f"  (bar >= {RECALL_BAR}: {_verdict(a['pass'])})"
        )
        print(
            table(
                [
                    (
                        sw["nprobe"],
                        sw["recall_at_10"],
                        sw["p50_ms"],
                        sw["p95_ms"],
                        _verdict(sw["pass"]),
                    )
                    for sw in a["sweep"]
                ],
                ["nprobe", "recall@10", "p50 ms", "p95 ms", f">= {RECALL_BAR}"],
            )
        )
    ing = rep["ingest"]
    print()
    print(
        f"ingest: {ing['turns']} distinct user turns in {ing['sessions']} sessions of"
        f" {ing['session_turns']} (ingest_sessions, mode=rules), fresh memory each repeat,"
        f" best of {ing['repeats']}"
    )
    print(
        table(
            [
                ("ours ingest_sessions", ing["drafts_ours"], ing["ours_texts_per_s"]),
                (
                    f"bare encode, one call (batch {ing['batch_size']})",
                    ing["drafts_bare"],
                    ing["bare_texts_per_s"],
                ),
                (
                    "bare encode, one call per session",
                    ing["drafts_bare"],
                    ing["bare_per_session_texts_per_s"],
                ),
            ],
            ["", "texts", "texts/s"],
        )
    )
    print(
        f"  ratio ours / bare: {ing['ratio']} (bar >= {ing['bar']}: {_verdict(ing['pass'])});"
        f" vs per-session bare calls: {ing['ratio_vs_per_session']};"
        f" ours best {ing['ours_best_s']} s for the whole ingest"
    )
    print()
    print("summary")
    print(
        table(
            [
                (
                    b["bar"],
                    "-" if b["value"] is None else b["value"],
                    b["limit"],
                    _verdict(b["pass"]),
                )
                for b in rep["bars"]
            ],
            ["bar", "value", "limit", ""],
        )
    )
    print(
        f"overall: {'PASS' if rep['pass'] else 'FAIL'} (wall time {rep['wall_s']:.0f} s;"
        " a report: exits 0 either way)"
    )
