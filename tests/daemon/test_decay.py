"""Decay by elapsed wall-clock time: the curve, seed 000's per-tick equivalence, catch-up."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rilai_desktop.config import DaemonSettings
from rilai_desktop.contracts import GlobalModulators, StanceVector
from rilai_desktop.contracts.payloads import ModulatorsDecayed
from rilai_desktop.contracts.workspace import MODULATOR_NAMES, STANCE_DIMENSIONS
from rilai_desktop.daemon.decay import (
    EPSILON,
    MODULATOR_BASELINES,
    STANCE_BASELINES,
    DecayResult,
    HalfLives,
    decay_affect,
    factor,
    tick_factor,
)

HALF = HalfLives.from_settings(DaemonSettings())  # stance 240 min, modulators 90 min
STRESSED = {"strain": 0.9, "valence": -0.8, "arousal": 0.9, "safety": 0.2, "closeness": 0.1}
MODS = {"arousal": 0.9, "fatigue": 0.8, "time_pressure": 0.7, "social_risk": 0.5}


def _ticks(stance: dict[str, float], mods: dict[str, float], n: int, t: float) -> DecayResult:
    result = decay_affect(stance, mods, 0.0, HALF)
    for _ in range(n):
        result = decay_affect(result.stance_after(), result.modulators_after(), t, HALF)
    return result


def test_baselines_are_the_contract_defaults() -> None:
    assert dict(STANCE_BASELINES) == StanceVector(last_update_ts=0).to_dict()
    assert dict(MODULATOR_BASELINES) == {
        "arousal": 0.3,
        "fatigue": 0.0,
        "time_pressure": 0.0,
        "social_risk": 0.0,
    }


def test_the_distance_to_baseline_halves_every_half_life() -> None:
    one = decay_affect(STRESSED, MODS, HALF.stance_s, HALF)
    assert one.stance["strain"].after == pytest.approx(0.45)
    assert one.stance["valence"].after == pytest.approx(-0.4)
    assert one.stance["safety"].after == pytest.approx(0.7 + (0.2 - 0.7) / 2)
    two = decay_affect(STRESSED, MODS, 2 * HALF.modulators_s, HALF)
    assert two.modulators["fatigue"].after == pytest.approx(0.2)
    assert two.modulators["arousal"].after == pytest.approx(0.3 + 0.6 / 4)
    # a dimension at its baseline stays there
    assert one.stance["curiosity"].delta == 0.0


def test_one_tick_is_seed_000_decay_with_the_tick_factor() -> None:
    """seed 000: ``GlobalModulators.decay(factor, baseline)``, target + (v - target) * f."""
    t = 60.0
    seed = GlobalModulators(**MODS)
    seed.decay(factor=tick_factor(t, HALF.modulators_s), baseline=0.3)
    ours = decay_affect({}, MODS, t, HALF)
    for name in MODULATOR_NAMES:
        assert ours.modulators[name].after == pytest.approx(getattr(seed, name), abs=1e-15)


@settings(max_examples=200, deadline=None)
@given(
    value=st.floats(0.0, 1.0),
    n=st.integers(1, 600),
    t=st.floats(1.0, 3600.0),
)
def test_n_ticks_compose_to_one_catch_up_of_n_times_t(value: float, n: int, t: float) -> None:
    stance = {name: value for name in STANCE_DIMENSIONS}
    mods = {name: value for name in MODULATOR_NAMES}
    ticked = _ticks(stance, mods, n, t)
    once = decay_affect(stance, mods, n * t, HALF)
    for name in STANCE_DIMENSIONS:
        assert ticked.stance[name].after == pytest.approx(once.stance[name].after, abs=1e-9)
    for name in MODULATOR_NAMES:
        assert ticked.modulators[name].after == pytest.approx(once.modulators[name].after, abs=1e-9)


def test_eight_hours_asleep_is_one_computation_equal_to_480_ticks() -> None:
    asleep = decay_affect(STRESSED, MODS, 8 * 3600, HALF)
    ticked = _ticks(STRESSED, MODS, 480, 60.0)
    assert asleep.elapsed_s == 8 * 3600
    assert asleep.moved()
    for name in STANCE_DIMENSIONS:
        assert asleep.stance[name].after == pytest.approx(ticked.stance[name].after, abs=1e-12)
    # 8 h = two stance half-lives: strain 0.9 → 0.225; fatigue: 5.33 half-lives
    assert asleep.stance["strain"].after == pytest.approx(0.225)
    assert asleep.modulators["fatigue"].after == pytest.approx(0.8 * 0.5 ** (480 / 90))


@pytest.mark.parametrize("elapsed", [-1.0, -3600.0, 0.0, math.nan, -math.inf])
def test_no_time_or_a_clock_that_went_backwards_changes_nothing(elapsed: float) -> None:
    result = decay_affect(STRESSED, MODS, elapsed, HALF)
    assert result.max_abs_delta == 0.0
    assert not result.moved()
    assert result.elapsed_s == 0.0


def test_moves_below_epsilon_are_not_moved_but_accumulate() -> None:
    """From strain 0.5, one 10-second step moves < EPSILON; many of them, taken from
    the same reference time, add up to a move that counts."""
    stance = {"strain": 0.5}
    small = decay_affect(stance, {}, 10.0, HALF)
    assert 0 < small.max_abs_delta < EPSILON and not small.moved()
    elapsed = 10.0
    while not decay_affect(stance, {}, elapsed, HALF).moved():
        elapsed += 10.0
    assert elapsed > 10.0
    assert decay_affect(stance, {}, elapsed, HALF).max_abs_delta >= EPSILON


def test_garbage_values_fall_back_to_baselines_or_are_clamped() -> None:
    odd = {"strain": "high", "valence": math.nan, "arousal": None, "safety": 7.0, "control": True}
    result = decay_affect(odd, {"fatigue": -3, "arousal": math.inf}, 60.0, HALF)
    assert result.stance["strain"].before == 0.0
    assert result.stance["valence"].before == 0.0
    assert result.stance["arousal"].before == 0.3
    assert result.stance["control"].before == 0.5  # a bool is not a number here
    assert result.stance["safety"].before == 1.0  # clamped
    assert result.modulators["fatigue"].before == 0.0
    assert result.modulators["arousal"].before == 0.3


@settings(max_examples=200, deadline=None)
@given(
    values=st.dictionaries(
        st.sampled_from(STANCE_DIMENSIONS), st.floats(allow_nan=True, allow_infinity=True)
    ),
    elapsed=st.floats(allow_nan=True, allow_infinity=True),
)
def test_decay_never_raises_and_stays_in_bounds(values: dict[str, float], elapsed: float) -> None:
    result = decay_affect(values, values, elapsed, HALF)
    StanceVector(**result.stance_after())  # validates the ranges
    GlobalModulators(**result.modulators_after())
    ModulatorsDecayed.model_validate(result.payload())


def test_payload_has_before_after_delta_for_every_dimension() -> None:
    payload = decay_affect(STRESSED, MODS, 600, HALF).payload()
    ModulatorsDecayed.model_validate(payload)
    assert set(payload["stance"]) == set(STANCE_DIMENSIONS)
    assert set(payload["modulators"]) == set(MODULATOR_NAMES)
    strain = payload["stance"]["strain"]
    assert strain["delta"] == pytest.approx(strain["after"] - strain["before"])
    assert strain["delta"] < 0


def test_factor_rejects_a_bad_half_life() -> None:
    assert factor(0.0, -1.0) == 1.0  # no time: nothing to compute
    for bad in (0.0, -5.0, math.nan):
        with pytest.raises(ValueError, match="half-life"):
            factor(60.0, bad)
