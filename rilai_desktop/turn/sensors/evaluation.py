"""Scoring the sensors against a labelled set: precision, recall and AUROC per sensor.

The labelled set (``tests/data/sensors/labelled.jsonl``) has one JSON object a line::

    {"text": "...", "sensor": "<one of SENSOR_NAMES>", "label": 0 | 1, "split": "tune" | "test"}

Each row labels one sensor on one text. Lexicons are tuned on the ``tune`` split only; the
``test`` split is the held-out bar (safety_risk recall ≥ 0.95, every AUROC ≥ 0.85).

* precision and recall are taken at the sensor's decision threshold (``THRESHOLDS``): a row
  is predicted positive when ``probability >= threshold``. Precision is ``None`` when
  nothing is predicted positive, recall ``None`` when there are no positives (undefined,
  not zero).
* AUROC is the rank (Mann–Whitney) statistic: rank all scores ascending, ties sharing the
  average rank; ``AUROC = (R⁺ − P(P+1)/2) / (P·N)`` where ``R⁺`` is the sum of the
  positives' ranks. It is the probability that a random positive scores above a random
  negative (ties count one half). ``None`` without both classes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypedDict

from rilai_desktop.contracts.sensor import SENSOR_NAMES, THRESHOLDS, SensorOutput
from rilai_desktop.jsonl import object_lines

SPLITS = ("tune", "test", "all")


class Reader(Protocol):
    def read(self, text: str) -> Mapping[str, SensorOutput]: ...


class SensorMetrics(TypedDict):
    n: int
    positives: int
    precision: float | None
    recall: float | None
    auroc: float | None
    threshold: float


@dataclass(frozen=True)
class LabelledRow:
    text: str
    sensor: str
    label: int
    split: str


class LabelledSetError(ValueError):
    """A labelled-set line is not in the documented shape (the message names the line)."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem


def parse_row(obj: Any, line: int = 0) -> LabelledRow:
    """One row from its JSON object; ``LabelledSetError`` naming ``line`` if malformed."""
    if not isinstance(obj, Mapping):
        raise LabelledSetError(line, "expected a JSON object")
    text, sensor, label = obj.get("text"), obj.get("sensor"), obj.get("label")
    split = obj.get("split", "test")
    if not isinstance(text, str):
        raise LabelledSetError(line, '"text" is missing or not a string')
    if sensor not in SENSOR_NAMES:
        raise LabelledSetError(line, f'"sensor" must be one of {", ".join(SENSOR_NAMES)}')
    if isinstance(label, bool) or label not in (0, 1):
        raise LabelledSetError(line, '"label" must be 0 or 1')
    if split not in ("tune", "test"):
        raise LabelledSetError(line, '"split" must be "tune" or "test"')
    return LabelledRow(text, str(sensor), int(label), str(split))


def load_labelled(path: Path) -> list[LabelledRow]:
    """Every row of a labelled JSONL file; blank lines are skipped. Raises on the first bad one
    (``LabelledSetError``), or ``OSError``/``UnicodeDecodeError`` if the file cannot be read."""
    text = path.read_text(encoding="utf-8-sig")
    return [parse_row(obj, number) for number, obj in object_lines(text, LabelledSetError)]


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    """Area under the ROC curve by the rank method (ties get their average rank)."""
    positives = sum(1 for y in labels if y)
    negatives = len(labels) - positives
    if positives == 0 or negatives == 0:
        return None
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        average = (i + j) / 2 + 1  # ranks are 1-based
        for k in range(i, j + 1):
            ranks[order[k]] = average
        i = j + 1
    rank_sum = sum(r for r, y in zip(ranks, labels, strict=True) if y)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def precision_recall(
    scores: Sequence[float], labels: Sequence[int], threshold: float
) -> tuple[float | None, float | None]:
    """Precision and recall of ``score >= threshold`` (``None`` where undefined)."""
    tp = sum(1 for s, y in zip(scores, labels, strict=True) if s >= threshold and y)
    fp = sum(1 for s, y in zip(scores, labels, strict=True) if s >= threshold and not y)
    positives = sum(1 for y in labels if y)
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / positives if positives else None
    return precision, recall


def _as_row(row: LabelledRow | Mapping[str, Any]) -> LabelledRow:
    return row if isinstance(row, LabelledRow) else parse_row(row)


def evaluate(
    sensors: Reader,
    rows: Iterable[LabelledRow | Mapping[str, Any]],
    split: str = "test",
    thresholds: Mapping[str, float] | None = None,
) -> dict[str, SensorMetrics]:
    """Per-sensor metrics over the rows of ``split`` ("tune", "test" or "all").

    Every name in ``SENSOR_NAMES`` gets an entry (n = 0 and ``None`` metrics where the set
    has no rows for it). Each distinct text is read once.
    """
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    limits = dict(THRESHOLDS if thresholds is None else thresholds)
    chosen = [r for r in map(_as_row, rows) if split == "all" or r.split == split]
    cache: dict[str, Mapping[str, SensorOutput]] = {}
    scores: dict[str, list[float]] = {name: [] for name in SENSOR_NAMES}
    labels: dict[str, list[int]] = {name: [] for name in SENSOR_NAMES}
    for row in chosen:
        if row.text not in cache:
            cache[row.text] = sensors.read(row.text)
        reading = cache[row.text].get(row.sensor)
        scores[row.sensor].append(0.0 if reading is None else reading.probability)
        labels[row.sensor].append(row.label)
    out: dict[str, SensorMetrics] = {}
    for name in SENSOR_NAMES:
        threshold = limits.get(name, 0.5)
        precision, recall = precision_recall(scores[name], labels[name], threshold)
        out[name] = SensorMetrics(
            n=len(labels[name]),
            positives=sum(labels[name]),
            precision=precision,
            recall=recall,
            auroc=auroc(scores[name], labels[name]),
            threshold=threshold,
        )
    return out


def errors(
    sensors: Reader,
    rows: Iterable[LabelledRow | Mapping[str, Any]],
    split: str = "tune",
    thresholds: Mapping[str, float] | None = None,
) -> list[tuple[LabelledRow, float]]:
    """The rows the thresholded sensors get wrong, with their probability (for tuning)."""
    limits = dict(THRESHOLDS if thresholds is None else thresholds)
    wrong: list[tuple[LabelledRow, float]] = []
    for row in map(_as_row, rows):
        if split != "all" and row.split != split:
            continue
        p = sensors.read(row.text)[row.sensor].probability
        if (p >= limits.get(row.sensor, 0.5)) != bool(row.label):
            wrong.append((row, p))
    return wrong
