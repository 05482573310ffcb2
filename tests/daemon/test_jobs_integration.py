"""The REAL scheduler for a few seconds at a sub-second interval, on a real EventLog, with
the real wiring (app.build_daemon: LogEventSink, LogLiveState, the nudge engine over the
log's facts): DAEMON_TICK, MODULATORS_DECAYED and PROACTIVE_NUDGE land in the log. Then a
restart on the same files: the jobs are still in the store, the cooldown still holds,
nothing fires twice, and no span of time is decayed twice.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from rilai_desktop.app.build import build_daemon
from rilai_desktop.app.core import Core, build_core
from rilai_desktop.config import Settings
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.daemon.delivery import RecordingDelivery
from rilai_desktop.daemon.jobs import (
    MAINTENANCE_JOB,
    STORE_FILENAME,
    TICK_JOB,
    DaemonScheduler,
    stored_jobs,
)
from rilai_desktop.paths import resolve_paths

INTERVAL_S = 0.25
RUN_S = 1.5
WAIT_S = 15.0  # the most we wait for the first nudge (normally the first tick has it)


@pytest.fixture
def core() -> Iterator[Core]:
    c = build_core(resolve_paths(), Settings())
    yield c
    c.close()


def _seed_a_stressed_conversation(core: Core, at: datetime) -> None:
    """A turn an hour ago that left strain high; silence since (strain then silence)."""
    log, sid = core.event_log, "s-integration"
    log.append(sid, 0, EventKind.SESSION_STARTED, {"session_id": sid}, ts_wall=at)
    log.append(
        sid, 1, EventKind.TURN_STARTED, {"user_input": "I can't cope with this week"}, ts_wall=at
    )
    log.append(
        sid,
        1,
        EventKind.SENSORS_FAST_UPDATED,
        {"sensors": {"vulnerability": 0.9, "rupture": 0.0}},
        ts_wall=at,
    )
    log.append(
        sid,
        1,
        EventKind.STANCE_UPDATED,
        {"delta": {}, "current": {"strain": 0.9, "valence": -0.6, "arousal": 0.8}},
        ts_wall=at,
    )
    log.append(
        sid,
        1,
        EventKind.MODULATORS_UPDATED,
        {"changes": {}, "current": {"arousal": 0.8, "fatigue": 0.6}},
        ts_wall=at,
    )
    log.append(
        sid, 1, EventKind.TURN_COMPLETED, {"total_time_ms": 900, "response": "..."}, ts_wall=at
    )


def _run(core: Core, seconds: float, until: Any = None) -> tuple[float, RecordingDelivery]:
    delivery = RecordingDelivery()
    daemon = build_daemon(core, delivery=delivery)
    scheduler = DaemonScheduler(
        daemon, core.paths.data_dir / STORE_FILENAME, tick_seconds=INTERVAL_S
    )
    t0 = time.perf_counter()
    scheduler.start()
    try:
        assert {job.id for job in scheduler.jobs()} == {TICK_JOB, MAINTENANCE_JOB}
        deadline = t0 + WAIT_S
        while time.perf_counter() < t0 + seconds or (
            until is not None and not until() and time.perf_counter() < deadline
        ):
            time.sleep(0.05)
    finally:
        scheduler.shutdown()
        daemon.close()
    return time.perf_counter() - t0, delivery


def _kinds(core: Core, kind: EventKind) -> list[EngineEvent]:
    return core.event_log.events(kind=kind)


def test_the_real_scheduler_ticks_decays_nudges_and_survives_a_restart(core: Core) -> None:
    seeded = datetime.now(UTC) - timedelta(hours=1)
    _seed_a_stressed_conversation(core, seeded)

    first_s, _ = _run(core, RUN_S, until=lambda: _kinds(core, EventKind.PROACTIVE_NUDGE))
    ticks_1 = _kinds(core, EventKind.DAEMON_TICK)
    decays_1 = _kinds(core, EventKind.MODULATORS_DECAYED)
    nudges_1 = _kinds(core, EventKind.PROACTIVE_NUDGE)
    assert len(ticks_1) >= 2
    assert decays_1 and decays_1[0].payload["elapsed_s"] >= 3590  # the hour since the turn
    assert decays_1[0].payload["stance"]["strain"]["after"] < 0.9
    assert [n.payload["context"]["condition"] for n in nudges_1] == ["strain_silence"]
    assert all(e.turn_id == 0 and e.session_id == "s-integration" for e in ticks_1)
    assert _kinds(core, EventKind.ERROR) == []

    stored = {job.id: job for job in stored_jobs(core.paths.data_dir / STORE_FILENAME)}
    assert set(stored) == {TICK_JOB, MAINTENANCE_JOB}
    time.sleep(2 * INTERVAL_S)  # closed for longer than one interval: one catch-up tick

    second_s, _ = _run(core, RUN_S)
    ticks = _kinds(core, EventKind.DAEMON_TICK)
    stored_after = {job.id: job for job in stored_jobs(core.paths.data_dir / STORE_FILENAME)}
    assert set(stored_after) == {TICK_JOB, MAINTENANCE_JOB}
    assert stored_after[MAINTENANCE_JOB].next_run == stored[MAINTENANCE_JOB].next_run

    # the cooldown held across the restart: still one nudge for the condition
    nudges = _kinds(core, EventKind.PROACTIVE_NUDGE)
    assert [n.payload["context"]["condition"] for n in nudges] == ["strain_silence"]

    # nothing fired twice: the restart's catch-up is one tick, well after the last one,
    # and the count fits the time the scheduler ran (one immediate tick per start)
    restart_gap = ticks[len(ticks_1)].payload["timestamp"] - ticks_1[-1].payload["timestamp"]
    assert restart_gap >= INTERVAL_S
    timestamps = [t.payload["timestamp"] for t in ticks]
    assert len(set(timestamps)) == len(timestamps)
    assert len(ticks) > len(ticks_1)
    assert len(ticks) <= (first_s + second_s) / INTERVAL_S + 4

    # no span of time was decayed twice: the decays' elapsed times add up to at most
    # the time since the seeded turn
    decays = _kinds(core, EventKind.MODULATORS_DECAYED)
    total = sum(d.payload["elapsed_s"] for d in decays)
    assert total <= (datetime.now(UTC) - seeded).total_seconds() + 1
