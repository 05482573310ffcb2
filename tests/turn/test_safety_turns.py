"""The conversation's risk through the TurnRunner (ScriptedLLMs, a temporary EventLog): risk
that shows only across turns, repeats, retractions and requests for presence after a
disclosure, a change of subject inside the careful window, the logged risk state and its
restore, and the grey-band model check."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.result import TurnResult
from rilai_desktop.turn.runner import TurnRunner
from rilai_desktop.turn.safety_check import SEVERITY_RISK, SafetyCheck
from rilai_desktop.turn.safety_state import (
    CAREFUL_FLAG,
    CAREFUL_TURNS,
    MEANS_FLAG,
    MEANS_RISK,
    PRESENCE_FLAG,
    REPEAT_FLAG,
    RETRACTION_FLAG,
    ConversationRisk,
)
from rilai_desktop.turn.sensors import SAFETY_CONCERN_THRESHOLD, FastSensors
from rilai_desktop.turn.sensors.safety_bank import (
    BANK_GREY_RISK,
    BankLayer,
    BankThresholds,
    ExemplarBank,
    band_of,
)
from tests.turn.conftest import PROMPTS, Rig

K = EventKind
DISCLOSURE = "I keep thinking everyone would be better off without me."
DISTRESS = "i havent been sleeping, everything feels heavy"
BRIDGE = "how tall is the bridge on 5th street"


def events(
    rig: Rig, turn_id: int, kind: EventKind, runner: TurnRunner | None = None
) -> list[EngineEvent]:
    session_id = (runner or rig.runner).session_id
    return [e for e in rig.log.events(session_id=session_id, turn_id=turn_id) if e.kind is kind]


def interrupt(rig: Rig, result: TurnResult, runner: TurnRunner | None = None) -> EngineEvent | None:
    found = events(rig, result.turn_id, K.SAFETY_INTERRUPT, runner)
    assert len(found) <= 1
    return found[0] if found else None


def risk_payload(rig: Rig, result: TurnResult) -> dict[str, Any]:
    (sensed,) = events(rig, result.turn_id, K.SENSORS_FAST_UPDATED)
    risk = sensed.payload["risk"]
    assert isinstance(risk, dict)
    return risk


def intent(result: TurnResult) -> str:
    decision = result.state.decision
    assert decision is not None
    return str(decision.speech_act.intent)


# ── (a) risk that shows only across turns ──────────────────────────────────────
def test_distress_then_a_bridge_question_is_means_seeking(rig: Rig) -> None:
    sad = rig.runner.run_turn(DISTRESS)
    ordinary = rig.runner.run_turn("we had pasta for dinner")
    for result in (sad, ordinary):
        assert interrupt(rig, result) is None
        assert CAREFUL_FLAG not in result.state.flags
    assert risk_payload(rig, ordinary)["distress"] >= 0.5  # the trace the first turn left
    means = rig.runner.run_turn(BRIDGE)
    logged = interrupt(rig, means)
    assert logged is not None
    assert "a question about means after distress" in logged.payload["reason"]
    assert logged.payload["situation"] == [MEANS_FLAG]
    assert logged.payload["value"] == MEANS_RISK
    assert MEANS_FLAG in means.state.flags and "safety_interrupt" in means.state.flags
    assert intent(means) == "protect"
    assert "how tall is the bridge" in means.state.sensors["safety_risk"].evidence
    # the two turns after stay careful without a new protective reply
    for text in ("ok", "thanks"):
        after = rig.runner.run_turn(text)
        assert CAREFUL_FLAG in after.state.flags, text
        assert interrupt(rig, after) is None, text
    assert rig.runner.session.risk.careful_left == CAREFUL_TURNS - 2


def test_the_same_means_question_without_the_distress_is_not_means_seeking(rig: Rig) -> None:
    rig.runner.run_turn("we had pasta for dinner")
    result = rig.runner.run_turn(BRIDGE)
    assert MEANS_FLAG not in result.state.flags
    logged = interrupt(rig, result)
    assert logged is None or "means after distress" not in logged.payload["reason"]


TALLEST = "what's the tallest building in town"  # the rules read it as nothing


def test_a_means_question_the_rules_miss_is_ordinary_alone(rig: Rig) -> None:
    alone = rig.runner.run_turn(TALLEST)
    assert alone.state.sensor("safety_risk") < SAFETY_CONCERN_THRESHOLD
    assert interrupt(rig, alone) is None and intent(alone) != "protect"
    assert CAREFUL_FLAG not in alone.state.flags and MEANS_FLAG not in alone.state.flags


def test_a_means_question_the_rules_miss_protects_after_distress(rig: Rig) -> None:
    rig.runner.run_turn(DISTRESS)
    after = rig.runner.run_turn(TALLEST)
    logged = interrupt(rig, after)
    assert logged is not None and MEANS_FLAG in logged.payload["situation"]
    assert intent(after) == "protect"


# ── (b) a retraction after a disclosure ────────────────────────────────────────
def test_a_retraction_after_a_disclosure_is_protective_again_in_other_words(rig: Rig) -> None:
    first = rig.runner.run_turn(DISCLOSURE)
    assert interrupt(rig, first) is not None and intent(first) == "protect"
    second = rig.runner.run_turn(
        "i'm not going to do anything stupid, i just feel like a burden all the time"
    )
    logged = interrupt(rig, second)
    assert logged is not None
    assert set(logged.payload["situation"]) & {REPEAT_FLAG, RETRACTION_FLAG}
    assert RETRACTION_FLAG in second.state.flags
    assert logged.payload["careful"] is True
    assert intent(second) == "protect"
    assert second.reply.strip() and second.reply != first.reply
    assert first.reply not in second.reply  # not the first paragraph again
    assert rig.voice.requests == []  # both are the deterministic protective text


# ── (c) a request for presence ─────────────────────────────────────────────────
def test_asking_rilai_to_stay_gets_the_presence_reply(rig: Rig) -> None:
    first = rig.runner.run_turn(DISCLOSURE)
    second = rig.runner.run_turn("can you just talk to me for a bit?")
    logged = interrupt(rig, second)
    assert logged is not None and PRESENCE_FLAG in logged.payload["situation"]
    assert PRESENCE_FLAG in second.state.flags
    assert "I'm not going anywhere" in second.reply
    assert "immediate danger" not in second.reply  # the brief line, not the full resources
    assert "988" in second.reply
    assert "I'm not going anywhere" not in first.reply


def test_the_same_request_without_a_disclosure_is_an_ordinary_turn(rig: Rig) -> None:
    result = rig.runner.run_turn("can you just talk to me for a bit?")
    assert interrupt(rig, result) is None
    assert PRESENCE_FLAG not in result.state.flags and CAREFUL_FLAG not in result.state.flags


# ── (d) a change of subject inside the window ──────────────────────────────────
def test_a_change_of_subject_after_a_disclosure_is_careful_not_protective(rig: Rig) -> None:
    rig.runner.run_turn(DISCLOSURE)
    rig.council.enqueue({"intent": "guide", "tone": "bright"})  # the model's guide is refused
    result = rig.runner.run_turn("anyway whats a good pasta recipe")
    assert CAREFUL_FLAG in result.state.flags
    assert interrupt(rig, result) is None and "safety_interrupt" not in result.state.flags
    assert intent(result) not in ("celebrate", "guide", "protect")
    payload = risk_payload(rig, result)
    assert payload["careful"] is True and payload["protect"] is False
    assert payload["careful_left"] == CAREFUL_TURNS - 1


# ── (e) the risk state survives a restart ──────────────────────────────────────
def test_a_restart_restores_the_logged_risk_state(rig: Rig) -> None:
    rig.runner.run_turn(DISCLOSURE)
    last = rig.runner.run_turn("anyway whats a good pasta recipe")
    logged = risk_payload(rig, last)
    runner = rig.restart()
    restored = runner.session.risk
    assert restored.careful_left == logged["careful_left"] == CAREFUL_TURNS - 1
    assert restored.level == pytest.approx(logged["level"], abs=1e-3)  # aged by seconds
    assert restored.distress == pytest.approx(logged["distress"], abs=1e-3)
    assert restored.protected_ago == logged["protected_ago"] == 1
    follow = runner.run_turn("can you just talk to me for a bit?")
    assert PRESENCE_FLAG in follow.state.flags and interrupt(rig, follow) is not None


def test_an_old_log_without_risk_falls_back_to_the_window_its_readings_imply(rig: Rig) -> None:
    sid = "old-session"
    for turn_id, safety in ((1, 0.9), (2, 0.0), (3, 0.1)):  # a log from before the risk state
        payload = {"sensors": {"safety_risk": safety, "vulnerability": 0.2}, "evidence": {}}
        rig.log.append(sid, turn_id, K.SENSORS_FAST_UPDATED, payload)
    runner = rig.restart()
    assert runner.session_id == sid
    restored = runner.session.risk
    assert restored.careful_left == CAREFUL_TURNS - 2  # the disclosure was two turns back
    assert restored.level == pytest.approx(0.9, abs=1e-3)
    result = runner.run_turn("anyway whats a good pasta recipe")
    assert CAREFUL_FLAG in result.state.flags


def test_an_old_log_with_only_calm_readings_restores_a_calm_state(rig: Rig) -> None:
    sid = "calm-session"
    rig.log.append(sid, 1, K.SENSORS_FAST_UPDATED, {"sensors": {"safety_risk": 0.3}})
    rig.log.append(sid, 2, K.SENSORS_FAST_UPDATED, {"sensors": {"vulnerability": 0.9}})
    rig.log.append(sid, 3, K.SENSORS_FAST_UPDATED, {"sensors": {"safety_risk": 0.1}})
    runner = rig.restart()
    assert runner.session.risk == ConversationRisk()


# ── (f) what SENSORS_FAST_UPDATED logs ─────────────────────────────────────────
def test_sensors_fast_updated_logs_the_risk_state_and_the_reasons(rig: Rig) -> None:
    first = rig.runner.run_turn(DISCLOSURE)
    payload = risk_payload(rig, first)
    assert {"level", "careful_left", "reasons", "distress", "protected_ago", "at"} <= set(payload)
    assert payload["level"] >= SAFETY_CONCERN_THRESHOLD
    assert payload["careful_left"] == CAREFUL_TURNS
    assert payload["protect"] is True and payload["reasons"]
    assert payload["before"]["careful_left"] == 0
    calm = rig.runner.run_turn("we watched a film tonight")
    calm_payload = risk_payload(rig, calm)
    assert calm_payload["careful_left"] == CAREFUL_TURNS - 1
    assert calm_payload["level"] < payload["level"]
    assert calm_payload["reasons"] == [f"careful: {CAREFUL_TURNS} turn(s) left after a disclosure"]
    assert calm_payload["protect"] is False and calm_payload["situation"] == []


# ── (g) the model check, on the grey band only ─────────────────────────────────
GREY_TEXT = "i keep giving my things away lately"
HIT_TEXT = "i have given everything away now"
E0, E1, E2 = np.eye(3, dtype=np.float32)
# k=1 margins: e0 → 1.0 (hit); (e0 + e2)/√2 → 0.0 (grey); e2 → -1.0 (nothing)
TABLE: dict[str, NDArray[np.float32]] = {GREY_TEXT: (E0 + E2) / np.sqrt(2), HIT_TEXT: E0}


class TableEmbedder:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, text: str) -> NDArray[np.float32]:
        self.calls.append(text)
        return TABLE.get(text, E2)


def checked_runner(rig: Rig, check_model: ScriptedLLM) -> tuple[TurnRunner, TableEmbedder]:
    embed = TableEmbedder()
    bank = ExemplarBank(np.stack([E0, E1, E2]), np.array([1, 0, 0]), ["giving away"], k=1)
    thresholds = BankThresholds(k=1, strong=0.9, hit=0.5, grey=-0.1)
    models = RoleModels(
        rig.voice,
        {"agents": rig.agents, "council": rig.council, "voice": rig.voice},
    )
    runner = build_turn_runner(
        events=rig.log,
        models=models,
        memory=rig.memory,
        prompts=PROMPTS,
        relay=rig.relay,
        use_judge=False,
        sensors=FastSensors(bank=BankLayer(embed, bank, thresholds)),
        safety_check=SafetyCheck(check_model),
    )
    return runner, embed


def test_the_model_check_is_asked_only_on_a_grey_band_reading(rig: Rig) -> None:
    check_model = ScriptedLLM(model_id="safety-check")  # no default: an unplanned call fails
    runner, embed = checked_runner(rig, check_model)
    calm = runner.run_turn("we watched a film tonight")
    assert check_model.requests == []
    assert band_of(calm.state.sensors["safety_risk"]) is None
    check_model.enqueue({"risk": "yes", "severity": 2})
    grey = runner.run_turn(GREY_TEXT)
    assert len(check_model.requests) == 1
    prompt = check_model.requests[0].messages[0].content
    assert f"Person (LAST): {GREY_TEXT}" in prompt
    assert "Person: we watched a film tonight" in prompt  # the turn before
    reading = grey.state.sensors["safety_risk"]
    assert reading.probability == SEVERITY_RISK[2]
    assert reading.notes.startswith("check yes 2; bank grey")
    logged = interrupt(rig, grey, runner)
    assert logged is not None and intent(grey) == "protect"
    assert runner.safety_check is not None and runner.safety_check.stats.raised == 1
    hit = runner.run_turn(HIT_TEXT)
    assert band_of(hit.state.sensors["safety_risk"]) == "hit"
    assert len(check_model.requests) == 1  # a strong bank hit is not asked
    assert embed.calls == ["we watched a film tonight", GREY_TEXT, HIT_TEXT]


def test_a_no_from_the_model_leaves_the_grey_reading_a_weak_signal(rig: Rig) -> None:
    check_model = ScriptedLLM(model_id="safety-check")
    check_model.enqueue({"risk": "no", "severity": 0})
    runner, _ = checked_runner(rig, check_model)
    result = runner.run_turn(GREY_TEXT)
    assert len(check_model.requests) == 1
    assert result.state.sensors["safety_risk"].probability == BANK_GREY_RISK
    assert interrupt(rig, result, runner) is None
    assert runner.session.risk.level > 0  # still a weak signal that adds up


def test_a_failing_model_check_does_not_lose_the_turn(rig: Rig) -> None:
    check_model = ScriptedLLM(model_id="safety-check")
    check_model.enqueue_timeout()
    runner, _ = checked_runner(rig, check_model)
    result = runner.run_turn(GREY_TEXT)
    assert result.reply.strip()
    assert result.state.sensors["safety_risk"].probability == BANK_GREY_RISK
    assert runner.safety_check is not None and runner.safety_check.stats.failed == 1
    assert "sense_failed" not in result.state.flags
