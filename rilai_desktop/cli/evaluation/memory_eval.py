"""`rilai eval memory`: turn-level evidence recall on long conversations, beside plain baselines.

A benchmark file is a transcript (the format of ``rilai memory ingest``, docs/memory.md)
with a ``questions`` list — ``{"id", "query", "evidence_turn_ids", "type"}`` — such as the
LoCoMo conversations converted by ``tools/locomo_to_transcript.py``. For each file:

1. the transcript goes into a fresh, empty memory (``MemoryFactory``: the real SQLite file,
   FAISS index and MiniLM embedder in a scratch folder), as a new user's history would;
2. every question is asked through the product's retrieval (``Searcher``), timed;
3. the same questions are asked of two plain baselines over the raw turns, in the same run:
   BM25 (FTS5, one document per turn, the speaker's name in front of its text) and dense
   (the same MiniLM, cosine over the turns).

A question's recall@k is the share of its evidence turns among the turns the top ``k``
hits came from (an item carries the turns it was drawn from); the figure is the mean over
questions, per question type and overall. ``adversarial`` questions (LoCoMo category 5:
about something the conversation does not say of that person) are reported but not in the
overall figure, as in the issue's table.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from rilai_desktop.errors import TranscriptError
from rilai_desktop.memory._sql import fts_query
from rilai_desktop.memory.evaluation import Question, recall_at_k
from rilai_desktop.memory.transcript import Transcript, load_transcript

KS = (5, 10)
NOT_IN_OVERALL = frozenset({"adversarial"})
SEARCH_P95_BAR_MS = 100.0


@dataclass(frozen=True)
class Benchmark:
    path: Path
    transcript: Transcript
    questions: list[Question]


class Searcher(Protocol):
    """The product side: a fresh memory holding one transcript, asked one question at a time.
    ``search`` gives the turn ids of each hit, best first."""

    def ingest(self, transcript: Transcript) -> float: ...  # seconds

    def search(self, query: str, k: int) -> list[list[str]]: ...

    def close(self) -> None: ...


class Embed(Protocol):
    def __call__(self, texts: Sequence[str]) -> Any: ...


def load_benchmark(path: Path) -> Benchmark:
    """The transcript (validated whole) and its questions; ``TranscriptError`` names the
    problem."""
    transcript = load_transcript(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise TranscriptError(
            f"{path}: no questions: a benchmark file needs a non-empty 'questions' list",
            recovery_suggestions=["Convert LoCoMo with tools/locomo_to_transcript.py"],
        )
    turn_ids = {t.id for s in transcript.sessions for t in s.turns}
    questions: list[Question] = []
    for i, row in enumerate(rows):
        where = f"{path}: questions[{i}]"
        if not isinstance(row, dict) or not isinstance(row.get("query"), str):
            raise TranscriptError(f"{where}: needs a 'query' string")
        evidence = row.get("evidence_turn_ids")
        if not isinstance(evidence, list) or not evidence:
            raise TranscriptError(f"{where}: needs a non-empty 'evidence_turn_ids' list")
        unknown = [e for e in evidence if e not in turn_ids]
        if unknown:
            raise TranscriptError(f"{where}: evidence names no turn of the transcript: {unknown}")
        questions.append(
            Question(str(row.get("id", i)), row["query"], tuple(evidence), str(row.get("type", "")))
        )
    return Benchmark(path, transcript, questions)


def raw_turns(transcript: Transcript) -> list[tuple[str, str, str]]:
    """(turn id, speaker, text) of every turn, in file order."""
    return [(t.id, t.speaker, t.text) for s in transcript.sessions for t in s.turns]


def bm25_baseline(
    turns: Sequence[tuple[str, str, str]], questions: Sequence[Question], k: int
) -> dict[str, list[list[str]]]:
    """Plain FTS5 BM25, one document per turn: "Speaker: text"."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(
            "CREATE VIRTUAL TABLE turns USING fts5(turn_id UNINDEXED, text,"
            " tokenize='porter unicode61 remove_diacritics 2')"
        )
        conn.executemany(
            "INSERT INTO turns (turn_id, text) VALUES (?, ?)",
            [(tid, f"{speaker}: {text}") for tid, speaker, text in turns],
        )
        out: dict[str, list[list[str]]] = {}
        for q in questions:
            match = fts_query(q.query)
            rows = (
                conn.execute(
                    "SELECT turn_id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?",
                    (match, k),
                ).fetchall()
                if match
                else []
            )
            out[q.id] = [[str(r[0])] for r in rows]
        return out
    finally:
        conn.close()


def dense_baseline(
    turns: Sequence[tuple[str, str, str]], questions: Sequence[Question], k: int, embed: Embed
) -> dict[str, list[list[str]]]:
    """Plain cosine over the turns' embeddings (the same embedder as the product)."""
    ids = [tid for tid, _, _ in turns]
    matrix = np.asarray(embed([f"{speaker}: {text}" for _, speaker, text in turns]), np.float32)
    queries = np.asarray(embed([q.query for q in questions]), np.float32)
    scores = queries @ matrix.T
    out: dict[str, list[list[str]]] = {}
    for q, row in zip(questions, scores, strict=True):
        top = np.argsort(-row)[:k]
        out[q.id] = [[ids[i]] for i in top]
    return out


