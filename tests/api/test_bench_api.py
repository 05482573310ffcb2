"""`rilai bench api`'s measurement, on the fake engine: it pairs each API request with its
own turn, runs the same message in-process, and counts what the event stream delivered.
(The figures that mean something come from the real models: docs/api.md.)"""

from __future__ import annotations

import pytest

from rilai_desktop.cli.bench.api import BAR_OVERHEAD, measure
from tests.fake_engine import open_fake_engine


def test_the_report_pairs_each_request_with_its_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    engine = open_fake_engine()
    try:
        report = measure(engine, 2)
    finally:
        engine.close()
    assert report["messages"] == 2
    rows = report["per_message"]
    assert all(r["api_ms"] >= r["served_turn_ms"] > 0 for r in rows)
    assert all(
        r["ratio"] == pytest.approx(r["api_ms"] / r["served_turn_ms"], rel=0.01) for r in rows
    )
    assert report["chat_overhead"]["overhead_ms_p50"] >= 0
    events = report["events"]
    assert events["received"] > 0 and events["dropped"] == 0
    assert {"session_started", "converged", "session_ended"} <= set(events["kinds"])
    assert report["bar"]["ratio_max"] == BAR_OVERHEAD
