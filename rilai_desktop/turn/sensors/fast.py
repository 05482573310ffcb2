"""FastSensors: stage 1 of the turn — nine regex/lexicon sensors, no model, a few ms.

``FastSensors().read(text)`` returns one ``SensorOutput`` per name in ``SENSOR_NAMES``,
always all nine, each with a probability in [0, 1], the spans that support it (evidence),
the spans against it (counterevidence) and a short note. It never raises: any input
(empty, whitespace, 100 KB, binary garbage, control characters, hostile text) gives nine
readings. Only the first 20,000 characters are scanned (``text.MAX_SCAN_CHARS``).

Two thresholds act on the readings in the turn runner:

* ``safety_risk >= SAFETY_INTERRUPT_THRESHOLD`` short-circuits the turn to a protective
  reply (SAFETY_INTERRUPT);
* ``prompt_injection >= INJECTION_THRESHOLD`` flags the text, which is then quarantined from
  memory.

``THRESHOLDS`` (``contracts/sensor.py``) holds one documented decision threshold per
sensor, these two included; the evaluation
(``evaluation.py``, ``rilai sense --eval``) reports precision and recall at it.

``FastSensors(learned=LearnedLayer(embed, heads))`` adds the learned layer (``learned.py``):
per-sensor heads over the message's embedding blended with the rules' readings. Without it
(tests with fakes, no embedding model) the rules run alone, unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from rilai_desktop.contracts.sensor import SENSOR_NAMES, SensorOutput
from rilai_desktop.turn.sensors.advice import read_advice
from rilai_desktop.turn.sensors.affect import read_humor_masking, read_vulnerability
from rilai_desktop.turn.sensors.ambiguity import EMPTY_AMBIGUITY, read_ambiguity
from rilai_desktop.turn.sensors.injection import read_injection
from rilai_desktop.turn.sensors.learned import LearnedLayer
from rilai_desktop.turn.sensors.rupture import read_rupture
from rilai_desktop.turn.sensors.safety import read_safety
from rilai_desktop.turn.sensors.safety_bank import BankLayer
from rilai_desktop.turn.sensors.scoring import Reading
from rilai_desktop.turn.sensors.social import read_ai_feelings_probe, read_relational_bid
from rilai_desktop.turn.sensors.text import Text, normalise

if TYPE_CHECKING:
    from rilai_desktop.turn.understanding import IntentReading, UnderstandingLayer

log = logging.getLogger(__name__)

# Below the interrupt (``SAFETY_INTERRUPT_THRESHOLD``, a contract in contracts/sensor.py):
# worrying only in company ("I'm so tired of everything", "what's the point", "I'm a
# burden"). A turn at or above it is a safety disclosure that keeps the next turns careful,
# and inside that careful window it is enough for the protective reply (turn/session.py
# CAREFUL_TURNS, docs/sensors.md "An earlier disclosure").
SAFETY_CONCERN_THRESHOLD: Final[float] = 0.35


def _output(name: str, reading: Reading) -> SensorOutput:
    probability = round(min(1.0, max(0.0, float(reading.probability))), 4)
    return SensorOutput(
        sensor=name,
        probability=probability,
        evidence=list(reading.evidence),
        counterevidence=list(reading.counterevidence),
        notes=reading.notes_text(),
    )


def _fallback(name: str) -> SensorOutput:
    """What a sensor reports if its own code failed: nothing seen (ambiguity: unclear)."""
    probability = EMPTY_AMBIGUITY if name == "ambiguity" else 0.0
    return SensorOutput(sensor=name, probability=probability, notes="sensor error")


class FastSensors:
    """The nine fast sensors. Stateless and cheap to build; regexes compile at import.

    ``learned``: the optional learned layer over the rules (None: the rules alone).
    ``bank``: the optional safety exemplar bank (``safety_bank.py``), applied after it; it
    only ever raises ``safety_risk``.
    ``understanding``: the optional understanding model (``turn/understanding``): it reads
    the message in its conversation and replaces the ``learned`` blend when present; it
    also reads the intent (``intent_reading``).
    """

    def __init__(
        self,
        learned: LearnedLayer | None = None,
        bank: BankLayer | None = None,
        understanding: UnderstandingLayer | None = None,
    ) -> None:
        self.learned = learned
        self.bank = bank
        self.understanding = understanding

    def read(self, text: str, history: Sequence[Mapping[str, Any]] = ()) -> dict[str, SensorOutput]:
        """All nine readings for ``text`` (after ``history``, oldest first: {role, content}),
        keyed and ordered as ``SENSOR_NAMES``; never raises."""
        readings = self.read_rules(text)
        if not isinstance(text, str) or normalise(text).is_blank():
            return readings
        if self.understanding is not None:
            readings = self.understanding.apply(text, readings, history)
        elif self.learned is not None:
            readings = self.learned.apply(text, readings)
        if self.bank is not None:
            readings = self.bank.apply(text, readings)
        return readings

    def intent_reading(
        self, text: str, history: Sequence[Mapping[str, Any]] = ()
    ) -> IntentReading | None:
        """The understanding model's intent for the message ``read`` last saw (None without
        the model, or when it could not read it)."""
        if self.understanding is None or not isinstance(text, str):
            return None
        return self.understanding.intent_for(text, history)

    def read_rules(self, text: str) -> dict[str, SensorOutput]:
        """The rules' readings alone (what ``read`` returns without a learned layer)."""
        try:
            norm = normalise(text)
        except Exception:  # pragma: no cover - normalise is total; this is the last guard
            log.exception("sensor normalisation failed")
            norm = normalise("")
        readings: dict[str, Reading] = {}
        out: dict[str, SensorOutput] = {}

        def run(name: str, fn: Callable[[], Reading]) -> Reading:
            try:
                reading = fn()
            except Exception:
                log.exception("sensor %s failed", name)
                reading = Reading()
                out[name] = _fallback(name)
            else:
                out[name] = _output(name, reading)
            readings[name] = reading
            return reading

        safety = run("safety_risk", lambda: read_safety(norm))
        own_risk = safety.signals.get("first_person", 0.0)
        vulnerability = run("vulnerability", lambda: read_vulnerability(norm, own_risk))
        run("humor_masking", lambda: read_humor_masking(norm, vulnerability, safety))
        run("advice_requested", lambda: read_advice(norm))
        run("relational_bid", lambda: read_relational_bid(norm))
        run("ai_feelings_probe", lambda: read_ai_feelings_probe(norm))
        run("rupture", lambda: read_rupture(norm))
        run("ambiguity", lambda: read_ambiguity(norm))
        run("prompt_injection", lambda: read_injection(norm))
        if norm.is_blank():
            for name in SENSOR_NAMES:
                if name != "ambiguity":
                    out[name] = SensorOutput(sensor=name, probability=0.0, notes="empty input")
        return {name: out.get(name) or _fallback(name) for name in SENSOR_NAMES}

    @staticmethod
    def normalised(text: str) -> Text:
        """The normalised form evidence spans are taken from (for callers that show them)."""
        return normalise(text)
