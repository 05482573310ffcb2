"""Cooldowns, episodes and the budget live in the REAL event log: they survive a restart
(a new engine over the reopened log) and nothing fires twice."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rilai_desktop.app.nudge_facts import LogFacts
from rilai_desktop.config import NudgeSettings
from rilai_desktop.contracts import EngineEvent, EventKind, EventSink
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.delivery import RecordingDelivery
from rilai_desktop.daemon.nudges.budget import Budget
from rilai_desktop.daemon.nudges.controls import NudgeControls
from rilai_desktop.daemon.nudges.engine import NudgeEngine
from rilai_desktop.daemon.nudges.history import read_history
from rilai_desktop.store import EventLog
from tests.daemon.nudge_fakes import TZ, LogSink, at

SID = "s-restart"


class WallClockSink:
    """A sink that stamps the REAL time (as a careless adapter would) under a fake clock."""

    def __init__(self, log: EventLog) -> None:
        self.log = log

    def append(
        self,
        session_id: str,
        turn_id: int,
        kind: EventKind | str,
        payload: Mapping[str, Any] | None = None,
    ) -> EngineEvent:
        return self.log.append(session_id, turn_id, kind, payload)


def strained_turn(log: EventLog, n: int, when: datetime) -> None:
    log.append(SID, n, EventKind.TURN_STARTED, {"user_input": "I can't cope"}, ts_wall=when)
    log.append(
        SID, n, EventKind.SENSORS_FAST_UPDATED, {"sensors": {"vulnerability": 0.9}}, ts_wall=when
    )
    log.append(SID, n, EventKind.TURN_COMPLETED, {"total_time_ms": 900}, ts_wall=when)


def engine(
    log: EventLog, clock: FakeClock, tmp_path: Path, sink: EventSink | None = None
) -> NudgeEngine:
    return NudgeEngine(
        clock,
        sink or LogSink(log, clock, SID),
        LogFacts(log, None, clock),
        NudgeSettings(),
        RecordingDelivery(),
        log,
        NudgeControls.in_data_dir(tmp_path, tz=TZ),
        session_id=lambda: SID,
        tz=TZ,
    )


def nudges_in(log: EventLog) -> list[EngineEvent]:
    return log.events(kind=EventKind.PROACTIVE_NUDGE)


def test_cooldowns_and_episodes_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "rilai.db"
    clock = FakeClock(at("10:00"))
    with EventLog(db) as log:
        strained_turn(log, 1, at("09:00"))
        (first,) = engine(log, clock, tmp_path).run(at("10:00"))
        assert first.condition == "strain_silence" and first.level == 3
    with EventLog(db) as log:  # the app restarted
        again = engine(log, clock, tmp_path)
        for minutes in range(1, 400, 13):
            assert again.run(at("10:00") + timedelta(minutes=minutes)) == []
        strained_turn(log, 2, at("10:30"))  # a new episode, within the cooldown
        assert again.run(at("11:30")) == []
        assert len(nudges_in(log)) == 1  # nothing fired twice
    with EventLog(db) as log:  # and again, after the cooldown
        (later,) = engine(log, clock, tmp_path).run(at("16:00"))
        assert later.condition == "strain_silence"
        assert len(nudges_in(log)) == 2


def test_the_spent_budget_is_rebuilt_from_the_log(tmp_path: Path) -> None:
    db = tmp_path / "rilai.db"
    clock = FakeClock(at("10:00"))
    with EventLog(db) as log:
        strained_turn(log, 1, at("09:00"))
        engine(log, clock, tmp_path).run(at("10:00"))
    with EventLog(db) as log:
        budget = Budget.at(read_history(log), at("10:30"), 3, 12)
        assert (budget.spent_hour, budget.spent_day) == (1, 1)
        later = Budget.at(read_history(log), at("11:01"), 3, 12)
        assert (later.spent_hour, later.spent_day) == (0, 1)


def test_the_decision_time_not_the_sinks_stamp_drives_cooldowns(tmp_path: Path) -> None:
    clock = FakeClock(at("10:00"))
    with EventLog(tmp_path / "rilai.db") as log:
        strained_turn(log, 1, at("09:00"))
        eng = engine(log, clock, tmp_path, sink=WallClockSink(log))
        assert len(eng.run(at("10:00"))) == 1
        (record,) = read_history(log)
        assert record.at == at("10:00")  # the context's "at", not today's wall clock
        strained_turn(log, 2, at("10:30"))
        assert eng.run(at("11:30")) == []  # cooling down in fake time
