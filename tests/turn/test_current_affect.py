"""One projection of the current stance and modulators for the turn, the headless daemon
and the nudge engine (turn/session.current_affect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.store import EventLog
from rilai_desktop.turn.session import current_affect, restore


def test_a_partial_decay_keeps_what_it_did_not_touch_after_a_restart(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "rilai.db")
    log.append("s", 1, EventKind.TURN_STARTED, {"user_input": "hi"})
    log.append(
        "s",
        1,
        EventKind.MODULATORS_UPDATED,
        {"delta": {}, "current": {"arousal": 0.9, "fatigue": 0.8}},
    )
    log.append(
        "s", 1, EventKind.STANCE_UPDATED, {"delta": {}, "current": {"strain": 0.8, "valence": -0.2}}
    )
    log.append("s", 1, EventKind.TURN_COMPLETED, {"total_time_ms": 5, "response": "ok"})
    log.append(  # the daemon decays fatigue and strain only
        "s",
        0,
        EventKind.MODULATORS_DECAYED,
        {
            "elapsed_s": 600.0,
            "modulators": {"fatigue": {"before": 0.8, "after": 0.5, "delta": -0.3}},
            "stance": {"strain": {"before": 0.8, "after": 0.7, "delta": -0.1}},
        },
    )
    affect = current_affect(log)
    assert affect.modulators == {"arousal": 0.9, "fatigue": 0.5}
    assert affect.stance == {"strain": 0.7, "valence": -0.2}
    assert affect.stance_event is not None
    assert affect.stance_event.kind is EventKind.MODULATORS_DECAYED  # the newest
    state = restore(log, "s")  # the turn after a restart sees the same
    assert state.modulators.arousal == pytest.approx(0.9)
    assert state.modulators.fatigue == pytest.approx(0.5)
    assert state.stance.strain == pytest.approx(0.7)
    assert state.stance.valence == pytest.approx(-0.2)
    log.close()


def test_an_empty_log_has_no_affect(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "rilai.db")
    affect = current_affect(log)
    assert affect.stance == {} and affect.modulators == {}
    assert affect.stance_event is None and affect.modulator_event is None
    log.close()
