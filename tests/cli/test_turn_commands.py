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
from tests.turn.conftest import AGENT_REPLY, PROMPTS, StubRouter

# a reply the critics keep as it is (tests/turn/conftest.py's VOICE_REPLY is replaced by
# a fallback for these messages, and the terminal prints what was kept)
VOICE_REPLY = "That sounds like a full day. How are you feeling about it now?"


@pytest.fixture
def voice() -> ScriptedLLM:
    return ScriptedLLM(default=VOICE_REPLY)


@pytest.fixture
def ctx(voice: ScriptedLLM) -> Iterator[Context]:
    context = Context.create({}, json=False, debug=False)
    log = context.event_log()
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
    kept = ctx.engine().last_result
    assert kept is not None and kept.reply
    # the reply that was kept, not the voice's first draft (the critics replaced it here)
    assert out.startswith("Rilai: " + kept.reply + "\n")
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


HELP_DESK_CLOSE = "Let me know if there is anything else I can help you with!"
TRIMMED = "That sounds like a full day. How are you feeling about it now? " + HELP_DESK_CLOSE


def test_chat_prints_only_the_reply_the_critics_kept(
    ctx: Context, voice: ScriptedLLM, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 31: the voice streamed a help-desk close that the critics trimmed; the window
    showed the kept reply, the terminal printed the raw stream."""
    voice.default = TRIMMED
    message = argparse.Namespace(message="I had a long day at work", new_session=False)
    assert chat_cmd.run(message, ctx) == 0
    out = capsys.readouterr().out
    kept = ctx.engine().last_result
    assert kept is not None and HELP_DESK_CLOSE not in kept.reply
    assert out.startswith(f"Rilai: {kept.reply}\n")
    assert HELP_DESK_CLOSE not in out and "Let me know" not in out


def test_on_a_terminal_the_stream_is_redrawn_as_the_kept_reply() -> None:
    from rilai_desktop.turn.state import VoiceDelta

    screen = io.StringIO()
    printer = chat_cmd.ReplyPrinter(screen, live=True)
    for piece in ("That sounds like a full day. ", "How are you? ", HELP_DESK_CLOSE):
        printer.on_update(VoiceDelta("s", 1, piece))
    assert screen.getvalue().endswith(HELP_DESK_CLOSE)  # streamed as it came
    assert printer.finish("That sounds like a full day. How are you?")
    tail = screen.getvalue().rsplit("\x1b[J", 1)[1]  # what is left after the erase
    assert tail == "Rilai: That sounds like a full day. How are you?\n"

    same = io.StringIO()
    printer = chat_cmd.ReplyPrinter(same, live=True)
    printer.on_update(VoiceDelta("s", 1, "Hello there."))
    assert printer.finish("Hello there.")
    assert same.getvalue() == "Rilai: Hello there.\n"  # nothing to redraw

    quiet = io.StringIO()
    assert not chat_cmd.ReplyPrinter(quiet, live=False).finish("")
    assert quiet.getvalue() == ""


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
