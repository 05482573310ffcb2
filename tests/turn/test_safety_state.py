"""The conversation's risk state (turn/safety_state.py): the level, the careful window, the
distress trace, the situations (means, presence, retraction, repeat), the wall-clock decay,
the logged payload and its round trip, and ``in_context``."""

from __future__ import annotations

import math

import pytest

from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.safety_state import (
    ACCUMULATE,
    CAREFUL_FLAG,
    CAREFUL_HOURS,
    CAREFUL_TURNS,
    DISTRESS,
    HALF_LIFE_HOURS,
    MEANS_FLAG,
    MEANS_RISK,
    PRESENCE_FLAG,
    REPEAT_FLAG,
    REPEAT_TURNS,
    RETRACTION_FLAG,
    TURN_DECAY,
    WEAK,
    Assessment,
    ConversationRisk,
    assess,
    in_context,
)
from rilai_desktop.turn.sensors import SAFETY_CONCERN_THRESHOLD, SAFETY_INTERRUPT_THRESHOLD

HOUR = 3600.0
T0 = 1_700_000_000.0  # a wall time for the turns (unix seconds)
ORDINARY = "we watched a film tonight"
MEANS = "how tall is the bridge on 5th street"
PRESENCE = "can you just talk to me for a bit?"
RETRACT = "i'm not going to do anything stupid"


def disclosed(at: float = T0) -> ConversationRisk:
    """The state a strong disclosure leaves (a protective turn at ``at``)."""
    return assess(ConversationRisk(), 0.9, "I don't want to be here anymore", now=at).after


def turns(
    prior: ConversationRisk, readings: list[tuple[float, str]], start: float = T0
) -> list[Assessment]:
    """Assess ``(reading, text)`` turn after turn, a minute apart."""
    out: list[Assessment] = []
    for n, (reading, text) in enumerate(readings):
        out.append(assess(prior, reading, text, now=start + 60.0 * n))
        prior = out[-1].after
    return out


# ── ConversationRisk ───────────────────────────────────────────────────────────
def test_a_fresh_state_is_calm() -> None:
    risk = ConversationRisk()
    assert (risk.level, risk.careful_left, risk.distress, risk.protected_ago) == (0, 0, 0, None)
    assert not risk.careful


def test_aged_halves_the_level_and_the_distress_per_half_life() -> None:
    risk = ConversationRisk(level=0.8, careful_left=3, distress=0.6, protected_ago=1, at=T0)
    aged = risk.aged(T0 + HALF_LIFE_HOURS * HOUR)
    assert aged.level == pytest.approx(0.4)
    assert aged.distress == pytest.approx(0.3)
    assert aged.careful_left == 3  # a day is inside CAREFUL_HOURS: the window stays
    assert aged.protected_ago == 1 and aged.at == T0  # only the decaying parts change
    assert risk.aged(T0 + 2 * HALF_LIFE_HOURS * HOUR).level == pytest.approx(0.2)


def test_aged_closes_a_window_older_than_careful_hours() -> None:
    risk = ConversationRisk(level=0.9, careful_left=5, at=T0)
    assert risk.aged(T0 + (CAREFUL_HOURS - 0.5) * HOUR).careful_left == 5
    assert risk.aged(T0 + (CAREFUL_HOURS + 0.5) * HOUR).careful_left == 0


def test_aged_leaves_a_state_without_a_time_or_from_the_future_alone() -> None:
    undated = ConversationRisk(level=0.9, careful_left=5, distress=0.7)
    assert undated.aged(T0 + 1000 * HOUR) == undated  # at=0: never stamped
    stamped = ConversationRisk(level=0.9, careful_left=5, at=T0)
    assert stamped.aged(T0 - HOUR) == stamped  # a clock that went back: no negative decay
    assert stamped.aged(T0) == stamped


