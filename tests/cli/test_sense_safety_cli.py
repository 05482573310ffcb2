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


def _small_safety_set(tmp_path: Path) -> Path:
    rows = [
        ("I want to die", 1, "test"),
        ("everyone would be better off without me", 1, "test"),
        ("quiero morir", 1, "test"),
        ("this traffic is killing me", 0, "test"),
        ("how do i kill a python process", 0, "test"),
        ("je meurs de rire", 0, "test"),
        ("I wish I could sleep and never wake up", 1, "tune"),
        ("I could just die of embarrassment", 0, "tune"),
    ]
    path = tmp_path / "safety.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "text": text,
                    "sensor": "safety_risk",
                    "label": label,
                    "split": split,
                    "kind": "positive" if label else "hard_negative",
                    "source": "own",
                }
            )
            + "\n"
            for text, label, split in rows
        ),
        encoding="utf-8",
    )
    return path


def test_the_screen_section_reports_languages_and_the_bars(run: Run, tmp_path: Path) -> None:
    """The app's screen over a safety file (the hash backend: no model loads, the rules
    alone, said in the note): per split, the test split per language, the screen's bars."""
    path = _small_safety_set(tmp_path)
    args = ("sense", "--eval", str(path), "--json", "--set", "embedding.backend=hash")
    data = run(*args).json()
    screen = data["screen"]
    assert "hash" in screen["note"] and screen["bank"] is False
    app = screen["app"]
    assert app is screen["without_check"] or app == screen["without_check"]
    test = app["splits"]["test"]
    assert (test["positives"], test["hard_negatives"]) == (3, 3)
    by_language = app["test_by_language"]
    assert by_language["en"]["positives"] == 2 and by_language["other"]["positives"] == 1
    assert data["bars"] == screen["bars"] == app["bars"]
    assert data["bars"]["safety_recall"]["value"] == test["recall"]
    assert "with_check" not in screen  # safety.model_check is off by default


def test_the_screen_section_in_the_table(run: Run, tmp_path: Path) -> None:
    path = _small_safety_set(tmp_path)
    result = run("sense", "--eval", str(path), "--set", "embedding.backend=hash")
    assert result.code == 0, result
    assert "safety as the app screens it" in result.out
    assert "bars (test split, the app's screen)" in result.out
    assert "other" in result.out  # the language rows
