"""What one user message tells the nudge conditions: its strain and whether it ruptured.

Shared by the real facts adapter (``rilai_desktop/app/nudge_facts.py``, reading the log) and
the simulator (``simulate.py``, running the sensors itself), so both read a message alike.

Strain at a message is the larger of the stance's ``strain`` after that turn and the
message's own ``vulnerability`` sensor reading. Why both: the stance moves slowly by
design (the reducer's α = 0.25 and ±0.15 per agent), so one heavy message barely moves
it, while the sensor reads the message itself; the stance still counts when strain has
built up over several milder messages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final

from rilai_desktop.contracts.sensor import THRESHOLDS

RUPTURE_THRESHOLD: Final = THRESHOLDS["rupture"]
"""The rupture sensor's own decision threshold (docs/sensors.md): at or above, the council
answers with a repair, and if the person goes quiet after it, the rupture is unresolved."""


def _unit(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    number = float(value)
    return min(1.0, max(0.0, number)) if math.isfinite(number) else 0.0


def message_strain(stance_strain: object, sensors: Mapping[str, object]) -> float:
    """Strain carried by a message: max(stance strain, vulnerability sensor), in [0, 1]."""
    return max(_unit(stance_strain), _unit(sensors.get("vulnerability")))


def ruptured(sensors: Mapping[str, object]) -> bool:
    """Did the message read as a rupture (disappointment in Rilai, pulling away)?"""
    return _unit(sensors.get("rupture")) >= RUPTURE_THRESHOLD
