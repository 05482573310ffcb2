"""contracts.numbers.clamp: the one rule for a number that must lie in a range."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rilai_desktop.contracts.numbers import clamp


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0, 0.0),
        (0.25, 0.25),
        (1, 1.0),
        (7.0, 1.0),
        (-3, 0.0),
        (1e300, 1.0),
        (-0.0, 0.0),
        (10**400, 1.0),
        (-(10**400), 0.0),
    ],
)
def test_finite_numbers_are_clamped_into_0_1(value: float, expected: float) -> None:
    assert clamp(value) == expected
    assert isinstance(clamp(value), float)


@pytest.mark.parametrize(
    "value", [math.nan, math.inf, -math.inf, None, True, False, "0.5", [0.5], object()]
)
def test_non_readings_become_the_fallback(value: object) -> None:
    assert clamp(value) == 0.0  # default fallback: the low end
    assert clamp(value, fallback=0.5) == 0.5
    assert clamp(value, -1.0, 1.0) == -1.0
    assert clamp(value, -1.0, 1.0, fallback=0.0) == 0.0


def test_other_ranges() -> None:
    assert clamp(5, -2.0, 2.0) == 2.0
    assert clamp(-5, -2.0, 2.0) == -2.0
    assert clamp(0.5, 0.0, 1e18) == 0.5
    assert clamp(3, 3.0, 3.0) == 3.0


def test_an_empty_range_is_refused() -> None:
    with pytest.raises(ValueError, match="empty range"):
        clamp(0.5, 1.0, 0.0)


@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers())
def test_always_in_range(value: float) -> None:
    out = clamp(value)
    assert 0.0 <= out <= 1.0 and math.isfinite(out)
    if math.isfinite(value) and 0.0 <= value <= 1.0:
        assert out == value