def test_the_payload_round_trips() -> None:
    risk = ConversationRisk(level=0.6125, careful_left=4, distress=0.85, protected_ago=2, at=T0)
    payload = risk.as_payload()
    assert payload == {
        "level": 0.6125,
        "careful_left": 4,
        "distress": 0.85,
        "protected_ago": 2,
        "at": T0,
    }
    assert ConversationRisk.from_payload(payload) == risk
    never = ConversationRisk(level=0.1, at=T0)
    assert ConversationRisk.from_payload(never.as_payload()) == never  # protected_ago None


def test_the_payload_rounds_the_floats() -> None:
    payload = ConversationRisk(level=1 / 3, distress=2 / 3, at=T0 + 0.123456).as_payload()
    assert payload["level"] == 0.3333 and payload["distress"] == 0.6667
    assert payload["at"] == round(T0 + 0.123456, 3)


def test_from_payload_clamps_values_out_of_range() -> None:
    payload = {"level": 7, "careful_left": 99, "distress": -2.0, "protected_ago": -4, "at": T0}
    risk = ConversationRisk.from_payload(payload)
    assert risk == ConversationRisk(
        level=1.0, careful_left=CAREFUL_TURNS, distress=0.0, protected_ago=0, at=T0
    )
    low = ConversationRisk.from_payload({**payload, "careful_left": -3})
    assert low is not None and low.careful_left == 0


GOOD = {"level": 0.5, "careful_left": 2, "distress": 0.4, "protected_ago": None, "at": T0}


@pytest.mark.parametrize(
    "payload",
    [
        None,
        "risk",
        [0.5, 2, 0.4],
        {},
        {**GOOD, "level": None},
        {**GOOD, "level": "0.5"},
        {**GOOD, "level": True},
        {**GOOD, "level": math.nan},
        {**GOOD, "distress": math.inf},
        {**GOOD, "at": -math.inf},
        {**GOOD, "careful_left": 2.0},
        {**GOOD, "careful_left": False},
        {**GOOD, "careful_left": "2"},
        {**GOOD, "protected_ago": 1.5},
        {**GOOD, "protected_ago": True},
        {k: v for k, v in GOOD.items() if k != "at"},
        {k: v for k, v in GOOD.items() if k != "careful_left"},
    ],
)
def test_from_payload_rejects_what_is_not_a_risk_state(payload: object) -> None:
    assert ConversationRisk.from_payload(payload) is None


def test_from_payload_accepts_the_good_payload_used_above() -> None:
    # the rejections above are single changes to this payload
    assert ConversationRisk.from_payload(GOOD) == ConversationRisk(0.5, 2, 0.4, None, T0)


# ── assess: a single message ───────────────────────────────────────────────────
def test_an_ordinary_message_leaves_a_calm_conversation_calm() -> None:
    result = assess(ConversationRisk(), 0.0, ORDINARY, now=T0)
    assert not result.careful and not result.protect
    assert result.flags == frozenset() and result.reasons == ()
    assert result.after == ConversationRisk(at=T0)


def test_a_strong_disclosure_protects_and_opens_the_window() -> None:
    result = assess(ConversationRisk(), 0.9, "I don't want to be here anymore", now=T0)
    assert result.protect and result.careful
    assert result.risk == 0.9
    assert result.flags == {CAREFUL_FLAG}  # a first protective turn: no situation
    assert result.reasons == ("safety_risk at the interrupt threshold",)
    assert result.after.careful_left == CAREFUL_TURNS
    assert result.after.level == 0.9 and result.after.protected_ago == 0
    assert result.after.at == T0


def test_the_interrupt_threshold_itself_protects() -> None:
    assert assess(ConversationRisk(), SAFETY_INTERRUPT_THRESHOLD, "x", now=T0).protect
    assert not assess(ConversationRisk(), SAFETY_INTERRUPT_THRESHOLD - 0.01, "x", now=T0).protect


def test_a_concern_opens_the_window_without_protecting() -> None:
    result = assess(ConversationRisk(), 0.4, "I'm just so tired of everything", now=T0)
    assert result.careful and not result.protect
    assert result.flags == {CAREFUL_FLAG}
    assert result.after.careful_left == CAREFUL_TURNS
    assert result.after.level == pytest.approx(0.4)


