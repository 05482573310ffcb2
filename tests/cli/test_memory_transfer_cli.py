"""`rilai memory export FOLDER` and `rilai memory import FOLDER [--merge]` (--json and
text), in-process through tests/cli_runner.py, on the hashed embedder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli_runner import Result, Run

TRANSCRIPT = {
    "title": "A week with Ana",
    "sessions": [
        {
            "id": "s0",
            "date": "2024-03-01",
            "turns": [
                {"id": "s0t1", "speaker": "Ana", "text": "I live in Lisbon and I love jazz."},
                {"id": "s0t2", "speaker": "Rilai", "text": "Lisbon has good jazz bars."},
            ],
        },
        {
            "id": "s1",
            "date": "2024-03-03",
            "turns": [{"id": "s1t1", "speaker": "Ana", "text": "I work as a nurse."}],
        },
    ],
}


@pytest.fixture(autouse=True)
def hash_embedder(rilai_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def ok(result: Result) -> Any:
    assert result.code == 0, result
    return result.json()


def clean_error(result: Result) -> None:
    assert result.code == 2, result
    assert "error RIL-040: " in result.err and "  hint: " in result.err, result
    assert "Traceback" not in result.err + result.out


def items(run: Run) -> list[tuple[str, str | None]]:
    return sorted(
        (i["content"], i["category"])
        for i in ok(
            run("memory", "search", "jazz nurse Lisbon", "--mode", "rag", "--k", "50", "--json")
        )["hits"]
    )


@pytest.fixture
def exported(run: Run, tmp_path: Path) -> Path:
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps(TRANSCRIPT))
    ok(run("memory", "ingest", str(transcript), "--json"))
    folder = tmp_path / "export"
    data = ok(run("memory", "export", str(folder), "--json"))
    assert data["counts"]["items"] >= 2 and data["counts"]["categories"] >= 1
    assert {Path(p).name for p in data["files"]} >= {"rilai-memory.json", "memory.md"}
    return folder


def test_export_then_import_into_a_fresh_home(
    run: Run, exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = items(run)
    categories = ok(run("memory", "categories", "--json"))
    monkeypatch.setenv("RILAI_HOME", str(tmp_path / "fresh"))
    data = ok(run("memory", "import", str(exported), "--json"))
    assert data["merge"] is False and data["skipped"] == {}
    assert data["counts"]["items"] == len(
        json.loads((exported / "rilai-memory.json").read_text())["items"]
    )
    assert items(run) == before
    assert [(c["name"], c["item_count"]) for c in ok(run("memory", "categories", "--json"))] == [
        (c["name"], c["item_count"]) for c in categories
    ]
    # into the same memory again: refused, then merged (everything already there)
    clean_error(run("memory", "import", str(exported)))
    merged = ok(run("memory", "import", str(exported), "--merge", "--json"))
    assert sum(merged["counts"].values()) == 0 and merged["skipped"]["items"] >= 2
    text = run("memory", "import", str(exported), "--merge")
    assert text.code == 0 and "already there, skipped:" in text.out


def test_a_damaged_export_is_a_clean_error(
    run: Run, exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = exported / "rilai-memory.json"
    path.write_text(path.read_text()[:-40])
    monkeypatch.setenv("RILAI_HOME", str(tmp_path / "fresh"))
    result = run("memory", "import", str(exported))
    clean_error(result)
    assert "not valid JSON" in result.err
    assert ok(run("memory", "stats", "--json"))["total_items"] == 0


def test_import_of_a_folder_without_an_export(run: Run, tmp_path: Path) -> None:
    result = run("memory", "import", str(tmp_path))
    clean_error(result)
    assert "rilai-memory.json" in result.err


def test_export_text_output(run: Run, exported: Path, tmp_path: Path) -> None:
    result = run("memory", "export", str(tmp_path / "again"))
    assert result.code == 0, result
    assert result.out.startswith("Exported ") and "memory.md" in result.out
