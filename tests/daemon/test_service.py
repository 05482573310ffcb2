"""The Daemon's tick and maintenance on a FakeClock and small fakes (no threads)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from rilai_desktop.config import Settings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.contracts.payloads import ModulatorsDecayed
from rilai_desktop.daemon.decay import EPSILON, HalfLives, decay_affect
from rilai_desktop.daemon.ports import Nudge
from rilai_desktop.daemon.service import Daemon
from tests.daemon.core_fakes import FakeMaintenance, FakeNudges, FakeState, ListSink

START = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)
STRESSED = {"strain": 0.9, "valence": -0.7, "arousal": 0.9}
MODS = {"fatigue": 0.8, "arousal": 0.7}


def _daemon(
    state: FakeState | None = None,
    *,
    sink: ListSink | None = None,
    nudges: FakeNudges | None = None,
    maintenance: FakeMaintenance | None = None,
) -> tuple[Daemon, FakeClock, ListSink, FakeState]:
    clock = FakeClock(START)
    sink = sink or ListSink()
    state = state or FakeState(dict(STRESSED), dict(MODS), START)
    daemon = Daemon(clock, sink, state, Settings(), nudges, maintenance, session_id=lambda: "s")
    return daemon, clock, sink, state


def test_a_tick_emits_the_heartbeat_decays_and_runs_the_nudges() -> None:
    nudges = FakeNudges()
    daemon, clock, sink, state = _daemon(nudges=nudges)
    now = clock.advance(600)
    result = daemon.tick()
    assert [e.kind for e in sink.events] == [EventKind.DAEMON_TICK, EventKind.MODULATORS_DECAYED]
    assert sink.events[0].payload == {"timestamp": now.timestamp()}
    decayed = ModulatorsDecayed.model_validate(sink.events[1].payload)
    assert decayed.elapsed_s == 600
    assert decayed.stance["strain"]["after"] < 0.9
    assert state.stance["strain"] == decayed.stance["strain"]["after"]
    assert state.updated_at == now and result.decayed is sink.events[1]
    assert nudges.runs == [now] and result.errors == [] and daemon.ticks == 1


def test_no_decay_and_no_nudge_while_a_turn_runs_and_no_time_is_lost() -> None:
    nudges = FakeNudges()
    daemon, clock, sink, state = _daemon(nudges=nudges)
    state.running = True
    for _ in range(30):
        clock.advance(60)
        result = daemon.tick()
        assert result.skipped == "turn running"
    assert sink.of(EventKind.MODULATORS_DECAYED) == [] and nudges.runs == []
    assert len(sink.of(EventKind.DAEMON_TICK)) == 30  # the heartbeat goes on
    state.running = False
    clock.advance(60)
    daemon.tick()
    (decayed,) = sink.of(EventKind.MODULATORS_DECAYED)
    assert decayed.payload["elapsed_s"] == 31 * 60  # the whole span since the last update


def test_eight_hours_asleep_is_one_catch_up_tick() -> None:
    daemon, clock, sink, state = _daemon()
    clock.advance(8 * 3600)
    daemon.tick()
    (decayed,) = sink.of(EventKind.MODULATORS_DECAYED)
    assert decayed.payload["elapsed_s"] == 8 * 3600
    expected = decay_affect(STRESSED, MODS, 8 * 3600, HalfLives.from_settings(Settings().daemon))
    assert state.stance == expected.stance_after()
    assert state.modulators == expected.modulators_after()


def test_tiny_moves_are_not_emitted_and_accumulate_from_the_same_reference() -> None:
    near = FakeState({"strain": 0.02}, {}, START)
    daemon, clock, sink, _ = _daemon(near)
    quiet_ticks = 0
    while not sink.of(EventKind.MODULATORS_DECAYED):
        clock.advance(60)
        result = daemon.tick()
        if result.decayed is None:
            assert result.skipped == "below epsilon"
            quiet_ticks += 1
        assert quiet_ticks < 10_000
    assert quiet_ticks > 0
    (decayed,) = sink.of(EventKind.MODULATORS_DECAYED)
    assert decayed.payload["elapsed_s"] == (quiet_ticks + 1) * 60
    assert abs(decayed.payload["stance"]["strain"]["delta"]) >= EPSILON


def test_a_clock_that_went_backwards_changes_nothing() -> None:
    daemon, clock, sink, state = _daemon()
    clock.advance(-3600)
    result = daemon.tick()
    assert result.skipped == "clock behind the last update"
    assert sink.of(EventKind.MODULATORS_DECAYED) == [] and state.applied == []
    assert state.stance == STRESSED


def test_a_turn_that_takes_the_state_mid_tick_drops_that_decay_only() -> None:
    daemon, clock, sink, state = _daemon()
    state.busy_on_apply = True
    clock.advance(600)
    result = daemon.tick()
    assert result.skipped == "a turn took the state"
    assert sink.of(EventKind.MODULATORS_DECAYED) == [] and result.errors == []


@pytest.mark.parametrize(
    ("breaks", "stage"),
    [("nudges", "daemon.nudges"), ("snapshot", "daemon.decay"), ("running", "daemon.turn_running")],
)
def test_an_error_inside_a_job_is_an_error_event_not_a_dead_tick(breaks: str, stage: str) -> None:
    nudges = FakeNudges(fail=breaks == "nudges")
    state = FakeState(dict(STRESSED), dict(MODS), START)
    state.fail_snapshot = breaks == "snapshot"
    state.fail_running = breaks == "running"
    daemon, clock, sink, _ = _daemon(state, nudges=nudges)
    clock.advance(600)
    result = daemon.tick()
    (error,) = sink.of(EventKind.ERROR)
    assert error.payload["stage"] == stage and error.payload["traceback"]
    assert result.errors and result.errors[0].startswith(stage)
    assert sink.events[0].kind is EventKind.DAEMON_TICK
    if breaks == "nudges":
        assert sink.of(EventKind.MODULATORS_DECAYED)  # decay still happened
    if breaks == "snapshot":
        assert nudges.runs  # nudges still ran
    if breaks == "running":  # cannot tell whether a turn runs: behave as if one did
        assert result.skipped == "turn running" and not nudges.runs
    clock.advance(60)
    assert daemon.tick().tick is not None  # the next tick runs normally


def test_a_failing_log_never_raises_out_of_a_tick() -> None:
    sink = ListSink(fail={EventKind.DAEMON_TICK, EventKind.MODULATORS_DECAYED, EventKind.ERROR})
    daemon, clock, _, state = _daemon(sink=sink)
    clock.advance(600)
    result = daemon.tick()
    assert len(result.errors) == 2 and result.tick is None and result.decayed is None
    assert state.applied  # the live state decayed; the log will catch up by elapsed time


def test_the_nudges_a_tick_returns_are_the_runners() -> None:
    nudge = Nudge("strain_silence", "strain then silence", "How are you?", 3, {}, START)
    daemon, clock, _, _ = _daemon(nudges=FakeNudges(give=[nudge]))
    assert daemon.tick(clock.advance(60)).nudges == [nudge]


def test_an_explicit_now_must_be_aware_and_is_used() -> None:
    daemon, _, sink, _ = _daemon()
    at = START + timedelta(hours=1)
    assert daemon.tick(at).at == at
    assert sink.events[0].payload["timestamp"] == at.timestamp()
    with pytest.raises(ValueError, match="naive"):
        daemon.tick(datetime(2026, 3, 2, 9, 0))


def test_maintenance_pass_runs_reports_and_survives_failure() -> None:
    maintenance = FakeMaintenance()
    daemon, clock, sink, _ = _daemon(maintenance=maintenance)
    assert daemon.maintenance_pass() == {"ok": True, "steps": {}}
    assert maintenance.runs == [START]
    maintenance.fail = True
    report = daemon.maintenance_pass(clock.advance(3600))
    assert "backup folder vanished" in report["error"]
    assert sink.of(EventKind.ERROR)[0].payload["stage"] == "daemon.maintenance"
    bare, _, _, _ = _daemon()
    assert bare.maintenance_pass() == {"skipped": "no maintenance runner"}


def test_close_runs_every_closer_once_even_if_one_fails() -> None:
    daemon, _, _, _ = _daemon()
    closed: list[str] = []

    def broken() -> None:
        raise OSError("already closed")

    daemon.on_close(lambda: closed.append("first"))
    daemon.on_close(broken)
    daemon.on_close(lambda: closed.append("last"))
    daemon.close()
    daemon.close()
    assert closed == ["last", "first"]
