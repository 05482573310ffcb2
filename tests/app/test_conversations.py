"""The Engine's past conversations: listed from the log, searched with FTS5, switched to on
the worker with memory and stance kept (the real Engine on the scripted fake LLM)."""

from __future__ import annotations

import pytest

from rilai_desktop.app.engine import Engine
from rilai_desktop.contracts import EventKind, StanceVector
from rilai_desktop.errors import RilaiError
from tests.fake_engine import VOICE_REPLY


@pytest.fixture
def two(engine: Engine) -> tuple[str, str]:
    """An older conversation about a garden (two turns), a newer one about a violin."""
    engine.send("My tomato garden is thriving.").result(timeout=60)
    engine.send("The basil too.").result(timeout=60)
    older = engine.session_id
    newer = engine.reset()
    engine.send("I practised the violin today.").result(timeout=60)
    return older, newer


def test_conversations_are_listed_newest_first(engine: Engine, two: tuple[str, str]) -> None:
    older, newer = two
    listed = engine.conversations()
    assert [c.session_id for c in listed] == [newer, older]
    assert [c.turns for c in listed] == [1, 2]
    assert listed[1].title == "My tomato garden is thriving."
    assert listed[0].preview == VOICE_REPLY


def test_search_finds_a_message_of_an_older_conversation(
    engine: Engine, two: tuple[str, str]
) -> None:
    older, _newer = two
    hits = engine.search_messages("tomato")
    assert [(h.session_id, h.turn_id, h.role) for h in hits] == [(older, 1, "user")]
    assert engine.search_messages('tomato" OR (') == []  # a stray quote is just a word
    assert engine.search_messages("") == []


def test_switching_brings_back_the_history_and_keeps_the_stance(
    engine: Engine, two: tuple[str, str]
) -> None:
    older, newer = two
    log = engine.parts.core.event_log
    ended_before = len(log.events(kind=[EventKind.SESSION_ENDED, EventKind.SESSION_STARTED]))
    mood = StanceVector(valence=0.6, arousal=0.2)  # the person's mood now, not yet logged
    engine.parts.runner.session.stance = mood
    modulators = engine.session.modulators

    assert engine.switch_conversation(older) == older == engine.session_id
    assert [m["content"] for m in engine.session.history if m["role"] == "user"] == [
        "My tomato garden is thriving.",
        "The basil too.",
    ]
    assert engine.session.stance is mood and engine.session.modulators is modulators
    assert [m.role for m in engine.conversation_messages(older)] == ["user", "assistant"] * 2
    # switching ends nothing and starts nothing
    assert len(log.events(kind=[EventKind.SESSION_ENDED, EventKind.SESSION_STARTED])) == (
        ended_before
    )
    result = engine.send("And the peppers?").result(timeout=60)
    assert (result.session_id, result.turn_id) == (older, 3)
    assert engine.switch_conversation(newer) == newer
    assert engine.session.history[0]["content"] == "I practised the violin today."


def test_switching_to_the_current_conversation_changes_nothing(
    engine: Engine, two: tuple[str, str]
) -> None:
    _older, newer = two
    session = engine.session
    assert engine.switch_conversation(newer) == newer
    assert engine.session is session


def test_an_unknown_conversation_is_a_clear_error(engine: Engine, two: tuple[str, str]) -> None:
    _older, newer = two
    with pytest.raises(RilaiError, match="no conversation 'nope'"):
        engine.switch_conversation("nope")
    assert engine.session_id == newer


def test_a_switch_waits_for_the_running_turn(engine: Engine, two: tuple[str, str]) -> None:
    older, newer = two
    handle = engine.send("One more thing about the violin.")
    assert engine.switch_conversation(older) == older
    assert handle.done() and handle.result().session_id == newer
    assert [c.session_id for c in engine.conversations()] == [newer, older]


def test_a_turn_taken_back_leaves_the_search_and_the_conversation(engine: Engine) -> None:
    engine.send("My tomato garden is thriving.").result(timeout=60)
    engine.edit_last("My pepper garden is thriving.").result(timeout=60)
    assert engine.search_messages("tomato") == []  # the edited words are gone from search
    hits = engine.search_messages("pepper")
    assert [(h.turn_id, h.role) for h in hits] == [(2, "user")]
    messages = engine.conversation_messages(engine.session_id)
    assert [(m.turn_id, m.role) for m in messages] == [(2, "user"), (2, "assistant")]
    engine.regenerate().result(timeout=60)
    assert [(h.turn_id, h.role) for h in engine.search_messages("pepper")] == [(3, "user")]
    assert [c.turns for c in engine.conversations()] == [3]  # the log keeps every turn
