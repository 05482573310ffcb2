"""The intervention score and the ladder it maps to (docs/nudges.md has the table)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rilai_desktop.daemon.nudges import conditions as C
from rilai_desktop.daemon.nudges.ladder import (
    LEVEL_COSTS,
    LEVEL_THRESHOLDS,
    clamp_level,
    level_for_score,
)
from rilai_desktop.daemon.nudges.scoring import DOMAIN_WEIGHTS, intervention_score
from tests.daemon.nudge_fakes import at, facts, goal


def test_costs_by_level() -> None:
    assert LEVEL_COSTS == {0: 0, 1: 0, 2: 1, 3: 1, 4: 2}


@pytest.mark.parametrize(
    ("score", "level"),
    [
        (0.0, 0),
        (0.0499, 0),
        (0.05, 1),
        (0.1799, 1),
        (0.18, 2),
        (0.3499, 2),
        (0.35, 3),
        (0.5499, 3),
        (0.55, 4),
        (1.0, 4),
        (math.nan, 0),
        (-3.0, 0),
    ],
)
def test_ladder_boundaries(score: float, level: int) -> None:
    assert level_for_score(score) == level


def test_thresholds_descend() -> None:
    values = [t for _, t in LEVEL_THRESHOLDS]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize(
    ("raw", "level"), [(3, 3), (9, 4), (-1, 0), ("2", 0), (True, 0), (None, 0)]
)
def test_levels_read_from_the_log_are_clamped(raw: object, level: int) -> None:
    assert clamp_level(raw) == level


def test_domains_rank_health_over_work_over_social_over_idle() -> None:
    def s(domain: str) -> float:
        return intervention_score(stakes=0.8, confidence=0.8, reversibility=0.3, domain=domain)

    assert s("safety") > s("health") > s("work") > s("social") > s("idle") > 0
    assert list(DOMAIN_WEIGHTS) == ["safety", "health", "work", "social", "idle"]


def test_formula() -> None:
    score = intervention_score(stakes=0.5, confidence=0.6, reversibility=0.4, domain="work")
    assert score == pytest.approx(0.8 * 0.5 * (0.5 + 0.3) * (1 - 0.2), abs=1e-4)


@given(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([*DOMAIN_WEIGHTS, "nonsense"]),
)
def test_score_is_always_in_unit_range(s: float, c: float, r: float, domain: str) -> None:
    score = intervention_score(stakes=s, confidence=c, reversibility=r, domain=domain)
    assert 0.0 <= score <= 1.0


def test_zero_stakes_is_log_only() -> None:
    assert intervention_score(stakes=0, confidence=1, reversibility=0, domain="safety") == 0


# ── what the five conditions actually earn ──────────────────────────────────
NOW = at("10:00")


def _deadline_level(hours: float, kind: str = "goal") -> int:
    thread = goal("g", "Report", NOW + timedelta(hours=hours), kind)
    found = C.deadlines(facts(NOW, open_threads=[thread]))
    assert len(found) == 1
    return level_for_score(found[0].score)


def test_deadline_levels_rise_as_it_nears() -> None:
    assert _deadline_level(20) == 2  # a day ahead: shown on next open
    assert _deadline_level(5) == 3  # the same day: inline
    assert _deadline_level(1) == 4  # the last call: a notification
    assert _deadline_level(1, "open_thread") == 4
    assert _deadline_level(20, "open_thread") <= _deadline_level(20)  # softer, never louder


def test_other_conditions_levels() -> None:
    quiet = NOW - timedelta(hours=1)
    strong = C.strain_then_silence(facts(NOW, last_user_message_at=quiet, last_strain=0.8))
    mild = C.strain_then_silence(facts(NOW, last_user_message_at=quiet, last_strain=0.6))
    rupture = C.unresolved_rupture(facts(NOW, last_user_message_at=quiet, rupture_unresolved=True))
    idle = C.idle_with_threads(
        facts(
            NOW,
            last_user_message_at=NOW - timedelta(hours=5),
            open_threads=[goal("t", "Call the dentist", None, "open_thread")],
        )
    )
    assert strong is not None and level_for_score(strong.score) == 3
    assert mild is not None and level_for_score(mild.score) == 2
    assert rupture is not None and level_for_score(rupture.score) == 2
    assert idle is not None and level_for_score(idle.score) == 1
