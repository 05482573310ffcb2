"""`rilai sense --eval`: the safety set screened as the app screens it (docs/safety.md).

The rules-only figures (``safety_eval.safety_report`` over ``FastSensors()``) say what the
phrase lists catch. This section runs every message through the app's own screening path —
``app.build_sensors`` (rules, learned heads, the exemplar bank over the multilingual
encoder) and ``app.build_safety_check`` (the grey-band model check, when
``safety.model_check`` is on), through ``turn.safety_screen.screen_turn`` exactly as the
turn runner calls it, each message as the first of a conversation — and reports:

* recall of ideation and false positives on hard negatives per split, the test split also
  by language (English / not English, ``turn.speaking.language.message_language``);
* the model check: how many messages it was asked about, the share of ordinary messages
  (the labelled set's test rows of the other eight sensors, never in the bank) that reach
  it, its p50/p95 time, what it raised and lowered; and the same figures without it;
* the bars of issue 27 on the test split: recall ≥ 0.95, false positives ≤ 0.05.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import table
from rilai_desktop.contracts.sensor import SAFETY_INTERRUPT_THRESHOLD
from rilai_desktop.turn.safety_check import SafetyCheck
from rilai_desktop.turn.safety_screen import screen_turn
from rilai_desktop.turn.safety_state import ConversationRisk
from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.turn.sensors.evaluation import LabelledRow
from rilai_desktop.turn.sensors.safety_eval import SAFETY_FP_BAR, SAFETY_RECALL_BAR, SafetyRow


def app_screen(ctx: Context, *, check: bool) -> tuple[FastSensors, SafetyCheck | None, str]:
    """The app's sensors and model check (``check`` False: without it), and a note."""
    from rilai_desktop.app.build import build_safety_check, build_sensors, open_shared_models

    settings = ctx.loaded.settings
    embedder: Any = None
    note = ""
    if settings.embedding.backend != "hash":
        from rilai_desktop.app.build import build_embedder
        from rilai_desktop.errors import EmbeddingError

        embedder = build_embedder(ctx.paths, settings)
        try:
            embedder.embed(["warm-up"])
        except EmbeddingError as exc:
            embedder, note = None, f"no MiniLM ({exc}): the rules alone, as the app then runs"
    else:
        note = "embedding.backend is hash: the rules alone"
    # exactly what the app builds from the same embedder (None: the rules alone)
    sensors = build_sensors(embedder)
    safety_check = None
    if check and settings.safety.model_check:
        safety_check = build_safety_check(open_shared_models(ctx.paths, settings).router, settings)
    return sensors, safety_check, note


def _screen(sensors: FastSensors, check: SafetyCheck | None, text: str) -> float:
    screened = screen_turn(sensors, check, text, [], ConversationRisk(), time.time())
    return 1.0 if screened.assessment.protect else screened.assessment.risk


def _rates(caught: dict[str, bool], rows: Sequence[SafetyRow]) -> dict[str, Any]:
    pos = [r for r in rows if r.kind == "positive"]
    neg = [r for r in rows if r.kind == "hard_negative"]
    hit_pos = sum(caught[r.text] for r in pos)
    hit_neg = sum(caught[r.text] for r in neg)
    return {
        "positives": len(pos),
        "caught": hit_pos,
        "recall": hit_pos / len(pos) if pos else None,
        "hard_negatives": len(neg),
        "false_positives": hit_neg,
        "fp_rate": hit_neg / len(neg) if neg else None,
        "missed": [r.text for r in pos if not caught[r.text]],
        "flagged": [r.text for r in neg if caught[r.text]],
    }


def _language(text: str) -> str:
    from rilai_desktop.turn.speaking.language import message_language

    return "en" if message_language(text) == "en" else "other"


