"""Regenerate and edit-and-resend on the Engine with fakes: the log keeps every turn, the
conversation (live and restored from the log) keeps only what was not taken back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.app.engine import Engine
from rilai_desktop.contracts import EventKind
from rilai_desktop.errors import RilaiError
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.store.projections import ConversationProjection, rebuild
from tests.fake_engine import open_fake_engine


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def engine() -> Iterator[Engine]:
    # a new reply each call, so a regenerated reply can be told from the first
    engine = open_fake_engine(ScriptedLLM(["First reply.", "Second reply.", "Third reply."]))
    yield engine
    engine.close()


def _exchange(engine: Engine) -> list[tuple[str, str, int]]:
    return [(m["role"], m["content"], m["turn_id"]) for m in engine.session.history]


def test_regenerate_replaces_the_last_exchange_and_the_log_keeps_both(engine: Engine) -> None:
    engine.send("Hi, long day at work.").result(timeout=60)
    handle = engine.regenerate()
    result = handle.result(timeout=60)
    assert handle.text == "Hi, long day at work." and result.turn_id == 2
    assert _exchange(engine) == [
        ("user", "Hi, long day at work.", 2),
        ("assistant", "Second reply.", 2),
    ]
    log = engine.parts.core.event_log
    (retracted,) = log.events(kind=EventKind.TURN_RETRACTED)
    assert (retracted.turn_id, retracted.payload) == (0, {"turn_id": 1, "reason": "regenerate"})
    # the taken-back turn's events are all still there: the inspector can reopen it
    first = log.replay_turn(engine.session_id, 1)
    assert first[0].kind is EventKind.TURN_STARTED and first[-1].kind is EventKind.TURN_COMPLETED
    assert first[-1].payload["response"] == "First reply."
    assert engine.last_result is result


def test_edit_last_sends_the_new_text_in_place_of_the_old(engine: Engine) -> None:
    engine.send("I had a day.").result(timeout=60)
    engine.send("Wrong words.").result(timeout=60)
    handle = engine.edit_last("The right words.")
    assert handle.result(timeout=60).turn_id == 3
    assert _exchange(engine) == [
        ("user", "I had a day.", 1),
        ("assistant", "First reply.", 1),
        ("user", "The right words.", 3),
        ("assistant", "Third reply.", 3),
    ]
    (retracted,) = engine.parts.core.event_log.events(kind=EventKind.TURN_RETRACTED)
    assert retracted.payload == {"turn_id": 2, "reason": "edit"}


def test_restore_after_reopening_the_log_agrees(engine: Engine) -> None:
    engine.send("Hi.").result(timeout=60)
    engine.regenerate().result(timeout=60)
    live = _exchange(engine)
    session = engine.session_id
    engine.close()
    reopened = open_fake_engine()
    try:
        assert reopened.session_id == session
        assert (
            _exchange(reopened) == live == [("user", "Hi.", 2), ("assistant", "Second reply.", 2)]
        )
        # the conversation projection agrees too
        convo = rebuild(ConversationProjection(), reopened.parts.core.event_log.replay_all())
        assert [(m.content, m.turn_id) for m in convo.messages] == [
            ("Hi.", 2),
            ("Second reply.", 2),
        ]
        # and a regenerate after the reopen takes back the restored turn
        reopened.regenerate().result(timeout=60)
        assert [m["turn_id"] for m in reopened.session.history] == [3, 3]
    finally:
        reopened.close()


def test_regenerate_with_no_turn_says_so_and_logs_nothing(engine: Engine) -> None:
    handle = engine.regenerate()
    with pytest.raises(RilaiError, match="no finished turn to take back"):
        handle.result(timeout=60)
    assert not handle.cancelled
    with pytest.raises(RilaiError, match="no finished turn"):
        engine.edit_last("anything").result(timeout=60)
    assert engine.parts.core.event_log.events(kind=EventKind.TURN_RETRACTED) == []
    assert engine.session.history == []


def test_a_conversation_that_ends_with_a_check_in_has_nothing_to_regenerate(
    engine: Engine,
) -> None:
    engine.send("Hi.").result(timeout=60)
    engine.note_nudge_shown("How did the talk go?")
    with pytest.raises(RilaiError, match="no finished turn"):
        engine.regenerate().result(timeout=60)
    assert len(engine.session.history) == 3  # nothing was taken back
