"""The feature vector of one message in its conversation.

Four parts, in this order (``PARTS``), all computed from what sensing already loads:

* ``text_en``  — the message through memory's all-MiniLM-L6-v2 (384, English-strong);
* ``text_ml``  — the message through the multilingual encoder the safety bank uses (512);
* ``context``  — the turns before it (``context_text``: the last ``CONTEXT_TURNS``, each
  prefixed by who said it) through the multilingual encoder (512; zeros when there are
  none);
* ``rules``    — the nine rule readings, in ``SENSOR_NAMES`` order (the rules are features
  here, and stay the reading of record for the hard constraints).

Nothing here imports torch: the encoders are callables ``text -> vector`` handed in by the
composition root.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from rilai_desktop.contracts.sensor import SENSOR_NAMES

CONTEXT_TURNS: Final[int] = 3
MAX_CHARS: Final[int] = 2000  # both encoders read ~128–256 tokens; the rest is cut anyway
PARTS: Final[tuple[str, ...]] = ("text_en", "text_ml", "context", "rules")
ROLE_PREFIX: Final[dict[str, str]] = {"user": "them", "assistant": "you", "rilai": "you"}

Vector = NDArray[np.float64]
Encode = Callable[[str], Sequence[float] | NDArray[Any]]


def context_text(history: Sequence[Mapping[str, Any]] | Sequence[tuple[str, str]]) -> str:
    """The last ``CONTEXT_TURNS`` turns as one line each ("them: …" / "you: …"), oldest
    first; "" when there are none. Accepts the turn's history ({role, content}) or the
    corpus's (role, text) pairs."""
    lines = []
    for turn in list(history)[-CONTEXT_TURNS:]:
        if isinstance(turn, Mapping):
            role, text = str(turn.get("role", "")), str(turn.get("content", ""))
        else:
            role, text = turn
        if text.strip():
            lines.append(f"{ROLE_PREFIX.get(role, role)}: {text.strip()[: MAX_CHARS // 3]}")
    return "\n".join(lines)


class FeatureBuilder:
    """``features(text, context, rules)`` → one vector of ``dimension`` (``dims`` per part)."""

    def __init__(self, text_en: Encode, text_ml: Encode, dims: Mapping[str, int]) -> None:
        self.text_en = text_en
        self.text_ml = text_ml
        self.dims = {part: int(dims[part]) for part in PARTS}

    @property
    def dimension(self) -> int:
        return sum(self.dims.values())

    def _vector(self, part: str, encode: Encode, text: str) -> Vector:
        if not text.strip():
            return np.zeros(self.dims[part])
        vec = np.asarray(encode(text[:MAX_CHARS]), dtype=np.float64).reshape(-1)
        if vec.shape != (self.dims[part],) or not np.all(np.isfinite(vec)):
            expected = self.dims[part]
            raise ValueError(f"{part}: expected a finite vector of {expected}, got {vec.shape}")
        return vec

    def features(self, text: str, context: str, rules: Mapping[str, float]) -> Vector:
        return np.concatenate(
            [
                self._vector("text_en", self.text_en, text),
                self._vector("text_ml", self.text_ml, text),
                self._vector("context", self.text_ml, context),
                rule_vector(rules),
            ]
        )


def rule_vector(rules: Mapping[str, float]) -> Vector:
    return np.array([float(rules.get(name, 0.0)) for name in SENSOR_NAMES])


def assemble(en: Vector, ml: Vector, ctx: Vector, rules: Vector) -> Vector:
    """The same layout from precomputed parts (training and evaluation caches)."""
    return np.concatenate([en, ml, ctx, rules])
