"""Stage 1 of the turn: nine fast sensors, regex and lexicons only (docs/sensors.md).

``FastSensors().read(text)`` → ``{name: SensorOutput}`` for every name in ``SENSOR_NAMES``.
The decision thresholds are contracts (``contracts/sensor.py``), re-exported here.
"""

from __future__ import annotations

from rilai_desktop.contracts.sensor import (
    INJECTION_THRESHOLD,
    SAFETY_INTERRUPT_THRESHOLD,
    THRESHOLDS,
)
from rilai_desktop.turn.sensors.advice import ADVICE_DECLINED
from rilai_desktop.turn.sensors.fast import SAFETY_CONCERN_THRESHOLD, FastSensors
from rilai_desktop.turn.sensors.text import MAX_SCAN_CHARS

__all__ = [
    "ADVICE_DECLINED",
    "INJECTION_THRESHOLD",
    "MAX_SCAN_CHARS",
    "SAFETY_CONCERN_THRESHOLD",
    "SAFETY_INTERRUPT_THRESHOLD",
    "THRESHOLDS",
    "FastSensors",
]
