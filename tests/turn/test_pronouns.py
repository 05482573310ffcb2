"""Their words as notes about them (pronouns.py)."""

from __future__ import annotations

import pytest

from rilai_desktop.turn.speaking.pronouns import episode_note, third_person


@pytest.mark.parametrize(
    ("said", "note"),
    [
        (
            "I've been feeling kind of lonely since I moved to this city",
            "They've been feeling kind of lonely since they moved to this city",
        ),
        (
            "My sister Maya lives in Lisbon and I miss her.",
            "Their sister Maya lives in Lisbon and they miss her.",
        ),
        ("I am tired, help me", "They are tired, help them"),
        (
            "I was scared. Mine is bigger, I’m sure",
            "They were scared. Theirs is bigger, they're sure",
        ),
        ("I did it myself", "They did it themselves"),
        ("Has a sister named Ana.", "Has a sister named Ana."),
        ("Imagine mining", "Imagine mining"),  # words that only start like "I"/"mine"
        ("", ""),
    ],
)
def test_first_person_becomes_third(said: str, note: str) -> None:
    assert third_person(said) == note


def test_an_episode_summary_loses_its_tag_and_speaks_about_them() -> None:
    summary = "They said: Work was rough. My manager criticised my report. (Rilai: witness)"
    assert (
        episode_note(summary) == "they said work was rough. Their manager criticised their report."
    )
    assert episode_note("Felt worn down by night shifts") == "Felt worn down by night shifts"
