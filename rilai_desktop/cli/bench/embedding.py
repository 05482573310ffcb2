"""`rilai bench embedding`: MiniLM through onnxruntime beside MiniLM through torch.

The same all-MiniLM-L6-v2 two ways: ``EmbeddingService`` (sentence-transformers on torch,
backend "minilm") and ``OnnxEmbedder`` (the ONNX export on onnxruntime, backend "onnx";
built by ``tools/export_embedding_onnx.py``). Both with their caches off.

1. **Same vectors.** Cosine between the two paths' vectors, per text, on the texts of
   ``embedding_texts`` (≥ 500 from tests/data, texts past the 256-token limit, unicode),
   with min and mean per group; the token ids of the two tokenisations compared exactly on
   the long texts (truncation). Empty and whitespace-only text: both embedders refuse it
   (``MemoryInputError``); beneath them, the raw models are compared on "" as well. Bar:
   cosine ≥ 0.999 for every text.
2. **Speed and memory**, each backend × thread count in a fresh process (so one library's
   memory never counts against the other), threads pinned (torch.set_num_threads /
   onnxruntime intra-op threads, and OMP/MKL env): RSS after the model loads and after the
   runs; per text (one ``embed([t])`` each, 200 texts: p50, mean) and per batch of 32
   (all the sample in batches of 32: mean ms per batch), after a warm-up. ``--repeats``
   rounds (alternating which backend goes first), the fastest of each kept; the report
   gives the machine's load average, since other work on the cores only slows a run.
3. **Installed size** of what each path needs at run time (from each distribution's RECORD).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Final

import numpy as np

from rilai_desktop.cli.bench.embedding_texts import UNICODE, long_texts, sample_texts
from rilai_desktop.paths import REPO_ROOT

COSINE_BAR: Final[float] = 0.999
PER_TEXT: Final[int] = 200
BATCH: Final[int] = 32
THREADS: Final[tuple[int, ...]] = (1, 2)
# what each path needs at run time beyond what both need (numpy, tokenizers' own deps)
TORCH_DISTS: Final = (
    "torch",
    "sentence-transformers",
    "transformers",
    "safetensors",
    "sympy",
    "networkx",
    "mpmath",
    "scipy",
    "scikit-learn",
    "regex",
    "tqdm",
)
ONNX_DISTS: Final = ("onnxruntime", "tokenizers", "flatbuffers", "protobuf")


def dist_size(name: str) -> int | None:
    """Bytes on disk of one installed distribution (None if not installed)."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    total = 0
    for file in dist.files or []:
        path = Path(str(dist.locate_file(file)))
        if path.is_file():
            total += path.stat().st_size
    return total


def sizes() -> dict[str, Any]:
    def group(names: tuple[str, ...]) -> dict[str, Any]:
        each = {n: dist_size(n) for n in names}
        return {
            "each_mb": {n: round(v / 1e6, 1) for n, v in each.items() if v is not None},
            "total_mb": round(sum(v for v in each.values() if v is not None) / 1e6, 1),
        }

    return {"torch_path": group(TORCH_DISTS), "onnx_path": group(ONNX_DISTS)}


def _cosines(a: np.ndarray, b: np.ndarray) -> list[float]:
    return [float(x) for x in (a * b).sum(axis=1)]


def _summary(cos: list[float], diff: float) -> dict[str, Any]:
    return {
        "texts": len(cos),
        "min": min(cos),
        "mean": statistics.fmean(cos),
        "below_bar": sum(1 for c in cos if c < COSINE_BAR),
        "max_abs_diff": diff,
    }


def parity(sample_limit: int) -> dict[str, Any]:
    from rilai_desktop.memory.embedding import EmbeddingService
    from rilai_desktop.memory.embedding_onnx import OnnxEmbedder

    torch_emb = EmbeddingService(cache_size=0)
    onnx_emb = OnnxEmbedder(cache_size=0)
    sample = sample_texts(sample_limit)
    groups = {"sample": sample, "long": long_texts(sample), "unicode": list(UNICODE)}
    out: dict[str, Any] = {"groups": {}}
    worst: tuple[float, str] = (2.0, "")
    for name, texts in groups.items():
        ref, got = torch_emb.embed(texts), onnx_emb.embed(texts)
        cos = _cosines(ref, got)
        out["groups"][name] = _summary(cos, float(np.abs(ref - got).max()))
        low = min(zip(cos, texts, strict=True))
        worst = min(worst, low)
    out["worst"] = {"cosine": worst[0], "text": worst[1][:80]}
    # truncation: the same token ids, cut at the same place
    model = torch_emb.load()
    onnx_emb.load()
    mismatched = 0
    lengths: set[int] = set()
    for text in groups["long"]:
        ref = model.preprocess([text])["input_ids"][0].tolist()
        ours = onnx_emb._tokenizer.encode_batch([text])[0].ids
        mismatched += ref != ours
        lengths.add(len(ours))
    out["truncation"] = {
        "texts": len(groups["long"]),
        "token_ids_differ": mismatched,
        "tokens": sorted(lengths),
        "max_seq_length": model.max_seq_length,
    }
    # empty text: refused by both embedders; the raw models compared underneath
    raw = {}
    for text in ("", "   ", "\n"):
        ref_vec = np.asarray(model.encode([text], normalize_embeddings=True), dtype=np.float32)
        raw[repr(text)] = round(_cosines(ref_vec, onnx_emb._run([text]))[0], 7)
    out["raw_empty"] = raw
    cos_all = [g["min"] for g in out["groups"].values()]
    out["holds"] = min(cos_all) >= COSINE_BAR and mismatched == 0
    return out


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(backend: str, threads: int, sample_limit: int) -> dict[str, Any]:
    """Runs in a fresh process: load, then time, one backend at ``threads``."""
    texts = sample_texts(sample_limit)
    rss_start = _rss_mb()
    t0 = time.perf_counter()
    embedder: Any
    if backend == "torch":
        from rilai_desktop.memory.embedding import EmbeddingService

        embedder = EmbeddingService(threads=threads, cache_size=0)
        embedder.load()
        import torch

        torch.set_num_threads(threads)
    else:
        from rilai_desktop.memory.embedding_onnx import OnnxEmbedder

        embedder = OnnxEmbedder(threads=threads, cache_size=0)
        embedder.load()
    load_s = time.perf_counter() - t0
    rss_loaded = _rss_mb()
    embedder.embed(texts[:BATCH])  # warm-up
    per_text = []
    for text in texts[:PER_TEXT]:
        t1 = time.perf_counter()
        embedder.embed([text])
        per_text.append((time.perf_counter() - t1) * 1000)
    per_batch = []
    for start in range(0, len(texts) - BATCH + 1, BATCH):
        t1 = time.perf_counter()
        embedder.embed(texts[start : start + BATCH])
        per_batch.append((time.perf_counter() - t1) * 1000)
    return {
        "backend": backend,
        "threads": threads,
        "load_s": round(load_s, 2),
        "rss_mb": {
            "start": round(rss_start),
            "loaded": round(rss_loaded),
            "after": round(_rss_mb()),
        },
        "per_text_ms": {
            "p50": round(statistics.median(per_text), 2),
            "mean": round(statistics.fmean(per_text), 2),
        },
        "torch_imported": "torch" in sys.modules,
        "per_batch32_ms": {
            "mean": round(statistics.fmean(per_batch), 1),
            "batches": len(per_batch),
        },
    }


