"""Memory on the real embedder (all-MiniLM-L6-v2), the real SQLite file and FAISS index.

The reported transcript (tests/data/memory/transcript.json: 98 turns, 6 dated sessions)
is ingested through `rilai memory ingest`; its 30 questions are answered by one
`rilai memory search --batch` per mode. Turn-level evidence recall@5/@10 is printed for rag
and hybrid beside plain BM25 over the raw turns, computed here on the same questions.
Weights and the escalation threshold were tuned on a different split (tune_*).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.memory.evaluation import (
    bm25_turn_baseline,
    load_questions,
    mean_recall,
    transcript_turns,
)
from rilai_desktop.paths import REPO_ROOT
from tests.cli_runner import Run

pytestmark = pytest.mark.e2e

DATA = REPO_ROOT / "tests" / "data" / "memory"
TRANSCRIPT = DATA / "transcript.json"
QUESTIONS = DATA / "questions.jsonl"


def _batch(run: Run, mode: str) -> tuple[dict[str, list[list[str]]], list[dict[str, object]]]:
    result = run(
        "memory", "search", "--batch", str(QUESTIONS), "--k", "10", "--mode", mode, "--json"
    )
    assert result.code == 0, result.err
    lines = [json.loads(line) for line in result.out.splitlines() if line.strip()]
    hits = {row["id"]: [h["turn_ids"] for h in row["hits"]] for row in lines}
    return hits, lines


def test_ingest_and_batch_search_recall(
    run: Run, real_models: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest = run("memory", "ingest", str(TRANSCRIPT), "--extract", "rules", "--json")
    assert ingest.code == 0, ingest.err
    report = json.loads(ingest.out)
    dates = [s["date"] for s in report["sessions"]]
    assert dates == sorted(dates), "sessions must be ingested in date order"
    # facts from the rules, and one turn record per turn of Maya's (Rilai's get none)
    data = json.loads(TRANSCRIPT.read_text(encoding="utf-8"))
    mayas = sum(1 for s in data["sessions"] for t in s["turns"] if t["speaker"] == "Maya")
    assert report["totals"]["records"] == mayas
    assert report["totals"]["stored"] >= 20

    questions = load_questions(QUESTIONS)
    assert len(questions) >= 25
    rag, rag_rows = _batch(run, "rag")
    hybrid, hybrid_rows = _batch(run, "hybrid")
    assert [r["id"] for r in rag_rows] == [q.id for q in questions]
    for row in rag_rows:
        for hit in row["hits"]:  # type: ignore[attr-defined]
            assert set(hit) >= {"item_id", "content", "score", "resource_id", "turn_ids"}
    data = json.loads(TRANSCRIPT.read_text(encoding="utf-8"))
    bm25 = bm25_turn_baseline(transcript_turns(data), questions, 10)

    figures = {
        name: (mean_recall(hits, questions, 5), mean_recall(hits, questions, 10))
        for name, hits in (("rag", rag), ("hybrid", hybrid), ("bm25 over turns", bm25))
    }
    escalated = sum(1 for r in hybrid_rows if r.get("escalated"))
    rag_ms = sorted(float(r["search_time_ms"]) for r in rag_rows)  # type: ignore[arg-type]
    with capsys.disabled():
        print(f"\n  memory e2e — {len(questions)} questions, {len(data['sessions'])} sessions")
        for name, (r5, r10) in figures.items():
            print(f"  {name:<16} recall@5 {r5:.3f}  recall@10 {r10:.3f}")
        print(f"  hybrid escalated {escalated}/{len(questions)} queries to the model")
        print(f"  rag search p50 {rag_ms[len(rag_ms) // 2]:.1f} ms")

    # the product must beat the plain lexical baseline it is built on
    assert figures["rag"][0] > figures["bm25 over turns"][0]
    assert figures["rag"][1] >= figures["bm25 over turns"][1]
    assert figures["hybrid"][1] >= figures["rag"][1] - 0.1
    assert 0 < escalated < len(questions)

    # the log carries the memory events, in one session, one transaction each
    stats = run("memory", "stats", "--json")
    assert stats.code == 0
    assert json.loads(stats.out)["vector_index_size"] >= 40
    kinds = json.loads(run("query", "stats", "--json").out)
    assert "memory.items_extracted" in json.dumps(kinds)
    assert EventKind.MEMORY_RESOURCE_STORED.value in json.dumps(kinds)


def test_llm_extraction_and_consolidation_on_the_medium_model(real_models: Path) -> None:
    """The composition root's memory with the real medium model for extraction/consolidation."""
    from datetime import datetime

    from rilai_desktop.app.build import build_memory
    from rilai_desktop.app.core import build_core
    from rilai_desktop.config import load_settings
    from rilai_desktop.memory.conversation import is_user_speaker
    from rilai_desktop.memory.types import Turn
    from rilai_desktop.paths import resolve_paths

    paths = resolve_paths()
    settings = load_settings(paths.settings_file).settings
    core = build_core(paths, settings)
    try:
        memory = build_memory(core)
        data = json.loads(TRANSCRIPT.read_text(encoding="utf-8"))
        session = min(data["sessions"], key=lambda s: s["date"])
        at = datetime.fromisoformat(session["date"])
        turns = [
            Turn(
                id=t["id"],
                speaker=t["speaker"],
                text=t["text"],
                at=at,
                is_user=is_user_speaker(t["speaker"]),
            )
            for t in session["turns"][:12]
        ]
        result = memory.ingest_turns(turns, mode="llm", metadata={"session_id": session["id"]})
        ids = {t.id for t in turns if t.is_user}
        assert result.stored, result.warnings
        for item in result.stored:
            assert item.source_turn_ids and set(item.source_turn_ids) <= ids
        category = result.stored[0].category
        assert category is not None
        markdown = memory.consolidate_category(category)
        assert markdown.startswith("# ")
        assert "[^1]" in markdown and "## Sources" in markdown
        assert result.stored[0].item_id in markdown or len(result.stored) > 1
        assert (paths.categories_dir / f"{category}.md").read_text(encoding="utf-8") == markdown
        memory.close()
    finally:
        core.close()