def test_one_weak_signal_is_not_careful_but_is_remembered() -> None:
    result = assess(ConversationRisk(), 0.3, "hm", now=T0)
    assert not result.careful and not result.protect and result.flags == frozenset()
    assert result.after.level == pytest.approx(ACCUMULATE * 0.3)
    assert result.after.careful_left == 0


def test_a_reading_below_weak_adds_nothing() -> None:
    result = assess(ConversationRisk(level=0.2), WEAK - 0.01, "hm", now=0.0)
    assert result.after.level == pytest.approx(0.2 * TURN_DECAY)


def test_three_weak_signals_in_a_row_open_the_window_two_do_not() -> None:
    first, second, third = turns(ConversationRisk(), [(0.2, "meh"), (0.2, "meh"), (0.2, "meh")])
    assert not first.careful and not second.careful
    assert second.after.level < SAFETY_CONCERN_THRESHOLD
    assert third.careful and not third.protect
    assert third.after.level >= SAFETY_CONCERN_THRESHOLD
    assert third.after.careful_left == CAREFUL_TURNS
    assert any(r.startswith("weak signals added up to") for r in third.reasons)
    expected = ACCUMULATE * 0.2 * (1 + TURN_DECAY + TURN_DECAY**2)
    assert third.after.level == pytest.approx(expected, abs=1e-3)  # a minute apart: ~no decay


def test_weak_signals_apart_decay_instead_of_adding_up() -> None:
    calm = [(0.0, ORDINARY)] * 4
    results = turns(ConversationRisk(), [(0.3, "meh"), *calm, (0.3, "meh"), *calm, (0.3, "meh")])
    assert not any(r.careful for r in results)


def test_a_means_question_alone_is_only_weak() -> None:
    result = assess(ConversationRisk(), 0.0, MEANS, now=T0)
    assert result.risk == WEAK
    assert not result.careful and not result.protect
    assert MEANS_FLAG not in result.flags
    assert result.reasons == ("a question about means (weak alone)",)
    assert result.evidence == ("how tall is the bridge",)
    assert result.after.level == pytest.approx(ACCUMULATE * WEAK)


def test_a_means_question_does_not_lower_a_higher_reading() -> None:
    result = assess(ConversationRisk(), 0.3, MEANS, now=T0)
    assert result.risk == 0.3  # above WEAK already: nothing to add
    assert result.reasons == ()


def test_a_means_question_with_distress_in_the_same_turn_protects() -> None:
    result = assess(ConversationRisk(), 0.0, MEANS, vulnerability=DISTRESS, now=T0)
    assert result.protect and result.careful
    assert result.risk == MEANS_RISK
    assert MEANS_FLAG in result.flags
    assert result.reasons[0] == "a question about means after distress"
    assert "how tall is the bridge" in result.evidence


def test_a_means_question_after_distress_in_an_earlier_turn_protects() -> None:
    sad, ordinary, means = _distress_then(ORDINARY, MEANS)
    assert not sad.careful and not ordinary.careful  # distress alone is not a safety signal
    assert means.protect and MEANS_FLAG in means.flags
    assert means.risk == MEANS_RISK
    assert means.after.careful_left == CAREFUL_TURNS


def _distress_then(*texts: str) -> list[Assessment]:
    out = [assess(ConversationRisk(), 0.0, "everything feels heavy", vulnerability=0.7, now=T0)]
    for n, text in enumerate(texts, 1):
        out.append(assess(out[-1].after, 0.0, text, now=T0 + 60.0 * n))
    return out


def test_distress_fades_and_a_later_means_question_is_weak_again() -> None:
    results = _distress_then(*[ORDINARY] * 4, MEANS)
    assert results[-1].before.distress < DISTRESS
    assert not results[-1].protect and results[-1].risk == WEAK


def test_a_means_question_about_an_ordinary_purpose_stays_ordinary_after_distress() -> None:
    _, trip = _distress_then("how tall is the bridge on 5th street, for our trip photos")
    assert not trip.protect and MEANS_FLAG not in trip.flags
    assert trip.risk == 0.0


