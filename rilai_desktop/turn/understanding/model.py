"""The understanding model file: nine sensor heads and an intent classifier (numpy only).

``model.npz`` (built by ``tools/train_understanding.py``, ``make understanding-model``)
holds, over the standardised feature vector of ``features.py``:

* per sensor a logistic head ``q = σ(w·z + b)`` and a blend weight ``β`` chosen on the
  corpus's dev part: the reading is ``p = (1 − β)·rule + β·q`` (``layer.py`` keeps the
  rules' floors for the hard constraints);
* a multinomial logistic intent classifier, calibrated by a temperature fitted on dev,
  and ``confidence``: the top probability at or above which the council takes its
  intent without asking a model (chosen on dev).

No pickle: arrays and one JSON string of metadata.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from rilai_desktop.contracts.council import INTENTS
from rilai_desktop.contracts.sensor import SENSOR_NAMES
from rilai_desktop.turn.understanding.features import PARTS

log = logging.getLogger(__name__)

MODEL_FILE: Final[Path] = Path(__file__).with_name("model.npz")

Array = NDArray[np.float64]


class ModelError(ValueError):
    """A model file that is not in the documented shape."""


@dataclass(frozen=True)
class IntentReading:
    """The classifier's distribution over intents for one message."""

    probabilities: dict[str, float]
    confidence_threshold: float
    mode: str = "first"  # where the council takes it (council_classifier.py), chosen on dev

    @property
    def intent(self) -> str:
        return max(self.probabilities, key=lambda k: self.probabilities[k])

    @property
    def confidence(self) -> float:
        return self.probabilities[self.intent]

    @property
    def sure(self) -> bool:
        return self.confidence >= self.confidence_threshold

    def as_payload(self) -> dict[str, Any]:
        top = sorted(self.probabilities.items(), key=lambda kv: -kv[1])[:3]
        return {
            "intent": self.intent,
            "confidence": round(self.confidence, 3),
            "sure": self.sure,
            "top": {k: round(v, 3) for k, v in top},
        }


@dataclass(frozen=True)
class UnderstandingModel:
    dims: dict[str, int]
    mean: Array
    scale: Array
    sensors: tuple[str, ...]
    sensor_w: Array  # (S, D)
    sensor_b: Array  # (S,)
    beta: Array  # (S,)
    intents: tuple[str, ...]
    intent_w: Array  # (K, D)
    intent_b: Array  # (K,)
    temperature: float
    confidence: float
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def dimension(self) -> int:
        return int(self.mean.shape[0])

    def _standard(self, x: Array) -> Array:
        vec = np.asarray(x, dtype=np.float64).reshape(-1)
        if vec.shape != (self.dimension,) or not np.all(np.isfinite(vec)):
            raise ModelError(f"expected a finite vector of {self.dimension}, got {vec.shape}")
        return (vec - self.mean) / self.scale

    def sensor_probabilities(self, x: Array) -> dict[str, float]:
        z = np.clip(self.sensor_w @ self._standard(x) + self.sensor_b, -30, 30)
        q = 1.0 / (1.0 + np.exp(-z))
        return {name: float(q[i]) for i, name in enumerate(self.sensors)}

    def intent_reading(self, x: Array) -> IntentReading:
        logits = (self.intent_w @ self._standard(x) + self.intent_b) / self.temperature
        logits -= logits.max()
        p = np.exp(logits)
        p /= p.sum()
        mode = str(self.meta.get("council_mode", "first"))
        probabilities = {k: float(p[i]) for i, k in enumerate(self.intents)}
        return IntentReading(probabilities, self.confidence, mode)

    def beta_of(self, sensor: str) -> float:
        return float(self.beta[self.sensors.index(sensor)])


def save_model(path: Path, model: UnderstandingModel) -> None:
    np.savez_compressed(
        path,
        parts=np.array(list(PARTS), dtype=str),
        part_dims=np.array([model.dims[p] for p in PARTS], dtype=np.int64),
        mean=model.mean.astype(np.float32),
        scale=model.scale.astype(np.float32),
        sensors=np.array(model.sensors, dtype=str),
        sensor_w=model.sensor_w.astype(np.float32),
        sensor_b=model.sensor_b.astype(np.float64),
        beta=model.beta.astype(np.float64),
        intents=np.array(model.intents, dtype=str),
        intent_w=model.intent_w.astype(np.float32),
        intent_b=model.intent_b.astype(np.float64),
        calibration=np.array([model.temperature, model.confidence], dtype=np.float64),
        meta=np.array(json.dumps(dict(model.meta), sort_keys=True)),
    )


def load_model(path: Path) -> UnderstandingModel:
    """The model in ``path``; ``ModelError`` when malformed, OSError when unreadable."""
    try:
        with np.load(path, allow_pickle=False) as d:
            parts = [str(p) for p in d["parts"].tolist()]
            dims = dict(zip(parts, (int(v) for v in d["part_dims"].tolist()), strict=True))
            mean = np.asarray(d["mean"], dtype=np.float64)
            scale = np.asarray(d["scale"], dtype=np.float64)
            sensors = tuple(str(s) for s in d["sensors"].tolist())
            sensor_w = np.asarray(d["sensor_w"], dtype=np.float64)
            sensor_b = np.asarray(d["sensor_b"], dtype=np.float64)
            beta = np.asarray(d["beta"], dtype=np.float64)
            intents = tuple(str(s) for s in d["intents"].tolist())
            intent_w = np.asarray(d["intent_w"], dtype=np.float64)
            intent_b = np.asarray(d["intent_b"], dtype=np.float64)
            temperature, confidence = (float(v) for v in d["calibration"].tolist())
            meta = json.loads(str(d["meta"]))
    except (KeyError, ValueError, TypeError) as exc:
        raise ModelError(f"{path}: not an understanding model ({exc})") from exc
    dimension = sum(dims.values())
    if tuple(parts) != PARTS:
        raise ModelError(f"{path}: feature parts {parts}, expected {list(PARTS)}")
    if mean.shape != (dimension,) or scale.shape != (dimension,) or np.any(scale <= 0):
        raise ModelError(f"{path}: standardisation does not match {dimension} features")
    if sensor_w.shape != (len(sensors), dimension) or sensor_b.shape != (len(sensors),):
        raise ModelError(f"{path}: sensor heads do not match {dimension} features")
    if beta.shape != (len(sensors),) or not np.all((beta >= 0) & (beta <= 1)):
        raise ModelError(f"{path}: beta must be one value in [0, 1] per sensor")
    if any(s not in SENSOR_NAMES for s in sensors) or any(i not in INTENTS for i in intents):
        raise ModelError(f"{path}: unknown sensor or intent names")
    if intent_w.shape != (len(intents), dimension) or intent_b.shape != (len(intents),):
        raise ModelError(f"{path}: intent classifier does not match {dimension} features")
    if not temperature > 0 or not 0 <= confidence <= 1:
        raise ModelError(f"{path}: calibration out of range")
    return UnderstandingModel(
        dims, mean, scale, sensors, sensor_w, sensor_b, beta, intents, intent_w, intent_b,
        temperature, confidence, meta if isinstance(meta, dict) else {},
    )  # fmt: skip


def load_default_model() -> UnderstandingModel | None:
    """The shipped model, or None (logged) when missing or unreadable."""
    try:
        return load_model(MODEL_FILE)
    except FileNotFoundError:
        log.info("no understanding model at %s: the rules and heads run alone", MODEL_FILE)
    except (OSError, ModelError) as exc:
        log.warning("understanding model unusable (%s): the rules and heads run alone", exc)
    return None
