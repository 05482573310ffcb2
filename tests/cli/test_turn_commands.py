"""`rilai chat`, `rilai shell` and `rilai synthetic` on the fakes (the e2e runs them real)."""

from __future__ import annotations

import argparse
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.app.engine import Engine, EngineParts
from rilai_desktop.cli.commands import chat_cmd, shell_cmd, synthetic_cmd
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.errors import ScenarioError
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from tests.turn.conftest import AGENT_REPLY, PROMPTS, VOICE_REPLY, StubRouter


@pytest.fixture
def ctx() -> Iterator[Context]:
    context = Context.create({}, json=False, debug=False)
    log = context.event_log()
    voice = ScriptedLLM(default=VOICE_REPLY)
    models = RoleModels(
        voice,
        {
            "agents": ScriptedLLM(default=AGENT_REPLY),
            "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
        },
    )
    runner = build_turn_runner(
        events=log,
        models=models,
        memory=InMemoryTurnMemory(),
        prompts=PROMPTS,
        use_judge=False,
    )
    context._engine = Engine(EngineParts(context.core(), StubRouter(), None, runner))
    yield context
    context.close()


def test_chat_streams_the_reply_and_json_has_every_part(
    ctx: Context, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(message="Hi, long day at work.", new_session=False)
    assert chat_cmd.run(args, ctx) == 0
    out = capsys.readouterr().out
    assert out.startswith("Rilai: " + VOICE_REPLY)
    assert "intent" in out and "agents" in out
    ctx.json = True
    assert chat_cmd.run(argparse.Namespace(message="And you?", new_session=False), ctx) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["turn_id"] == 2
    for key in (
        "reply",
        "council",
        "sensors",
        "agents",
        "consensus",
        "critics",
        "stage_ms",
        "tokens",
    ):
        assert key in data
    assert data["council"]["reasons"]
    assert len(data["agents"]) >= 6


def test_shell_slash_commands(ctx: Context) -> None:
    stdin = io.StringIO(
        "/help\n/why\nMy cat Pixel is sick.\n/why\n/stance\n/memory\n/status\n"
        "/nope\n/reset\n/quit\n"
    )
    stdout = io.StringIO()
    assert shell_cmd.repl(ctx, stdin, stdout) == 0
    text = stdout.getvalue()
    assert "/stance" in text  # help
    assert "no turn yet" in text
    assert "Rilai: " + VOICE_REPLY in text
    assert "sensors" in text and "council:" in text and "critics" in text  # /why
    assert "valence" in text and "fatigue" in text  # /stance
    assert "recalled for the last turn" in text  # /memory
    assert "turns in this session: 1" in text  # /status
    assert "unknown command" in text
    assert "new conversation" in text
    assert text.rstrip().endswith("bye.")


def test_synthetic_replays_and_checks_expectations(
    ctx: Context, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = tmp_path / "s.jsonl"
    scenario.write_text(
        "# a comment\n"
        '{"user": "Hello there", "expect": {"min_agents": 5}}\n'
        '{"reset": true}\n'
        '{"user": "I want to kill myself",'
        ' "expect": {"safety_interrupt": true, "intent": "protect"}}\n'
        '{"user": "Are you real?", "expect": {"intent": "celebrate"}}\n',
        encoding="utf-8",
    )
    args = argparse.Namespace(scenario=str(scenario), continue_session=False)
    assert synthetic_cmd.run(args, ctx) == 1  # the last expectation is wrong on purpose
    out = capsys.readouterr().out
    assert out.count("turn ") >= 3 and "new conversation" in out
    assert "EXPECTED: intent meta ≠ celebrate" in out
    assert "3 turns, 1 with missed expectations" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json\n", "not JSON"),
        ('{"text": "hi"}\n', '{"user": "text"}'),
        ('{"user": "hi", "expect": {"mood": 1}}\n', "expect takes only"),
        ("# only a comment\n", "has no turns"),
    ],
)
def test_bad_scenarios_are_clear_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        synthetic_cmd.load_scenario(path)
    assert message in err.value.message
    with pytest.raises(ScenarioError):
        synthetic_cmd.load_scenario(tmp_path / "missing.jsonl")
