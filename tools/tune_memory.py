"""Tune the retrieval fusion weights and calibrate the hybrid escalation threshold.

Runs on the TUNING split only (tests/data/memory/tune_*), never on the reported one:

    .venv/bin/python tools/tune_memory.py [--transcript T.json --questions Q.jsonl]

It ingests the transcript (rules extraction, the real MiniLM embedder) into a throwaway
memory, collects every RAG candidate's features once, grid-searches the fusion weights for
mean turn-level recall@5 (recall@10 breaks ties), then computes the ConfidenceScorer value
of each question's top-5 under the chosen weights and calibrates the escalation threshold
(escalate iff confidence < t) against "RAG top-5 found no evidence turn". It prints the
figures; the chosen values are then written into retrieval.py / manager.py by hand.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
from datetime import datetime
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from rilai_desktop.memory.conversation import is_user_speaker
from rilai_desktop.memory.embedding import EmbeddingService
from rilai_desktop.memory.evaluation import (
    bm25_turn_baseline,
    load_questions,
    mean_recall,
    recall_at_k,
    transcript_turns,
)
from rilai_desktop.memory.manager import MemoryConfig, MemoryManager
from rilai_desktop.memory.retrieval import (
    IMPORTANCE_VALUE,
    ConfidenceScorer,
    FusionWeights,
    calibrate_threshold,
)
from rilai_desktop.memory.retrieval.rag import _recency
from rilai_desktop.memory.types import Turn
from rilai_desktop.store import EventLog

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "memory"


def ingest(manager: MemoryManager, data: dict) -> None:
    sessions = sorted(data["sessions"], key=lambda s: datetime.fromisoformat(s["date"]))
    for s in sessions:
        at = datetime.fromisoformat(s["date"])
        turns = [
            Turn(
                id=t["id"],
                speaker=t["speaker"],
                text=t["text"],
                at=at,
                is_user=is_user_speaker(t["speaker"]),
            )
            for t in s["turns"]
        ]
        manager.ingest_turns(
            turns, metadata={"session_id": s["id"], "date": s["date"]}, mode="rules"
        )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--transcript", type=Path, default=DATA / "tune_transcript.json")
    ap.add_argument("--questions", type=Path, default=DATA / "tune_questions.jsonl")
    ap.add_argument("--max-escalation", type=float, default=0.35)
    ap.add_argument("--weights", help="dense,lexical,recency,importance to calibrate with")
    args = ap.parse_args()
    data = json.loads(args.transcript.read_text(encoding="utf-8"))
    questions = load_questions(args.questions)
    tmp = Path(tempfile.mkdtemp(prefix="rilai-tune-"))
    log = EventLog(tmp / "rilai.db")
    manager = MemoryManager(
        log,
        EmbeddingService(),
        storage_dir=tmp / "memory",
        categories_dir=tmp / "cats",
        events=log,
        config=MemoryConfig(storage_dir=tmp / "memory", auto_consolidate=False),
    )
    manager.open()
    ingest(manager, data)
    now = manager.rag._clock()
    # features of every candidate, once (wide candidate lists from both channels)
    manager.rag.weights = FusionWeights(candidates=50)
    feats = {}
    for q in questions:
        scored, _ = manager.rag.candidates(q.query, 50)
        feats[q.id] = [
            (
                s.item.source_turn_ids,
                s.dense,
                s.lexical,
                _recency(s.item.valid_at or s.item.created_at, now, 30.0),
                IMPORTANCE_VALUE.get(s.item.importance, 0.5),
            )
            for s in scored
        ]

    def ranked(qid: str, w: tuple[float, float, float, float]) -> list[tuple[list[str], float]]:
        rows = [(t, w[0] * d + w[1] * lx + w[2] * r + w[3] * im) for t, d, lx, r, im in feats[qid]]
        return sorted(rows, key=lambda x: x[1], reverse=True)

    grid = []
    for wd, wl, wr, wi in itertools.product(
        [0.4, 0.5, 0.6, 0.7, 0.8, 1.0],
        [0.0, 0.1, 0.2, 0.3, 0.4, 0.6],
        [0.0, 0.05, 0.1],
        [0.0, 0.05, 0.1],
    ):
        hits = {q.id: [t for t, _ in ranked(q.id, (wd, wl, wr, wi))] for q in questions}
        sharp = sum(mean_recall(hits, questions, k) for k in (1, 2, 3)) / 3
        grid.append(
            (
                mean_recall(hits, questions, 5),
                mean_recall(hits, questions, 10),
                (wd, wl, wr, wi),
                sharp,
            )
        )
    # recall@5 first; the mean of recall@1..3 (how high the evidence ranks) breaks ties
    grid.sort(key=lambda g: (round(g[0], 6), round(g[3], 6), g[1]), reverse=True)
    best = grid[0]
    dense_only = next(g for g in grid if g[2] == (1.0, 0.0, 0.0, 0.0))
    default = [g for g in grid if g[2] == (0.6, 0.3, 0.05, 0.05)]
    print(
        "top weight sets (recall@5, recall@10, (dense, lexical, recency, importance), "
        "mean recall@1-3):"
    )
    for g in grid[:8]:
        print(f"  {g[0]:.3f} {g[1]:.3f} {g[2]} {g[3]:.3f}")
    print(f"dense only: {dense_only[0]:.3f} {dense_only[1]:.3f} {dense_only[3]:.3f}")
    if default:
        print(f"current default: {default[0][0]:.3f} {default[0][1]:.3f} {default[0][3]:.3f}")
    base = bm25_turn_baseline(transcript_turns(data), questions, 10)
    print(
        f"BM25 over turns: {mean_recall(base, questions, 5):.3f} "
        f"{mean_recall(base, questions, 10):.3f}"
    )

    w = best[2] if args.weights is None else tuple(float(x) for x in args.weights.split(","))
    scorer = ConfidenceScorer()
    confidences, correct = [], []
    for q in questions:
        top = ranked(q.id, w)[:5]
        confidences.append(scorer.score([(None, s) for _, s in top], q.query))  # type: ignore[misc]
        # "RAG is right" = its first hit is evidence: at top-5 RAG almost never misses here,
        # so the useful question is whether the ranking is sure of its first answer
        correct.append(recall_at_k([t for t, _ in top], q.evidence_turn_ids, 1) > 0)
    t, figures = calibrate_threshold(confidences, correct, max_escalation=args.max_escalation)
    print(
        f"confidences: min {min(confidences):.3f} max {max(confidences):.3f}; "
        f"RAG top-1 hit rate {sum(correct)}/{len(correct)}"
    )
    print(
        f"escalation threshold: {t:.4f} {json.dumps({k: round(v, 3) for k, v in figures.items()})}"
    )
    log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
