"""`rilai bench llm`: our llama.cpp adapter beside bare llama-cpp-python, per tier.

For each installed tier, two models are loaded from the same file with the same n_ctx,
threads and batch: ours (``LlamaCppModel``) and bare (``llama_cpp.Llama``). Both stream
``create_completion`` on the same formatted prompt with greedy sampling, their KV caches
reset before each run, alternating which goes first, best of ``--repeats``:

- prompt tokens/s  = prompt tokens / time to first token
- generation tok/s = (generated tokens - 1) / (total - time to first token)
- time to first token (ms)

Prefix reuse (ours): a prompt of ~400 shared tokens + a ~40-token suffix, then the same
prefix with another suffix; the second call's prompt time over the first's.
Bars: our throughput ≥ 0.95× bare; prefix reuse ≤ 0.25.
"""

from __future__ import annotations

import time
from argparse import Namespace
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.llm.installer import verify
from rilai_desktop.llm.manifest import TIERS, load_manifest

BARS = {"prompt_tps": 0.95, "gen_tps": 0.95, "prefix_reuse": 0.25}
GEN_TOKENS = 48

CONTEXT = (
    "You are Rilai, a warm companion that lives on the user's own computer. You remember "
    "what they tell you across weeks, you notice moods and let them fade, and you never "
    "pretend to have a body or human feelings. Speak briefly and kindly; ask before giving "
    "advice. What you know about the user so far: they work as a nurse on night shifts at a "
    "city hospital; they have a sister called Maya who lives abroad; they are learning to "
    "play the cello and practise on Sunday mornings; they dislike being told to 'just relax'; "
    "they are training for a 10 km run in the spring; they mentioned a deadline for a "
    "certification exam next month and said it makes them anxious; their cat is called "
    "Pixel and is twelve years old; they prefer short replies on weekdays. Recent mood: "
    "tired but hopeful. Open threads: the exam, a difficult conversation with a colleague, "
    "finding time to call Maya. "
)
SUFFIXES = (
    "I finally called Maya today and it felt good, but now I am worried about the exam "
    "again and I can't sleep. What should I do first tonight, do you think?",
    "Work was rough: my colleague took credit for my idea in the meeting, and I stayed "
    "quiet. I keep replaying it. Was I wrong to say nothing there, do you think?",
)


def _shared_prefix(tokenize: Any, target: int) -> str:
    text = ""
    while len(tokenize(text.encode())) < target:
        text += CONTEXT
    words = text.split(" ")
    while len(tokenize(" ".join(words).encode())) > target:
        words.pop()
    return " ".join(words)


def _stream_bare(llm: Any, prompt: str, max_tokens: int) -> tuple[float, float, float, int]:
    t0 = time.perf_counter()
    first = None
    n = 0
    for chunk in llm.create_completion(prompt, max_tokens=max_tokens, temperature=0.0, stream=True):
        if chunk["choices"][0].get("text"):
            first = first or time.perf_counter()
            n += 1
    end = time.perf_counter()
    return t0, first or end, end, n


def _stream_ours(model: Any, prompt: str, max_tokens: int) -> tuple[float, float, float, int]:
    t0 = time.perf_counter()
    stream = model.complete_prompt(prompt, max_tokens=max_tokens, temperature=0.0, stream=True)
    first = None
    n = 0
    for piece in stream:
        if piece:
            first = first or time.perf_counter()
            n += 1
    end = time.perf_counter()
    return t0, first or end, end, n


