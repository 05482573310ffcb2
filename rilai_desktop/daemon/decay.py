"""Time-based decay of the stance and the modulators toward their baselines (pure maths).

Rilai's moods fade with WALL-CLOCK time, so a closed laptop lid still counts. Each
dimension relaxes exponentially toward its baseline with a half-life from settings::

    v' = b + (v - b) · 0.5 ** (elapsed / half_life)

Why this form: it is seed 000's ``GlobalModulators.decay(factor, baseline)``
(``target + (current - target) * factor``) with the factor chosen from the elapsed time,
``factor = 0.5 ** (elapsed / half_life)``. One tick of length ``t`` is therefore exactly one
seed-000 ``decay(factor=0.5 ** (t / half_life))``, and because ``f(a) · f(b) = f(a + b)``,
``n`` ticks of ``t`` equal one catch-up of ``n · t`` (up to float rounding; the property
test in tests/daemon/test_decay.py checks it). A laptop that sleeps 8 hours needs ONE
computation on waking, and it lands where 480 one-minute ticks would have.

Baselines are the contract defaults (StanceVector's field defaults; GlobalModulators:
arousal 0.3, the rest 0.0, as in seed 000). A negative elapsed time (the clock went
backwards) changes nothing. A decay whose largest move is below :data:`EPSILON` is "not
moved": the daemon emits nothing and keeps its reference time, so many tiny moves
accumulate into one visible one instead of being rounded away.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from rilai_desktop.config import DaemonSettings
from rilai_desktop.contracts import GlobalModulators, StanceVector
from rilai_desktop.contracts.workspace import MODULATOR_NAMES, STANCE_DIMENSIONS

EPSILON: Final = 0.005  # a decay moving every dimension less than this is not emitted


def _default(model: type[StanceVector] | type[GlobalModulators], name: str) -> float:
    value = model.model_fields[name].default
    assert isinstance(value, int | float)
    return float(value)


STANCE_BASELINES: Final[Mapping[str, float]] = {
    name: _default(StanceVector, name) for name in STANCE_DIMENSIONS
}
MODULATOR_BASELINES: Final[Mapping[str, float]] = {
    name: _default(GlobalModulators, name) for name in MODULATOR_NAMES
}
STANCE_BOUNDS: Final[Mapping[str, tuple[float, float]]] = {
    name: ((-1.0, 1.0) if name == "valence" else (0.0, 1.0)) for name in STANCE_DIMENSIONS
}
MODULATOR_BOUNDS: Final[Mapping[str, tuple[float, float]]] = {
    name: (0.0, 1.0) for name in MODULATOR_NAMES
}


@dataclass(frozen=True)
class HalfLives:
    """Half-lives in seconds (settings store minutes, which read better)."""

    stance_s: float
    modulators_s: float

    @classmethod
    def from_settings(cls, daemon: DaemonSettings) -> HalfLives:
        return cls(
            stance_s=daemon.stance_half_life_minutes * 60.0,
            modulators_s=daemon.modulator_half_life_minutes * 60.0,
        )


@dataclass(frozen=True)
class Change:
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before

    def as_dict(self) -> dict[str, float]:
        return {"before": self.before, "after": self.after, "delta": self.delta}


@dataclass(frozen=True)
class DecayResult:
    """Every dimension's before/after over ``elapsed_s`` seconds of decay."""

    elapsed_s: float
    stance: dict[str, Change]
    modulators: dict[str, Change]

    @property
    def max_abs_delta(self) -> float:
        changes = [*self.stance.values(), *self.modulators.values()]
        return max((abs(c.delta) for c in changes), default=0.0)

    def moved(self, epsilon: float = EPSILON) -> bool:
        """Did any dimension move by at least ``epsilon``? (Only then is it emitted.)"""
        return self.max_abs_delta >= epsilon

    def stance_after(self) -> dict[str, float]:
        return {name: c.after for name, c in self.stance.items()}

    def modulators_after(self) -> dict[str, float]:
        return {name: c.after for name, c in self.modulators.items()}

    def payload(self) -> dict[str, Any]:
        """The MODULATORS_DECAYED payload: every dimension, so the event alone restores
        the whole state (consumers filter on ``delta`` to show only what moved)."""
        return {
            "elapsed_s": max(0.0, self.elapsed_s),
            "modulators": {name: c.as_dict() for name, c in self.modulators.items()},
            "stance": {name: c.as_dict() for name, c in self.stance.items()},
        }


def factor(elapsed_s: float, half_life_s: float) -> float:
    """Seed 000's per-step ``factor`` for ``elapsed_s`` seconds: 1.0 for no or negative time."""
    if not math.isfinite(elapsed_s) or elapsed_s <= 0.0:
        return 1.0
    if not math.isfinite(half_life_s) or half_life_s <= 0.0:
        raise ValueError(f"half-life must be a positive number of seconds, got {half_life_s!r}")
    return float(0.5 ** (elapsed_s / half_life_s))


def clean(
    values: Mapping[str, Any],
    baselines: Mapping[str, float],
    bounds: Mapping[str, tuple[float, float]],
) -> dict[str, float]:
    """Every dimension as a finite in-bounds float: missing or garbage → the baseline,
    out of range → clamped. (The log may hold odd payloads; decay must not raise.)"""
    out: dict[str, float] = {}
    for name, baseline in baselines.items():
        raw = values.get(name)
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
            out[name] = baseline
            continue
        low, high = bounds[name]
        out[name] = min(high, max(low, float(raw)))
    return out


def _relax(
    values: Mapping[str, float],
    baselines: Mapping[str, float],
    bounds: Mapping[str, tuple[float, float]],
    f: float,
) -> dict[str, Change]:
    out: dict[str, Change] = {}
    for name, before in values.items():
        baseline = baselines[name]
        low, high = bounds[name]
        # f == 1 (no time passed): exactly unchanged, as b + (v - b) · 1 may round
        relaxed = before if f == 1.0 else baseline + (before - baseline) * f
        out[name] = Change(before, min(high, max(low, relaxed)))
    return out


def decay_affect(
    stance: Mapping[str, Any],
    modulators: Mapping[str, Any],
    elapsed_s: float,
    half_lives: HalfLives,
) -> DecayResult:
    """Decay both vectors by ``elapsed_s`` seconds of wall-clock time.

    Pure: no clock, no I/O. Negative or non-finite ``elapsed_s`` gives an unchanged result
    (every delta 0), so a clock that went backwards never moves anything.
    """
    s = clean(stance, STANCE_BASELINES, STANCE_BOUNDS)
    m = clean(modulators, MODULATOR_BASELINES, MODULATOR_BOUNDS)
    elapsed = elapsed_s if math.isfinite(elapsed_s) and elapsed_s > 0.0 else 0.0
    return DecayResult(
        elapsed_s=elapsed,
        stance=_relax(s, STANCE_BASELINES, STANCE_BOUNDS, factor(elapsed, half_lives.stance_s)),
        modulators=_relax(
            m, MODULATOR_BASELINES, MODULATOR_BOUNDS, factor(elapsed, half_lives.modulators_s)
        ),
    )


def tick_factor(tick_seconds: float, half_life_s: float) -> float:
    """The seed-000 ``decay(factor=...)`` one tick corresponds to (docs/daemon.md table)."""
    return factor(tick_seconds, half_life_s)
