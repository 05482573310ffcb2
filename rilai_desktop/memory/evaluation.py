"""Measuring retrieval on a transcript with questions: turn-level evidence recall@k.

Used by the e2e test, by ``tools/tune_memory.py`` (which tunes on a separate split) and
by anyone checking a change. A question's recall@k is the share of its evidence turn ids
found among the turn ids of the top-k hits; the figure is the mean over questions. The
baseline is plain BM25 over the raw turns (one FTS5 document per turn) with the same query
expression our lexical channel uses.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rilai_desktop.memory._sql import fts_query


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    evidence_turn_ids: tuple[str, ...]
    type: str = ""


def load_questions(path: Path) -> list[Question]:
    out: list[Question] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        out.append(
            Question(
                str(row["id"]),
                str(row["query"]),
                tuple(row["evidence_turn_ids"]),
                str(row.get("type", "")),
            )
        )
    return out


def recall_at_k(hit_turn_ids: Sequence[Iterable[str]], evidence: Iterable[str], k: int) -> float:
    """Share of ``evidence`` turn ids among the turn ids of the first ``k`` hits."""
    wanted = set(evidence)
    if not wanted:
        return 1.0
    found: set[str] = set()
    for turns in hit_turn_ids[:k]:
        found.update(turns)
    return len(wanted & found) / len(wanted)


def mean_recall(
    per_question_hits: dict[str, list[list[str]]], questions: Sequence[Question], k: int
) -> float:
    if not questions:
        return 0.0
    total = sum(
        recall_at_k(per_question_hits.get(q.id, []), q.evidence_turn_ids, k) for q in questions
    )
    return total / len(questions)


def bm25_turn_baseline(
    turns: Iterable[tuple[str, str]], questions: Sequence[Question], k: int
) -> dict[str, list[list[str]]]:
    """Plain BM25 over raw turns (id, text) in an in-memory FTS5 table: the baseline."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute(
            "CREATE VIRTUAL TABLE turns USING fts5(turn_id UNINDEXED, text,"
            " tokenize='porter unicode61 remove_diacritics 2')"
        )
        conn.executemany("INSERT INTO turns (turn_id, text) VALUES (?, ?)", list(turns))
        out: dict[str, list[list[str]]] = {}
        for q in questions:
            match = fts_query(q.query)
            if match is None:
                out[q.id] = []
                continue
            rows = conn.execute(
                "SELECT turn_id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?",
                (match, k),
            ).fetchall()
            out[q.id] = [[str(r[0])] for r in rows]
        return out
    finally:
        conn.close()


def transcript_turns(data: dict[str, Any], *, users_only: bool = False) -> list[tuple[str, str]]:
    """(turn id, text) of every turn of a transcript JSON object."""
    from rilai_desktop.memory.conversation import is_user_speaker

    out: list[tuple[str, str]] = []
    for session in data["sessions"]:
        for turn in session["turns"]:
            if users_only and not is_user_speaker(str(turn["speaker"])):
                continue
            out.append((str(turn["id"]), str(turn["text"])))
    return out