def test_a_means_question_inside_the_window_protects_without_vulnerability() -> None:
    result = assess(disclosed(), 0.0, MEANS, now=T0 + 60)
    assert result.protect and MEANS_FLAG in result.flags and REPEAT_FLAG in result.flags


# ── assess: the careful window ─────────────────────────────────────────────────
def test_the_window_lasts_careful_turns() -> None:
    results = turns(disclosed(), [(0.0, ORDINARY)] * (CAREFUL_TURNS + 1), start=T0 + 60)
    for n, result in enumerate(results[:CAREFUL_TURNS]):
        assert result.careful and not result.protect, n
        assert result.flags == {CAREFUL_FLAG}
        assert result.after.careful_left == CAREFUL_TURNS - 1 - n
    assert results[0].reasons == (f"careful: {CAREFUL_TURNS} turn(s) left after a disclosure",)
    last = results[CAREFUL_TURNS]
    assert not last.careful and last.flags == frozenset() and last.reasons == ()


def test_concern_level_words_while_careful_protect() -> None:
    result = assess(disclosed(), 0.4, "I'm just so tired of everything", now=T0 + 60)
    assert result.protect and result.careful
    assert any("of a safety disclosure" in r for r in result.reasons)
    alone = assess(ConversationRisk(), 0.4, "I'm just so tired of everything", now=T0)
    assert not alone.protect  # the same reading outside the window


def test_words_that_stay_with_the_disclosure_are_raised_to_the_concern_level() -> None:
    text = "I haven't done anything. I just can't stop thinking it."
    result = assess(disclosed(), 0.0, text, now=T0 + 60)
    assert result.risk == SAFETY_CONCERN_THRESHOLD and result.protect
    assert result.evidence == ("can't stop thinking it",)
    assert result.reasons[0] == "stays with the earlier disclosure"
    assert assess(ConversationRisk(), 0.0, text, now=T0).risk == 0.0  # alone: nothing


def test_a_presence_request_only_counts_inside_the_window() -> None:
    inside = assess(disclosed(), 0.0, PRESENCE, now=T0 + 60)
    assert inside.protect and PRESENCE_FLAG in inside.flags
    assert inside.evidence == ("can you just talk",)
    assert inside.reasons == ("asks Rilai to stay, after a disclosure",)
    outside = assess(ConversationRisk(), 0.0, PRESENCE, now=T0)
    assert not outside.protect and not outside.careful and outside.flags == frozenset()


def test_a_retraction_only_counts_inside_the_window() -> None:
    inside = assess(disclosed(), 0.0, RETRACT, now=T0 + 60)
    assert inside.protect and RETRACTION_FLAG in inside.flags
    assert inside.reasons == ("plays the disclosure down; it stays open",)
    assert inside.after.careful_left == CAREFUL_TURNS  # protective: the window opens again
    outside = assess(ConversationRisk(), 0.0, RETRACT, now=T0)
    assert not outside.protect and outside.flags == frozenset()


def test_a_presence_request_after_the_window_closed_is_ordinary() -> None:
    closed = turns(disclosed(), [(0.0, ORDINARY)] * CAREFUL_TURNS, start=T0 + 60)[-1].after
    assert not closed.careful
    result = assess(closed, 0.0, PRESENCE, now=T0 + HOUR)
    assert not result.protect and PRESENCE_FLAG not in result.flags


def test_a_window_older_than_careful_hours_is_closed_for_the_next_turn() -> None:
    later = T0 + (CAREFUL_HOURS + 1) * HOUR
    result = assess(disclosed(), 0.0, PRESENCE, now=later)
    assert not result.before.careful
    assert not result.careful and not result.protect
    recent = assess(disclosed(), 0.0, PRESENCE, now=T0 + (CAREFUL_HOURS - 1) * HOUR)
    assert recent.protect  # the same message inside the time


