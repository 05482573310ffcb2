"""`rilai sense`: run the nine fast sensors from the terminal (docs/sensors.md).

    rilai sense TEXT [--json] [--learned]        one message: a table, or one JSON object
    rilai sense --jsonl FILE                     many messages: JSON Lines in, JSON Lines out
    rilai sense --eval FILE [--split test] [--json]   precision / recall / AUROC per sensor
        [--public ROWS] [--rules-only]           + rules vs rules + learned layer (AUROC)
    rilai sense --eval [--json] [--no-check]     both project sets: labelled.jsonl and the
                                                 safety set (recall of ideation, false
                                                 positives on hard negatives), the rules
                                                 alone and as the app screens it (learned
                                                 heads, exemplar bank, model check), the
                                                 bars (docs/safety.md)

No model, no database: the sensors are regex and lexicons, so this runs anywhere, fast.

``--jsonl`` reads and checks *every* line before it writes anything: a bad line (not JSON,
not an object, no string "text", a lone surrogate) stops the command with an error naming
the line number (exit 2) and nothing is printed, so there are never half-written results to
reconcile. Blank lines are skipped; output line k belongs to the k-th non-blank input line.
Each output line is ``{"text", "sensors": {name: probability}, "evidence": {name: [spans]}}``
(``--jsonl`` always writes JSON Lines, with or without ``--json``).
"""

from __future__ import annotations

import json
import sys
from argparse import Namespace
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.cli.commands.sense_corpus import corpus_section
from rilai_desktop.cli.commands.sense_learned import learned_section, sensors_with_learned_layer
from rilai_desktop.cli.commands.sense_safety import print_screen, screen_section
from rilai_desktop.contracts.sensor import SENSOR_NAMES, SensorOutput
from rilai_desktop.errors import RilaiError
from rilai_desktop.jsonl import object_lines, read_text
from rilai_desktop.paths import REPO_ROOT
from rilai_desktop.turn.sensors import THRESHOLDS, FastSensors
from rilai_desktop.turn.sensors.evaluation import (
    SPLITS,
    LabelledRow,
    LabelledSetError,
    evaluate,
    load_labelled,
)
from rilai_desktop.turn.sensors.safety_eval import SafetyRow, safety_report, safety_rows

SPLIT_CHOICES = SPLITS
SETS_DIR = REPO_ROOT / "tests" / "data" / "sensors"
DEFAULT_SETS = (SETS_DIR / "labelled.jsonl", SETS_DIR / "safety_set.jsonl")


class SenseInputError(RilaiError):
    """Bad input to `rilai sense`: the message says which file, which line and what is wrong."""

    code = "RIL-055"
    name = "SenseInputError"
    recovery_suggestions = [  # noqa: RUF012 - the RilaiError convention: class-level hints
        "rilai sense TEXT | rilai sense --jsonl FILE | rilai sense --eval FILE [--split test]",
    ]


def _printable(text: str) -> str:
    """``text`` safe to print: lone surrogates (undecodable argv bytes) become '?'."""
    return text.encode("utf-8", "replace").decode("utf-8")


def reading_json(text: str, readings: dict[str, SensorOutput]) -> dict[str, Any]:
    """The documented output shape for one text."""
    return {
        "text": _printable(text),
        "sensors": {name: readings[name].probability for name in SENSOR_NAMES},
        "evidence": {name: list(readings[name].evidence) for name in SENSOR_NAMES},
    }


def _read_file(path: Path, what: str) -> str:
    return read_text(
        path,
        lambda message: SenseInputError(message, context={"path": str(path)}),
        lambda line, problem: _bad_line(path, line, problem),
        what=what,
    )


def _bad_line(path: Path, line: int, problem: str) -> SenseInputError:
    return SenseInputError(
        f"{path} line {line}: {problem}",
        context={"path": str(path), "line": line},
        recovery_suggestions=[
            'Each line is a JSON object with a string "text": {"text": "I feel so alone"}',
            "Nothing was printed; fix the line and run the command again",
        ],
    )


