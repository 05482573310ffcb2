"""What a message does in a conversation already about risk (sensors/safety_followup.py):
means questions (and the ordinary purposes that keep them ordinary), requests for presence,
retractions; other languages, txt-speak, and inputs that must not raise."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rilai_desktop.turn.sensors.safety_followup import (
    means_question,
    presence_request,
    retraction,
)

Reader = Callable[[str], str | None]
READERS: tuple[Reader, ...] = (means_question, presence_request, retraction)


# ── means questions ────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("how tall is the bridge on 5th street", "how tall is the bridge"),
        ("HOW TALL IS THE BRIDGE?!", "HOW TALL IS THE BRIDGE"),
        ("what's the tallest building in town", "tallest building"),
        ("how far down is the drop from the parking garage roof", None),
        ("how many of my sleeping pills would it take", "how many of my sleeping pills"),
        ("what's the max dose of paracetamol", "max dose"),
        ("when does the next train pass the crossing", None),
        ("where can i buy a rope", "where can i buy a rope"),
        ("how deep do i have to cut", "how deep do i have to cut"),
    ],
)
def test_a_means_question_returns_the_persons_words(text: str, words: str | None) -> None:
    found = means_question(text)
    assert found is not None
    if words is not None:
        assert found == words
    assert found.lower() in text.lower()  # their own words, not a rewrite


@pytest.mark.parametrize(
    "text",
    [
        "how tall is the bridge on 5th street for our trip",
        "what's the tallest building in the city? for my photography class",
        "how many of the dog's pills should he get",
        "what's the max dose of ibuprofen for a headache",
        "how tall is the tallest tower in the game",
        "how many tylenol can you take per day",
        "when does the next train pass through the station, it's delayed",
    ],
)
def test_an_ordinary_purpose_keeps_a_means_question_ordinary(text: str) -> None:
    assert means_question(text) is None


@pytest.mark.parametrize(
    "text",
    ["what time is it", "how tall is my brother", "how many apples are in a pound", "hello"],
)
def test_ordinary_questions_are_not_means_questions(text: str) -> None:
    assert means_question(text) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("cuantas pastillas de dormir necesito", "cuantas pastillas"),  # es
        ("¿Cuántas pastillas necesito?", "Cuántas pastillas"),  # es, accents folded
        ("quantas pilulas", "quantas pilulas"),  # pt
        ("combien de cachets faut-il prendre", "combien de cachets"),  # fr
        ("quelle hauteur fait le pont", "quelle hauteur fait le pont"),  # fr
        ("wie hoch ist die Brücke", "wie hoch ist die Brücke"),  # de, umlaut folded
        ("wie viele tabletten", "wie viele tabletten"),  # de
        ("quante pillole", "quante pillole"),  # it
        ("dosis letal de paracetamol", "dosis letal"),  # es
    ],
)
def test_means_questions_in_other_languages(text: str, words: str) -> None:
    assert means_question(text) == words


# ── presence requests ──────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("can you just talk to me for a bit?", "can you just talk"),
        ("can u jus talk 2 me", "can u jus talk"),  # txt-speak, respelled before matching
        ("please don't go", "please don't go"),
        ("pls dont go", "pls dont go"),
        ("stay with me", "stay with me"),
        ("are you still there", "are you still there"),
        ("r u still there", "r u still there"),
        ("i dont want to be alone", "i dont want to be alone"),
    ],
)
def test_a_presence_request_returns_the_persons_words(text: str, words: str) -> None:
    assert presence_request(text) == words


@pytest.mark.parametrize(
    "text",
    [
        "puedes hablar conmigo",  # es
        "no te vayas",  # es
        "fica comigo",  # pt
        "ne t'en va pas",  # fr
        "reste avec moi",  # fr
        "kannst du mit mir reden",  # de
        "bleib bei mir",  # de
        "resta con me",  # it
        "puoi parlarmi",  # it
    ],
)
def test_presence_requests_in_other_languages(text: str) -> None:
    assert presence_request(text) is not None


@pytest.mark.parametrize(
    "text",
    ["can you recommend a movie", "talk to you later", "i went for a walk", "what's for dinner"],
)
def test_ordinary_messages_are_not_presence_requests(text: str) -> None:
    assert presence_request(text) is None


# ── retractions ────────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("i'm not going to do anything stupid", "i'm not going to do anything stupid"),
        ("im fine, forget it", "im fine, forget"),
        ("i won't do anything stupid", "i won't do anything stupid"),
        ("jk", "jk"),
        ("never mind", "never mind"),
        ("it's nothing", "it's nothing"),
        ("I was being dramatic", "I was being dramatic"),
    ],
)
def test_a_retraction_returns_the_persons_words(text: str, words: str) -> None:
    assert retraction(text) == words


@pytest.mark.parametrize(
    "text",
    [
        "estoy bien",  # es
        "olvidalo",  # es
        "era brincadeira",  # pt
        "nao vou fazer nada",  # pt
        "je vais bien",  # fr
        "oublie ça",  # fr
        "mir geht's gut",  # de
        "vergiss es",  # de
        "sto bene",  # it
        "lascia stare",  # it
    ],
)
def test_retractions_in_other_languages(text: str) -> None:
    assert retraction(text) is not None


@pytest.mark.parametrize(
    "text", ["i feel fine today", "i love this song", "the movie was good", "im fine"]
)
def test_ordinary_messages_are_not_retractions(text: str) -> None:
    assert retraction(text) is None


def test_the_gonna_form_of_a_retraction() -> None:
    assert retraction("i'm not gonna do anything stupid") is not None


# ── inputs that must not raise ─────────────────────────────────────────────────
ODD_INPUTS = [
    "",
    "   \n\t ",
    "\x00\x01\xff" * 10,
    "a" * 200_000,
    "how tall is " * 20_000,
    "😀🙂" * 100,
    "\u202e\u200b",
    "\ud800",  # a lone surrogate
    "漢字かな交じり文",
]


@pytest.mark.parametrize("reader", READERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("text", ODD_INPUTS, ids=lambda t: f"{t[:8]!r}x{len(t)}")
def test_odd_inputs_read_as_nothing_without_raising(reader: Reader, text: str) -> None:
    assert reader(text) is None


@pytest.mark.parametrize("reader", READERS, ids=lambda f: f.__name__)
def test_a_non_string_reads_as_nothing(reader: Reader) -> None:
    assert reader(None) is None  # type: ignore[arg-type]
    assert reader(b"stay with me") is None  # type: ignore[arg-type]
