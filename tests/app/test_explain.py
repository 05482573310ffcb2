""" "Why did you say that?": memory.used and explain_turn, on the real engine with the
scripted fake LLM (real event log, real memory on the hashed embedder) and on the turn rig
(tests/turn/test_memory_used.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.app.engine import Engine
from rilai_desktop.app.explain import explain_turn
from rilai_desktop.contracts import EventKind
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.turn.speaking.voice_prompt import NOTES_OPENING
from tests.fake_engine import open_fake_engine

FACT = "My sister Maya lives in Lisbon."
QUESTION = "Where does my sister Maya live?"


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> Iterator[Engine]:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    voice = ScriptedLLM(default="Maya is in Lisbon, you told me.")
    engine = open_fake_engine(voice)
    engine.voice_llm = voice  # type: ignore[attr-defined]
    yield engine
    engine.close()


def voice_prompt(voice: ScriptedLLM) -> str:
    """The last voice prompt the model received (its notes name it), as one text."""
    for request in reversed(voice.requests):
        text = "\n".join(m.content for m in request.messages)
        if NOTES_OPENING in text:
            return text
    raise AssertionError("the voice model was never asked for a reply")


def test_a_fact_told_in_one_turn_is_explained_as_in_the_next_prompt(engine: Engine) -> None:
    engine.send(FACT).result(timeout=60)
    second = engine.send(QUESTION).result(timeout=60)
    prompt = voice_prompt(engine.voice_llm)  # type: ignore[attr-defined]

    why = engine.explain_turn(engine.session_id, second.turn_id)

    assert why.memory_logged and why.turn_id == second.turn_id
    assert why.user_text == QUESTION and why.reply == second.reply
    assert why.memories, "the remembered fact should have reached the voice's notes"
    assert any("Lisbon" in m.text for m in why.memories)
    for memory in why.memories:
        assert memory.text in prompt  # each listed text is in the prompt the model received
        assert memory.kind in ("item", "fact", "episode", "goal")
        assert memory.entry_id  # the real memory names every entry, so it can be controlled
    # and the prompt's memory notes hold nothing else: the block is exactly the listed lines
    block = "; ".join(m.text for m in why.memories) + "."
    assert f"What you know about them (mention only if it fits): {block}" in prompt or (
        f"What you know about them (use it to answer): {block}" in prompt
    )
    # the rest of the turn is explained too
    assert why.decision is not None and why.decision.intent
    assert why.decision.decided_by in ("rule", "model", "fallback")
    assert why.critics and all(c.critic for c in why.critics)
    # the first turn had no memory yet: logged, and empty
    first = engine.explain_turn(engine.session_id, second.turn_id - 1)
    assert first.memory_logged and first.memories == ()


def test_ids_name_the_entries_in_their_tables(engine: Engine) -> None:
    engine.send(FACT).result(timeout=60)
    second = engine.send(QUESTION).result(timeout=60)
    events = engine.turn_events(engine.session_id, second.turn_id)
    retrieved = next(e for e in events if e.kind is EventKind.MEMORY_RETRIEVED).payload
    ids = {
        "fact": {f["id"] for f in retrieved["user_facts"]},
        "item": {i["item_id"] for i in retrieved["items"]},
        "episode": {e["id"] for e in retrieved["episodes"]},
        "goal": {t["id"] for t in retrieved["open_threads"]},
    }
    why = explain_turn(events)
    for memory in why.memories:
        assert memory.entry_id in ids[memory.kind]


def test_an_old_turn_without_memory_used_says_so(engine: Engine) -> None:
    done = engine.send("Hello there.").result(timeout=60)
    events = [
        e for e in engine.turn_events(engine.session_id, done.turn_id)
        if e.kind is not EventKind.MEMORY_USED
    ]  # fmt: skip
    why = explain_turn(events)
    assert not why.memory_logged and why.memories == ()
    assert explain_turn([]).turn_id == 0  # nothing logged: an empty explanation, no error
