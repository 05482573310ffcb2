"""`rilai sense --eval`: the understanding corpus's section (issue 28; docs/eval.md).

The corpus's test part (``--split``, default test; never used to choose anything) read as
the app reads it — ``app.build_sensors`` (rules, understanding model, safety bank) with the
turns before each message as history — and decided by the council with no model. Printed:
per-sensor AUROC of the rules against the final readings, and the intent's accuracy and
macro-F1 for the rules alone, the classifier alone and the council as the app runs it.
``--rules-only`` skips the encoders: both columns are the rules.
"""

from __future__ import annotations

from argparse import Namespace
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import table
from rilai_desktop.cli.evaluation.corpus import GOLD, load_corpus
from rilai_desktop.cli.evaluation.corpus_reading import corpus_report, read_message
from rilai_desktop.turn.deliberation.council import Council
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.sensors import FastSensors

BARS = {"macro_auroc": 0.88, "intent_accuracy": 0.85, "intent_macro_f1": 0.80}


def corpus_section(args: Namespace, ctx: Context, split: str) -> dict[str, Any] | None:
    """Compute (and, without --json, print) the section; None when there is no corpus."""
    if not GOLD.is_file():
        return None
    parts = None if split == "all" else (split,)
    messages = load_corpus(GOLD, parts)
    note = ""
    if getattr(args, "rules_only", False):
        sensors, note = FastSensors(), "--rules-only"
    else:
        from rilai_desktop.cli.commands.sense_safety import app_screen

        sensors, _, note = app_screen(ctx, check=False)
        if sensors.understanding is None:
            note = note or "no understanding model: make understanding-model"
    prompts = Prompts(ctx.paths.prompts_dir)
    rules_council = Council(None, prompts=prompts, classifier="off")
    council = Council(None, prompts=prompts)
    reads = [read_message(sensors, rules_council, council, m) for m in messages]
    report = corpus_report(reads)
    council_scores = report["intent"]["council"]
    report["split"] = split
    report["note"] = note
    report["bars"] = {
        "macro_auroc": _bar(report["macro_auroc_learned"], BARS["macro_auroc"]),
        "intent_accuracy": _bar(council_scores["accuracy"], BARS["intent_accuracy"]),
        "intent_macro_f1": _bar(council_scores["macro_f1"], BARS["intent_macro_f1"]),
    }
    if not ctx.json:
        _print(report)
    return report


def _bar(value: float | None, bar: float) -> dict[str, Any]:
    return {"value": value, "bar": bar, "met": value is not None and value >= bar}


def _print(report: dict[str, Any]) -> None:
    print()
    langs = ", ".join(f"{k} {v}" for k, v in report["languages"].items())
    print(f"understanding corpus ({report['split']}: {report['messages']} messages; {langs})")
    if report["note"]:
        print(f"  note: {report['note']}")
    rows = [
        (name, s["n"], s["positives"], _f(s["auroc_rules"]), _f(s["auroc_learned"]))
        for name, s in report["sensors"].items()
    ]
    rows.append(
        ("macro", "", "", _f(report["macro_auroc_rules"]), _f(report["macro_auroc_learned"]))
    )
    print(table(rows, ["sensor", "n", "pos", "auroc rules", "auroc app"]))
    print()
    intents = report["intent"]
    intent_rows = [
        (name, _f(intents[name]["accuracy"]), _f(intents[name]["macro_f1"]))
        for name in ("rules", "classifier", "council")
    ]
    print(table(intent_rows, ["intent (no model)", "accuracy", "macro-F1"]))
    confusions = intents["council"]["confusions"]
    if confusions:
        misses = ", ".join(f"{k} {v}" for k, v in confusions.items())
        print(f"  council's commonest misses: {misses}")
    bars = report["bars"]
    print(
        "  bars: "
        + "; ".join(
            f"{k} {_f(v['value'])} ≥ {v['bar']} {'met' if v['met'] else 'NOT met'}"
            for k, v in bars.items()
        )
    )


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"