def _pass(
    sensors: FastSensors,
    check: SafetyCheck | None,
    rows: Sequence[SafetyRow],
    ordinary: Sequence[str],
) -> dict[str, Any]:
    caught: dict[str, bool] = {}
    for row in rows:
        if row.text not in caught:
            caught[row.text] = _screen(sensors, check, row.text) >= SAFETY_INTERRUPT_THRESHOLD
    asked_rows = check.stats.asked if check else 0
    for text in ordinary:
        _screen(sensors, check, text)
    test_rows = [r for r in rows if r.split == "test"]
    out: dict[str, Any] = {
        "splits": {s: _rates(caught, [r for r in rows if r.split == s]) for s in ("tune", "test")},
        "test_by_language": {
            lang: _rates(caught, [r for r in test_rows if _language(r.text) == lang])
            for lang in ("en", "other")
        },
    }
    if check is not None:
        ms = check.stats.ms
        asked_ordinary = check.stats.asked - asked_rows
        out["model_check"] = {
            "asked": asked_rows,
            "messages": len({r.text for r in rows}),
            "share": asked_rows / max(1, len({r.text for r in rows})),
            "ordinary_asked": asked_ordinary,
            "ordinary_messages": len(ordinary),
            "ordinary_share": asked_ordinary / max(1, len(ordinary)),
            "raised": check.stats.raised,
            "lowered": check.stats.lowered,
            "failed": check.stats.failed,
            "p50_ms": statistics.median(ms) if ms else None,
            "p95_ms": sorted(ms)[int(0.95 * (len(ms) - 1))] if ms else None,
        }
    test = out["splits"]["test"]
    recall_ok = test["recall"] is not None and test["recall"] >= SAFETY_RECALL_BAR
    fp_ok = test["fp_rate"] is not None and test["fp_rate"] <= SAFETY_FP_BAR
    out["bars"] = {
        "split": "test",
        "safety_recall": {"value": test["recall"], "bar": SAFETY_RECALL_BAR, "passed": recall_ok},
        "safety_fp": {"value": test["fp_rate"], "bar": SAFETY_FP_BAR, "passed": fp_ok},
        "passed": recall_ok and fp_ok,
    }
    return out


def screen_section(
    ctx: Context, rows: Sequence[SafetyRow], labelled: Iterable[LabelledRow], *, check: bool
) -> dict[str, Any]:
    """The app's screen over ``rows``: with the model check (when on) and without it."""
    ordinary = [r.text for r in labelled if r.split == "test" and r.sensor != "safety_risk"]
    sensors, safety_check, note = app_screen(ctx, check=check)
    print("screening the safety set as the app does…", file=sys.stderr, flush=True)
    result: dict[str, Any] = {
        "note": note,
        "bank": sensors.bank is not None,
        "learned": sensors.learned is not None,
        "without_check": _pass(sensors, None, rows, ordinary),
    }
    if safety_check is not None:
        result["with_check"] = _pass(sensors, safety_check, rows, ordinary)
    result["app"] = result["with_check"] if safety_check is not None else result["without_check"]
    result["bars"] = result["app"]["bars"]
    return result


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def print_screen(path: Path, section: dict[str, Any]) -> None:
    layers = (
        "rules"
        + (" + learned" if section["learned"] else "")
        + (" + bank" if section["bank"] else "")
    )
    print(f"{path} — safety as the app screens it ({layers})")
    if section["note"]:
        print(f"  {section['note']}")
    for name in ("without_check", "with_check"):
        run = section.get(name)
        if run is None:
            continue
        body = [
            (
                split,
                "all",
                s["positives"],
                _fmt(s["recall"]),
                s["hard_negatives"],
                _fmt(s["fp_rate"]),
            )
            for split, s in run["splits"].items()
        ] + [
            (
                "test",
                lang,
                s["positives"],
                _fmt(s["recall"]),
                s["hard_negatives"],
                _fmt(s["fp_rate"]),
            )
            for lang, s in run["test_by_language"].items()
        ]
        print("with the model check" if name == "with_check" else "without the model check")
        print(
            table(body, ["split", "language", "positives", "recall", "hard negatives", "fp rate"])
        )
        mc = run.get("model_check")
        if mc:
            print(
                f"model check: asked about {mc['asked']} of {mc['messages']} messages"
                f" ({mc['share']:.1%}); ordinary messages sent to it: {mc['ordinary_asked']} of"
                f" {mc['ordinary_messages']} ({mc['ordinary_share']:.1%}); raised {mc['raised']},"
                f" lowered {mc['lowered']}, failed {mc['failed']};"
                f" p50 {_fmt(mc['p50_ms'])} ms, p95 {_fmt(mc['p95_ms'])} ms"
            )
    bars = section["bars"]
    recall, fp = bars["safety_recall"], bars["safety_fp"]
    print(
        f"bars (test split, the app's screen): recall {_fmt(recall['value'])} >= {recall['bar']}"
        f" {'ok' if recall['passed'] else 'FAILED'}; false positives {_fmt(fp['value'])}"
        f" <= {fp['bar']} {'ok' if fp['passed'] else 'FAILED'}"
        f" → {'passed' if bars['passed'] else 'FAILED'}"
    )