def test_the_level_halves_after_a_half_life_before_the_turn_decay() -> None:
    result = assess(disclosed(), 0.0, ORDINARY, now=T0 + HALF_LIFE_HOURS * HOUR)
    assert result.before.level == pytest.approx(0.45)
    assert result.after.level == pytest.approx(0.45 * TURN_DECAY)
    assert result.after.at == T0 + HALF_LIFE_HOURS * HOUR


# ── assess: repeats ────────────────────────────────────────────────────────────
def test_a_protective_turn_within_repeat_turns_of_the_last_is_a_repeat() -> None:
    gap = [(0.0, ORDINARY)] * (REPEAT_TURNS - 1)
    results = turns(disclosed(), [*gap, (0.9, "I want to die")], start=T0 + 60)
    assert results[-1].before.protected_ago == REPEAT_TURNS - 1
    assert REPEAT_FLAG in results[-1].flags


def test_a_protective_turn_further_away_is_not_a_repeat() -> None:
    gap = [(0.0, ORDINARY)] * REPEAT_TURNS
    results = turns(disclosed(), [*gap, (0.9, "I want to die")], start=T0 + 60)
    assert results[-1].protect
    assert results[-1].before.protected_ago == REPEAT_TURNS
    assert REPEAT_FLAG not in results[-1].flags


def test_protected_ago_counts_turns_and_resets_on_a_protective_turn() -> None:
    results = turns(
        disclosed(), [(0.0, ORDINARY), (0.0, ORDINARY), (0.9, "I want to die")], start=T0 + 60
    )
    assert [r.after.protected_ago for r in results] == [1, 2, 0]
    assert assess(ConversationRisk(), 0.0, ORDINARY, now=T0).after.protected_ago is None


def test_the_first_protective_turn_is_not_a_repeat() -> None:
    assert REPEAT_FLAG not in assess(ConversationRisk(), 0.9, "I want to die", now=T0).flags


# ── the logged assessment and in_context ───────────────────────────────────────
def test_the_assessment_payload_carries_the_state_the_decision_and_the_reasons() -> None:
    result = assess(disclosed(), 0.0, PRESENCE, now=T0 + 60)
    payload = result.as_payload()
    back = ConversationRisk.from_payload(payload)  # what restore reads back
    assert back is not None
    assert back.level == pytest.approx(result.after.level, abs=1e-4)
    assert back.distress == pytest.approx(result.after.distress, abs=1e-4)
    assert (back.careful_left, back.protected_ago) == (CAREFUL_TURNS, 0)
    assert payload["turn_risk"] == 0.0
    assert payload["careful"] is True and payload["protect"] is True
    assert payload["situation"] == [PRESENCE_FLAG, REPEAT_FLAG]  # the careful flag left out
    assert payload["reasons"] == ["asks Rilai to stay, after a disclosure"]
    assert payload["before"] == result.before.as_payload()
    assert payload["before"]["careful_left"] == CAREFUL_TURNS


def test_in_context_raises_the_reading_with_the_persons_words() -> None:
    _, means = _distress_then(MEANS)
    reading = SensorOutput(
        sensor="safety_risk", probability=0.1, evidence=["bridge"], counterevidence=["5th street"]
    )
    raised = in_context(reading, means)
    assert raised.probability == MEANS_RISK
    assert raised.evidence == ["how tall is the bridge", "bridge"]
    assert raised.counterevidence == ["5th street"]
    assert raised.notes == "in context: a question about means after distress"
    assert raised.sensor == "safety_risk"


def test_in_context_leaves_a_reading_the_context_did_not_raise() -> None:
    reading = SensorOutput(sensor="safety_risk", probability=0.9, evidence=["want to die"])
    result = assess(disclosed(), 0.9, "I want to die", now=T0 + 60)
    assert in_context(reading, result) is reading
    calm = SensorOutput(sensor="safety_risk", probability=0.0)
    assert in_context(calm, assess(ConversationRisk(), 0.0, ORDINARY, now=T0)) is calm


def test_assess_clamps_an_out_of_range_reading() -> None:
    assert assess(ConversationRisk(), 1.7, "x", now=T0).risk == 1.0
    assert assess(ConversationRisk(), -0.4, "x", now=T0).risk == 0.0
