"""One rule for "a number in a range" (a probability, a stance value, a delta).

Sensors, agents, the council, the reducer and the nudge scoring all read numbers that may
come from a model or a file: ``clamp`` is the one place that decides what such a number
becomes. Stdlib only.
"""

from __future__ import annotations

import math


def clamp(
    value: object, low: float = 0.0, high: float = 1.0, *, fallback: float | None = None
) -> float:
    """``value`` as a float in [``low``, ``high``] (default [0, 1]).

    The rule: a finite ``int`` or ``float`` (``bool`` excluded) is clamped into the range,
    so 7.0 becomes ``high`` and -3 becomes ``low``. Anything else is no reading at all and
    becomes ``fallback`` (default ``low``): NaN, +/-infinity (an overflow, not a large
    reading), ``None``, a bool, a string. ``fallback`` itself is returned as given.
    """
    if low > high:
        raise ValueError(f"empty range [{low}, {high}]")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return low if fallback is None else fallback
    if isinstance(value, int):  # compared as an int: 10**400 has no float
        return float(min(high, max(low, value)))
    if not math.isfinite(value):
        return low if fallback is None else fallback
    return min(high, max(low, value))
