"""Seed 002 in the running app: the page insight that reaches long-term.md."""

from __future__ import annotations

from rilai_desktop.memory.operations.turn_journal import page_insight


def test_the_first_bullet_of_a_page_is_its_insight() -> None:
    page = (
        "# Hobbies\n\n*What they do for fun*\n\n## Fact\n\n- I play the cello on Sundays. [^1]\n"
        "- I swim. [^2]\n\n---\n\n## Sources\n\n[^1]: item_x — from feedback res_y\n"
    )
    assert page_insight(page) == "I play the cello on Sundays."


def test_prose_pages_give_their_first_sentence() -> None:
    page = "# Work\n\nThey started a new job in Lisbon. They like the team.\n\n## Sources\n"
    assert page_insight(page) == "They started a new job in Lisbon."


def test_an_empty_page_promotes_nothing() -> None:
    assert page_insight("# Empty\n\n*Nothing yet*\n\n---\n*Items: 0*\n") == ""
