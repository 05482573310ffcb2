"""The learned layer over the rules: one logistic head per sensor on a sentence embedding.

The rules (regexes, lexicons) stay the first reading: fast, explainable, with evidence spans.
Where a head exists for a sensor (``heads.npz``, built by ``tools/train_sensor_heads.py``
from the train splits of public labelled sets, docs/sensors.md), its probability ``q`` over
the message's all-MiniLM-L6-v2 embedding is blended with the rule's probability ``r``::

    p = (1 − β) · r + β · q          (β per sensor, chosen on a dev split, in the file)

and the reading keeps the rule's evidence, with ``learned 0.83`` added to its notes.

Safety is recall-first, whatever the file says: for ``safety_risk`` a rule reading at or
above ``STRONG_RULE`` (the interrupt threshold) is a floor — the learned part can raise it
but never lower it; below that (the rules unsure) the blend may go either way. For the other
sensors a rule reading at or above the decision threshold (``DECISION_FLOOR``) stays at or
above it: the learned part can add hits and reorder them, never undo the rules' hits.

Nothing here imports torch: the embedding comes through ``TextEmbedder`` (a callable
``text -> vector``) that the composition root supplies; without one, or without a heads
file, the rules run alone and unchanged.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np
from numpy.typing import NDArray

from rilai_desktop.contracts.sensor import SENSOR_NAMES, SensorOutput

log = logging.getLogger(__name__)

HEADS_FILE: Final[Path] = Path(__file__).with_name("heads.npz")
STRONG_RULE: Final[float] = 0.5  # = SAFETY_INTERRUPT_THRESHOLD: a rule hit the blend keeps
FLOORED: Final[frozenset[str]] = frozenset({"safety_risk"})
# the decision threshold of every sensor a head exists for (fast.THRESHOLDS; humor_masking,
# 0.4, has no head): a rule hit stays a hit
DECISION_FLOOR: Final[float] = 0.5
MAX_EMBED_CHARS: Final[int] = 2000  # MiniLM reads ~256 tokens; the rest would be cut anyway


class TextEmbedder(Protocol):
    """One text in, one vector out (the app passes MiniLM's, shared with memory)."""

    def __call__(self, text: str) -> Sequence[float] | NDArray[np.floating[Any]]: ...


class HeadsError(ValueError):
    """A heads file that is not in the documented shape."""


@dataclass(frozen=True)
class Head:
    sensor: str
    weights: NDArray[np.float64]
    bias: float
    beta: float

    def probability(self, vector: NDArray[np.float64]) -> float:
        z = float(vector @ self.weights) + self.bias
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)


@dataclass(frozen=True)
class SensorHeads:
    """The per-sensor heads of one file, all over vectors of ``dimension``."""

    dimension: int
    heads: Mapping[str, Head]
    meta: Mapping[str, Any] = field(default_factory=dict)

    def probabilities(self, vector: Sequence[float] | NDArray[Any]) -> dict[str, float]:
        vec = np.asarray(vector, dtype=np.float64).reshape(-1)
        if vec.shape != (self.dimension,) or not np.all(np.isfinite(vec)):
            raise HeadsError(f"expected a finite vector of {self.dimension}, got {vec.shape}")
        return {name: head.probability(vec) for name, head in self.heads.items()}


def save_heads(path: Path, heads: SensorHeads) -> None:
    """Write ``heads`` as a numpy-only .npz (no pickle): names, W, b, beta and JSON meta."""
    names = list(heads.heads)
    matrix = np.stack([heads.heads[n].weights for n in names]).astype(np.float32)
    np.savez_compressed(
        path,
        sensors=np.array(names, dtype=str),
        weights=matrix,
        bias=np.array([heads.heads[n].bias for n in names], dtype=np.float64),
        beta=np.array([heads.heads[n].beta for n in names], dtype=np.float64),
        meta=np.array(json.dumps(dict(heads.meta), sort_keys=True)),
    )


