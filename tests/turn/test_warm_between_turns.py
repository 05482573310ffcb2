"""Between turns the runner evaluates the next voice prompt's start on the voice model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rilai_desktop.contracts.llm import ChatMessage
from rilai_desktop.turn.speaking import voice_prompt
from rilai_desktop.turn.state import TurnState
from tests.turn.conftest import PROMPTS, Rig


def test_after_a_turn_the_next_voice_prompt_start_is_warmed(rig: Rig) -> None:
    rig.runner.run_turn("Work was rough today, my manager yelled at me.")
    assert rig.runner.wait_warm(timeout=10)
    assert len(rig.voice.prefills) == 1
    warmed = rig.voice.prefills[0]
    assert warmed[0].role == "system"
    said = [m.content for m in warmed[1:]]
    assert said[0].startswith("Work was rough today")
    assert warmed[-1].role == "assistant"  # the reply just given is in it
    assert set(rig.runner.last_warm) == {"tokens", "agent_tokens", "voice_tokens", "ms"}
    # the agents' context too: static instructions + the last exchange, one system message
    assert len(rig.agents.prefills) == 1
    [agent_warm] = rig.agents.prefills[0]
    assert agent_warm.role == "system"
    assert "Just before: person: Work was rough today" in agent_warm.content

    # the next turn's prompts start with exactly what was warmed
    rig.runner.run_turn("And then the bus was late too.")
    voice_calls = [r for r in rig.voice.requests if r.schema is None]
    assert voice_calls[-1].messages[: len(warmed)] == warmed
    agent_calls = [r for r in rig.agents.requests if r.schema is not None]
    last_system = agent_calls[-1].messages[0].content
    assert last_system.startswith(agent_warm.content + "\n")
    assert 'The person says: "And then the bus was late too."' in last_system


def test_the_warmed_prefix_is_what_voice_messages_starts_with() -> None:
    history = [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"message number {i}"}
        for i in range(14)
    ]
    state = TurnState("s", 8, "and today?", history=history)
    prefix = voice_prompt.prefix_messages(history, prompts=PROMPTS)
    assert voice_prompt.voice_messages(state, prompts=PROMPTS)[: len(prefix)] == prefix
    assert voice_prompt.voice_messages(state, prompts=PROMPTS)[len(prefix)].content.startswith(
        "Private notes"
    )


def test_no_warm_when_switched_off(rig: Rig) -> None:
    rig.runner.warm_next_voice = False
    rig.runner.run_turn("Just saying hi.")
    assert rig.runner.wait_warm(timeout=1)
    assert rig.voice.prefills == [] and rig.agents.prefills == []


class _Broken:
    model_id = "broken"

    def prefill(self, messages: Sequence[ChatMessage | Mapping[str, str]]) -> int:
        raise RuntimeError("the context is gone")


def test_a_failing_warm_is_recorded_and_the_next_turn_still_runs(rig: Rig) -> None:
    original = rig.runner.speaking.warm

    def broken(history: Sequence[Mapping[str, str]]) -> int:
        return _Broken().prefill([])

    rig.runner.speaking.warm = broken  # type: ignore[method-assign]
    rig.runner.run_turn("Hello there.")
    assert rig.runner.wait_warm(timeout=10)
    assert "the context is gone" in rig.runner.last_warm["error"]
    rig.runner.speaking.warm = original  # type: ignore[method-assign]
    result = rig.runner.run_turn("Still there?")
    assert result.reply
