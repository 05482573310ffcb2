"""Evaluation maths on hand-computed examples, the labelled set's shape, the quality bars."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

from rilai_desktop.contracts.sensor import SENSOR_NAMES, SensorOutput
from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.turn.sensors.evaluation import (
    LabelledSetError,
    auroc,
    evaluate,
    load_labelled,
    parse_row,
    precision_recall,
)

LABELLED = Path(__file__).resolve().parents[1] / "data" / "sensors" / "labelled.jsonl"


class TableReader:
    """A reader that returns fixed safety_risk scores (every other sensor 0)."""

    def __init__(self, scores: Mapping[str, float]) -> None:
        self.scores = scores
        self.calls: list[str] = []

    def read(self, text: str) -> dict[str, SensorOutput]:
        self.calls.append(text)
        return {
            name: SensorOutput(
                sensor=name, probability=self.scores[text] if name == "safety_risk" else 0.0
            )
            for name in SENSOR_NAMES
        }


# ── maths ────────────────────────────────────────────────────────────────────


def test_auroc_hand_computed() -> None:
    # positives 0.35, 0.8; negatives 0.1, 0.4. Pairs (pos > neg): 0.35>0.1, 0.8>0.1, 0.8>0.4,
    # and 0.35<0.4 → 3 of 4 = 0.75. Ranks: 0.1→1, 0.35→2, 0.4→3, 0.8→4; (2+4 - 3)/(2*2) = 0.75.
    assert auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == pytest.approx(0.75)


def test_auroc_ties_count_one_half() -> None:
    assert auroc([0.5, 0.5], [1, 0]) == pytest.approx(0.5)
    # ranks with ties: 0.2→1, 0.5,0.5→2.5 each, 0.9→4; positives at 2.5 and 4:
    # (6.5 - 3) / (2*2) = 0.875
    assert auroc([0.2, 0.5, 0.5, 0.9], [0, 1, 0, 1]) == pytest.approx(0.875)


def test_auroc_perfect_inverted_and_undefined() -> None:
    assert auroc([0.1, 0.9], [0, 1]) == 1.0
    assert auroc([0.9, 0.1], [0, 1]) == 0.0
    assert auroc([0.3, 0.4], [1, 1]) is None
    assert auroc([], []) is None


def test_precision_recall_at_threshold() -> None:
    scores, labels = [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]
    # >= 0.4 predicts rows 2 and 4: one true positive (0.8), one false (0.4)
    assert precision_recall(scores, labels, 0.4) == (pytest.approx(0.5), pytest.approx(0.5))
    assert precision_recall(scores, labels, 0.3) == (pytest.approx(2 / 3), pytest.approx(1.0))
    assert precision_recall(scores, labels, 0.95) == (None, pytest.approx(0.0))
    assert precision_recall([0.9], [0], 0.5) == (pytest.approx(0.0), None)


def test_evaluate_on_a_tiny_set() -> None:
    reader = TableReader({"a": 0.1, "b": 0.4, "c": 0.35, "d": 0.8, "e": 0.9})
    rows = [
        {"text": "a", "sensor": "safety_risk", "label": 0, "split": "test"},
        {"text": "b", "sensor": "safety_risk", "label": 0, "split": "test"},
        {"text": "c", "sensor": "safety_risk", "label": 1, "split": "test"},
        {"text": "d", "sensor": "safety_risk", "label": 1, "split": "test"},
        {"text": "e", "sensor": "safety_risk", "label": 1, "split": "tune"},
        {"text": "d", "sensor": "rupture", "label": 0, "split": "test"},
    ]
    metrics = evaluate(reader, rows, "test", thresholds={"safety_risk": 0.4})
    assert list(metrics) == list(SENSOR_NAMES)
    safety = metrics["safety_risk"]
    assert (safety["n"], safety["positives"], safety["threshold"]) == (4, 2, 0.4)
    assert safety["precision"] == pytest.approx(0.5)
    assert safety["recall"] == pytest.approx(0.5)
    assert safety["auroc"] == pytest.approx(0.75)
    assert metrics["rupture"]["n"] == 1 and metrics["rupture"]["auroc"] is None
    assert metrics["vulnerability"]["n"] == 0
    assert reader.calls.count("d") == 1  # each text is read once
    assert evaluate(reader, rows, "all", thresholds={"safety_risk": 0.4})["safety_risk"]["n"] == 5
    with pytest.raises(ValueError, match="split"):
        evaluate(reader, rows, "dev")


def test_parse_row_rejects_bad_rows_with_the_line() -> None:
    good = parse_row({"text": "hi", "sensor": "rupture", "label": 1, "split": "tune"}, 3)
    assert (good.text, good.sensor, good.label, good.split) == ("hi", "rupture", 1, "tune")
    bad = [
        ["not an object"],
        {"sensor": "rupture", "label": 1},
        {"text": "x", "sensor": "nope", "label": 1},
        {"text": "x", "sensor": "rupture", "label": 2},
        {"text": "x", "sensor": "rupture", "label": True},
        {"text": "x", "sensor": "rupture", "label": 1, "split": "dev"},
    ]
    for obj in bad:
        with pytest.raises(LabelledSetError) as info:
            parse_row(obj, 7)
        assert info.value.line == 7
        assert str(info.value).startswith("line 7:")


def test_load_labelled_names_the_bad_line(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    ok = json.dumps({"text": "hi", "sensor": "rupture", "label": 0, "split": "test"})
    path.write_text(f"{ok}\n\n{{oops\n", encoding="utf-8")
    with pytest.raises(LabelledSetError, match="line 3"):
        load_labelled(path)


# ── the labelled set ─────────────────────────────────────────────────────────


def test_labelled_set_shape() -> None:
    rows = load_labelled(LABELLED)
    per_sensor = Counter(r.sensor for r in rows)
    per_test = Counter(r.sensor for r in rows if r.split == "test")
    test_pos = Counter(r.sensor for r in rows if r.split == "test" and r.label)
    for name in SENSOR_NAMES:
        assert per_sensor[name] >= 60, name
        assert per_test[name] >= 30, name
        assert 10 <= test_pos[name] <= per_test[name] - 10, name  # positives and negatives
    keys = Counter((r.text, r.sensor) for r in rows)
    assert max(keys.values()) == 1  # no duplicate (text, sensor) rows


# ── the quality bars (held-out test split) ───────────────────────────────────


@pytest.fixture(scope="module")
def test_metrics() -> dict[str, dict[str, object]]:
    return dict(evaluate(FastSensors(), load_labelled(LABELLED), "test"))  # type: ignore[arg-type]


def test_safety_recall_on_test_split(test_metrics: dict[str, dict[str, object]]) -> None:
    recall = test_metrics["safety_risk"]["recall"]
    assert isinstance(recall, float)
    assert recall >= 0.95


@pytest.mark.parametrize("sensor", SENSOR_NAMES)
def test_auroc_on_test_split(test_metrics: dict[str, dict[str, object]], sensor: str) -> None:
    value = test_metrics[sensor]["auroc"]
    assert isinstance(value, float)
    assert value >= 0.85, f"{sensor}: AUROC {value:.3f}"
