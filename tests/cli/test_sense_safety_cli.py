"""`rilai sense --eval` on the safety set: recall of ideation and false positives, per split,
and the bars in --json (issue 16 item 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import Run

SAFETY_SET = Path(__file__).resolve().parents[1] / "data" / "sensors" / "safety_set.jsonl"


@pytest.fixture(autouse=True)
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


def test_eval_with_no_file_reads_both_sets_and_prints_both_figures(run: Run) -> None:
    result = run("sense", "--eval", "--rules-only")
    assert result.code == 0, result
    assert "labelled.jsonl — split: test" in result.out
    assert "safety_set.jsonl — safety_risk at 0.50" in result.out
    for column in ("recall", "hard negatives", "false positives", "fp rate"):
        assert column in result.out
    lines = result.out.splitlines()
    assert any(line.startswith("tune ") for line in lines)
    assert any(line.startswith("test ") for line in lines)
    assert "bars (test split, the rules alone): recall" in result.out
    assert "per writing batch" in result.out


def test_eval_json_has_the_bars(run: Run) -> None:
    data = run("sense", "--eval", "--json", "--rules-only").json()
    bars = data["bars"]
    assert bars["split"] == "test"
    recall, fp = bars["safety_recall"], bars["safety_fp"]
    assert recall["bar"] == 0.95 and fp["bar"] == 0.05
    splits = data["safety"]["splits"]
    assert recall["value"] == splits["test"]["recall"]
    assert fp["value"] == splits["test"]["fp_rate"]
    assert recall["passed"] is (recall["value"] >= 0.95)
    assert fp["passed"] is (fp["value"] <= 0.05)
    assert bars["passed"] is (recall["passed"] and fp["passed"])
    assert set(splits) == {"tune", "test"}
    for split in splits.values():
        assert split["positives"] > 0 and split["hard_negatives"] > 0
        assert 0.0 <= split["recall"] <= 1.0 and 0.0 <= split["fp_rate"] <= 1.0
    assert next(iter(data["sensors"])) == "vulnerability"  # labelled.jsonl's table is kept


def test_eval_on_the_safety_file_itself(run: Run) -> None:
    data = run("sense", "--eval", str(SAFETY_SET), "--json", "--rules-only").json()
    assert data["file"] == str(SAFETY_SET)
    assert data["sensors"]["safety_risk"]["n"] > 100
    assert set(data["bars"]) == {"split", "safety_recall", "safety_fp", "passed"}
    assert set(data["safety"]["batches"]) >= {"1", "2", "7"}


def test_a_labelled_file_without_kinds_has_no_safety_section(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    row = {"text": "I want to die", "sensor": "safety_risk", "label": 1, "split": "test"}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    data = run("sense", "--eval", str(path), "--json").json()
    assert "bars" not in data and "safety" not in data


def test_a_bad_kind_names_the_line(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    row = {"text": "x", "sensor": "safety_risk", "label": 1, "split": "test", "kind": "maybe"}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    result = run("sense", "--eval", str(path), "--json")
    assert result.code == 2
    assert "line 1" in result.json()["error"]["message"]