def bench_tier(ctx: Context, tier: str, repeats: int) -> dict[str, Any]:
    from llama_cpp import Llama

    from rilai_desktop.llm.llama_cpp_adapter import LlamaCppModel, LlamaOptions

    manifest = load_manifest(ctx.paths.manifest_file, ctx.paths.user_manifest_file)
    entry = manifest.for_tier(tier)
    path = entry.path_in(ctx.paths.models_dir)
    s = ctx.loaded.settings.llm
    opts = LlamaOptions(n_ctx=2048, n_threads=s.threads, n_gpu_layers=s.gpu_layers)
    ours = LlamaCppModel(path, model_id=entry.id, options=opts)
    bare = Llama(
        model_path=str(path),
        n_ctx=opts.n_ctx,
        n_threads=opts.n_threads,
        n_threads_batch=opts.n_threads,
        n_gpu_layers=opts.n_gpu_layers,
        n_batch=opts.n_batch,
        seed=opts.seed,
        verbose=False,
    )
    try:
        prefix = _shared_prefix(bare.tokenize, 400)
        prompts = [ours.format_prompt_pair(prefix, sfx) for sfx in SUFFIXES]
        n_prompt = len(bare.tokenize(prompts[0].encode("utf-8"), special=True))
        best: dict[str, dict[str, float]] = {"ours": {}, "bare": {}}
        for r in range(repeats):
            order = ("ours", "bare") if r % 2 == 0 else ("bare", "ours")
            for side in order:
                if side == "ours":
                    ours.reset_cache()
                    t0, first, end, n = _stream_ours(ours, prompts[0], GEN_TOKENS)
                else:
                    bare.reset()  # type: ignore[no-untyped-call]
                    t0, first, end, n = _stream_bare(bare, prompts[0], GEN_TOKENS)
                m = {
                    "ttft_ms": (first - t0) * 1000,
                    "prompt_tps": n_prompt / (first - t0),
                    "gen_tps": (n - 1) / (end - first) if n > 1 and end > first else 0.0,
                }
                kept = best[side]
                kept["ttft_ms"] = min(kept.get("ttft_ms", 1e12), m["ttft_ms"])
                kept["prompt_tps"] = max(kept.get("prompt_tps", 0.0), m["prompt_tps"])
                kept["gen_tps"] = max(kept.get("gen_tps", 0.0), m["gen_tps"])
        # prefix reuse: cold first call, then the same 400-token prefix with a new suffix
        reuse: list[tuple[float, float, float, int]] = []
        for _ in range(repeats):
            ours.reset_cache()
            a = _stream_ours(ours, prompts[0], 1)
            b = _stream_ours(ours, prompts[1], 1)
            cached = ours.last_cached_prompt_tokens
            reuse.append(
                ((b[1] - b[0]) / (a[1] - a[0]), (a[1] - a[0]) * 1000, (b[1] - b[0]) * 1000, cached)
            )
        ratio, first_ms, second_ms, cached = min(reuse)
    finally:
        ours.close()
        bare.close()
    rows = []
    for metric in ("prompt_tps", "gen_tps", "ttft_ms"):
        ours_v, bare_v = best["ours"][metric], best["bare"][metric]
        # a ratio > 1 is better for us in every row
        rel = ours_v / bare_v if metric != "ttft_ms" else bare_v / ours_v
        bar = BARS.get(metric)
        rows.append(
            {
                "metric": metric,
                "ours": round(ours_v, 1),
                "bare": round(bare_v, 1),
                "ratio": round(rel, 3),
                "bar": bar,
                "pass": bar is None or rel >= bar,
            }
        )
    rows.append(
        {
            "metric": "prefix_reuse",
            "ours": round(second_ms, 1),
            "bare": round(first_ms, 1),
            "ratio": round(ratio, 3),
            "bar": BARS["prefix_reuse"],
            "pass": ratio <= BARS["prefix_reuse"],
            "cached_prompt_tokens": cached,
        }
    )
    return {
        "tier": tier,
        "model": entry.id,
        "prompt_tokens": n_prompt,
        "threads": opts.n_threads,
        "results": rows,
    }


def run(args: Namespace, ctx: Context) -> int:
    manifest = load_manifest(ctx.paths.manifest_file, ctx.paths.user_manifest_file)
    if args.tiers == "installed":
        tiers = [
            t
            for t in TIERS
            if t in manifest.tiers and verify(manifest.for_tier(t), ctx.paths.models_dir).ok
        ]
    else:
        tiers = [t.strip() for t in args.tiers.split(",") if t.strip()]
    if not tiers:
        print("no installed tier to benchmark: run `rilai models install small medium`")
        return 1
    reports = [bench_tier(ctx, tier, max(1, int(args.repeats))) for tier in tiers]
    ok = all(r["pass"] for rep in reports for r in rep["results"])
    if ctx.json:
        emit_json({"benchmark": "llm", "repeats": args.repeats, "tiers": reports, "pass": ok})
        return 0 if ok else 1
    print(f"llm benchmark: ours (LlamaCppModel) vs bare llama-cpp-python, best of {args.repeats}")
    for rep in reports:
        print(
            f"\n{rep['tier']}: {rep['model']} ({rep['prompt_tokens']} prompt tokens, "
            f"{GEN_TOKENS} generated, {rep['threads']} thread(s))"
        )
        print(
            table(
                [
                    (
                        r["metric"],
                        r["ours"],
                        r["bare"],
                        r["ratio"],
                        "-"
                        if r["bar"] is None
                        else ("<= " if r["metric"] == "prefix_reuse" else ">= ") + str(r["bar"]),
                        "-" if r["bar"] is None else ("PASS" if r["pass"] else "FAIL"),
                    )
                    for r in rep["results"]
                ],
                ["metric", "ours", "bare", "ratio", "bar", ""],
            )
        )
        print(
            "  (prefix_reuse row: ours = 2nd call prompt ms, bare column = 1st call prompt ms;"
            f" {rep['results'][-1]['cached_prompt_tokens']} prompt tokens reused)"
        )
    return 0 if ok else 1