def read_jsonl(path: Path) -> list[str]:
    """Every text of a ``{"text": ...}`` JSON Lines file, checked before any is sensed."""
    texts: list[str] = []

    def bad(number: int, problem: str) -> SenseInputError:
        return _bad_line(path, number, problem)

    for number, obj in object_lines(_read_file(path, "JSON Lines"), bad):
        text = obj.get("text")
        if not isinstance(text, str):
            raise _bad_line(path, number, '"text" is missing or not a string')
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise _bad_line(
                path, number, '"text" contains a lone surrogate (invalid \\u escape)'
            ) from None
        texts.append(text)
    return texts


def _one(args: Namespace, ctx: Context, sensors: FastSensors) -> int:
    text: str = args.text
    readings = sensors.read(text)
    if ctx.json:
        emit_json(reading_json(text, readings))
        return 0
    rows = []
    for name in SENSOR_NAMES:
        out = readings[name]
        mark = "!" if out.probability >= THRESHOLDS[name] else ""
        evidence = " | ".join(f'"{span}"' for span in out.evidence[:3])
        against = " | ".join(f'"{span}"' for span in out.counterevidence[:2])
        rows.append((name, f"{out.probability:.2f}", mark, evidence, against, out.notes))
    print(table(rows, ["sensor", "p", "", "evidence", "counterevidence", "notes"]))
    print("\n! = at or above the sensor's decision threshold (docs/sensors.md)")
    return 0


def _batch(args: Namespace, sensors: FastSensors) -> int:
    texts = read_jsonl(Path(args.jsonl))
    out = sys.stdout
    for text in texts:
        line = json.dumps(reading_json(text, sensors.read(text)), ensure_ascii=False)
        out.write(line + "\n")
    return 0


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _eval(args: Namespace, ctx: Context, sensors: FastSensors) -> int:
    split = args.split
    if split not in SPLIT_CHOICES:
        raise SenseInputError(
            f"--split must be tune, test or all, got {split!r}",
            recovery_suggestions=["Use --split test (the default), --split tune or --split all"],
        )
    if not args.eval:
        return _eval_default(args, split, ctx, sensors)
    path = Path(args.eval)
    rows = _labelled(path)
    metrics = evaluate(sensors, rows, split)
    safety = _safety(path, sensors)
    screen = _screen(args, ctx, path, _labelled(DEFAULT_SETS[0])) if safety else None
    if ctx.json:
        out: dict[str, Any] = {"file": str(path), "split": split, "sensors": metrics}
        if safety is not None:
            out["safety"], out["bars"] = safety, safety["bars"]
        if screen is not None:
            out["screen"], out["bars"] = screen, screen["bars"]
        out["learned"] = learned_section(args, ctx, rows, split)
        emit_json(out)
        return 0
    _print_metrics(path, split, metrics)
    if safety is not None:
        _print_safety(path, safety)
    if screen is not None:
        print()
        print_screen(path, screen)
    learned_section(args, ctx, rows, split)
    return 0


def _labelled(path: Path) -> list[LabelledRow]:
    _read_file(path, "labelled JSON Lines")  # the same errors as --jsonl for a missing file
    try:
        return load_labelled(path)
    except LabelledSetError as exc:
        raise _bad_set(path, exc) from None


def _bad_set(path: Path, exc: LabelledSetError) -> SenseInputError:
    return SenseInputError(
        f"{path} line {exc.line}: {exc.problem}",
        context={"path": str(path), "line": exc.line},
        recovery_suggestions=[
            'Each line is {"text": str, "sensor": <sensor name>, "label": 0|1, '
            '"split": "tune"|"test"} (the safety set adds "kind" and "source")',
            f"Sensor names: {', '.join(SENSOR_NAMES)}",
        ],
    )


def _safety(path: Path, sensors: FastSensors) -> dict[str, Any] | None:
    """The safety report when ``path`` holds safety-set rows (with a ``kind``), else None."""
    try:
        rows: list[SafetyRow] = safety_rows(path)
    except LabelledSetError as exc:
        raise _bad_set(path, exc) from None
    return safety_report(sensors, rows) if rows else None


