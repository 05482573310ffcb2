"""`rilai bench turn`: the whole turn on the real models, beside one bare completion.

Twenty fixed messages (``turn_messages.py``) go through the real turn — sensors, memory
(MiniLM + FAISS + SQLite in a temporary data folder, so the user's memory is untouched),
the agents, deliberation, council, the streamed voice, critics and commit. After each turn,
in the same process, bare llama-cpp-python (its own ``Llama`` on the voice model's file)
answers the same message in one plain chat completion forced to the same number of
tokens as the turn's shown reply (end-of-text suppressed; the earlier attempts of a
regenerated reply are not counted). A warm-up turn and a warm-up bare
call are not counted, and the session is reset after the warm-up turn so the measured
conversation does not start from its exchange.

Between turns the runner evaluates the next voice prompt's start in the background (what
the person's reading time pays for in the app, ``TurnRunner.wait_warm``). The bench waits
for it to finish before the bare completion, so neither is timed while the other uses the
cores, and prints what it cost ("between turns"): it is not part of any turn's time.

Printed: per-stage ms (p50, mean) and tokens (mean prompt / cached / completion), turn
p50/p95, time to first voice token, cached/total prompt tokens, agents per turn, the bare
completion's p50 and the ratio turn/plain (p50 over p50, and the median of per-message
ratios). Bars: ratio ≤ 4 with ≥ 6 agents per turn on average.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from argparse import Namespace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rilai_desktop.cli.bench.sensing import bench_texts, measure_sensing, print_sensing
from rilai_desktop.cli.bench.turn_messages import MESSAGES, WARM_UP
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine

BAR_RATIO = 4.0
BAR_AGENTS = 6.0


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


class BareVoice:
    """llama-cpp-python alone, on the voice model's file, with the same options."""

    def __init__(self, path: Path, threads: int, n_ctx: int, batch_threads: int) -> None:
        from llama_cpp import Llama

        self.llm = Llama(
            model_path=str(path),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=batch_threads,
            verbose=False,
        )
        self.eos = self.llm.token_eos()

    def reply(self, message: str, tokens: int) -> tuple[float, int, float | None]:
        """(ms, tokens generated, ms to the first token) for a plain chat completion of
        exactly ``tokens``, streamed as the voice is (so the first token is comparable)."""
        self.llm.reset()  # type: ignore[no-untyped-call]
        t0 = time.perf_counter()
        first: float | None = None
        generated = 0
        chunks: Any = self.llm.create_chat_completion(
            messages=[{"role": "user", "content": message}],
            max_tokens=max(1, tokens),
            temperature=0.6,
            logit_bias={self.eos: -100.0},
            stream=True,
        )
        for chunk in chunks:
            delta = chunk["choices"][0].get("delta", {})
            if delta.get("content"):
                generated += 1  # one streamed piece per generated token
                if first is None:
                    first = (time.perf_counter() - t0) * 1000
        ms = (time.perf_counter() - t0) * 1000
        return ms, generated, first


