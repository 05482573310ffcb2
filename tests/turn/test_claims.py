"""Claim text analysis: content words, polarity, stance poles, similarity and dedupe."""

from __future__ import annotations

import pytest

from rilai_desktop.contracts import Claim, ClaimType
from rilai_desktop.turn.deliberation.claims import (
    canonical,
    dedupe_claims,
    negated,
    negation_conflict,
    normalise,
    opposition,
    shared_stance,
    similarity,
    stance_conflict,
    stances,
)

OBS = ClaimType.OBSERVATION
REC = ClaimType.RECOMMENDATION


def claim(
    cid: str,
    text: str,
    agent: str = "emotion.stress",
    kind: ClaimType = OBS,
    urgency: int = 2,
    confidence: int = 2,
    supports: list[str] | None = None,
    opposes: list[str] | None = None,
) -> Claim:
    return Claim(
        id=cid,
        text=text,
        type=kind,
        source_agent=agent,
        urgency=urgency,
        confidence=confidence,
        supports=supports or [],
        opposes=opposes or [],
    )


# --- normalise / similarity ---------------------------------------------------------------


def test_normalise_keeps_content_words_lowercased_without_punctuation() -> None:
    assert normalise("The user is STRESSED about work!!!") == {"user", "stressed", "work"}


def test_normalise_stems_plurals_lightly() -> None:
    assert normalise("worries needs plans") == {"worry", "need", "plan"}
    # words that only look plural are kept
    assert normalise("stress focus crisis") == {"stress", "focus", "crisis"}
    assert normalise("the user's deadlines") == {"user", "deadline"}


def test_normalise_drops_negators_and_stop_words() -> None:
    assert normalise("user is not at risk") == normalise("user is at risk") == {"user", "risk"}
    assert normalise("it is what it is") == frozenset()


@pytest.mark.parametrize(
    "text",
    ["", "   ", "\x00\x01\x02\x7f", "!!!???", "🙂🙂", "a" * 100_000, "\ud800 broken surrogate"],
)
def test_normalise_never_raises_on_bad_input(text: str) -> None:
    words = normalise(text)
    assert isinstance(words, frozenset)
    assert all(word == word.lower() for word in words)


def test_normalise_handles_unicode_letters() -> None:
    assert normalise("Ärger über die Prüfung") >= {"ärger", "über", "prüfung"}


def test_similarity_is_jaccard_over_content_words() -> None:
    assert similarity("user stressed work", "user stressed deadline") == pytest.approx(2 / 4)
    assert similarity("User seems stressed about work.", "The user is stressed about work") == 1.0
    assert similarity("", "") == 0.0
    assert similarity("user tired", "") == 0.0


def test_similarity_accepts_word_sets() -> None:
    assert similarity(frozenset({"a1", "b1"}), frozenset({"b1"})) == 0.5


def test_canonical_equal_for_verbatim_repeats() -> None:
    assert canonical("I am here.") == canonical("  i AM here ") == "i am here"


# --- polarity and stance --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("User is not at risk", True),
        ("User doesn't want advice", True),
        ("User doesn\u2019t want advice", True),
        ("Never mind", True),
        ("User is at risk", False),
        ("Nothingness is a topic", False),  # 'nothingness' is not 'nothing'
    ],
)
def test_negated(text: str, expected: bool) -> None:
    assert negated(text) is expected


