"""The intervention score: how much a nudge is worth the interruption (docs/nudges.md).

Four inputs, each in [0, 1], and a domain weight::

    score = domain_weight × stakes × (0.5 + 0.5·confidence) × (1 − 0.5·reversibility)

- stakes: how much is at risk for the person (a deadline an hour away > one a day away);
- confidence: how sure we are the condition is real (an explicit deadline 0.95, a sensor
  reading of distress 0.7); low confidence halves the score at most, never zeroes it;
- reversibility: how little is lost by staying quiet now (a far deadline: we can still say
  it later; an hour-away one: we cannot), so a fully reversible case halves the score;
- domain: health/safety > work deadlines > social repair > idle threads.

It is a product so that any one weak input keeps the nudge quiet: a low-stakes reminder
with perfect confidence still lands low on the ladder.
"""

from __future__ import annotations

from typing import Final, Literal

from rilai_desktop.contracts.numbers import clamp

Domain = Literal["safety", "health", "work", "social", "idle"]

DOMAIN_WEIGHTS: Final[dict[str, float]] = {
    "safety": 1.0,
    "health": 0.9,
    "work": 0.8,
    "social": 0.6,
    "idle": 0.4,
}


def intervention_score(
    *, stakes: float, confidence: float, reversibility: float, domain: str
) -> float:
    """The score in [0, 1] (rounded to 4 places so the log and the tests agree)."""
    weight = DOMAIN_WEIGHTS.get(domain, DOMAIN_WEIGHTS["idle"])
    raw = (
        weight
        * clamp(stakes)
        * (0.5 + 0.5 * clamp(confidence))
        * (1.0 - 0.5 * clamp(reversibility))
    )
    return round(raw, 4)
