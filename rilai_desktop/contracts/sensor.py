"""Sensor contracts (seed 000): probabilistic reads of the user's message.

``THRESHOLDS`` is one documented decision threshold per sensor (docs/sensors.md): the turn
acts on them (``turn/sensors``), the daemon reads rupture with the same one, and the
evaluation reports precision and recall at them.
"""

from __future__ import annotations

from typing import Final

from pydantic import Field

from rilai_desktop.contracts._base import Contract

SENSOR_NAMES: Final[tuple[str, ...]] = (
    "vulnerability",  # Fear/shame/sadness detection
    "advice_requested",  # Explicit solution-seeking
    "relational_bid",  # "Do you care about me?" probes
    "ai_feelings_probe",  # Questions about AI sentience
    "humor_masking",  # Deflecting with humor
    "rupture",  # Disappointment/withdrawal
    "ambiguity",  # Unclear intent
    "safety_risk",  # Self-harm/violence
    "prompt_injection",  # Manipulation attempts
)

SAFETY_INTERRUPT_THRESHOLD: Final[float] = 0.5
INJECTION_THRESHOLD: Final[float] = 0.5

THRESHOLDS: Final[dict[str, float]] = {
    "vulnerability": 0.5,
    "advice_requested": 0.5,
    "relational_bid": 0.5,
    "ai_feelings_probe": 0.5,
    "humor_masking": 0.4,
    "rupture": 0.5,
    "ambiguity": 0.5,
    "safety_risk": SAFETY_INTERRUPT_THRESHOLD,
    "prompt_injection": INJECTION_THRESHOLD,
}


class SensorOutput(Contract):
    """Output from one sensor."""

    sensor: str = Field(description="Sensor name")
    probability: float = Field(ge=0.0, le=1.0, description="Probability [0.0-1.0]")
    evidence: list[str] = Field(default_factory=list, description="Spans supporting it")
    counterevidence: list[str] = Field(default_factory=list, description="Spans against it")
    notes: str = Field(default="", max_length=100, description="Brief observation (max 100)")
