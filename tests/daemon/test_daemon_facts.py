"""LogFacts over a REAL event log (and a tiny goals fake / the real RelationshipMemory)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.app.nudge_facts import LogFacts, goals_from_log
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.ports import EventReader, ThreadFact
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.relationship import RelationshipMemory
from rilai_desktop.store import EventLog
from tests.daemon.nudge_fakes import at

SID = "s-1"


@pytest.fixture
def log(tmp_path: Path) -> Iterator[EventLog]:
    with EventLog(tmp_path / "rilai.db") as event_log:
        yield event_log


def turn(
    log: EventLog,
    n: int,
    when: datetime,
    text: str = "hi",
    *,
    sensors: dict[str, float] | None = None,
    strain: float | None = None,
    complete: bool = True,
    council: dict[str, Any] | None = None,
    sid: str = SID,
) -> None:
    """The events a real turn writes, in the order it writes them (runner.py, waves.py)."""
    log.append(sid, n, EventKind.TURN_STARTED, {"user_input": text, "turn_id": n}, ts_wall=when)
    log.append(sid, n, EventKind.SENSORS_FAST_UPDATED, {"sensors": sensors or {}}, ts_wall=when)
    if strain is not None:
        current = {"strain": strain, "valence": -0.2}
        log.append(
            sid, n, EventKind.STANCE_UPDATED, {"delta": {}, "current": current}, ts_wall=when
        )
    if council is not None:
        base = {"speak": True, "urgency": "medium", "intent": "reflect", "key_points": []}
        log.append(sid, n, EventKind.COUNCIL_DECISION_MADE, {**base, **council}, ts_wall=when)
    if complete:
        done = when + timedelta(seconds=30)
        log.append(sid, n, EventKind.TURN_COMPLETED, {"total_time_ms": 30000}, ts_wall=done)


def test_an_empty_log_knows_nothing(log: EventLog) -> None:
    f = LogFacts(log).facts(at("10:00"))
    assert f.last_user_message_at is None and f.session_started_at is None
    assert f.turns_this_session == 0 and not f.turn_running and not f.rupture_unresolved
    assert f.stance["safety"] == 0.7 and f.modulators["arousal"] == 0.3  # baselines
    assert f.open_threads == [] and f.last_strain == 0.0


def test_the_last_message_and_the_sitting(log: EventLog) -> None:
    turn(log, 1, at("08:00"))  # an earlier sitting
    turn(log, 2, at("09:00"))
    turn(log, 3, at("09:25"))
    turn(log, 4, at("09:50"))
    f = LogFacts(log).facts(at("10:00"))
    assert f.last_user_message_at == at("09:50")
    assert f.session_started_at == at("09:00")  # the 08:00 → 09:00 gap ended a sitting
    assert f.turns_this_session == 3


def test_a_turn_without_its_end_is_running_until_stale(log: EventLog) -> None:
    turn(log, 1, at("09:00"))
    turn(log, 2, at("09:59"), complete=False)
    facts = LogFacts(log)
    assert facts.facts(at("10:00")).turn_running
    assert not facts.facts(at("10:15")).turn_running  # a process that died mid-turn


def test_the_app_may_say_a_turn_is_running(log: EventLog) -> None:
    assert LogFacts(log, turn_running=lambda: True).facts(at("10:00")).turn_running


def test_strain_at_the_last_message_from_stance_or_sensor(log: EventLog) -> None:
    turn(log, 1, at("09:00"), strain=0.3)
    turn(log, 2, at("09:05"), sensors={"vulnerability": 0.85})
    f = LogFacts(log).facts(at("10:00"))
    assert f.last_strain == pytest.approx(0.85)  # the message read as distress
    turn(log, 3, at("09:10"), strain=0.7, sensors={"vulnerability": 0.1})
    assert LogFacts(log).facts(at("10:00")).last_strain == pytest.approx(0.7)


def test_affect_newest_per_dimension_including_decay(log: EventLog) -> None:
    turn(log, 1, at("09:00"), strain=0.8)
    log.append(SID, 1, EventKind.MODULATORS_UPDATED, {"current": {"fatigue": 0.6, "arousal": 0.9}})
    decayed = {
        "elapsed_s": 600.0,
        "modulators": {"fatigue": {"before": 0.6, "after": 0.5, "delta": -0.1}},
        "stance": {"strain": {"before": 0.8, "after": 0.7, "delta": -0.1}},
    }
    log.append(SID, 0, EventKind.MODULATORS_DECAYED, decayed, ts_wall=at("09:10"))
    f = LogFacts(log).facts(at("10:00"))
    assert f.modulators["fatigue"] == pytest.approx(0.5)  # decayed value wins
    assert f.modulators["arousal"] == pytest.approx(0.9)  # not in the decay: the update
    assert f.stance["strain"] == pytest.approx(0.7)
    assert f.stance["valence"] == pytest.approx(-0.2)
    assert f.last_strain == pytest.approx(0.8)  # at the message, before any decay


def test_odd_payloads_are_read_safely(log: EventLog) -> None:
    log.append(SID, 1, EventKind.MODULATORS_UPDATED, {"current": "garbage"})
    log.append(SID, 1, EventKind.MODULATORS_UPDATED, {"current": {"fatigue": True}})
    log.append(SID, 1, EventKind.STANCE_UPDATED, {"delta": {}, "current": {"strain": 7.0}})
    odd = {"elapsed_s": 1.0, "modulators": {"fatigue": {"before": 0.9}}, "stance": {}}
    log.append(SID, 0, EventKind.MODULATORS_DECAYED, odd)
    f = LogFacts(log).facts(at("10:00"))
    assert f.modulators["fatigue"] == 0.0
    assert f.stance["strain"] == 1.0  # clamped
    assert 0.0 <= f.last_strain <= 1.0


def test_rupture_from_the_sensor_and_resolved_by_the_next_message(log: EventLog) -> None:
    turn(log, 1, at("09:00"), sensors={"rupture": 0.96})
    assert LogFacts(log).facts(at("10:00")).rupture_unresolved
    turn(log, 2, at("09:30"), sensors={"rupture": 0.0})
    assert not LogFacts(log).facts(at("10:00")).rupture_unresolved


def test_rupture_from_the_council_meta_rule(log: EventLog) -> None:
    meta = {"intent": "meta", "reasons": ["rupture 0.61 ≥ 0.5 → meta: acknowledge the miss"]}
    turn(log, 1, at("09:00"), council=meta)
    assert LogFacts(log).facts(at("10:00")).rupture_unresolved
    probe = {"intent": "meta", "reasons": ["ai_feelings_probe 0.9 ≥ 0.5 → meta"]}
    turn(log, 2, at("09:10"), council=probe)
    assert not LogFacts(log).facts(at("10:00")).rupture_unresolved


def test_goals_from_a_callable(log: EventLog) -> None:
    thread = ThreadFact("g1", "Report", "goal", at("17:00"))
    assert LogFacts(log, lambda: [thread]).facts(at("10:00")).open_threads == [thread]


def test_goals_from_the_real_companion_memory(log: EventLog) -> None:
    memory = RelationshipMemory(log, HashEmbedder(dimension=16))
    memory.add_goal("Quarterly report", deadline=at("17:00"))
    done = memory.add_goal("Old thing", kind="open_thread")
    memory.close_goal(done.id)
    memory.add_goal("Call the dentist", kind="open_thread")
    facts = LogFacts(log, goals_from_log(log)).facts(at("10:00"))
    assert [(t.title, t.kind) for t in facts.open_threads] == [
        ("Quarterly report", "goal"),
        ("Call the dentist", "open_thread"),
    ]
    assert facts.open_threads[0].deadline == at("17:00")


def test_a_clock_or_a_time_is_needed(log: EventLog) -> None:
    clock = FakeClock(at("10:00"))
    assert LogFacts(log, None, clock).facts().now == at("10:00")
    with pytest.raises(ValueError, match="clock"):
        LogFacts(log).facts()


def test_the_event_log_is_an_event_reader(log: EventLog) -> None:
    turn(log, 1, at("09:00"))
    reader: EventReader = log
    assert [e.kind for e in reader.events(session_id=SID, kind=EventKind.TURN_STARTED)] == [
        EventKind.TURN_STARTED
    ]
    assert reader.events(kind=[EventKind.TURN_COMPLETED], newest_first=True, limit=1)
