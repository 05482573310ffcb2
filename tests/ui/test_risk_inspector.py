"""The conversation's safety risk (issue 27 item 1): the inspector's "Conversation risk" on
the Sensors tab and the one sentence of the "Why?" panel, fed fake events (pytest-qt,
offscreen) — a protective turn, a careful one, a quiet one, and an older event that
carries no ``risk``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.app.explain import TurnExplanation
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector import Inspector
from rilai_desktop.ui.inspector.risk import (
    WORRIED,
    TurnRisk,
    bank_words,
    check_words,
    read_risk,
    turn_risk,
    why_sentence,
)
from rilai_desktop.ui.why_panel import WhyPanel

K = EventKind
SENSORS = {"safety_risk": 0.62, "vulnerability": 0.71}
BANK_NOTE = 'check yes 2; bank grey +0.12 r0.05 ≈ "I want to jump off the bridge near my'


def _risk(**fields: Any) -> dict[str, Any]:
    risk: dict[str, Any] = {
        "level": 0.0,
        "careful_left": 0,
        "distress": 0.0,
        "protected_ago": None,
        "at": 1_700_000_000.0,
        "turn_risk": 0.0,
        "careful": False,
        "protect": False,
        "situation": [],
        "reasons": [],
        "before": {"level": 0.0, "careful_left": 0, "distress": 0.0, "protected_ago": None},
    }
    risk.update(fields)
    return risk


PROTECT = _risk(
    level=0.62,
    careful_left=6,
    distress=0.9,
    protected_ago=0,
    turn_risk=0.6,
    careful=True,
    protect=True,
    situation=["safety_means", "safety_presence"],
    reasons=["a question about means after distress", "asks Rilai to stay, after a disclosure"],
    before={"level": 0.3, "careful_left": 3, "distress": 0.6, "protected_ago": None},
)
CAREFUL = _risk(
    level=0.41,
    careful_left=4,
    distress=0.5,
    protected_ago=2,
    turn_risk=0.04,
    careful=True,
    reasons=["careful: 5 turn(s) left after a disclosure"],
    before={"level": 0.48, "careful_left": 5, "distress": 0.6, "protected_ago": 1},
)


def _event(kind: EventKind, payload: dict[str, Any], seq: int, turn_id: int = 1) -> EngineEvent:
    return EngineEvent(
        session_id="s",
        turn_id=turn_id,
        seq=seq,
        ts_monotonic=100.0 + seq,
        kind=kind,
        payload=payload,
    )


def _turn(
    inspector: Inspector,
    risk: dict[str, Any] | None,
    *,
    turn_id: int = 1,
    notes: dict[str, str] | None = None,
    interrupt: dict[str, Any] | None = None,
) -> None:
    inspector.on_event(_event(K.TURN_STARTED, {"user_input": "hi"}, 0, turn_id))
    payload: dict[str, Any] = {"sensors": SENSORS, "evidence": {"safety_risk": ["the bridge"]}}
    if risk is not None:
        payload["risk"] = risk
    if notes is not None:
        payload["notes"] = notes
    inspector.on_event(_event(K.SENSORS_FAST_UPDATED, payload, 1, turn_id))
    if interrupt is not None:
        inspector.on_event(_event(K.SAFETY_INTERRUPT, interrupt, 2, turn_id))


@pytest.fixture
def inspector(qtbot: QtBot) -> Inspector:
    dock = Inspector()
    qtbot.addWidget(dock)
    dock.resize(520, 640)
    dock.show()
    return dock


# ── the inspector ────────────────────────────────────────────────────────────


def test_a_protective_turn_shows_level_window_situation_reasons_bank_and_check(
    inspector: Inspector,
) -> None:
    interrupt = {
        "reason": "a question about means after distress: protective reply, no agents",
        "sensor": "safety_risk",
        "value": 0.6,
        "careful": True,
        "situation": ["safety_means", "safety_presence"],
        "level": 0.62,
    }
    _turn(inspector, PROTECT, notes={"safety_risk": BANK_NOTE}, interrupt=interrupt)
    box = inspector.sensors.risk_box
    assert box.isVisible() and box.title() == "Conversation risk"
    assert box.level.value() == 62 and box.level.isVisible()
    lines = inspector.sensors.risk_lines()
    assert lines[0] == "level 0.62 · protect this turn"
    assert lines[1] == "careful: 6 turns left · this message 0.60 · level before 0.30"
    assert lines[2] == "situation: means after distress; asked Rilai to stay"
    assert lines[3:5] == [
        "• a question about means after distress",
        "• asks Rilai to stay, after a disclosure",
    ]
    assert lines[5] == (
        "bank: in the grey band (margin +0.12, rules 0.05), "
        "nearest “I want to jump off the bridge near my…”"
    )
    assert lines[6] == "model check: risk, severity 2"
    text = inspector.sensors.interrupt.text()
    assert text.startswith("Safety interrupt: a question about means after distress")
    assert text.endswith(
        "(safety_risk 0.60) — means after distress, asked Rilai to stay; level 0.62"
    )
    assert {r[0] for r in inspector.sensors.rows()} == set(SENSORS)  # the readings are still there


def test_a_careful_turn_says_how_many_careful_turns_are_left(inspector: Inspector) -> None:
    _turn(inspector, CAREFUL)
    lines = inspector.sensors.risk_lines()
    assert lines[:2] == [
        "level 0.41 · careful this turn",
        "careful: 4 turns left · this message 0.04 · level before 0.48",
    ]
    assert "• careful: 5 turn(s) left after a disclosure" in lines
    assert not any(line.startswith(("bank:", "model check:", "situation:")) for line in lines)
    assert not inspector.sensors.interrupt.isVisible()


def test_no_concern_stays_quiet(inspector: Inspector) -> None:
    _turn(inspector, _risk(), notes={"safety_risk": "check no"})
    assert inspector.sensors.risk_lines() == ["no safety concern"]
    box = inspector.sensors.risk_box
    assert box.isVisible()
    assert not box.level.isVisible() and not box.verdict.isVisible()
    # a level left from earlier turns is not quiet, even on a turn that is not careful
    _turn(inspector, _risk(level=0.2, before={"level": 0.24}), turn_id=2)
    assert inspector.sensors.risk_lines() == [
        "level 0.20 · not careful this turn",
        "not careful · this message 0.00 · level before 0.24",
    ]


def test_an_old_event_without_risk_shows_nothing_and_breaks_nothing(
    inspector: Inspector,
) -> None:
    old_interrupt = {"reason": "safety_risk over threshold", "sensor": "safety_risk", "value": 0.7}
    _turn(inspector, None, interrupt=old_interrupt)
    assert not inspector.sensors.risk_box.isVisible()
    assert inspector.sensors.risk_lines() == []
    assert inspector.sensors.interrupt.text() == (
        "Safety interrupt: safety_risk over threshold (safety_risk 0.70)"
    )
    assert {r[0] for r in inspector.sensors.rows()} == set(SENSORS)


def test_a_new_turn_does_not_keep_a_stale_risk(inspector: Inspector) -> None:
    _turn(inspector, PROTECT)
    # the seed's ensemble kind is never emitted (issue 31): the panel does not read it
    assert K.SENSORS_ENSEMBLE_UPDATED not in inspector.sensors.kinds
    assert inspector.sensors.risk_lines()[0].startswith("level 0.62 · protect")
    _turn(inspector, None, turn_id=2)  # the next turn, from an older log
    assert not inspector.sensors.risk_box.isVisible()
    assert inspector.sensors.risk_lines() == []


@pytest.mark.parametrize(
    "risk",
    [
        None,
        "high",
        [0.5],
        {"level": "x"},
        {"level": float("nan")},
        {
            "level": 0.5,
            "careful_left": "many",
            "careful": "yes",
            "protect": 1,
            "situation": "safety_repeat",
            "reasons": None,
            "before": [],
            "turn_risk": {},
        },
    ],
    ids=range(6),
)
def test_an_odd_risk_payload_never_raises(inspector: Inspector, risk: object) -> None:
    payload = {"sensors": SENSORS, "risk": risk, "notes": "not a mapping"}
    inspector.on_event(_event(K.TURN_STARTED, {"user_input": "hi"}, 0))
    # as an older (or broken) log might hold it: the payload is not validated
    odd = EngineEvent.model_construct(
        session_id="s",
        turn_id=1,
        seq=1,
        ts_monotonic=101.0,
        kind=K.SENSORS_FAST_UPDATED,
        payload=payload,
        schema_version=1,
    )
    inspector.on_event(odd)
    lines = inspector.sensors.risk_lines()
    assert lines == [] or lines[0].startswith("level 0.50 · not careful this turn")


def test_every_risk_control_has_an_accessible_name(inspector: Inspector) -> None:
    _turn(inspector, PROTECT, notes={"safety_risk": BANK_NOTE})
    box = inspector.sensors.risk_box
    for widget in [box, *box.findChildren(QWidget)]:
        assert widget.accessibleName(), widget.objectName()


# ── the words ────────────────────────────────────────────────────────────────


def test_the_why_sentence_is_plain_and_has_no_number_but_the_turns_left() -> None:
    protect = read_risk({"risk": PROTECT})
    careful = read_risk({"risk": CAREFUL})
    assert protect is not None and careful is not None
    assert why_sentence(protect) == (
        "I answered with support because you asked about something that could hurt you "
        "soon after telling me things were hard, and you asked me to stay with you "
        "(careful: 6 turns left)."
    )
    assert why_sentence(careful) == (
        "Careful: you told me earlier that things were hard (4 turns left)."
    )
    added_up = read_risk(
        {
            "risk": _risk(
                level=0.41, careful_left=6, careful=True, reasons=["weak signals added up to 0.41"]
            )
        }
    )
    assert added_up is not None
    sentence = why_sentence(added_up)
    assert sentence == "Careful: a few small things you said added up (6 turns left)."
    for risk in (protect, careful, added_up):
        assert re.findall(r"\d+(?:\.\d+)?", why_sentence(risk)) == [str(risk.careful_left)]
    # a turn that was neither careful nor protective, an older turn: nothing to say
    assert why_sentence(read_risk({"risk": _risk(level=0.2)})) == ""
    assert why_sentence(None) == ""


def test_a_reason_without_words_is_said_kindly_and_without_its_numbers() -> None:
    odd = TurnRisk(0.5, 2, 0.5, True, False, (), ("a new rule at 0.44",), None)
    assert why_sentence(odd) == f"Careful: {WORRIED} (2 turns left)."
    last = TurnRisk(0.4, 0, 0.4, True, False, (), (), None)  # careful, no reason, window over
    assert why_sentence(last) == "Careful: what you said sounded heavy (the last careful turn)."


def test_the_bank_and_check_notes_in_words() -> None:
    assert bank_words('bank hit +0.31 r0.20 ≈ "no reason to go on"') == (
        "close to a risk example (margin +0.31, rules 0.20), nearest “no reason to go on”"
    )
    assert bank_words("bank weak -0.02 r0.10") == "near a risk example (margin −0.02, rules 0.10)"
    assert bank_words("in context: stays with the earlier disclosure") == ""
    assert check_words("check no; bank grey +0.05 r0.00") == "no risk"
    assert check_words("check yes 3") == "risk, severity 3"
    assert check_words("") == ""


def test_turn_risk_reads_the_turns_fast_sensors_event() -> None:
    events = [
        _event(K.TURN_STARTED, {"user_input": "hi"}, 0),
        _event(K.SENSORS_FAST_UPDATED, {"sensors": SENSORS, "risk": CAREFUL}, 1),
    ]
    found = turn_risk(events)
    assert found is not None and found.careful_left == 4 and not found.protect
    assert turn_risk(events[:1]) is None
    assert turn_risk([_event(K.SENSORS_FAST_UPDATED, {"sensors": SENSORS}, 1)]) is None


# ── the "Why?" panel ─────────────────────────────────────────────────────────


class FakeBridge(QObject):
    """What WhyPanel listens to; ``explain_turn`` answers as the real bridge does: the
    risk first, then the explanation."""

    explained = Signal(object)
    explained_risk = Signal(str, int, object)
    memory_changed = Signal(str, object)
    memory_failed = Signal(str, str)

    def __init__(self, risk: dict[str, Any] | None) -> None:
        super().__init__()
        self.risk = risk

    def explain_turn(self, session_id: str, turn_id: int) -> None:
        payload: dict[str, Any] = {"sensors": SENSORS}
        if self.risk is not None:
            payload["risk"] = self.risk
        events = [_event(K.SENSORS_FAST_UPDATED, payload, 1, turn_id)]
        self.explained_risk.emit(session_id, turn_id, turn_risk(events))
        self.explained.emit(TurnExplanation(session_id, turn_id, user_text="hi", reply="I'm here."))

    def memory_action(self, name: str, *args: object) -> None:  # pragma: no cover
        pass


def _why(qtbot: QtBot, risk: dict[str, Any] | None) -> WhyPanel:
    panel = WhyPanel(FakeBridge(risk))  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show_turn("s", 3)
    qtbot.waitUntil(lambda: panel.explanation is not None, timeout=5_000)
    return panel


def test_the_why_panel_says_why_a_protective_turn_answered_with_support(qtbot: QtBot) -> None:
    panel = _why(qtbot, PROTECT)
    assert panel.careful_text().startswith(
        "I answered with support because you asked about something that could hurt you"
    )
    assert panel.careful_text().endswith("(careful: 6 turns left).")
    assert panel.section_titles()[0] == "This turn"


def test_the_why_panel_says_a_careful_turn_is_careful(qtbot: QtBot) -> None:
    panel = _why(qtbot, CAREFUL)
    assert panel.careful_text() == (
        "Careful: you told me earlier that things were hard (4 turns left)."
    )
    body = panel.area.widget()
    assert body is not None
    label = body.findChild(QWidget, "why-careful")
    assert label is not None and label.accessibleName().startswith("Why Rilai was careful:")


@pytest.mark.parametrize("risk", [None, _risk(level=0.1)], ids=["old turn", "not careful"])
def test_the_why_panel_says_nothing_for_other_turns(qtbot: QtBot, risk: Any) -> None:
    panel = _why(qtbot, risk)
    assert panel.careful_text() == ""
    assert panel.risk is None or not panel.risk.careful
    assert panel.section_titles()[:2] == ["This turn", "Memories in Rilai's notes for this reply"]


def test_a_risk_read_for_another_turn_is_not_used(qtbot: QtBot) -> None:
    bridge = FakeBridge(PROTECT)
    panel = WhyPanel(bridge)  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.show_turn("s", 3)
    qtbot.waitUntil(lambda: panel.explanation is not None, timeout=5_000)
    bridge.risk = None
    bridge.explained_risk.emit("s", 9, read_risk({"risk": PROTECT}))  # a late answer
    panel.show_turn("s", 4)
    qtbot.waitUntil(
        lambda: panel.explanation is not None and panel.explanation.turn_id == 4, timeout=5_000
    )
    assert panel.careful_text() == ""
