"""`rilai bench ui` on the fakes: the first-paint processes report, the stall timer ticks
through a turn (no timing bars here: those are the benchmark's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rilai_desktop.cli.bench.ui import measure_start
from rilai_desktop.ui.stall import measure_stall
from tests.fake_engine import open_fake_engine


def test_first_paint_is_measured_for_both_windows() -> None:
    start = measure_start(1)
    assert start["rilai_s"] > 0 and start["bare_s"] > 0
    assert start["start_ratio"] == pytest.approx(start["rilai_s"] / start["bare_s"], rel=0.05)
    assert start["idle_rss_mb"] > 10  # read from /proc at the window's first paint


def test_the_stall_timer_runs_through_a_turn(
    monkeypatch: pytest.MonkeyPatch, rilai_home: Path
) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    stall = measure_stall(open_fake_engine, ["Hi, long day at work."], timeout_s=60)
    assert stall["ticks"] > 0 and stall["max_stall_ms"] >= stall["p99_gap_ms"] >= 0
    assert len(stall["turn_s"]) == 1