def load_heads(path: Path) -> SensorHeads:
    """The heads in ``path``; ``HeadsError`` if the file is malformed, OSError if unreadable."""
    try:
        with np.load(path, allow_pickle=False) as data:
            names = [str(n) for n in data["sensors"].tolist()]
            weights = np.asarray(data["weights"], dtype=np.float64)
            bias = np.asarray(data["bias"], dtype=np.float64)
            beta = np.asarray(data["beta"], dtype=np.float64)
            meta = json.loads(str(data["meta"])) if "meta" in data.files else {}
    except (KeyError, ValueError) as exc:
        raise HeadsError(f"{path}: not a sensor heads file ({exc})") from exc
    if weights.ndim != 2 or weights.shape[0] != len(names) or bias.shape != (len(names),):
        raise HeadsError(f"{path}: weights {weights.shape} do not match {len(names)} sensors")
    if beta.shape != (len(names),) or not np.all((beta >= 0) & (beta <= 1)):
        raise HeadsError(f"{path}: beta must be one value in [0, 1] per sensor")
    unknown = [n for n in names if n not in SENSOR_NAMES]
    if unknown:
        raise HeadsError(f"{path}: unknown sensors {unknown}")
    heads = {n: Head(n, weights[i], float(bias[i]), float(beta[i])) for i, n in enumerate(names)}
    return SensorHeads(int(weights.shape[1]), heads, meta if isinstance(meta, dict) else {})


def load_default_heads() -> SensorHeads | None:
    """The shipped heads, or None (logged) when the file is missing or unreadable."""
    try:
        return load_heads(HEADS_FILE)
    except FileNotFoundError:
        log.info("no sensor heads at %s: the rules run alone", HEADS_FILE)
    except (OSError, HeadsError) as exc:
        log.warning("sensor heads unusable (%s): the rules run alone", exc)
    return None


def blend(sensor: str, rule: float, learned: float, beta: float) -> float:
    """The documented blend. ``safety_risk`` never drops below a strong rule reading; for
    the other sensors a rule reading at or above the decision threshold stays at or above
    it (the learned part reorders the rules' hits, it does not undo them)."""
    p = (1.0 - beta) * rule + beta * learned
    if sensor in FLOORED and rule >= STRONG_RULE:
        p = max(p, rule)
    elif rule >= DECISION_FLOOR:
        p = max(p, DECISION_FLOOR)
    return min(1.0, max(0.0, p))


class LearnedLayer:
    """Embeds a message once and adjusts the readings that have a head."""

    def __init__(self, embed: TextEmbedder, heads: SensorHeads) -> None:
        self.embed = embed
        self.heads = heads

    def apply(self, text: str, readings: dict[str, SensorOutput]) -> dict[str, SensorOutput]:
        """``readings`` with the learned part blended in; the rules' readings on any failure."""
        if not text.strip():
            return readings
        try:
            vector = np.asarray(self.embed(text[:MAX_EMBED_CHARS]), dtype=np.float64)
            probabilities = self.heads.probabilities(vector.reshape(-1))
        except Exception as exc:  # the embedder is an outside component: never fail a read
            log.warning("learned sensor layer skipped: %s", exc)
            return readings
        out = dict(readings)
        for name, q in probabilities.items():
            rule = readings.get(name)
            if rule is None:
                continue
            head = self.heads.heads[name]
            p = blend(name, rule.probability, q, head.beta)
            out[name] = reblended(rule, p, f"learned {q:.2f}")
        return out


def reblended(rule: SensorOutput, probability: float, note: str) -> SensorOutput:
    """The rule's reading at a learned ``probability``: its evidence kept, ``note`` added
    to its notes (within the contract's 100 characters)."""
    room = 100 - len(note) - 2
    return SensorOutput(
        sensor=rule.sensor,
        probability=round(probability, 4),
        evidence=list(rule.evidence),
        counterevidence=list(rule.counterevidence),
        notes=f"{rule.notes[:room]}; {note}" if rule.notes else note,
    )
