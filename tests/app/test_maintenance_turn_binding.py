"""Regression (issue 30, proof 8): maintenance runs on the scheduler's pool, not the
engine's worker, and binds memory's events to the daemon's turn 0 while it works. The
binding was one attribute shared by every thread, so a turn that committed while a
consolidation waited on its model rebound it: the daemon's ``memory.category_consolidated``
was logged as part of the person's turn, and when maintenance put its binding back, the
worker's next memory events went to the turn before. Each thread now has its own binding.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.llm.fake import Request, ScriptedLLM
from tests.fake_engine import VOICE_REPLY, open_fake_engine


def test_a_turn_during_consolidation_keeps_the_daemons_events_at_turn_0(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    monkeypatch.setenv("RILAI_MEMORY__EXTRACT", "rules")
    in_consolidation, release = threading.Event(), threading.Event()

    def answer(request: Request) -> Any:
        if request.schema is not None and "summary" in request.schema.get("properties", {}):
            in_consolidation.set()
            release.wait(30)  # the consolidation's model call, still running
            return {"summary": "The person has a sister, Ana."}
        return VOICE_REPLY

    engine = open_fake_engine(voice=ScriptedLLM(default=answer), retrieval=ScriptedLLM())
    try:
        first = engine.send("remember that my sister is called Ana").result(timeout=60)
        daemon = engine.start_daemon(schedule=False)
        reports: list[dict[str, Any]] = []
        pool = threading.Thread(target=lambda: reports.append(daemon.maintenance_pass()))
        pool.start()
        assert in_consolidation.wait(30), "maintenance never reached the consolidation"
        second = engine.send("remember that my brother is called Rui").result(timeout=60)
        release.set()
        pool.join(60)
        assert reports and reports[0]["steps"]["consolidation"]["status"] == "done", reports
        # the worker's binding is still the second turn's, not the one before maintenance
        engine.memory.remember("I like green tea")
        events = list(engine.parts.core.event_log.replay_session(engine.session_id))
    finally:
        release.set()
        engine.close()
    consolidated = [e for e in events if e.kind is EventKind.MEMORY_CATEGORY_CONSOLIDATED]
    assert consolidated and all(e.turn_id == 0 for e in consolidated), [
        e.turn_id for e in consolidated
    ]
    extracted = [e.turn_id for e in events if e.kind is EventKind.MEMORY_ITEMS_EXTRACTED]
    assert first.turn_id in extracted and second.turn_id in extracted
    assert extracted[-1] == second.turn_id  # remember() on the worker: the last turn's
