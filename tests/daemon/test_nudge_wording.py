"""Wording: warm templates, never surveillance — checked on every suggestion emitted."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rilai_desktop.daemon.nudges import conditions as C
from rilai_desktop.daemon.nudges.wording import (
    FORBIDDEN_PHRASES,
    MAX_TITLE_CHARS,
    NEUTRAL,
    TEMPLATES,
    forbidden_phrase,
    safe_title,
    word,
)
from rilai_desktop.daemon.ports import ThreadFact
from tests.daemon.nudge_fakes import at, facts, goal, rig

REQUIRED = [
    "I heard you say",
    "I've been tracking",
    "according to my records",
    "I noticed you haven't",
    "I've been watching",
    "I've been monitoring",
    "my logs show",
    "you told me at",
    "I saw that you",
]
NOW = at("15:00")


def test_the_required_phrases_are_forbidden() -> None:
    for phrase in REQUIRED:
        assert phrase in FORBIDDEN_PHRASES
        assert forbidden_phrase(phrase) == phrase


@pytest.mark.parametrize(
    "text",
    [
        "i HEARD you SAY that",
        "I heard... you, say",
        "I\u200bheard you\u00a0say",  # zero-width and no-break spaces
        "Iʼve been tracking",  # a modifier apostrophe
        "Ive been t r a c k i n g",
        "ACCORDING-TO-MY-RECORDS",
        "I've bееn watching",  # Cyrillic е
        "I’ve been mónitoring",  # curly apostrophe, an accent
        "well, my\nlogs\tshow",
    ],
)
def test_the_checker_is_tolerant(text: str) -> None:
    assert forbidden_phrase(text) is not None


@pytest.mark.parametrize(
    "text",
    [NEUTRAL, "Checking in gently, I'm here.", "The heard of cattle", "you told me so"],
)
def test_clean_text_passes(text: str) -> None:
    assert forbidden_phrase(text) is None


def test_every_template_is_clean_and_short() -> None:
    for key, options in TEMPLATES.items():
        for text in options:
            rendered = text.replace("{title}", "Quarterly report").replace("{hours}", "3")
            assert forbidden_phrase(rendered) is None, key
            assert len(rendered) <= 160, key


def test_safe_title() -> None:
    assert safe_title("  Quarterly\n report\t ") == "Quarterly report"
    assert safe_title('"Quoted" “title”') == "Quoted title"
    assert safe_title("\x1b[31mred\x1b[0m") == "[31mred [0m"  # no escape character left
    assert safe_title("a\u202eevil") == "aevil"  # no bidi override
    long = safe_title("word " * 40)
    assert long is not None and len(long) <= MAX_TITLE_CHARS + 1 and long.endswith("…")
    assert safe_title("I've been tracking you") is None
    assert safe_title("   ") is None
    assert safe_title(None) is None


def _deadline(title: str) -> C.Candidate:
    (c,) = C.deadlines(facts(NOW, open_threads=[goal("g", title, NOW + timedelta(hours=3))]))
    return c


def test_a_hostile_title_falls_back_to_the_untitled_template() -> None:
    w = word(_deadline("according to my records"))
    assert w.template == "deadline_untitled" and w.fallback
    assert forbidden_phrase(w.text) is None


def test_a_title_is_quoted() -> None:
    w = word(_deadline("Quarterly report"))
    assert w.text.startswith("“Quarterly report”") and not w.fallback


def test_generated_wording_must_pass_the_same_check() -> None:
    c = _deadline("Report")
    assert word(c, lambda _c: "Your report is due soon — want help?").template == "generated"
    bad = word(c, lambda _c: "My logs show your report is due.")
    assert bad.template != "generated" and bad.fallback
    assert forbidden_phrase(bad.text) is None

    def boom(_c: C.Candidate) -> str:
        raise RuntimeError("model gone")

    assert word(c, boom).template == "deadline_soon"
    assert word(c, lambda _c: "x" * 500).template == "deadline_soon"  # too long


def test_wording_is_deterministic() -> None:
    c = _deadline("Report")
    assert word(c) == word(c)


# ── the property: nothing emitted contains a forbidden phrase ────────────────
SEPARATORS = [" ", "  ", "-", ".", ",", "\u200b", "\n", "_", "…", " / ", "\u00a0"]


@st.composite
def hostile(draw: st.DrawFn) -> str:
    phrase = draw(st.sampled_from(FORBIDDEN_PHRASES))
    words = phrase.split()
    parts = []
    for w in words:
        flips = draw(st.lists(st.booleans(), min_size=len(w), max_size=len(w)))
        w = "".join(ch.upper() if f else ch.lower() for ch, f in zip(w, flips, strict=True))
        if draw(st.booleans()):
            w = w.replace("'", "’")
        parts.append(w)
    joined = parts[0]
    for part in parts[1:]:
        joined += draw(st.sampled_from(SEPARATORS)) + part
    return draw(st.text(max_size=10)) + joined + draw(st.text(max_size=10))


titles = st.one_of(st.text(max_size=80), hostile())
threads = st.lists(
    st.builds(
        ThreadFact,
        id=st.text(min_size=1, max_size=8),
        title=titles,
        kind=st.sampled_from(["goal", "open_thread"]),
        deadline=st.one_of(st.none(), st.floats(-5, 30).map(lambda h: NOW + timedelta(hours=h))),
    ),
    max_size=4,
)


@st.composite
def any_facts(draw: st.DrawFn) -> object:
    silent = draw(st.one_of(st.none(), st.floats(0, 60 * 60)))
    last = None if silent is None else NOW - timedelta(minutes=silent)
    session = draw(st.floats(0, 400))
    return facts(
        NOW,
        last_user_message_at=last,
        session_started_at=None if last is None else last - timedelta(minutes=session),
        turns_this_session=draw(st.integers(0, 50)),
        modulators={"fatigue": draw(st.floats(0, 1))},
        last_strain=draw(st.floats(0, 1)),
        rupture_unresolved=draw(st.booleans()),
        open_threads=draw(threads),
    )


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(any_facts())
def test_no_wording_ever_contains_a_forbidden_phrase(f: object) -> None:
    for candidate in C.evaluate(f):  # type: ignore[arg-type]
        text = word(candidate).text
        assert forbidden_phrase(text) is None, text
        assert text.strip()


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(any_facts(), st.sampled_from([None, "My logs show {t}", "I saw that you {t}"]))
def test_no_emitted_suggestion_contains_a_forbidden_phrase(
    f: object, generated: str | None
) -> None:
    r = rig(per_hour=60, per_day=500)
    r.source.current = f  # type: ignore[assignment]
    if generated is not None:
        r.engine.generate = lambda c: generated.replace("{t}", str(c.detail.get("title")))
    r.run(NOW)
    for event in r.nudge_events():
        assert forbidden_phrase(event.payload["suggestion"]) is None
        assert forbidden_phrase(event.payload["reason"]) is None
