"""The five conditions on NudgeFacts: when each holds, its key, anchor and reason."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from rilai_desktop.daemon.nudges import conditions as C
from tests.daemon.nudge_fakes import at, facts, goal

NOW = at("15:00")


def ago(**kw: float) -> datetime:
    return NOW - timedelta(**kw)


# (a) strain then silence
def test_strain_then_silence_thresholds() -> None:
    def found(strain: float, silent_min: float) -> bool:
        f = facts(NOW, last_user_message_at=ago(minutes=silent_min), last_strain=strain)
        return C.strain_then_silence(f) is not None

    assert found(0.6, 45)
    assert not found(0.59, 45)  # not strained enough
    assert not found(0.9, 44)  # not silent long enough
    assert found(0.9, 12 * 60)
    assert not found(0.9, 12 * 60 + 1)  # stale: the morning is old news
    assert not found(math.nan, 60)


def test_strain_candidate_fields() -> None:
    last = ago(minutes=50)
    c = C.strain_then_silence(facts(NOW, last_user_message_at=last, last_strain=0.8))
    assert c is not None
    assert c.condition == "strain_silence" and c.domain == "health"
    assert c.anchor == last.isoformat()
    assert "0.80" in c.reason and "50 min" in c.reason


def test_no_message_ever_means_no_silence() -> None:
    assert C.strain_then_silence(facts(NOW, last_strain=1.0)) is None
    assert C.evaluate(facts(NOW, last_strain=1.0, rupture_unresolved=True)) == []


def test_a_message_from_the_future_is_not_silence() -> None:
    f = facts(NOW, last_user_message_at=NOW + timedelta(hours=1), last_strain=1.0)
    assert C.strain_then_silence(f) is None


def test_naive_timestamps_do_not_crash() -> None:
    naive = datetime(2025, 3, 10, 9, 0)
    f = facts(NOW, last_user_message_at=naive, last_strain=1.0, session_started_at=naive)
    assert C.evaluate(f) == []


# (b) deadlines
def test_two_goals_have_separate_keys() -> None:
    f = facts(
        NOW,
        last_user_message_at=ago(hours=2),
        open_threads=[
            goal("a", "Report", NOW + timedelta(hours=3)),
            goal("b", "Visa", NOW + timedelta(hours=20)),
        ],
    )
    keys = {c.condition for c in C.deadlines(f)}
    assert keys == {"deadline:a:soon", "deadline:b:day"}


def test_deadline_window_and_stages() -> None:
    def stage(hours: float) -> str | None:
        f = facts(NOW, open_threads=[goal("g", "Report", NOW + timedelta(hours=hours))])
        found = C.deadlines(f)
        return found[0].detail["stage"] if found else None

    assert stage(24.01) is None  # too far
    assert stage(24) == "day"
    assert stage(8) == "soon"
    assert stage(2) == "now"
    assert stage(0.1) == "now"
    assert stage(0) is None  # passed: a reminder now would only scold
    assert stage(-3) is None


def test_no_deadline_reminder_mid_conversation() -> None:
    thread = goal("g", "Report", NOW + timedelta(hours=1))
    assert C.deadlines(facts(NOW, last_user_message_at=ago(minutes=5), open_threads=[thread])) == []
    assert C.deadlines(facts(NOW, last_user_message_at=ago(minutes=20), open_threads=[thread]))


def test_undated_threads_have_no_deadline() -> None:
    f = facts(NOW, open_threads=[goal("g", "Someday", None, "open_thread")])
    assert C.deadlines(f) == []


def test_the_anchor_changes_when_the_deadline_moves() -> None:
    a = C.deadlines(facts(NOW, open_threads=[goal("g", "R", NOW + timedelta(hours=3))]))[0]
    b = C.deadlines(facts(NOW, open_threads=[goal("g", "R", NOW + timedelta(hours=4))]))[0]
    assert a.condition == b.condition and a.anchor != b.anchor


def test_goal_titles_stay_out_of_the_reason() -> None:
    thread = goal("g", "I've been tracking you", NOW + timedelta(hours=3))
    (c,) = C.deadlines(facts(NOW, open_threads=[thread]))
    assert "tracking" not in c.reason
    assert c.detail["title"] == "I've been tracking you"  # wording decides what to quote


# (c) rupture
def test_rupture_needs_some_silence_and_expires() -> None:
    def found(minutes: float, unresolved: bool = True) -> bool:
        f = facts(NOW, last_user_message_at=ago(minutes=minutes), rupture_unresolved=unresolved)
        return C.unresolved_rupture(f) is not None

    assert not found(19)
    assert found(20)
    assert found(48 * 60)
    assert not found(48 * 60 + 1)
    assert not found(60, unresolved=False)


# (d) long session with fatigue
def test_long_session_with_fatigue() -> None:
    def found(session_min: float, fatigue: float, last_min: float = 1) -> bool:
        f = facts(
            NOW,
            session_started_at=ago(minutes=session_min),
            last_user_message_at=ago(minutes=last_min),
            modulators={"fatigue": fatigue},
            turns_this_session=12,
        )
        return C.long_session_fatigue(f) is not None

    assert found(90, 0.5)
    assert not found(89, 0.9)
    assert not found(120, 0.49)
    assert not found(120, 0.9, last_min=31)  # the sitting is over
    assert not found(120, math.inf)


# (e) idle with open threads
def test_idle_with_open_threads() -> None:
    threads = [goal("t1", "Call the dentist", None, "open_thread")]

    def found(hours: float, items: list = threads) -> bool:  # type: ignore[type-arg]
        f = facts(NOW, last_user_message_at=ago(hours=hours), open_threads=items)
        return C.idle_with_threads(f) is not None

    assert found(4)
    assert not found(3.9)
    assert not found(6, [])
    assert not found(6, [goal("t2", "   ", None, "open_thread")])  # a blank title is no thread


def test_evaluate_orders_by_score() -> None:
    f = facts(
        NOW,
        last_user_message_at=ago(hours=5),
        last_strain=0.9,
        rupture_unresolved=True,
        open_threads=[goal("g", "Report", NOW + timedelta(hours=1))],
    )
    found = C.evaluate(f)
    kinds = [c.kind for c in found]
    assert kinds[0] == "deadline"
    assert set(kinds) == {"deadline", "strain_silence", "rupture", "idle_threads"}
    scores = [c.score for c in found]
    assert scores == sorted(scores, reverse=True)
