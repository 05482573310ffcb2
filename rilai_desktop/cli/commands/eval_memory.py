"""`rilai eval memory FILE [FILE ...] [--json] [--mode rag|hybrid]` (docs/eval.md, "Memory").

Each FILE is a transcript with questions (``tools/locomo_to_transcript.py`` writes LoCoMo's
into the git-ignored ``data/locomo/``). Each goes into a fresh memory of its own — the real
SQLite file, FAISS index and MiniLM in a scratch folder that is removed afterwards — is
ingested as ``rilai memory ingest --extract rules`` would, and its questions are asked
through the product's retrieval (the mode of the settings, or ``--mode``) and of plain BM25
and dense baselines over the raw turns in the same run (``evaluation/memory_eval.py``).
The exit code is 0 whether or not the bars pass; 2 for a missing or malformed file.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from argparse import Namespace
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.cli.evaluation.memory_eval import KS, evaluate, load_benchmark
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.transcript import Transcript, session_batches

MODES = ("rag", "hybrid")


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class _ScratchSearcher:
    """A fresh memory in its own folder, sharing one loaded embedder across files."""

    def __init__(self, ctx: Context, root: Path, number: int, mode: str, shared: dict[str, Any]):
        from rilai_desktop.app.build import build_memory
        from rilai_desktop.app.core import build_core

        home = root / f"memory-{number:02d}"
        paths = ctx.paths.scratch(home)
        self.core = build_core(paths, ctx.loaded.settings)
        self.memory = build_memory(
            self.core,
            with_models=mode != "rag",
            auto_consolidate=False,
            embedder=shared.get("embedder"),
        )
        shared.setdefault("embedder", self.memory.embedder)
        self.mode = mode

    def ingest(self, transcript: Transcript) -> float:
        batch = session_batches(transcript)
        start = time.perf_counter()
        self.memory.ingest_sessions(batch, mode="rules")
        return time.perf_counter() - start

    def search(self, query: str, k: int) -> list[list[str]]:
        result = self.memory.retrieve(query, mode=self.mode, k=k)
        return [list(item.source_turn_ids) for item in result.items]

    def close(self) -> None:
        self.memory.close()
        self.core.close()


def run(args: Namespace, ctx: Context) -> int:
    mode = getattr(args, "mode", None) or "rag"
    if mode not in MODES:
        raise MemoryInputError(f"--mode must be one of {', '.join(MODES)}, got {mode!r}")
    paths = [Path(p) for p in args.files]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        raise MemoryInputError(
            f"no such benchmark file: {', '.join(map(str, missing))}",
            recovery_suggestions=[
                "LoCoMo is not shipped (CC BY-NC): put locomo10.json in data/locomo/ and run"
                " python tools/locomo_to_transcript.py (docs/eval.md)"
            ],
        )
    benchmarks = [load_benchmark(p) for p in paths]
    root = Path(tempfile.mkdtemp(prefix="rilai-eval-memory-"))
    shared: dict[str, Any] = {}
    made = [0]

    def factory() -> _ScratchSearcher:
        made[0] += 1
        return _ScratchSearcher(ctx, root, made[0], mode, shared)

    def embed(texts: Any) -> Any:
        return shared["embedder"].embed(list(texts))

    try:
        report = evaluate(benchmarks, factory, embed, progress=_progress)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report["mode"] = mode
    if ctx.json:
        emit_json(report)
    else:
        _print(report)
    return 0


def _print(report: dict[str, Any]) -> None:
    recall = report["recall"]
    types = list(recall["rilai"])
    rows = []
    for name in types:
        row = [name, str(recall["rilai"][name]["n"])]
        for side in ("rilai", "bm25", "dense"):
            row += [f"{recall[side][name][f'recall@{k}']:.3f}" for k in KS]
        rows.append(row)
    headers = ["type", "n", "ours@5", "ours@10", "bm25@5", "bm25@10", "dense@5", "dense@10"]
    print(table(rows, headers))
    timing = report["search_ms"]
    print(f"search: p50 {timing['p50']:.1f} ms, p95 {timing['p95']:.1f} ms ({report['mode']})")
    for f in report["files"]:
        o = f["recall"]
        print(
            f"  {Path(f['file']).name}: {f['turns']} turns, {f['questions']} questions,"
            f" ingest {f['ingest_s']:.1f} s,"
            f" recall@10 ours {o['rilai']['overall']['recall@10']:.3f}"
            f" bm25 {o['bm25']['overall']['recall@10']:.3f}"
            f" dense {o['dense']['overall']['recall@10']:.3f}"
        )
    bars = report["bars"]
    verdict = " · ".join(
        f"{name} {bar['value']} ({'ok' if bar['passed'] else 'FAILED'}, bar {bar['bar']})"
        for name, bar in bars.items()
    )
    print(f"bars: {verdict}")
