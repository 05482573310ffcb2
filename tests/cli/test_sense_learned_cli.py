"""`rilai sense --eval`: the learned layer's section (rules vs rules + learned, public rows)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import Run

LABELLED = Path(__file__).resolve().parents[1] / "data" / "sensors" / "labelled.jsonl"


@pytest.fixture
def public(tmp_path: Path) -> Path:
    rows = [
        ("I want to die, nothing matters anymore", "safety_risk", 1, "test"),
        ("I am so happy with my new bike", "safety_risk", 0, "test"),
        ("I can't stop crying, I feel so alone", "vulnerability", 1, "test"),
        ("the weather is nice today", "vulnerability", 0, "test"),
        ("train rows are not scored", "vulnerability", 1, "train"),
    ]
    path = tmp_path / "public.jsonl"
    path.write_text(
        "".join(
            json.dumps({"text": t, "sensor": s, "label": y, "split": sp, "source": "x"}) + "\n"
            for t, s, y, sp in rows
        ),
        encoding="utf-8",
    )
    return path


def test_rules_only_prints_both_sections(run: Run, public: Path) -> None:
    result = run("sense", "--eval", str(LABELLED), "--rules-only", "--public", str(public))
    assert result.code == 0, result
    out = result.out
    assert "learned layer: skipped — --rules-only" in out
    assert "learned layer on the project set (test): rules vs rules + learned" in out
    assert f"public test rows ({public})" in out
    public_part = out.split("public test rows")[1]
    assert "safety_risk" in public_part and "vulnerability" in public_part
    assert "rupture" not in public_part  # only the sensors the rows label
    macro_line = next(line for line in public_part.splitlines() if line.startswith("macro"))
    assert "1.000" in macro_line and macro_line.rstrip().endswith("-")


def test_json_fields(run: Run, public: Path) -> None:
    result = run(
        "sense", "--eval", str(LABELLED), "--rules-only", "--public", str(public), "--json"
    )
    assert result.code == 0, result
    learned = result.json()["learned"]
    assert learned["active"] is False and learned["skipped"] == "--rules-only"
    assert learned["project"]["split"] == "test"
    assert set(learned["project"]) >= {"sensors", "macro_rules", "macro_learned"}
    vul = learned["public"]["sensors"]["vulnerability"]
    assert vul == {
        "n": 2,
        "positives": 1,
        "auroc_rules": 1.0,
        "auroc_learned": None,
        "sources": ["x"],
    }
    assert learned["public"]["macro_learned"] is None


def test_missing_public_rows_say_how_to_build_them(run: Run, tmp_path: Path) -> None:
    absent = tmp_path / "none.jsonl"
    result = run("sense", "--eval", str(LABELLED), "--rules-only", "--public", str(absent))
    assert result.code == 0, result
    assert "public test rows: skipped" in result.out
    assert "tools/build_sensor_data.py" in result.out


def test_hash_backend_runs_the_rules_alone(run: Run, public: Path) -> None:
    result = run(
        "--set",
        "embedding.backend=hash",
        "sense",
        "--eval",
        str(LABELLED),
        "--public",
        str(public),
        "--json",
    )
    assert result.code == 0, result
    learned = result.json()["learned"]
    assert learned["active"] is False
    assert "hash" in learned["skipped"]


def test_one_text_with_learned_flag_falls_back_to_the_rules(run: Run) -> None:
    result = run("--set", "embedding.backend=hash", "sense", "I feel so alone", "--learned")
    assert result.code == 0, result
    assert "learned layer: skipped" in result.err
    assert any(line.startswith("vulnerability") for line in result.out.splitlines())
