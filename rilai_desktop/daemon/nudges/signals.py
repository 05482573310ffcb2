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

from collections.abc import Mapping
from typing import Final

from rilai_desktop.contracts.numbers import clamp
from rilai_desktop.contracts.sensor import THRESHOLDS

RUPTURE_THRESHOLD: Final = THRESHOLDS["rupture"]
"""The rupture sensor's own decision threshold (docs/sensors.md): at or above, the council
answers with a repair, and if the person goes quiet after it, the rupture is unresolved."""


def message_strain(stance_strain: object, sensors: Mapping[str, object]) -> float:
    """Strain carried by a message: max(stance strain, vulnerability sensor), in [0, 1]."""
    return max(clamp(stance_strain), clamp(sensors.get("vulnerability")))


def ruptured(sensors: Mapping[str, object]) -> bool:
    """Did the message read as a rupture (disappointment in Rilai, pulling away)?"""
    return clamp(sensors.get("rupture")) >= RUPTURE_THRESHOLD
