"""Projections are folds over the log: rebuilt from it, equal however often rebuilt."""

from __future__ import annotations

from pathlib import Path

from rilai_desktop.contracts import EventKind
from rilai_desktop.paths import ensure_private_dir
from rilai_desktop.store import EventLog
from rilai_desktop.store.projections import (
    AnalyticsProjection,
    ConversationProjection,
    DebugProjection,
    rebuild,
)
from tests.store._helpers import complete_turn


def _log(tmp_path: Path) -> EventLog:
    return EventLog(ensure_private_dir(tmp_path / "data") / "rilai.db")


def test_conversation_history(tmp_path: Path) -> None:
    with _log(tmp_path) as log:
        complete_turn(log, "s", 1, "I had a rough day", "That sounds heavy.")
        complete_turn(log, "s", 2, "...", None)  # a silent turn: no assistant message
        log.append("s", 3, EventKind.TURN_STARTED, {"user_input": "lost", "turn_id": 3})
        log.append("s", 3, EventKind.TURN_ABORTED, {"reason": "killed", "last_seq": 0})
        convo = rebuild(ConversationProjection(), log.replay_all())
    assert [(m.role, m.content) for m in convo.messages] == [
        ("user", "I had a rough day"),
        ("assistant", "That sounds heavy."),
        ("user", "..."),
        ("user", "lost"),
    ]
    assert convo.messages[-1].aborted
    assert [m.content for m in convo.recent(2)] == ["That sounds heavy.", "..."]
    assert [m.content for m in convo.recent(1, include_aborted=True)] == ["lost"]
    assert convo.recent(0) == []


def test_analytics(tmp_path: Path) -> None:
    with _log(tmp_path) as log:
        for i, (model, latency) in enumerate([("small", 100), ("small", 300), ("medium", 900)]):
            log.append(
                "s",
                1,
                EventKind.MODEL_CALL_COMPLETED,
                {
                    "model": model,
                    "prompt_tokens": 50 + i,
                    "completion_tokens": 10,
                    "reasoning_tokens": None,
                    "latency_ms": latency,
                },
            )
        log.append("s", 1, EventKind.TURN_COMPLETED, {"total_time_ms": 1500, "response": "x"})
        log.append("s", 2, EventKind.TURN_COMPLETED, {"total_time_ms": 500, "response": "y"})
        stats = rebuild(AnalyticsProjection(), log.replay_all()).as_dict()
        again = rebuild(AnalyticsProjection(), log.replay_all()).as_dict()
    assert stats == again
    small = stats["models"]["small"]
    assert (small["calls"], small["prompt_tokens"], small["completion_tokens"]) == (2, 101, 20)
    assert small["latency_ms_mean"] == 200.0
    assert stats["models"]["medium"]["latency_ms_p95"] == 900.0
    assert stats["turns"]["completed"] == 2
    assert stats["turns"]["time_ms_p95"] == 1500.0


def test_debug_traces_and_stage_timings(tmp_path: Path) -> None:
    clock = iter([0.0, 0.0, 0.1, 0.5, 0.6, 0.9, 1.0, 2.0]).__next__
    with EventLog(ensure_private_dir(tmp_path / "data") / "rilai.db", clock=clock) as log:
        log.append("s", 1, EventKind.TURN_STARTED, {"user_input": "hi", "turn_id": 1})  # 0.0
        log.append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": "sensing_fast"})  # 0.0
        log.append("s", 1, EventKind.TURN_STAGE_CHANGED, {"stage": "agents"})  # 0.1
        log.append("s", 1, EventKind.AGENT_STARTED, {"agent_id": "emotion.stress"})  # 0.5
        log.append(
            "s",
            1,
            EventKind.AGENT_COMPLETED,
            {
                "agent_id": "emotion.stress",
                "observation": "tense",
                "salience": 0.4,
                "urgency": 2,
                "confidence": 2,
                "claims": [{"text": "c"}],
                "stance_delta": None,
                "processing_time_ms": 100,
            },
        )  # 0.6
        log.append(
            "s", 1, EventKind.AGENT_FAILED, {"agent_id": "inhibition.censor", "error": "timeout"}
        )  # 0.9
        log.append("s", 1, EventKind.ERROR, {"error": "voice failed", "traceback": None})  # 1.0
        log.append(
            "s", 1, EventKind.TURN_COMPLETED, {"total_time_ms": 2000, "response": "x"}
        )  # 2.0
        debug = rebuild(DebugProjection(), log.replay_all())
    trace = debug.turns[("s", 1)].as_dict()
    assert trace["status"] == "completed"
    assert [(s["stage"], s["ms"]) for s in trace["stages"]] == [
        ("sensing_fast", 100.0),
        ("agents", 1900.0),
    ]
    assert [(a["agent_id"], a["status"]) for a in trace["agents"]] == [
        ("emotion.stress", "completed"),
        ("inhibition.censor", "failed"),
    ]
    assert trace["agents"][0]["claims"] == 1
    assert trace["errors"] == [{"error": "voice failed", "seq": 6}]


def test_a_retracted_turn_leaves_the_conversation_but_not_the_log(tmp_path: Path) -> None:
    with _log(tmp_path) as log:
        complete_turn(log, "s", 1, "Hi", "Hello.")
        complete_turn(log, "s", 2, "Typo'd", "Answer to the typo.")
        log.append("s", 0, EventKind.TURN_RETRACTED, {"turn_id": 2, "reason": "edit"})
        complete_turn(log, "s", 3, "Fixed", "Answer to the fix.")
        convo = rebuild(ConversationProjection(), log.replay_all())
        kept = log.replay_turn("s", 2)
    assert [(m.content, m.turn_id) for m in convo.messages] == [
        ("Hi", 1),
        ("Hello.", 1),
        ("Fixed", 3),
        ("Answer to the fix.", 3),
    ]
    assert kept[0].payload["user_input"] == "Typo'd"