def _eval_default(args: Namespace, split: str, ctx: Context, sensors: FastSensors) -> int:
    """No FILE: the per-sensor metrics of labelled.jsonl, the safety set's figures and the
    learned layer's comparison (rules vs rules + learned, project and public rows)."""
    labelled, safety_set = DEFAULT_SETS
    rows = _labelled(labelled)
    metrics = evaluate(sensors, rows, split)
    _labelled(safety_set)  # checked like any labelled set
    safety = _safety(safety_set, sensors)
    if safety is None:
        raise SenseInputError(f'{safety_set}: no safety rows (with a "kind")')
    screen = _screen(args, ctx, safety_set, rows)
    if ctx.json:
        emit_json(
            {
                "files": [str(labelled), str(safety_set)],
                "file": str(labelled),
                "split": split,
                "sensors": metrics,
                "safety": {"file": str(safety_set), **safety},
                "screen": screen,
                "bars": screen["bars"] if screen else safety["bars"],
                "learned": learned_section(args, ctx, rows, split),
                "corpus": corpus_section(args, ctx, split),
            }
        )
        return 0
    _print_metrics(labelled, split, metrics)
    print()
    _print_safety(safety_set, safety)
    if screen:
        print()
        print_screen(safety_set, screen)
    learned_section(args, ctx, rows, split)
    corpus_section(args, ctx, split)
    return 0


def _screen(
    args: Namespace, ctx: Context, path: Path, labelled: list[LabelledRow]
) -> dict[str, Any] | None:
    """The app's screen over the safety set (None with --rules-only)."""
    if getattr(args, "rules_only", False):
        return None
    rows = safety_rows(path)
    return screen_section(ctx, rows, labelled, check=not getattr(args, "no_check", False))


def _print_safety(path: Path, report: dict[str, Any]) -> None:
    body = [
        (
            name,
            s["positives"],
            _fmt(s["recall"]),
            s["hard_negatives"],
            s["false_positives"],
            _fmt(s["fp_rate"]),
        )
        for name, s in report["splits"].items()
    ]
    print(f"{path} — safety_risk at {report['threshold']:.2f} (the rules alone)")
    columns = ["split", "positives", "recall", "hard negatives", "false positives", "fp rate"]
    print(table(body, columns))
    batches = report.get("batches") or {}
    if batches:
        rows = [
            (b, m["positives"], _fmt(m["recall"]), m["hard_negatives"], _fmt(m["fp_rate"]))
            for b, m in batches.items()
        ]
        print("per writing batch, today (first-look figures: docs/sensors.md)")
        print(table(rows, ["batch", "positives", "recall", "hard negatives", "fp rate"]))
    bars = report["bars"]
    recall, fp = bars["safety_recall"], bars["safety_fp"]
    print(
        f"bars (test split, the rules alone): recall {_fmt(recall['value'])} >= {recall['bar']}"
        f" {'ok' if recall['passed'] else 'FAILED'}; false positives {_fmt(fp['value'])}"
        f" <= {fp['bar']} {'ok' if fp['passed'] else 'FAILED'}"
        f" → {'passed' if bars['passed'] else 'FAILED'}"
    )


def _print_metrics(path: Path, split: str, metrics: dict[str, Any]) -> None:
    body = [
        (
            name,
            m["n"],
            m["positives"],
            f"{m['threshold']:.2f}",
            _fmt(m["precision"]),
            _fmt(m["recall"]),
            _fmt(m["auroc"]),
        )
        for name, m in metrics.items()
    ]
    print(f"{path} — split: {split}")
    print(table(body, ["sensor", "n", "pos", "threshold", "precision", "recall", "auroc"]))


def run(args: Namespace, ctx: Context) -> int:
    given = [
        flag
        for flag, value in (("TEXT", args.text), ("--jsonl", args.jsonl), ("--eval", args.eval))
        if value is not None
    ]
    if len(given) != 1:
        problem = "nothing to read" if not given else f"{' and '.join(given)} given together"
        raise SenseInputError(
            f"rilai sense needs exactly one of TEXT, --jsonl or --eval: {problem}"
        )
    sensors = FastSensors()
    if args.eval is None and getattr(args, "learned", False):
        sensors = sensors_with_learned_layer(ctx)
    if args.eval is not None:
        return _eval(args, ctx, sensors)
    if args.jsonl is not None:
        return _batch(args, sensors)
    return _one(args, ctx, sensors)
