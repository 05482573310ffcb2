"""The Inspector dock, fed the events of real turns run on scripted models (the turn
runner, the real EventLog in tmp_path, the in-memory turn memory)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM, agent_answer
from rilai_desktop.store import EventLog
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from rilai_desktop.turn.model_events import ModelEventRelay
from rilai_desktop.turn.runner import TurnRunner
from rilai_desktop.ui.inspector import Inspector
from tests.turn.conftest import PROMPTS

FIRST = "Hi, long day at work on night shifts."
SECOND = "I am stressed and anxious about my job search."
VOICE_REPLY = "That sounds like a full day."


@dataclass
class Turns:
    log: EventLog
    runner: TurnRunner
    streamed: list[list[EngineEvent]]  # per turn, the events as the stream delivered them

    def run(self, text: str) -> list[EngineEvent]:
        events: list[EngineEvent] = []
        self.runner.run_turn(
            text, lambda u: events.append(u) if isinstance(u, EngineEvent) else None
        )
        self.streamed.append(events)
        return events

    def logged(self, turn_id: int) -> list[EngineEvent]:
        return self.log.replay_turn(self.runner.session_id, turn_id)


@pytest.fixture
def turns(tmp_path: Path) -> Iterator[Turns]:
    log = EventLog(tmp_path / "rilai.db")
    voice = ScriptedLLM(default=VOICE_REPLY, model_id="medium")
    models = RoleModels(
        voice,
        {
            "agents": ScriptedLLM(default=agent_answer(), model_id="small"),
            "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
            "voice": voice,
            "escalation": ScriptedLLM(default=VOICE_REPLY, model_id="large"),
        },
    )
    memory = InMemoryTurnMemory(
        facts=[{"fact": "They work night shifts as a nurse"}],
        threads=[{"title": "the job search"}],
    )
    runner = build_turn_runner(
        events=log,
        models=models,
        memory=memory,
        prompts=PROMPTS,
        relay=ModelEventRelay(),
        use_judge=False,
    )
    yield Turns(log, runner, [])
    log.close()


@pytest.fixture
def inspector(qtbot: QtBot) -> Inspector:
    dock = Inspector()
    qtbot.addWidget(dock)
    dock.resize(520, 640)
    return dock


def _payload(events: list[EngineEvent], kind: EventKind) -> dict[str, Any]:
    return next(e.payload for e in events if e.kind is kind)


def test_every_panel_shows_what_the_turn_said(inspector: Inspector, turns: Turns) -> None:
    events = turns.run(FIRST)
    for event in events:
        inspector.on_event(event)
    assert inspector.turn_id == 1
    assert "Turn 1" in inspector.header.text() and "done in" in inspector.header.text()

    sensors = _payload(events, EventKind.SENSORS_FAST_UPDATED)["sensors"]
    rows = inspector.sensors.rows()
    assert [r[0] for r in rows] == list(sensors)  # the canonical sensor order
    assert {r[0]: float(r[1]) for r in rows} == pytest.approx(sensors, abs=0.005)

    stance = _payload(events, EventKind.STANCE_UPDATED)
    dims = {d.name: d for d in inspector.stance.dimensions()}
    assert len(dims) == 8
    for name, value in stance["current"].items():
        assert dims[name].current == pytest.approx(value)
        assert dims[name].delta == pytest.approx(stance["delta"].get(name, 0.0))
    modulators = _payload(events, EventKind.MODULATORS_UPDATED)
    assert [r[0] for r in inspector.stance.modulator_rows()] == list(modulators["current"])

    completed = [e.payload for e in events if e.kind is EventKind.AGENT_COMPLETED]
    agent_rows = inspector.agents.rows()
    assert [r[0] for r in agent_rows] == [p["agent_id"] for p in completed]
    for row, done in zip(agent_rows, completed, strict=True):
        assert row[1] == str(done["wave"])
        assert row[2] == f"{done['urgency']}/{done['confidence']}"
        assert row[3].endswith("ms") and row[4] == done["label"]
        assert row[5] == done["observation"]

    claims = [c["text"] for p in completed for c in p["claims"]]
    assert [r[0] for r in inspector.deliberation.claim_rows()] == claims
    rounds = inspector.deliberation.round_lines()
    assert rounds[0].startswith("Round 0 | 1.00") and "consensus>=0.9" in rounds[0]
    assert inspector.deliberation.consensus.text().startswith("Consensus: 1.00")

    decision = _payload(events, EventKind.COUNCIL_DECISION_MADE)
    assert inspector.council.text("speak") == "yes"
    assert inspector.council.text("intent") == decision["intent"] == "observe"
    assert inspector.council.text("tone") == "warm"
    for point in decision["do_not"]:
        assert point in inspector.council.text("do_not")
    assert inspector.council.text("decided_by") == "model: model → observe, warm"

    critics = _payload(events, EventKind.CRITICS_UPDATED)["results"]
    lines = inspector.critics.lines()
    assert lines[0] == f"Attempt 0 · medium — all {len(critics)} passed"
    assert lines[1] == f"  reply: “{VOICE_REPLY}”"
    assert [line.split(" | ")[0].strip() for line in lines[2:]] == [c["critic"] for c in critics]
    assert all(" | pass | " in line for line in lines[2:])

    memory = inspector.memory.lines()
    assert memory[0].startswith("Recalled")
    assert "  User facts (1)" in memory and "    They work night shifts as a nurse" in memory
    assert "  Open threads (1)" in memory and "    the job search" in memory
    committed = memory.index("Committed")
    assert "  facts new | 1" in memory[committed:]

    stage_ms = _payload(events, EventKind.TURN_COMPLETED)["stage_ms"]
    stages = inspector.timing.stage_rows()
    assert [r[0] for r in stages] == list(stage_ms)
    assert all(r[1].endswith("ms") for r in stages)
    tokens = _payload(events, EventKind.TURN_COMPLETED)["tokens"]
    token_rows = {r[0]: r[1:] for r in inspector.timing.token_rows()}
    for role, counts in tokens.items():
        assert token_rows[role] == [str(counts[k]) for k in ("prompt", "cached", "completion")]


def test_agent_rows_appear_when_started_and_fill_when_completed(
    inspector: Inspector, turns: Turns
) -> None:
    events = turns.run(FIRST)
    seen_running = 0
    for event in events:
        inspector.on_event(event)
        if event.kind is EventKind.AGENT_STARTED:
            row = inspector.agents.rows()[-1]
            assert row[0] == event.payload["agent_id"] and row[5] == "running…"
            assert row[2] == row[3] == ""  # not done: no U/C, no ms yet
            seen_running += 1
        elif event.kind is EventKind.AGENT_COMPLETED:
            row = inspector.agents.rows()[-1]
            assert row[5] == event.payload["observation"]
    assert seen_running >= 6
    assert all(r[5] != "running…" for r in inspector.agents.rows())


def test_stage_times_show_live_before_the_turn_completes(
    inspector: Inspector, turns: Turns
) -> None:
    events = turns.run(FIRST)
    council = next(n for n, e in enumerate(events) if e.payload.get("stage") == "council")
    for event in events[: council + 1]:
        inspector.on_event(event)
    rows = inspector.timing.stage_rows()
    assert rows[-1] == ["council (running)", "…", rows[-1][2]]
    assert [r[0] for r in rows[:-1]] == ["ingest", "sense", "recall", "agents", "deliberate"]
    assert all(r[1].endswith("ms") for r in rows[:-1])


def test_a_new_turn_clears_the_panels_and_critic_attempts_are_listed(
    inspector: Inspector, turns: Turns
) -> None:
    turns.run(FIRST)
    second = turns.run(SECOND)  # the same scripted reply: the coherence critic fails it
    for event in turns.streamed[0] + second:
        inspector.on_event(event)
    assert inspector.turn_id == 2
    assert "anxious" in inspector.header.text()
    sensors = {r[0]: r for r in inspector.sensors.rows()}
    assert "“anxious”" in sensors["vulnerability"][2]  # the evidence span
    agents = [r[0] for r in inspector.agents.rows()]
    assert agents == [e.payload["agent_id"] for e in second if e.kind is EventKind.AGENT_STARTED]
    attempts = [line for line in inspector.critics.lines() if line.startswith("Attempt")]
    checked = [e.payload for e in second if e.kind is EventKind.CRITICS_UPDATED]
    assert len(attempts) == len(checked) >= 2
    assert "1 failed" in attempts[0]
    assert any(
        "coherence | FAIL | [error] repeats an earlier reply" in line.strip()
        for line in inspector.critics.lines()
    )
    assert "User facts" not in "\n".join(inspector.memory.lines())  # turn 1's recall is gone


def test_show_turn_replays_an_earlier_turn_from_the_log(
    inspector: Inspector, turns: Turns, qtbot: QtBot
) -> None:
    turns.run(FIRST)
    turns.run(SECOND)
    for event in turns.streamed[1]:
        inspector.on_event(event)
    live_first = Inspector()
    qtbot.addWidget(live_first)
    for event in turns.streamed[0]:
        live_first.on_event(event)

    with qtbot.waitSignal(inspector.turn_changed) as shown:
        inspector.show_turn(turns.logged(1))
    assert shown.args == [1] and inspector.turn_id == 1
    assert "(from the log)" in inspector.header.text()
    assert inspector.agents.rows() == live_first.agents.rows()
    assert inspector.sensors.rows() == live_first.sensors.rows()
    assert inspector.council.text("key_points") == live_first.council.text("key_points")
    assert inspector.critics.lines() == live_first.critics.lines()
    assert inspector.memory.lines() == live_first.memory.lines()
    assert [r[0] for r in inspector.timing.stage_rows()] == [
        r[0] for r in live_first.timing.stage_rows()
    ]
    # a live turn starting takes the inspector back to it
    for event in turns.run("One more thing."):
        inspector.on_event(event)
    assert inspector.turn_id == 3 and "(from the log)" not in inspector.header.text()


def test_events_of_other_turns_and_the_daemon_are_ignored(
    inspector: Inspector, turns: Turns
) -> None:
    first = turns.run(FIRST)
    second = turns.run(SECOND)
    for event in second:
        inspector.on_event(event)
    before = inspector.agents.rows()
    late = next(e for e in first if e.kind is EventKind.AGENT_COMPLETED)
    inspector.on_event(late)  # a straggler from turn 1
    inspector.on_event(_odd(EventKind.MODULATORS_UPDATED, {"current": {"x": 1}}, turn_id=0))
    assert inspector.agents.rows() == before and inspector.turn_id == 2
    assert "x" not in [r[0] for r in inspector.stance.modulator_rows()]


def test_model_calls_are_listed_with_their_cached_tokens(inspector: Inspector) -> None:
    inspector.on_event(_odd(EventKind.TURN_STARTED, {"user_input": "hi"}, seq=0))
    call = {
        "model": "small",
        "prompt_tokens": 120,
        "completion_tokens": 9,
        "latency_ms": 340,
        "cached_prompt_tokens": 100,
        "caller": "agent:emotion.stress",
    }
    inspector.on_event(_odd(EventKind.MODEL_CALL_COMPLETED, call, seq=1))
    assert inspector.timing.call_rows() == [
        ["agent:emotion.stress", "small", "120", "100", "9", "340 ms"]
    ]


def _odd(kind: EventKind, payload: Any, *, turn_id: int = 1, seq: int = 5) -> EngineEvent:
    """An event as an older (or broken) log might hold it: the payload is not validated."""
    return EngineEvent.model_construct(
        session_id="s",
        turn_id=turn_id,
        seq=seq,
        ts_monotonic=100.0 + seq,
        kind=kind,
        payload=payload,
        schema_version=1,
    )


ODD_PAYLOADS: list[Any] = [
    {},
    None,
    [],
    "text",
    {"sensors": "loud", "evidence": [1, 2]},
    {"sensors": {"vulnerability": "high", "new_sensor": 7, "ambiguity": float("nan")}},
    {"agent_id": None, "wave": "first", "urgency": "3", "confidence": [], "claims": "many"},
    {"claims": [None, {"text": 5}, {"id": 3, "text": "ok", "supports": "x"}]},
    {"delta": [1], "current": {"valence": "-0.2", "safety": None}, "previous": 3},
    {"changes": None, "current": {"fatigue": "tired"}, "source_agents": []},
    {"round": "two", "consensus": "most", "contested": [None, 4], "followups": "a"},
    {"level": None, "by_type": {"observation": "x"}},
    {"speak": "maybe", "key_points": "one", "do_not": [None], "reasons": 3, "used_model": 1},
    {"agent_influence": {"by_agent": {"a": None, "b": {"decision": True}}}},
    {"results": [None, "fine", {"critic": None, "passed": "yes"}], "attempt": -2},
    {"episodes": "none", "user_facts": [None, {}, {"fact": 3}], "knowledge": [{"kb": 1}]},
    {"summary": ["a"], "candidates": {"x": 1}, "importance": "big"},
    {"stage": None, "stage_ms": {"voice": "slow"}, "tokens": {"voice": None, "x": 3}},
    {"total_time_ms": -5, "tokens": []},
    {"text": None, "attempt": "last", "replaced_because": 5, "model": 7},
    {"reason": None, "sensor": 3, "value": "high"},
]


@pytest.mark.parametrize("payload", ODD_PAYLOADS, ids=range(len(ODD_PAYLOADS)))
def test_odd_payloads_do_not_raise(
    inspector: Inspector, payload: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="rilai_desktop.ui.inspector.dock")
    kinds = sorted({k for panel in inspector.panels for k in panel.kinds}, key=str)
    inspector.on_event(_odd(EventKind.TURN_STARTED, payload, seq=0))
    for seq, kind in enumerate([*kinds, *kinds], start=1):  # twice: after the first
        inspector.on_event(_odd(kind, payload, seq=seq))
    assert inspector.turn_id == 1
    assert caplog.records == []  # no panel needed the dock's safety net


def test_every_focusable_control_has_an_accessible_name(inspector: Inspector, turns: Turns) -> None:
    for event in turns.run(FIRST):
        inspector.on_event(event)
    assert inspector.objectName() == "inspector"
    assert inspector.accessibleName() == "Inspector"
    nameless = [
        f"{type(w).__name__} {w.objectName()!r}"
        for w in inspector.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and not w.accessibleName()
    ]
    assert nameless == []
    assert inspector.toggleViewAction().shortcut().toString() == "Ctrl+I"


def test_a_screenshot_of_the_dock(inspector: Inspector, turns: Turns, tmp_path: Path) -> None:
    turns.run(FIRST)
    for event in turns.run(SECOND):
        inspector.on_event(event)
    inspector.show()
    for index in range(inspector.tabs.count()):
        inspector.tabs.setCurrentIndex(index)
        image = inspector.grab()
        assert not image.isNull()
        assert image.save(str(tmp_path / f"inspector-{index}.png"))


def test_a_panel_that_fails_is_logged_and_the_others_go_on(
    inspector: Inspector, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="rilai_desktop.ui.inspector.dock")

    def broken(_event: EngineEvent) -> None:
        raise RuntimeError("a bug in one panel")

    monkeypatch.setattr(inspector.stance, "handle", broken)
    inspector.on_event(_odd(EventKind.TURN_STARTED, {"user_input": "hi"}, seq=0))
    inspector.on_event(_odd(EventKind.STANCE_UPDATED, {"delta": {}, "current": {}}, seq=1))
    inspector.on_event(_odd(EventKind.COUNCIL_DECISION_MADE, {"intent": "witness"}, seq=2))
    assert [r.levelname for r in caplog.records] == ["ERROR"]
    assert "the Stance panel could not show stance_updated" in caplog.text
    assert inspector.council.text("intent") == "witness"


def test_a_disclosure_then_small_talk_shows_the_conversations_risk(
    inspector: Inspector, turns: Turns
) -> None:
    """Issue 27 item 1 on real turns: the disclosure is protective, the turns after it
    careful with their window counting down, as the runner logged them."""
    for event in turns.run("I don't think I want to be here anymore."):
        inspector.on_event(event)
    lines = inspector.sensors.risk_lines()
    assert lines[0].endswith("protect this turn") and lines[1].startswith("careful: 6 turns left")
    assert not inspector.sensors.interrupt.isHidden()
    turns.run("I'm just so tired of everything.")  # protective again: a repeat
    for event in turns.run("Anyway, any good recipes for dinner?"):
        inspector.on_event(event)
    lines = inspector.sensors.risk_lines()
    assert lines[0].endswith("· careful this turn") and lines[1].startswith("careful: 5 turns left")
    assert "• careful: 6 turn(s) left after a disclosure" in lines
    assert inspector.sensors.interrupt.isHidden()
    inspector.show_turn(turns.logged(2))  # reopened from the log
    assert "situation: repeat (protective again soon after the last one)" in (
        inspector.sensors.risk_lines()
    )
