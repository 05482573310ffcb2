"""The memory bridge's knowledge-base recall (seed 004) on the fakes: the KBs a turn names
are searched with the message, empty ones skipped, unrelated documents kept out."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.app.memory_bridge import KNOWLEDGE_SCORE_FLOOR, MAX_KNOWLEDGE, MemoryBridge
from rilai_desktop.contracts.agent import KNOWLEDGE_BASES
from rilai_desktop.memory.knowledge_bases import KB_NAMES
from rilai_desktop.memory.manager import MemoryManager
from rilai_desktop.store import EventLog
from tests.memory.conftest import make_manager

QUESTION = "when does the lease on the flat end"


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[MemoryManager]:
    with EventLog(tmp_path / "rilai.db") as log:
        m = make_manager(log, tmp_path)
        m.open()
        try:
            yield m
        finally:
            m.close()


def test_recall_searches_the_named_knowledge_bases(manager: MemoryManager) -> None:
    manager.knowledge_bases.upsert_texts(
        "kb_core",
        {
            "lease": "the lease on the flat ends in June",
            "cake": "whisk eggs with sugar and butter for a sponge",
        },
    )
    bridge = MemoryBridge(manager)
    hits = bridge.recall(QUESTION, knowledge_bases=("kb_core", "kb_2")).knowledge
    assert [(h["kb"], h["id"]) for h in hits] == [("kb_core", "lease")]
    assert hits[0]["text"] == "the lease on the flat ends in June"
    assert hits[0]["score"] >= KNOWLEDGE_SCORE_FLOOR
    assert bridge.recall(QUESTION).knowledge == []  # none named: none searched


def test_at_most_a_few_hits_best_first(manager: MemoryManager) -> None:
    docs = {f"d{i}": f"the lease on the flat ends in June, note {i}" for i in range(6)}
    manager.knowledge_bases.upsert_texts("kb_core", docs)
    manager.knowledge_bases.upsert_texts("kb_1", {"x": "the lease on the flat ends in June"})
    hits = MemoryBridge(manager).recall(QUESTION, knowledge_bases=("kb_core", "kb_1")).knowledge
    assert len(hits) == MAX_KNOWLEDGE
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)


def test_empty_knowledge_bases_are_not_searched(manager: MemoryManager) -> None:
    calls = manager.embedder.calls  # type: ignore[attr-defined]
    assert MemoryBridge(manager).knowledge(QUESTION, ("kb_core", "kb_skills")) == []
    assert manager.embedder.calls == calls  # type: ignore[attr-defined]  # nothing embedded


def test_the_manifests_knowledge_base_names_are_memorys() -> None:
    # contracts names them for the manifests (turn/ cannot import memory/); the two agree
    assert KNOWLEDGE_BASES == KB_NAMES
