"""The exemplar bank: ``safety_risk`` by nearest neighbours over the message's embedding.

A phrase list catches the words it lists; a bank of a few thousand examples catches what is
*like* them. The bank holds the MiniLM vectors of positives (the Suicide Risk Lexicon's
ideation, burden, hopelessness, entrapment and means constructs, VERA-MH's graded messages,
our own written phrases) and of hard negatives (XSTest's safe contrasts, the crisis-triage
traps, our own idioms and look-alikes) — ``safety_bank.npz``, rebuilt by
``tools/build_safety_bank.py`` (docs/safety.md). All of it comes from the bank's examples
(vectors from the multilingual encoder, ``memory/sentence_encoder.py``). For a message
vector ``v``::

    margin = mean of the k best cosines to positives − mean of the k best to negatives
    linear = w · v + b        (a logistic head fitted on the same exemplars)
    score  = α · z(margin) + (1 − α) · z(linear)      (z: standardised on the bank)

(on our tune data, 5-fold: the two together read recall 0.84 at 5% false positives where
the neighbours alone read 0.77). The head, α, the standardisation and the thresholds are in
``safety_bank.json`` (chosen on tune data only, by ``tools/tune_safety_bank.py``); the
score sorts a message into bands:

* ``hit`` (score ≥ ``strong``): the reading is raised to ``BANK_STRONG_RISK``, above the
  interrupt threshold;
* ``weak`` (``hit`` ≤ score < ``strong``): raised to ``BANK_HIT_RISK`` — still protective;
  a weak bank-only hit is the one reading the model check may lower;
* ``grey`` (``grey`` ≤ score < ``hit``): raised to ``BANK_GREY_RISK``, a weak signal that
  adds up across turns, and sent to the model check (``turn/safety_check.py``) when one is
  configured;
* below ``grey``: the rules' reading, untouched.

The bank only ever raises a reading (recall first): rules' hits stay hits. The band, the score
and the reading before the bank are written into the reading's notes (``bank weak +0.08
r0.12 ≈ "i feel like a burden"``) so the inspector shows them and :func:`band_of` and
:func:`rules_before_bank` read them back. Fixing a miss means adding an
exemplar to the sources and rebuilding, not writing a regex.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
from numpy.typing import NDArray

from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.sensors.learned import MAX_EMBED_CHARS, TextEmbedder

log = logging.getLogger(__name__)

BANK_FILE: Final[Path] = Path(__file__).with_name("safety_bank.npz")
THRESHOLDS_FILE: Final[Path] = Path(__file__).with_name("safety_bank.json")
BANK_STRONG_RISK: Final[float] = 0.7
BANK_HIT_RISK: Final[float] = 0.55  # ≥ SAFETY_INTERRUPT_THRESHOLD (0.5)
BANK_GREY_RISK: Final[float] = 0.2  # a weak signal (safety_state.WEAK ≤ it < concern)
Band = Literal["hit", "weak", "grey"]
_BAND_NOTE: Final = re.compile(r"\bbank (hit|weak|grey) [+-]\d+\.\d\d r(\d\.\d\d)")


class BankError(ValueError):
    """A bank or thresholds file that is not in the documented shape."""


@dataclass(frozen=True)
class Head:
    """The logistic head over the exemplars and how the two scores are combined."""

    weights: NDArray[np.float32]
    bias: float
    alpha: float  # the neighbours' share of the score
    margin_mean: float
    margin_sd: float
    linear_mean: float
    linear_sd: float

    def score(self, margin: float, vector: NDArray[np.float32]) -> float:
        linear = float(vector @ self.weights) + self.bias
        zm = (margin - self.margin_mean) / self.margin_sd
        zl = (linear - self.linear_mean) / self.linear_sd
        return self.alpha * zm + (1.0 - self.alpha) * zl


@dataclass(frozen=True)
class BankThresholds:
    k: int
    strong: float
    hit: float
    grey: float
    head: Head | None = None  # None: the margin alone is the score

    @classmethod
    def load(cls, path: Path = THRESHOLDS_FILE) -> BankThresholds:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            k, strong = int(data["k"]), float(data["strong"])
            head = _head(data["head"]) if data.get("head") else None
            out = cls(k, strong, float(data["hit"]), float(data["grey"]), head)
        except (KeyError, TypeError, ValueError) as exc:
            raise BankError(f"{path}: not a bank thresholds file ({exc})") from exc
        if not (out.k >= 1 and out.grey <= out.hit <= out.strong):
            raise BankError(f"{path}: need k ≥ 1 and grey ≤ hit ≤ strong")
        return out


def _head(data: dict[str, Any]) -> Head:
    head = Head(
        weights=np.asarray(data["weights"], dtype=np.float32),
        bias=float(data["bias"]),
        alpha=float(data["alpha"]),
        margin_mean=float(data["margin_mean"]),
        margin_sd=float(data["margin_sd"]),
        linear_mean=float(data["linear_mean"]),
        linear_sd=float(data["linear_sd"]),
    )
    if head.weights.ndim != 1 or head.margin_sd <= 0 or head.linear_sd <= 0:
        raise ValueError("a head needs a weight vector and positive deviations")
    if not 0.0 <= head.alpha <= 1.0:
        raise ValueError("alpha must be in [0, 1]")
    return head


@dataclass(frozen=True)
class Match:
    margin: float  # the neighbours' margin
    positive: float  # mean of the k best cosines to positives
    negative: float
    nearest: str  # the nearest positive exemplar's text ("" when the bank has no texts)
    vector: NDArray[np.float32] | None = None  # the unit vector scored

    def score(self, head: Head | None) -> float:
        """The band score: the margin, or the margin and the head combined."""
        if head is None or self.vector is None:
            return self.margin
        return head.score(self.margin, self.vector)


class ExemplarBank:
    """Unit vectors of positives and negatives, scored by the k-nearest margin."""

    def __init__(
        self,
        vectors: NDArray[Any],
        labels: NDArray[Any],
        texts: Sequence[str] = (),
        *,
        k: int = 3,
        model_id: str = "",
    ) -> None:
        self.model_id = model_id
        matrix = np.asarray(vectors, dtype=np.float32)
        flags = np.asarray(labels).astype(bool).reshape(-1)
        if matrix.ndim != 2 or matrix.shape[0] != flags.shape[0]:
            raise BankError(f"vectors {matrix.shape} do not match {flags.shape[0]} labels")
        if not flags.any() or flags.all():
            raise BankError("the bank needs both positives and negatives")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix = (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)
        self.positives = np.ascontiguousarray(matrix[flags])
        self.negatives = np.ascontiguousarray(matrix[~flags])
        all_texts = list(texts)
        self.positive_texts = [all_texts[i] for i in np.flatnonzero(flags)] if all_texts else []
        self.k = max(1, k)
        self.dimension = int(matrix.shape[1])

    def __len__(self) -> int:
        return int(self.positives.shape[0] + self.negatives.shape[0])

    def match(self, vector: Sequence[float] | NDArray[Any], exclude: float = 2.0) -> Match:
        """The margin of ``vector``; cosines ≥ ``exclude`` are skipped (leave-one-out
        scoring of the bank's own rows uses 0.9999)."""
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        if vec.shape != (self.dimension,) or not np.all(np.isfinite(vec)):
            raise BankError(f"expected a finite vector of {self.dimension}, got {vec.shape}")
        norm = float(np.linalg.norm(vec))
        vec = vec / norm if norm > 0 else vec
        pos = self.positives @ vec
        neg = self.negatives @ vec
        pos = np.where(pos < exclude, pos, -np.inf)
        neg = np.where(neg < exclude, neg, -np.inf)
        top_pos = _top_mean(pos, self.k)
        top_neg = _top_mean(neg, self.k)
        nearest = self.positive_texts[int(np.argmax(pos))] if self.positive_texts else ""
        return Match(top_pos - top_neg, top_pos, top_neg, nearest, vec)


def _top_mean(values: NDArray[Any], k: int) -> float:
    """The mean of the ``k`` largest finite values (0.0 when there are none)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return 0.0
    k = min(k, int(finite.size))
    return float(np.partition(finite, -k)[-k:].mean())


def load_bank(path: Path = BANK_FILE, k: int = 3) -> ExemplarBank:
    """The bank in ``path``: ``vectors`` (n × d), ``labels`` (n), optional ``texts``."""
    try:
        with np.load(path, allow_pickle=False) as data:
            vectors = np.asarray(data["vectors"], dtype=np.float32)
            labels = np.asarray(data["labels"])
            texts = [str(t) for t in data["texts"].tolist()] if "texts" in data.files else []
            meta = json.loads(str(data["meta"])) if "meta" in data.files else {}
    except (KeyError, ValueError) as exc:
        raise BankError(f"{path}: not a safety bank file ({exc})") from exc
    model_id = str(meta.get("encoder", "")) if isinstance(meta, dict) else ""
    return ExemplarBank(vectors, labels, texts, k=k, model_id=model_id)


def band(score: float, thresholds: BankThresholds) -> Band | None:
    if score >= thresholds.strong:
        return "hit"
    if score >= thresholds.hit:
        return "weak"
    if score >= thresholds.grey:
        return "grey"
    return None


def band_of(reading: SensorOutput) -> Band | None:
    """The bank's band as the reading's notes record it (None: the bank saw nothing)."""
    found = _BAND_NOTE.search(reading.notes or "")
    return found.group(1) if found else None  # type: ignore[return-value]


def rules_before_bank(reading: SensorOutput) -> float | None:
    """The reading before the bank raised it, as its notes record it (None: no bank note)."""
    found = _BAND_NOTE.search(reading.notes or "")
    return float(found.group(2)) if found else None


_RISK: Final[dict[str, float]] = {
    "hit": BANK_STRONG_RISK,
    "weak": BANK_HIT_RISK,
    "grey": BANK_GREY_RISK,
}


class BankLayer:
    """Raises ``safety_risk`` by the bank's band; never lowers it; never fails a read."""

    def __init__(self, embed: TextEmbedder, bank: ExemplarBank, thresholds: BankThresholds) -> None:
        self.embed = embed
        self.bank = bank
        self.thresholds = thresholds

    def apply(self, text: str, readings: dict[str, SensorOutput]) -> dict[str, SensorOutput]:
        rule = readings.get("safety_risk")
        if rule is None or not text.strip():
            return readings
        try:
            found = self.bank.match(self.embed(text[:MAX_EMBED_CHARS]))
        except Exception as exc:  # the embedder is an outside component
            log.warning("safety bank skipped: %s", exc)
            return readings
        score = found.score(self.thresholds.head)
        which = band(score, self.thresholds)
        if which is None:
            return readings
        nearest = found.nearest[:40]
        note = f"bank {which} {score:+.2f} r{rule.probability:.2f}"
        note += f' ≈ "{nearest}"' if nearest else ""
        notes = f"{note}; {rule.notes}" if rule.notes else note
        out = dict(readings)
        out["safety_risk"] = SensorOutput(
            sensor="safety_risk",
            probability=round(max(rule.probability, _RISK[which]), 4),
            evidence=list(rule.evidence) or [text.strip()[:80]],
            counterevidence=list(rule.counterevidence),
            notes=notes[:100],
        )
        return out


def load_default_layer(
    embed: TextEmbedder, dimension: int | None, model_id: str | None = None
) -> BankLayer | None:
    """The shipped bank over ``embed``, or None (logged) when it is missing, unreadable,
    of another dimension than the encoder's or built with another model."""
    try:
        thresholds = BankThresholds.load()
        bank = load_bank(BANK_FILE, thresholds.k)
    except FileNotFoundError:
        log.info("no safety bank at %s: the rules run alone", BANK_FILE)
        return None
    except (OSError, BankError) as exc:
        log.warning("safety bank unusable (%s): the rules run alone", exc)
        return None
    head = thresholds.head
    if head is not None and head.weights.shape != (bank.dimension,):
        log.warning(
            "safety bank head of %s for a bank of %d: skipped", head.weights.shape, bank.dimension
        )
        return None
    if dimension is not None and dimension != bank.dimension:
        log.warning("safety bank of dimension %d, embedder %d: skipped", bank.dimension, dimension)
        return None
    if model_id and bank.model_id and model_id != bank.model_id:
        log.warning("safety bank built with %s, encoder %s: skipped", bank.model_id, model_id)
        return None
    return BankLayer(embed, bank, thresholds)