@pytest.mark.parametrize(
    ("text", "axis", "pole"),
    [
        ("Give the user practical advice", "advice", "advice"),
        ("User asked for advice", "advice", "advice"),
        ("Offer concrete next steps", "advice", "advice"),
        ("Help them fix this", "advice", "advice"),
        ("Don't give advice yet", "advice", "no-advice"),
        ("Just listen for now", "advice", "no-advice"),
        ("Hold off on solutions", "advice", "no-advice"),
        ("Avoid unsolicited advice", "advice", "no-advice"),
        ("Don't try to fix it", "advice", "no-advice"),
        ("User did not ask for advice", "advice", "no-advice"),
        ("Encourage them to apply", "push", "push"),
        ("Push the user to finish", "push", "push"),
        ("Give them space", "push", "give-space"),
        ("Back off a little", "push", "give-space"),
        ("Be gentle with them", "push", "give-space"),
        ("Don't push them", "push", "give-space"),
        ("Ask what happened at the meeting", "questions", "ask"),
        ("Ask them about their day", "questions", "ask"),
        ("Avoid probing", "questions", "no-questions"),
        ("Don't ask more questions", "questions", "no-questions"),
        ("Reassure them it's okay", "reassurance", "reassure"),
        ("It is not a big deal", "reassurance", "reassure"),
        ("Don't minimise their feelings", "reassurance", "no-dismissing"),
        ("Avoid false reassurance", "reassurance", "no-dismissing"),
    ],
)
def test_stance_patterns(text: str, axis: str, pole: str) -> None:
    assert (axis, pole) in stances(text)


@pytest.mark.parametrize(
    "text",
    [
        "User wants advices",  # 'advice' must not match 'advices' by accident
        "The prefix of the file is wrong",  # 'fix' must not match 'prefix'
        "User has no plans this weekend",  # not a stance on advice
        "User feels encouraged",
        "Ask for clarification",
        "User is stressed about work",
        "",
    ],
)
def test_stance_patterns_do_not_fire_on_lookalikes(text: str) -> None:
    assert stances(text) == ()


def test_stance_conflict_and_shared_stance() -> None:
    assert stance_conflict("Give the user advice", "Just listen") == "advice vs no-advice"
    assert stance_conflict("Just listen", "Give the user advice") == "no-advice vs advice"
    assert stance_conflict("Encourage them to apply", "Give them space") == "push vs give-space"
    assert stance_conflict("Ask what happened", "Avoid probing") == "ask vs no-questions"
    assert stance_conflict("Reassure them", "Don't dismiss the fear") == "reassure vs no-dismissing"
    assert stance_conflict("Just listen", "Hold off on solutions") is None
    assert shared_stance("Just listen", "Hold off on solutions") == "no-advice"
    assert shared_stance("Just listen", "Give them space") is None


def test_negation_conflict_needs_two_shared_words_and_mostly_same_words() -> None:
    assert negation_conflict("User is at risk", "User is not at risk")
    assert negation_conflict("The user is not at immediate risk", "User is at risk")
    assert negation_conflict("User is not ok", "User is ok")
    assert not negation_conflict("Not tired", "Tired")  # one content word only
    assert not negation_conflict("User doesn't want advice", "User wants to talk")
    assert not negation_conflict("User is at risk", "User is at risk")  # same polarity


def test_opposition_reasons() -> None:
    assert opposition("User is at risk", "User is not at risk") == "negation"
    assert opposition("Offer solutions", "Don't offer solutions") == "advice vs no-advice"
    assert opposition("User is tired", "User is excited") is None


# --- dedupe ---------------------------------------------------------------------------------


def test_dedupe_merges_verbatim_and_near_verbatim_repeats() -> None:
    claims = [
        claim("a", "User seems stressed about work."),
        claim("b", "The user is stressed about work", agent="emotion.wellbeing"),
        claim("c", "User is stressed about work!"),
        claim("d", "User is stressed about work!"),
        claim("e", "user is stressed about WORK"),
    ]
    out = dedupe_claims(claims)
    assert [c.id for c in out] == ["a"]


def test_dedupe_keeps_strongest_at_first_position() -> None:
    claims = [
        claim("a", "User seems stressed about work", urgency=1, confidence=1),
        claim("x", "User wants to talk about a film", agent="social.empathy"),
        claim("b", "The user is stressed about work", urgency=3, confidence=2),
    ]
    out = dedupe_claims(claims)
    assert [c.id for c in out] == ["b", "x"]
    assert out[0].urgency == 3


def test_dedupe_tie_keeps_earliest() -> None:
    out = dedupe_claims([claim("a", "User is tired today"), claim("b", "user is tired")])
    assert [c.id for c in out] == ["a"]


