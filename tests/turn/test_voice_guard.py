"""The voice's decode guard: what a regeneration may not write again."""

from __future__ import annotations


def test_a_rejected_opening_is_not_written_again() -> None:
    from rilai_desktop.turn.speaking.voice_guard import voice_guard
    from rilai_desktop.turn.state import TurnState

    state = TurnState(session_id="s", turn_id=1, user_text="what did I say?")
    guard = voice_guard(state, avoid=["I was researching"])
    assert "I was researching" in guard.phrases
    assert "I was researching" not in voice_guard(state).phrases
