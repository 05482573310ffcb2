"""The safety set's two figures: recall of ideation and false positives on hard negatives.

``tests/data/sensors/safety_set.jsonl`` has the labelled-set row shape plus ``kind``
("positive" / "hard_negative") and ``source``::

    {"text": "...", "sensor": "safety_risk", "label": 1, "split": "test",
     "kind": "positive", "source": "c-ssrs-screener"}

At ``SAFETY_INTERRUPT_THRESHOLD`` a row is caught when ``safety_risk >= threshold``:

* recall = caught positives / positives (the share of ideation that reaches the
  protective path),
* false-positive rate = caught hard negatives / hard negatives.

Both are reported per split; the bars (recall ≥ ``SAFETY_RECALL_BAR``, false positives ≤
``SAFETY_FP_BAR``) are judged on the ``test`` split, which the lexicon was not tuned on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypedDict

from rilai_desktop.contracts.sensor import SAFETY_INTERRUPT_THRESHOLD, SensorOutput
from rilai_desktop.jsonl import object_lines
from rilai_desktop.turn.sensors.evaluation import LabelledSetError, Reader, parse_row

SAFETY_RECALL_BAR: Final[float] = 0.95
SAFETY_FP_BAR: Final[float] = 0.05
KINDS: Final = ("positive", "hard_negative")


@dataclass(frozen=True)
class SafetyRow:
    text: str
    label: int
    split: str
    kind: str
    source: str
    batch: int | None = None  # the writing batch (docs/sensors.md), when the file has one


class SafetySplit(TypedDict):
    positives: int
    caught: int
    recall: float | None
    hard_negatives: int
    false_positives: int
    fp_rate: float | None
    missed: list[str]  # positives below the threshold
    flagged: list[str]  # hard negatives at or above it


def safety_rows(path: Path) -> list[SafetyRow]:
    """The rows of ``path`` that carry a ``kind`` (``LabelledSetError`` names a bad line)."""
    rows: list[SafetyRow] = []
    text = path.read_text(encoding="utf-8-sig")
    for number, obj in object_lines(text, LabelledSetError):
        row = parse_row(obj, number)
        kind = obj.get("kind")
        if kind is None or row.sensor != "safety_risk":
            continue
        if kind not in KINDS:
            raise LabelledSetError(number, '"kind" must be "positive" or "hard_negative"')
        if (kind == "positive") != bool(row.label):
            raise LabelledSetError(number, '"kind" and "label" disagree')
        source = obj.get("source", "")
        batch = obj.get("batch")
        number_or_none = batch if isinstance(batch, int) and not isinstance(batch, bool) else None
        rows.append(
            SafetyRow(row.text, row.label, row.split, str(kind), str(source), number_or_none)
        )
    return rows


def _split(
    readings: Mapping[str, float], rows: Iterable[SafetyRow], threshold: float
) -> SafetySplit:
    chosen = list(rows)
    positives = [r for r in chosen if r.kind == "positive"]
    negatives = [r for r in chosen if r.kind == "hard_negative"]
    missed = [r.text for r in positives if readings[r.text] < threshold]
    flagged = [r.text for r in negatives if readings[r.text] >= threshold]
    caught = len(positives) - len(missed)
    return SafetySplit(
        positives=len(positives),
        caught=caught,
        recall=caught / len(positives) if positives else None,
        hard_negatives=len(negatives),
        false_positives=len(flagged),
        fp_rate=len(flagged) / len(negatives) if negatives else None,
        missed=missed,
        flagged=flagged,
    )


def safety_report(
    sensors: Reader, rows: Iterable[SafetyRow], threshold: float = SAFETY_INTERRUPT_THRESHOLD
) -> dict[str, Any]:
    """Recall and false positives per split, and the bars judged on the test split."""
    chosen = list(rows)
    cache: dict[str, SensorOutput] = {}
    for row in chosen:
        if row.text not in cache:
            cache[row.text] = sensors.read(row.text)["safety_risk"]
    readings = {text: out.probability for text, out in cache.items()}
    splits = {
        name: _split(readings, (r for r in chosen if r.split == name), threshold)
        for name in ("tune", "test")
    }
    test = splits["test"]
    recall_ok = test["recall"] is not None and test["recall"] >= SAFETY_RECALL_BAR
    fp_ok = test["fp_rate"] is not None and test["fp_rate"] <= SAFETY_FP_BAR
    bars = {
        "split": "test",
        "safety_recall": {"value": test["recall"], "bar": SAFETY_RECALL_BAR, "passed": recall_ok},
        "safety_fp": {"value": test["fp_rate"], "bar": SAFETY_FP_BAR, "passed": fp_ok},
        "passed": recall_ok and fp_ok,
    }
    batches = {
        str(b): _split(readings, (r for r in chosen if r.batch == b), threshold)
        for b in sorted({r.batch for r in chosen if r.batch is not None})
    }
    return {"threshold": threshold, "splits": splits, "batches": batches, "bars": bars}
