"""The adapters over the real EventLog and a live TurnRunner (daemon_state.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rilai_desktop.app.daemon_state import LogEventSink, LogLiveState, RunnerLiveState
from rilai_desktop.config import Settings
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.service import Daemon, LiveStateBusy
from rilai_desktop.errors import EventPayloadError
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM
from rilai_desktop.store import EventLog
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from rilai_desktop.turn.runner import TurnRunner
from rilai_desktop.turn.session import restore
from tests.turn.conftest import AGENT_REPLY, PROMPTS, VOICE_REPLY

START = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)


@pytest.fixture
def log(tmp_path: Path) -> Iterator[EventLog]:
    event_log = EventLog(tmp_path / "rilai.db")
    yield event_log
    event_log.close()


def _stressed(log: EventLog, at: datetime, session: str = "s1") -> None:
    log.append(
        session,
        1,
        EventKind.STANCE_UPDATED,
        {"delta": {}, "current": {"strain": 0.9, "valence": -0.6}},
        ts_wall=at,
    )
    log.append(
        session,
        1,
        EventKind.MODULATORS_UPDATED,
        {"changes": {}, "current": {"fatigue": 0.7}},
        ts_wall=at - timedelta(minutes=5),
    )


# ── LogEventSink ───────────────────────────────────────────────────────────
def test_sink_uses_the_latest_session_or_one_fresh_uuid(log: EventLog) -> None:
    sink = LogEventSink(log)
    first = sink.append(sink.session_id(), 0, EventKind.DAEMON_TICK, {"timestamp": 1.0})
    second = sink.append(sink.session_id(), 0, EventKind.DAEMON_TICK, {"timestamp": 2.0})
    assert uuid.UUID(first.session_id) and first.session_id == second.session_id
    assert first.turn_id == 0 and second.seq == first.seq + 1
    log.append("resumed", 1, EventKind.TURN_STARTED, {"user_input": "hi"})
    assert (
        sink.append(sink.session_id(), 0, EventKind.DAEMON_TICK, {"timestamp": 3.0}).session_id
        == "resumed"
    )
    pinned = LogEventSink(log, session_id=lambda: "shell-session")
    assert (
        pinned.append(pinned.session_id(), 0, EventKind.DAEMON_TICK, {"timestamp": 4.0}).session_id
        == "shell-session"
    )


def test_sink_stamps_its_clock_and_the_log_validates(log: EventLog) -> None:
    clock = FakeClock(START)
    sink = LogEventSink(log, clock=clock)
    assert (
        sink.append(sink.session_id(), 0, EventKind.DAEMON_TICK, {"timestamp": 1.0}).ts_wall
        == START
    )
    with pytest.raises(EventPayloadError):
        sink.append(sink.session_id(), 0, EventKind.DAEMON_TICK, {"timestamp": "soon"})
    with pytest.raises(EventPayloadError):
        sink.append(
            sink.session_id(),
            0,
            EventKind.MODULATORS_DECAYED,
            {"elapsed_s": -1, "modulators": {}, "stance": {}},
        )
    assert log.count() == 1  # the bad events wrote nothing


def test_log_listeners_see_the_sinks_stored_events_and_cannot_break_them(log: EventLog) -> None:
    # `rilai daemon run` prints through the log's listeners (the Engine bus's feed)
    sink = LogEventSink(log)
    seen: list[EngineEvent] = []

    def broken(event: EngineEvent) -> None:
        raise RuntimeError("printer gone")

    log.add_listener(broken)
    stop = log.add_listener(seen.append)
    event = sink.append(sink.session_id(), 0, EventKind.DAEMON_TICK, {"timestamp": 1.0})
    assert seen == [event] and log.count() == 1
    stop()
    stop()
    sink.append(sink.session_id(), 0, EventKind.DAEMON_TICK, {"timestamp": 2.0})
    assert seen == [event]


# ── LogLiveState ───────────────────────────────────────────────────────────
def test_log_state_of_an_empty_log_is_the_baseline_now(log: EventLog) -> None:
    clock = FakeClock(START)
    snap = LogLiveState(log, clock).snapshot()
    assert snap.stance == {} and snap.modulators == {} and snap.updated_at == START


def test_log_state_reads_the_newest_updates_and_decays(log: EventLog) -> None:
    clock = FakeClock(START)
    _stressed(log, START - timedelta(hours=1))
    state = LogLiveState(log, clock)
    snap = state.snapshot()
    assert snap.stance["strain"] == 0.9 and snap.modulators == {"fatigue": 0.7}
    assert snap.updated_at == START - timedelta(hours=1)  # the later of the two
    sink = LogEventSink(log, clock=clock)
    daemon = Daemon(clock, sink, state, Settings(), session_id=sink.session_id)
    daemon.tick()
    after = state.snapshot()
    assert after.updated_at == START and after.stance["strain"] < 0.9
    assert after.modulators["fatigue"] < 0.7 and set(after.stance) >= {"strain", "curiosity"}
    assert state.last_applied is not None and state.last_applied[2] == START
    # a turn that updates the stance again wins over the older decay
    log.append("s1", 2, EventKind.STANCE_UPDATED, {"delta": {}, "current": {"strain": 0.5}})
    assert state.snapshot().stance == {"strain": 0.5}


def _raw(log: EventLog, kind: EventKind, payload: str, seq: int) -> None:
    """A row an older version (or a hand edit) left, written past validation."""
    with log.transaction() as conn:
        conn.execute(
            "INSERT INTO events (session_id, turn_id, seq, ts_monotonic, ts_wall, kind,"
            " payload, schema_version) VALUES ('old', 1, ?, 0, ?, ?, ?, 1)",
            (seq, START.isoformat(), kind.value, payload),
        )


def test_log_state_reads_odd_payloads_as_unknown(log: EventLog) -> None:
    _raw(log, EventKind.STANCE_UPDATED, '{"current": "calm"}', 0)
    _raw(log, EventKind.MODULATORS_DECAYED, '{"modulators": {"fatigue": "x"}, "stance": 3}', 1)
    clock = FakeClock(START + timedelta(hours=1))
    state = LogLiveState(log, clock)
    snap = state.snapshot()
    assert snap.stance == {} and snap.modulators == {} and snap.updated_at == START
    sink = LogEventSink(log, clock=clock)
    result = Daemon(clock, sink, state, Settings(), session_id=sink.session_id).tick()
    assert result.errors == [] and result.skipped == "below epsilon"  # baseline: nothing moves
    # out-of-range numbers are clamped by the decay, never a traceback
    _raw(log, EventKind.STANCE_UPDATED, '{"current": {"strain": 7.0, "bogus": 1}}', 2)
    assert state.snapshot().stance == {"strain": 7.0}
    sink = LogEventSink(log, clock=clock)
    result = Daemon(clock, sink, state, Settings(), session_id=sink.session_id).tick()
    assert result.errors == [] and result.decay is not None
    assert result.decay.stance["strain"].before == 1.0


def test_log_state_sees_a_recent_open_turn_only(log: EventLog) -> None:
    now = datetime.now(UTC)
    clock = FakeClock(now)
    state = LogLiveState(log, clock)
    assert not state.turn_running()
    log.append("s1", 1, EventKind.TURN_STARTED, {"user_input": "hi"}, ts_wall=now)
    assert state.turn_running()
    clock.advance(600)  # open for 10 minutes: its process died
    assert not state.turn_running()
    clock.set(now)
    log.append("s1", 1, EventKind.TURN_COMPLETED, {"total_time_ms": 5, "response": "ok"})
    assert not state.turn_running()


def test_eight_hours_asleep_restores_as_decayed(log: EventLog) -> None:
    clock = FakeClock(START)
    _stressed(log, START)
    sink = LogEventSink(log, clock=clock)
    daemon = Daemon(clock, sink, LogLiveState(log, clock), Settings(), session_id=sink.session_id)
    clock.advance(8 * 3600)
    daemon.tick()
    decayed = log.events(kind=EventKind.MODULATORS_DECAYED)
    assert len(decayed) == 1 and decayed[0].payload["elapsed_s"] == 8 * 3600
    state = restore(log, "s1")
    assert state.stance.strain == pytest.approx(0.9 / 4)
    assert state.stance.last_update_ts == (START + timedelta(hours=8)).timestamp()


# ── RunnerLiveState ────────────────────────────────────────────────────────
def _runner(log: EventLog) -> TurnRunner:
    models = RoleModels(
        ScriptedLLM(default=VOICE_REPLY),
        {
            "agents": ScriptedLLM(default=AGENT_REPLY),
            "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
        },
    )
    return build_turn_runner(
        events=log, models=models, memory=InMemoryTurnMemory(), prompts=PROMPTS, use_judge=False
    )


def test_runner_state_decays_the_live_session(log: EventLog) -> None:
    _stressed(log, START)
    runner = _runner(log)
    clock = FakeClock(START + timedelta(hours=4))
    state = RunnerLiveState(runner, clock=clock)
    snap = state.snapshot()
    assert snap.stance["strain"] == 0.9 and snap.updated_at == START
    sink = LogEventSink(log, clock=clock)
    daemon = Daemon(clock, sink, state, Settings(), session_id=sink.session_id)
    result = daemon.tick()
    assert result.decayed is not None
    assert runner.session.stance.strain == pytest.approx(0.45)
    assert runner.session.stance.last_update_ts == clock.now().timestamp()
    assert runner.session.modulators.last_update == clock.now()
    assert state.snapshot().updated_at == clock.now()


def test_runner_state_leaves_a_running_turn_alone(log: EventLog) -> None:
    runner = _runner(log)
    state = RunnerLiveState(runner, clock=FakeClock(START))
    assert not state.turn_running() and not runner.running
    snap = state.snapshot()
    with runner.turn_lock:
        assert runner.running and state.turn_running()
        with pytest.raises(LiveStateBusy):
            state.apply_decay(snap.stance, snap.modulators, START)
    # a turn that ran between the snapshot and the apply replaced the stance
    runner.run_turn("Long day at work.")
    with pytest.raises(LiveStateBusy):
        state.apply_decay(snap.stance, snap.modulators, START)
    state.snapshot()
    state.apply_decay({"strain": 0.0}, {}, START)
    assert runner.session.stance.strain == 0.0


def test_a_turn_after_a_decay_starts_from_the_decayed_stance(log: EventLog) -> None:
    _stressed(log, START - timedelta(hours=8))
    runner = _runner(log)
    clock = FakeClock(START)
    sink = LogEventSink(log, clock=clock)
    state = RunnerLiveState(runner, clock=clock)
    daemon = Daemon(clock, sink, state, Settings(), session_id=sink.session_id)
    daemon.tick()
    decayed_strain = runner.session.stance.strain
    assert decayed_strain == pytest.approx(0.225)
    runner.run_turn("Hello again.")
    updated = log.events(kind=EventKind.STANCE_UPDATED, limit=1, newest_first=True)[0]
    assert updated.payload["previous"]["strain"] == pytest.approx(decayed_strain)
