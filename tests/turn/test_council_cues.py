"""The council's open cases decided from plain-text cues (council_cues.py, rules 9–12)."""

from __future__ import annotations

import pytest

from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.turn.deliberation.council import Council
from rilai_desktop.turn.deliberation.council_cues import (
    about_rilai,
    good_news,
    hard_news,
    practical_request,
    says_little,
)
from rilai_desktop.turn.state import TurnState
from tests.turn.conftest import PROMPTS


def intent_of(text: str) -> tuple[str, bool]:
    """The council's intent with no sensor readings, and whether the model was asked."""
    out = Council(
        ScriptedLLM(default={"intent": "observe", "tone": "warm"}), prompts=PROMPTS
    ).decide(TurnState(session_id="s", turn_id=1, user_text=text))
    return out.decision.speech_act.intent, out.used_model


@pytest.mark.parametrize(
    "text",
    [
        "my dad had a small stroke yesterday. he's stable but im really scared",
        "my mum's been in hospital since tuesday with pneumonia",
        "didn't get the job. they went with an internal candidate",
        "Had a huge fight with my boyfriend tonight.",
        "its saturday night and i'm home alone again",
        "Since my wife passed last spring the house is so quiet.",
        "I found a lump on my neck this morning",
    ],
)
def test_hard_news_without_a_feeling_word_is_witness(text: str) -> None:
    assert hard_news(text)
    assert intent_of(text) == ("witness", False)


@pytest.mark.parametrize(
    "text",
    [
        "got my thesis accepted with minor revisions 🎉",
        "We found out today we're having a baby. I'm still in shock, happy shock.",
        "gonna drive my friends to the beach on saturday, can't wait",
        "it went really well, they said I'd hear back by friday",
    ],
)
def test_good_news_said_plainly_is_celebrate(text: str) -> None:
    assert good_news(text)
    assert intent_of(text) == ("celebrate", False)


@pytest.mark.parametrize(
    "text",
    [
        "what could i cook tonight thats quick? i have eggs and spinach",
        "how do adults even make new friends? serious question",
        "what's something fun I could do on a rainy sunday by myself?",
        "what kind of questions do they usually ask? I want to prepare tonight",
    ],
)
def test_a_practical_request_is_guide(text: str) -> None:
    assert practical_request(text)
    assert intent_of(text) == ("guide", False)


@pytest.mark.parametrize(
    "text",
    ["ok fine. do you even have a favourite kind of music?", "who made you anyway"],
)
def test_a_question_about_rilai_itself_is_meta(text: str) -> None:
    assert about_rilai(text)
    assert intent_of(text)[0] == "meta"


@pytest.mark.parametrize(
    "text",
    [
        "I passed out at work",
        "I didn't get the job",
        "never got promoted",
        "I'm not so happy with how it went",
    ],
)
def test_negated_or_false_good_news_is_no_good_news(text: str) -> None:
    assert good_news(text) is None


def test_neutral_updates_stay_open_for_the_model() -> None:
    for text in ("anyway, going to bed early tonight for once", "the radiator clanks at night"):
        assert not (hard_news(text) or good_news(text) or practical_request(text))
        assert intent_of(text) == ("observe", True)


def test_an_advice_request_that_says_nothing_else_asks_first() -> None:
    assert says_little("so should I do it or not")
    assert not says_little("should i say something to her or just let it go?")
