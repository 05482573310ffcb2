"""restore() and the daemon: decayed stance/modulators, and nudges the person saw."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.store import EventLog
from rilai_desktop.turn.session import HISTORY_KEEP, restore

T0 = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)


@pytest.fixture
def log(tmp_path: Path) -> Iterator[EventLog]:
    event_log = EventLog(tmp_path / "r.db")
    yield event_log
    event_log.close()


def _decayed(log: EventLog, at: datetime, strain: float, fatigue: float) -> None:
    log.append(
        "s1",
        0,
        EventKind.MODULATORS_DECAYED,
        {
            "elapsed_s": 60.0,
            "stance": {"strain": {"before": 0.9, "after": strain, "delta": strain - 0.9}},
            "modulators": {"fatigue": {"before": 0.8, "after": fatigue, "delta": fatigue - 0.8}},
        },
        ts_wall=at,
    )


def _turn(log: EventLog, turn: int, text: str, reply: str, session: str = "s1") -> None:
    log.append(session, turn, EventKind.TURN_STARTED, {"user_input": text})
    log.append(session, turn, EventKind.TURN_COMPLETED, {"total_time_ms": 5, "response": reply})


def _nudge(log: EventLog, level: int, delivered: Any, text: str, session: str = "s1") -> None:
    log.append(
        session,
        0,
        EventKind.PROACTIVE_NUDGE,
        {
            "reason": "strain then silence",
            "suggestion": text,
            "level": level,
            "context": {"delivered": delivered},
        },
    )


def test_a_newer_decay_wins_over_the_last_turn_update(log: EventLog) -> None:
    log.append(
        "s1",
        1,
        EventKind.STANCE_UPDATED,
        {"delta": {}, "current": {"strain": 0.9, "valence": -0.5}},
        ts_wall=T0,
    )
    log.append(
        "s1",
        1,
        EventKind.MODULATORS_UPDATED,
        {"changes": {}, "current": {"fatigue": 0.8}},
        ts_wall=T0,
    )
    later = T0 + timedelta(hours=2)
    _decayed(log, later, strain=0.4, fatigue=0.3)
    state = restore(log, "s1")
    assert state.stance.strain == pytest.approx(0.4)
    assert state.modulators.fatigue == pytest.approx(0.3)
    assert state.stance.last_update_ts == later.timestamp()
    assert state.modulators.last_update == later


def test_a_turn_after_the_decay_wins_again_and_each_source_is_separate(log: EventLog) -> None:
    _decayed(log, T0, strain=0.4, fatigue=0.3)
    log.append(
        "s1",
        2,
        EventKind.STANCE_UPDATED,
        {"delta": {}, "current": {"strain": 0.7}},
        ts_wall=T0 + timedelta(minutes=5),
    )
    state = restore(log, "s1")
    assert state.stance.strain == pytest.approx(0.7) and state.stance.turn_id == 2
    assert state.modulators.fatigue == pytest.approx(0.3)  # still the decay's
    assert state.modulators.last_update == T0


def test_a_restored_stance_keeps_its_own_time_not_now(log: EventLog) -> None:
    log.append(
        "s1", 1, EventKind.STANCE_UPDATED, {"delta": {}, "current": {"strain": 0.9}}, ts_wall=T0
    )
    assert restore(log, "s1").stance.last_update_ts == T0.timestamp()


def test_inline_nudges_the_person_saw_are_assistant_messages(log: EventLog) -> None:
    _turn(log, 1, "Rough morning.", "That sounds hard.")
    _nudge(log, 3, True, "How are you holding up?")
    _nudge(log, 4, True, "Your report is due in two hours.")
    _nudge(log, 2, True, "shown on next open: not a message")
    _nudge(log, 1, False, "digest only")
    _nudge(log, 3, False, "could not be delivered")
    _nudge(log, 3, "yes", "odd context")
    _nudge(log, 3, True, "another session", session="s2")
    _turn(log, 2, "Better now, thanks.", "Glad to hear it.")
    history = restore(log, "s1").history
    assert [(m["role"], m["content"]) for m in history] == [
        ("user", "Rough morning."),
        ("assistant", "That sounds hard."),
        ("assistant", "How are you holding up?"),
        ("assistant", "Your report is due in two hours."),
        ("user", "Better now, thanks."),
        ("assistant", "Glad to hear it."),
    ]
    assert history[2]["nudge"] is True and history[2]["turn_id"] == 0


def test_odd_nudge_payloads_are_skipped(log: EventLog) -> None:
    for payload in (
        {"reason": "r", "suggestion": "", "level": 3, "context": {"delivered": True}},
        {"reason": "", "suggestion": "  ", "level": 4, "context": {"delivered": True}},
        {"reason": "r", "suggestion": "s", "level": True, "context": {"delivered": True}},
    ):
        log.append("s1", 0, EventKind.PROACTIVE_NUDGE, payload)
    history = restore(log, "s1").history
    assert [m["content"] for m in history] == ["r"]  # the reason stands in for no words


def test_nudges_count_toward_the_history_limit(log: EventLog) -> None:
    for i in range(HISTORY_KEEP + 5):
        _nudge(log, 3, True, f"nudge {i}")
    history = restore(log, "s1").history
    assert len(history) == HISTORY_KEEP and history[-1]["content"] == f"nudge {HISTORY_KEEP + 4}"
