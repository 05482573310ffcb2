"""The understanding model in the turn: it replaces the rules-plus-heads blend of the nine
readings and reads the intent, once per message, from one feature vector.

Hard constraints stay with the rules: a ``safety_risk`` or ``prompt_injection`` rule
reading at or above 0.5 is a floor the model can raise but never lower, and an empty
message is never read here. Every reading keeps the rules' evidence spans, with
``model 0.83`` added to its notes. Any failure of an encoder or of the model leaves the
readings as they came and no intent reading (logged): sensing never fails a turn.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.sensors.learned import reblended
from rilai_desktop.turn.understanding.features import FeatureBuilder, context_text
from rilai_desktop.turn.understanding.model import IntentReading, UnderstandingModel

log = logging.getLogger(__name__)

FLOOR: Final[float] = 0.5
FLOORED: Final[frozenset[str]] = frozenset({"safety_risk", "prompt_injection"})

History = Sequence[Mapping[str, Any]] | Sequence[tuple[str, str]]


def blend(sensor: str, rule: float, learned: float, beta: float) -> float:
    p = (1.0 - beta) * rule + beta * learned
    if sensor in FLOORED and rule >= FLOOR:
        p = max(p, rule)
    return min(1.0, max(0.0, p))


class UnderstandingLayer:
    def __init__(self, features: FeatureBuilder, model: UnderstandingModel) -> None:
        if features.dimension != model.dimension:
            raise ValueError(f"features give {features.dimension}, model expects {model.dimension}")
        self.features = features
        self.model = model
        self._last: tuple[tuple[str, str], IntentReading | None] | None = None

    def apply(
        self, text: str, readings: dict[str, SensorOutput], history: History = ()
    ) -> dict[str, SensorOutput]:
        context = context_text(history)
        key = (text, context)
        self._last = (key, None)
        if not text.strip():
            return readings
        try:
            rules = {name: out.probability for name, out in readings.items()}
            x = self.features.features(text, context, rules)
            learned = self.model.sensor_probabilities(x)
            intent = self.model.intent_reading(x)
        except Exception as exc:  # the encoders are outside components: never fail a read
            log.warning("understanding model skipped: %s", exc)
            return readings
        self._last = (key, intent)
        out = dict(readings)
        for name, q in learned.items():
            rule = readings.get(name)
            if rule is None:
                continue
            p = blend(name, rule.probability, q, self.model.beta_of(name))
            out[name] = reblended(rule, p, f"model {q:.2f}")
        return out

    def intent_for(self, text: str, history: History = ()) -> IntentReading | None:
        """The intent read with the last ``apply`` of this message in this context."""
        if self._last is None or self._last[0] != (text, context_text(history)):
            return None
        return self._last[1]