def _recalls(
    hits: Mapping[str, list[list[str]]], questions: Sequence[Question]
) -> dict[str, dict[str, float | int]]:
    """{type | "overall": {"n", "recall@5", "recall@10"}}."""
    groups: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        groups[q.type or "untyped"].append(q)
        if q.type not in NOT_IN_OVERALL:
            groups["overall"].append(q)
    out: dict[str, dict[str, float | int]] = {}
    for name in sorted(groups, key=lambda n: (n == "overall", n)):
        qs = groups[name]
        row: dict[str, float | int] = {"n": len(qs)}
        for k in KS:
            values = [recall_at_k(hits.get(q.id, []), q.evidence_turn_ids, k) for q in qs]
            row[f"recall@{k}"] = round(sum(values) / len(values), 4) if values else 0.0
        out[name] = row
    return out


def _percentile(values: Sequence[float], pct: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def evaluate(
    benchmarks: Sequence[Benchmark],
    searcher_factory: Callable[[], Searcher],
    embed: Embed,
    *,
    progress: Callable[[str], None] = lambda _line: None,
) -> dict[str, Any]:
    """Run every benchmark; per file and pooled: recall per type for ours, BM25 and dense."""
    k = max(KS)
    files: list[dict[str, Any]] = []
    pooled: dict[str, dict[str, list[list[str]]]] = {"rilai": {}, "bm25": {}, "dense": {}}
    all_questions: list[Question] = []
    all_times: list[float] = []
    for bench in benchmarks:
        turns = raw_turns(bench.transcript)
        searcher = searcher_factory()
        try:
            ingest_s = searcher.ingest(bench.transcript)
            progress(f"{bench.path.name}: {len(turns)} turns ingested in {ingest_s:.1f} s")
            ours: dict[str, list[list[str]]] = {}
            times: list[float] = []
            for q in bench.questions:
                start = time.perf_counter()
                ours[q.id] = searcher.search(q.query, k)
                times.append((time.perf_counter() - start) * 1000)
        finally:
            searcher.close()
        sides = {
            "rilai": ours,
            "bm25": bm25_baseline(turns, bench.questions, k),
            "dense": dense_baseline(turns, bench.questions, k, embed),
        }
        # question ids are only unique within a file: pool under file-qualified ids
        tag = bench.path.stem
        for side, hits in sides.items():
            pooled[side].update({f"{tag}/{qid}": h for qid, h in hits.items()})
        all_questions.extend(
            Question(f"{tag}/{q.id}", q.query, q.evidence_turn_ids, q.type) for q in bench.questions
        )
        all_times.extend(times)
        row = {
            "file": str(bench.path),
            "title": bench.transcript.title,
            "turns": len(turns),
            "questions": len(bench.questions),
            "ingest_s": round(ingest_s, 2),
            "search_ms": _timing(times),
            "recall": {side: _recalls(hits, bench.questions) for side, hits in sides.items()},
        }
        files.append(row)
        overall = row["recall"]
        assert isinstance(overall, dict)
        progress(
            f"{bench.path.name}: recall@10 rilai {overall['rilai']['overall']['recall@10']:.3f}"
            f" · bm25 {overall['bm25']['overall']['recall@10']:.3f}"
            f" · dense {overall['dense']['overall']['recall@10']:.3f}"
            f" · search p95 {_timing(times)['p95']:.1f} ms"
        )
    recall = {side: _recalls(hits, all_questions) for side, hits in pooled.items()}
    ours10 = float(recall["rilai"]["overall"]["recall@10"]) if all_questions else 0.0
    bm25_10 = float(recall["bm25"]["overall"]["recall@10"]) if all_questions else 0.0
    timing = _timing(all_times)
    return {
        "files": files,
        "recall": recall,
        "search_ms": timing,
        "bars": {
            "recall@10": {"value": ours10, "bar": 0.75, "passed": ours10 >= 0.75},
            "over_bm25": {
                "value": round(ours10 - bm25_10, 4),
                "bar": 0.10,
                "passed": ours10 - bm25_10 >= 0.10,
            },
            "search_p95_ms": {
                "value": timing["p95"],
                "bar": SEARCH_P95_BAR_MS,
                "passed": timing["p95"] <= SEARCH_P95_BAR_MS,
            },
        },
    }


def _timing(values: Iterable[float]) -> dict[str, float]:
    vals = list(values)
    return {
        "p50": round(statistics.median(vals), 2) if vals else 0.0,
        "p95": round(_percentile(vals, 95), 2),
        "max": round(max(vals), 2) if vals else 0.0,
    }
