"""`rilai eval memory` on the fakes: the benchmark file, the recall arithmetic, the baselines."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rilai_desktop.cli.evaluation.memory_eval import evaluate, load_benchmark
from rilai_desktop.errors import TranscriptError
from rilai_desktop.memory.transcript import Transcript
from tests.cli_runner import Run

BENCH: dict[str, Any] = {
    "title": "two friends",
    "sessions": [
        {
            "id": "s1",
            "date": "2023-05-08",
            "turns": [
                {"id": "D1:1", "speaker": "Ana", "text": "I started learning the cello."},
                {"id": "D1:2", "speaker": "Jonas", "text": "Ana, that's brilliant, Ana!"},
                {"id": "D1:3", "speaker": "Jonas", "text": "I moved to Porto yesterday."},
            ],
        }
    ],
    "questions": [
        {"id": "q1", "query": "What is Ana learning?", "evidence_turn_ids": ["D1:1"],
         "type": "single-hop"},
        {"id": "q2", "query": "Where did Jonas move?", "evidence_turn_ids": ["D1:3"],
         "type": "temporal"},
        {"id": "q3", "query": "What did Ana not say?", "evidence_turn_ids": ["D1:2"],
         "type": "adversarial"},
    ],
}  # fmt: skip


class FixedSearcher:
    """Answers from a table: the product side, faked."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.ingested: list[str] = []

    def ingest(self, transcript: Transcript) -> float:
        self.ingested.append(transcript.title)
        return 0.5

    def search(self, query: str, k: int) -> list[list[str]]:
        return self.answers.get(query, [])[:k]

    def close(self) -> None:
        pass


def embed(texts: Sequence[str]) -> Any:
    """A bag-of-letters embedding: enough for the dense baseline to rank something."""
    out = np.zeros((len(texts), 26), dtype=np.float32)
    for i, text in enumerate(texts):
        for ch in text.lower():
            if "a" <= ch <= "z":
                out[i, ord(ch) - 97] += 1
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_recall_per_type_beside_the_baselines(tmp_path: Path) -> None:
    bench = load_benchmark(write(tmp_path, BENCH))
    searcher = FixedSearcher(
        {"What is Ana learning?": [["D1:2"], ["D1:1"]], "Where did Jonas move?": [["D1:3"]]}
    )
    report = evaluate([bench], lambda: searcher, embed)
    ours = report["recall"]["rilai"]
    assert ours["single-hop"] == {"n": 1, "recall@5": 1.0, "recall@10": 1.0}
    assert ours["adversarial"]["recall@10"] == 0.0  # reported, not in overall
    assert ours["overall"] == {"n": 2, "recall@5": 1.0, "recall@10": 1.0}
    assert set(report["recall"]) == {"rilai", "bm25", "dense"}
    assert report["recall"]["bm25"]["overall"]["n"] == 2
    assert report["bars"]["recall@10"]["passed"] is True
    assert searcher.ingested == ["two friends"]
    assert report["files"][0]["turns"] == 3 and report["files"][0]["ingest_s"] == 0.5


def test_a_miss_counts_as_zero(tmp_path: Path) -> None:
    bench = load_benchmark(write(tmp_path, BENCH))
    report = evaluate([bench], lambda: FixedSearcher({}), embed)
    assert report["recall"]["rilai"]["overall"]["recall@10"] == 0.0
    assert report["bars"]["recall@10"]["passed"] is False


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"questions": []}, "no questions"),
        ({"questions": [{"id": "x", "evidence_turn_ids": ["D1:1"]}]}, "'query'"),
        ({"questions": [{"query": "q", "evidence_turn_ids": ["D9:9"]}]}, "names no turn"),
    ],
)
def test_a_bad_benchmark_file_says_what_is_wrong(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    with pytest.raises(TranscriptError, match=message):
        load_benchmark(write(tmp_path, {**BENCH, **change}))


def test_a_missing_benchmark_file_says_where_to_get_locomo(run: Run, tmp_path: Path) -> None:
    result = run("eval", "memory", str(tmp_path / "conv-42.json"))
    assert result.code == 2
    assert "no such benchmark file" in result.err and "locomo_to_transcript" in result.err
