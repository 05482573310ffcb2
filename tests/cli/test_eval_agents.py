"""`rilai eval agents` on the fakes: per agent, calls, failures, labels and influence."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator

import pytest

from rilai_desktop.app.engine import Engine, EngineParts
from rilai_desktop.cli import main
from rilai_desktop.cli.commands import chat_cmd, eval_agents
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.llm.fake import Request, RoleModels, ScriptedLLM
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from tests.turn.conftest import PROMPTS, VOICE_REPLY, StubRouter


def agents_answer(request: Request) -> dict[str, object]:
    """Wellbeing finds loneliness; the stress agent copies its own question; the rest find
    nothing."""
    prompt = request.messages[-1].content
    labels = request.schema["properties"]["label"]["enum"]  # type: ignore[index]
    if "Your role: Wellbeing" in prompt:
        return {"present": "yes", "label": "lonely", "confidence": 3}
    if "Your role: Stress" in prompt:
        return {
            "present": "yes",
            "label": labels[0],
            "confidence": 2,
            "span": "Does the person sound stressed",
        }
    return {"present": "no", "label": labels[0], "confidence": 1}


@pytest.fixture
def ctx() -> Iterator[Context]:
    context = Context.create({}, json=False, debug=False)
    models = RoleModels(
        ScriptedLLM(default=VOICE_REPLY),
        {
            "agents": ScriptedLLM(default=agents_answer),
            "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
        },
    )
    runner = build_turn_runner(
        events=context.event_log(),
        models=models,
        memory=InMemoryTurnMemory(),
        prompts=PROMPTS,
        use_judge=False,
    )
    context._engine = Engine(EngineParts(context.core(), StubRouter(), None, runner))
    yield context
    context.close()


def test_the_report_counts_calls_failures_labels_and_influence(
    ctx: Context, capsys: pytest.CaptureFixture[str]
) -> None:
    for message in ("Hi, I just moved here.", "honestly it's been lonely, evenings are hard"):
        chat_cmd.run(argparse.Namespace(message=message, new_session=False), ctx)
    capsys.readouterr()
    report = eval_agents.summarise(ctx.event_log().events(kind=list(eval_agents.KINDS)))
    rows = {a["agent_id"]: a for a in report["agents"]}
    assert report["turns"] == 2
    assert report["agents_per_turn"] >= 5
    stress = rows["emotion.stress"]
    assert stress["chosen"] == 2 and stress["failure_reasons"] == {"copied": 2}
    assert stress["failures"] == 2 and "copies its own instructions" in stress["errors"][0]
    wellbeing = rows["emotion.wellbeing"]
    assert wellbeing["labels"] == {"lonely": wellbeing["present"]}
    assert wellbeing["changed_notes"] >= 1  # "they sound lonely" became a key point
    assert report["agent_influence_share"] > 0
    ctx.json = True
    assert eval_agents.run(argparse.Namespace(session=None), ctx) == 0
    assert json.loads(capsys.readouterr().out)["turns"] == 2
    ctx.json = False
    assert eval_agents.run(argparse.Namespace(session=None), ctx) == 0
    assert "agents chosen per turn" in capsys.readouterr().out


def test_agents_chosen_often_that_change_nothing_are_listed() -> None:
    from rilai_desktop.contracts import EngineEvent, EventKind

    events = []
    for turn in range(1, 4):
        events.append(
            EngineEvent(
                session_id="s",
                turn_id=turn,
                seq=1,
                ts_monotonic=0.0,
                kind=EventKind.AGENT_STARTED,
                payload={"agent_id": "monitoring.attention", "followup": False},
            )
        )
        events.append(
            EngineEvent(
                session_id="s",
                turn_id=turn,
                seq=2,
                ts_monotonic=0.0,
                kind=EventKind.COUNCIL_DECISION_MADE,
                payload={
                    "speak": True,
                    "urgency": "low",
                    "intent": "observe",
                    "key_points": [],
                    "agent_influence": {
                        "changed_decision": False,
                        "changed_notes": False,
                        "by_agent": {"monitoring.attention": {"decision": False, "notes": False}},
                    },
                },
            )
        )
    report = eval_agents.summarise(events)
    assert report["never_changed_anything"] == ["monitoring.attention"]
    assert report["agent_influence_share"] == 0.0


def test_the_command_runs_on_an_empty_log(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "agents", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agents"] == []