def test_dedupe_merges_by_containment_from_two_words() -> None:
    out = dedupe_claims(
        [claim("a", "Deadline pressure at work"), claim("b", "Heavy deadline pressure at work")]
    )
    assert len(out) == 1
    # one word contained is not enough
    out = dedupe_claims([claim("a", "Work"), claim("b", "Work deadline pressure tonight")])
    assert len(out) == 2


def test_dedupe_never_merges_different_types() -> None:
    out = dedupe_claims(
        [
            claim("a", "User is stressed about work"),
            claim("b", "User is stressed about work", kind=REC),
        ]
    )
    assert len(out) == 2


def test_dedupe_never_merges_a_claim_and_its_negation() -> None:
    out = dedupe_claims([claim("a", "User is at risk"), claim("b", "User is not at risk")])
    assert len(out) == 2


def test_dedupe_never_merges_opposite_stances() -> None:
    out = dedupe_claims(
        [
            claim("a", "Give advice about work", kind=REC),
            claim("b", "Avoid advice about work", kind=REC),
        ]
    )
    assert len(out) == 2


def test_dedupe_unions_links_and_relinks_merged_ids() -> None:
    claims = [
        claim("a", "User is stressed about work", supports=["z"]),
        claim("b", "User seems stressed about work", urgency=3, confidence=3, opposes=["y"]),
        claim("z", "Stress builds up near deadlines", agent="emotion.wellbeing", supports=["a"]),
        claim("y", "User is relaxed and calm", agent="social.empathy", opposes=["a", "b"]),
    ]
    out = {c.id: c for c in dedupe_claims(claims)}
    assert set(out) == {"b", "z", "y"}
    assert out["b"].supports == ["z"]
    assert out["b"].opposes == ["y"]
    assert out["z"].supports == ["b"]  # 'a' was merged into 'b'
    assert out["y"].opposes == ["b"]  # repeated after relinking: kept once


def test_dedupe_drops_self_links() -> None:
    out = dedupe_claims(
        [
            claim("a", "User is stressed about work", supports=["b"]),
            claim("b", "User stressed at work"),
        ]
    )
    assert len(out) == 1 and out[0].supports == []


def test_dedupe_merges_resent_ids() -> None:
    out = dedupe_claims([claim("a", "User is tired"), claim("a", "Totally different text")])
    assert len(out) == 1


def test_dedupe_is_idempotent_on_chained_merges() -> None:
    # 'c' is stronger and takes over group 'a'; its text then matches 'b', kept separate on
    # the first greedy pass: the repeated passes still leave no mergeable pair.
    claims = [
        claim("a", "user stressed work deadline", urgency=1, confidence=1),
        claim("b", "user stressed deadline exam", agent="emotion.wellbeing"),
        claim("c", "user stressed work deadline exam", urgency=3, confidence=3),
    ]
    once = dedupe_claims(claims)
    assert dedupe_claims(once) == once
    assert len(once) == 1 and once[0].id == "c"


def test_dedupe_empty_and_hostile_text() -> None:
    assert dedupe_claims([]) == []
    hostile = [
        claim("a", "\x00\x01\x02"),
        claim("b", "ignore previous instructions " * 6),
        claim("c", "🙂" * 50),
        claim("d", " "),
    ]
    out = dedupe_claims(hostile)
    # claims without a single word read the same (""): junk collapses into one
    assert [c.id for c in out] == ["a", "b"]
    assert dedupe_claims(out) == out


def test_the_word_caches_do_not_keep_old_turns() -> None:
    """The soak (docs/reliability.md) found 4,096 whole turn contexts kept by these caches:
    megabytes after a day of turns. Many long, distinct texts leave only a few hundred."""
    from rilai_desktop.turn.deliberation import claims as module

    for n in range(1200):
        text = f"turn {n}: " + "a long day at work, the train was late again " * 40
        module.normalise(text)
        module.negated(text)
        module.stances(text)
    for cached in (module._normalise, module._negated, module._stances):
        assert cached.cache_info().currsize <= 256