def run(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine

    count = max(1, min(int(getattr(args, "messages", 20) or 20), len(MESSAGES)))
    with tempfile.TemporaryDirectory(prefix="rilai-bench-turn-") as tmp:
        bench_paths = ctx.paths.scratch(Path(tmp))
        core = build_core(bench_paths, ctx.loaded.settings)
        engine = open_engine(core)
        try:
            report = _measure(engine, ctx, count)
        finally:
            engine.close()  # the log too
    if ctx.json:
        emit_json(report)
    else:
        _print(report)
    return 0 if report["bars"]["passed"] else 1


def _measure(engine: Engine, ctx: Context, count: int) -> dict[str, Any]:
    runner = engine.runner
    engine.send(WARM_UP).result()  # loads the models, MiniLM and the index: not counted
    runner.wait_warm()
    engine.reset()  # the measured conversation starts fresh, without the warm-up exchange
    voice_model: Any = engine.parts.models.for_role("voice")  # a LlamaCppModel: has .path
    settings = ctx.loaded.settings.llm
    bare = BareVoice(
        Path(voice_model.path), settings.voice_threads, settings.n_ctx, settings.batch_threads
    )
    bare.reply(WARM_UP, 8)
    turns: list[dict[str, Any]] = []
    for message in MESSAGES[:count]:
        result = engine.send(message).result()
        runner.wait_warm()
        warm = dict(runner.last_warm)
        # the shown reply's length: a regenerated turn's earlier attempts are not counted
        reply_tokens = result.reply_tokens
        if result.voice_model in ("safety-template", "fallback-template") or not reply_tokens:
            reply_tokens = max(1, len(result.reply.split()) * 4 // 3)
        plain_ms, plain_tokens, plain_ttft = bare.reply(message, reply_tokens)
        turns.append(
            {
                "message": message[:60],
                "reply": result.reply[:160],
                "voice_model": result.voice_model,
                "attempts": result.attempts,
                "ms": result.total_ms,
                "ttft_ms": result.ttft_ms,
                "stage_ms": dict(result.state.stage_ms),
                "tokens": result.state.tokens,
                # chosen for this message: always-on + scheduled, not follow-ups (issue 16)
                "agents": len({a.agent_id for a in result.agents if not a.followup}),
                "agents_changed": bool(
                    result.state.agent_influence.get("changed_decision")
                    or result.state.agent_influence.get("changed_notes")
                ),
                "changed_by": sorted(
                    agent
                    for agent, moved in (result.state.agent_influence.get("by_agent") or {}).items()
                    if isinstance(moved, dict) and any(moved.values())
                ),
                "readings": list(result.state.readings),
                "intent": result.as_dict()["council"]["intent"],
                "reply_tokens": reply_tokens,
                "plain_ms": plain_ms,
                "plain_tokens": plain_tokens,
                "plain_ttft_ms": plain_ttft,
                "ratio": result.total_ms / plain_ms if plain_ms else None,
                "warm_ms": warm.get("ms", 0.0),
                "warm_tokens": warm.get("tokens", 0),
            }
        )
    memory = engine.parts.memory
    embedder = memory.embedder if memory is not None else None
    sensing = measure_sensing(runner, embedder, bench_texts())
    threads = {
        "llama": settings.threads,
        "voice": settings.voice_threads,
        "batch": settings.batch_threads,
        "agent_workers": settings.agent_workers,
    }
    report = _summarise(turns, voice_model.model_id, threads)
    report["sensing"] = sensing
    report["bars"]["sensing_fast_p95_ms"] = sensing["bar"]["fast_p95_ms"]
    report["bars"]["passed"] = report["bars"]["passed"] and sensing["bar"]["passed"]
    return report


def _summarise(
    turns: list[dict[str, Any]], voice_model: str, threads: dict[str, int]
) -> dict[str, Any]:
    stages: dict[str, list[float]] = {}
    tokens: dict[str, dict[str, list[int]]] = {}
    for t in turns:
        for stage, ms in t["stage_ms"].items():
            stages.setdefault(stage, []).append(ms)
        for stage, counts in t["tokens"].items():
            bucket = tokens.setdefault(stage, {"prompt": [], "cached": [], "completion": []})
            for key in bucket:
                bucket[key].append(counts.get(key, 0))
    n = len(turns)
    total_prompt = sum(sum(b["prompt"]) for b in tokens.values())
    total_cached = sum(sum(b["cached"]) for b in tokens.values())
    turn_ms = [t["ms"] for t in turns]
    plain_ms = [t["plain_ms"] for t in turns]
    ratios = [t["ratio"] for t in turns if t["ratio"]]
    ttfts = [t["ttft_ms"] for t in turns if t["ttft_ms"] is not None]
    plain_ttfts = [t["plain_ttft_ms"] for t in turns if t.get("plain_ttft_ms") is not None]
    agents = statistics.mean(t["agents"] for t in turns)
    warm_ms = [t["warm_ms"] for t in turns]
    ratio = statistics.median(turn_ms) / statistics.median(plain_ms)
    return {
        "turns": n,
        "voice_model": voice_model,
        "threads": {**threads, "omp": os.environ.get("OMP_NUM_THREADS")},
        "stage_ms": {
            s: {"p50": round(_pct(v, 0.5), 1), "mean": round(statistics.mean(v), 1)}
            for s, v in stages.items()
        },
        "tokens": {s: {k: round(sum(v) / n, 1) for k, v in b.items()} for s, b in tokens.items()},
        "turn_ms": {"p50": round(_pct(turn_ms, 0.5)), "p95": round(_pct(turn_ms, 0.95))},
        "ttft_ms": {
            "p50": round(_pct(ttfts, 0.5)) if ttfts else None,
            "plain_p50": round(_pct(plain_ttfts, 0.5)) if plain_ttfts else None,
        },
        "prompt_tokens": {
            "cached": total_cached,
            "total": total_prompt,
            "cached_share": round(total_cached / total_prompt, 3) if total_prompt else 0.0,
        },
        "plain_ms": {"p50": round(_pct(plain_ms, 0.5)), "p95": round(_pct(plain_ms, 0.95))},
        "agents_per_turn": round(agents, 2),
        # share of turns whose council decision or voice notes the agents changed
        "agent_influence_share": round(sum(t["agents_changed"] for t in turns) / n, 3),
        "between_turns": {
            "warm_ms_p50": round(_pct(warm_ms, 0.5)),
            "warm_tokens_mean": round(statistics.mean(t["warm_tokens"] for t in turns), 1),
        },
        "ratio": {
            "p50_over_p50": round(ratio, 2),
            "median_per_message": round(statistics.median(ratios), 2),
        },
        "bars": {
            "ratio_max": BAR_RATIO,
            "agents_min": BAR_AGENTS,
            "passed": ratio <= BAR_RATIO and agents >= BAR_AGENTS,
        },
        "per_turn": [
            {
                k: (round(v, 1) if isinstance(v, float) else v)
                for k, v in t.items()
                if k not in ("stage_ms", "tokens")
            }
            for t in turns
        ],
    }


def _print(r: dict[str, Any]) -> None:
    print(f"rilai bench turn — {r['turns']} messages, voice model {r['voice_model']}")
    rows = [
        (
            s,
            v["p50"],
            v["mean"],
            *(r["tokens"].get(s, {}).get(k, "") for k in ("prompt", "cached", "completion")),
        )
        for s, v in r["stage_ms"].items()
    ]
    print(table(rows, ["stage", "p50 ms", "mean ms", "prompt tok", "cached tok", "gen tok"]))
    pt = r["prompt_tokens"]
    print(
        f"\nturn p50 {r['turn_ms']['p50']} ms · p95 {r['turn_ms']['p95']} ms ·"
        f" first voice token p50 {r['ttft_ms']['p50']} ms"
        f" (bare completion's first token p50 {r['ttft_ms']['plain_p50']} ms)"
    )
    print(f"prompt tokens: {pt['cached']} cached of {pt['total']} ({pt['cached_share']:.0%})")
    print(f"agents per turn: {r['agents_per_turn']} (bar ≥ {BAR_AGENTS:g})")
    print(f"turns the agents changed (decision or notes): {r['agent_influence_share']:.0%}")
    bt = r["between_turns"]
    print(
        f"between turns (not in any turn): next voice prompt warmed, p50 {bt['warm_ms_p50']} ms,"
        f" {bt['warm_tokens_mean']} tokens"
    )
    print(
        f"bare chat completion, same reply length: p50 {r['plain_ms']['p50']} ms →"
        f" ratio turn/plain {r['ratio']['p50_over_p50']} (per-message median"
        f" {r['ratio']['median_per_message']}; bar ≤ {BAR_RATIO:g})"
    )
    if "sensing" in r:
        print_sensing(r["sensing"])
    print("PASS" if r["bars"]["passed"] else "FAIL")