def run_child(backend: str, threads: int, sample_limit: int) -> dict[str, Any]:
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = str(threads)
    code = (
        "import json, sys; from rilai_desktop.cli.bench.embedding import child; "
        f"print(json.dumps(child({backend!r}, {threads}, {sample_limit})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return {"backend": backend, "threads": threads, "error": done.stderr.strip()[-400:]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The fastest of one backend x threads' rounds (the machine's other load only slows)."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[-1]
    best = dict(min(ok, key=lambda r: r["per_text_ms"]["p50"]))
    best["per_batch32_ms"] = min((r["per_batch32_ms"] for r in ok), key=lambda b: b["mean"])
    best["rounds"] = len(ok)
    return best


def bench(
    sample_limit: int = 600, threads: tuple[int, ...] = THREADS, repeats: int = 3
) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for round_ in range(repeats):  # alternate which backend goes first
        order = ("torch", "onnx") if round_ % 2 == 0 else ("onnx", "torch")
        for n in threads:
            for backend in order:
                runs.setdefault((backend, n), []).append(run_child(backend, n, sample_limit))
    speed = [_best(runs[(b, n)]) for n in threads for b in ("torch", "onnx")]
    return {
        "parity": parity(sample_limit),
        "speed": speed,
        "sizes": sizes(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "cpus": os.cpu_count(),
    }


def print_report(rep: dict[str, Any]) -> None:
    par = rep["parity"]
    print(f"Same vectors (cosine torch vs onnx, bar ≥ {COSINE_BAR} for every text):")
    for name, g in par["groups"].items():
        print(
            f"  {name:8} {g['texts']:4} texts  min {g['min']:.7f}  mean {g['mean']:.7f}"
            f"  below bar {g['below_bar']}  max |diff| {g['max_abs_diff']:.1e}"
        )
    print(f"  worst: {par['worst']['cosine']:.7f} {par['worst']['text']!r}")
    tr = par["truncation"]
    print(
        f"  truncation: {tr['texts']} long texts, token ids differ on {tr['token_ids_differ']},"
        f" lengths {tr['tokens']} (max_seq_length {tr['max_seq_length']})"
    )
    print(f"  empty text: refused by both embedders; raw models' cosine {par['raw_empty']}")
    print(f"  holds: {par['holds']}")
    rounds = max((s.get("rounds", 1) for s in rep["speed"]), default=1)
    print(
        f"Speed and memory (fresh process each, threads pinned, cache off; best of {rounds};"
        f" {rep['cpus']} CPUs, load average {rep['load_average'][0]} -> {rep['load_average'][1]}):"
    )
    for s in rep["speed"]:
        if "error" in s:
            print(f"  {s['backend']:5} x{s['threads']}: failed: {s['error']}")
            continue
        print(
            f"  {s['backend']:5} x{s['threads']}: per text p50 {s['per_text_ms']['p50']} ms"
            f" (mean {s['per_text_ms']['mean']}), per batch of {BATCH}"
            f" {s['per_batch32_ms']['mean']} ms; load {s['load_s']} s;"
            f" RSS loaded {s['rss_mb']['loaded']} MB, after {s['rss_mb']['after']} MB;"
            f" torch imported: {'yes' if s.get('torch_imported') else 'no'}"
        )
    print("Installed size of what each path needs at run time:")
    for path, g in rep["sizes"].items():
        print(f"  {path}: {g['total_mb']} MB  {g['each_mb']}")


def run(args: Any, ctx: Any) -> int:
    rep = bench(repeats=max(1, int(getattr(args, "repeats", 3))))
    if getattr(args, "json", False):
        sys.stdout.write(json.dumps(rep, indent=2) + "\n")
    else:
        print_report(rep)
    return 0 if rep["parity"]["holds"] else 1
