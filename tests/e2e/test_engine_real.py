"""Issue 18 on the real models, the real SQLite file and the real FAISS index: one turn
through the Engine leaves the day's journal entry and a context-store record (seed 002),
and recalls from a knowledge base the person filled when an agent's manifest asks for it
(seed 004's kb_core)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from rilai_desktop.contracts import EngineEvent, EventKind

pytestmark = pytest.mark.e2e

GUIDE = (
    "Allotment notes: plant garlic cloves in late October, pointed end up, five centimetres "
    "deep, and harvest them in July when the lower leaves turn yellow."
)


def test_an_engine_turn_journals_keeps_its_artefacts_and_reads_a_knowledge_base(
    real_models: Path,
) -> None:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine
    from rilai_desktop.config import load_settings
    from rilai_desktop.paths import resolve_paths

    paths = resolve_paths()
    core = build_core(paths, load_settings(paths.settings_file).settings)
    engine = open_engine(core)
    try:
        memory = engine.parts.memory
        assert memory is not None
        memory.knowledge_bases.upsert_texts("kb_core", {"allotment-guide": GUIDE})
        events: list[EngineEvent] = []
        engine.subscribe(events.append)
        result = engine.send("When should I plant the garlic on my allotment?").result()
        print(f"\n  reply: {result.reply!r}")
        assert result.reply.strip()
        # the knowledge base was consulted, and its page reached the turn
        (recalled,) = [e for e in events if e.kind is EventKind.MEMORY_RETRIEVED]
        hits = recalled.payload.get("knowledge", [])
        assert [h["id"] for h in hits] == ["allotment-guide"], hits
        # seed 002: the artefacts are in the context store, the journal points at them
        context_id = result.memory_summary["context_id"]
        item = memory.contexts.get(context_id)
        assert item is not None and item.expires_at is not None
        assert item.content["agents"] and item.content["council"]["intent"]
        day = memory.journal.read_daily("rilai", datetime.now(UTC).date())
        assert day is not None
        tasks = [t for s in day.sessions if s.id == engine.session_id for t in s.tasks]
        assert [(t.type, t.output_context_id) for t in tasks] == [("turn", context_id)]
        assert tasks[0].duration_ms and tasks[0].duration_ms > 0
    finally:
        engine.close()  # the log too
