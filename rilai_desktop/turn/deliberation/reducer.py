"""The reducer: the one place agent proposals become state (seed 001, "deterministic merging").

Pure: no clock, no randomness, no I/O; the same inputs give the same outputs, whatever the
order the agents finished in (outputs are processed sorted by agent id, then by content).

Stance — leaky integration. Each agent's proposed delta per dimension is clamped to
±MAX_DELTA (0.15), then

    s_new = s + α·Σᵢ clamp(δᵢ),   α = ALPHA = 0.25,

and the result is clamped to the dimension's bounds (valence [−1, 1], the rest [0, 1]).
This IS leaky integration toward the agents' proposed target x = s + Σᵢ clamp(δᵢ):
(1 − α)·s + α·x = s − α·s + α·s + α·Σδ = s + α·Σδ. So the stance moves a quarter of the
way toward where the agents would put it, never more than α·Σ|clamp(δ)| per turn.

Modulators — each agent (or agency, "social.*") drives modulators with a weight w in
[−1, 1] (MODULATOR_MAP), by its output's salience s ∈ [0, 1]:

    w > 0:  m ← m + α·w·max(0, s − m)   (raise toward the salience; a quiet agent does nothing)
    w < 0:  m ← m − α·|w|·s·m           (calm toward 0, in proportion to the salience)

Both keep m in [0, 1]. Lowering to baseline otherwise is the daemon's decay, with time.

No workspace patch: agents answer with a label and code composes their claims
(docs/agents.md), so no agent proposes one; the seed's ``workspace_patch`` left
``AgentOutput`` and WORKSPACE_PATCHED is no longer emitted (older logs still read).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from rilai_desktop.contracts import (
    MODULATOR_NAMES,
    STANCE_DIMENSIONS,
    AgentOutput,
    Claim,
    GlobalModulators,
    StanceVector,
)
from rilai_desktop.contracts.numbers import clamp
from rilai_desktop.turn.deliberation.claims import dedupe_claims

ALPHA: Final = 0.25
MAX_DELTA: Final = 0.15
BOUNDS: Final[Mapping[str, tuple[float, float]]] = {
    name: ((-1.0, 1.0) if name == "valence" else (0.0, 1.0)) for name in STANCE_DIMENSIONS
}

# agent id (or "agency.*") -> modulator -> weight in [-1, 1]. An exact id overrides its
# agency's wildcard. Agents not listed move no modulator.
MODULATOR_MAP: Final[Mapping[str, Mapping[str, float]]] = {
    "emotion.stress": {"arousal": 1.0, "time_pressure": 0.6},
    "emotion.wellbeing": {"fatigue": 0.6},
    "emotion.mood_regulator": {"arousal": -0.5},
    "emotion.wanting": {"arousal": 0.3},
    "resource.time": {"time_pressure": 1.0},
    "resource.energy": {"fatigue": 1.0},
    "resource.financial": {"arousal": 0.3, "time_pressure": 0.3},
    "planning.priority": {"time_pressure": 0.5},
    "planning.short_term": {"time_pressure": 0.4},
    "social.*": {"social_risk": 0.6},
    "social.norms": {"social_risk": 0.8},
    "social.attachment_detector": {"social_risk": 0.8},
    "monitoring.trigger_watcher": {"social_risk": 0.7, "arousal": 0.4},
    "monitoring.anomaly_detector": {"arousal": 0.4},
    "monitoring.interrupt_manager": {"arousal": 0.4, "time_pressure": 0.4},
    "inhibition.censor": {"social_risk": 0.5},
    "self.meta_monitor": {"fatigue": 0.3},
}

_STANCE_DEFAULTS: Final = StanceVector(last_update_ts=0.0).to_dict()
_MODULATOR_DEFAULTS: Final = GlobalModulators().to_dict()


@dataclass(frozen=True)
class Reduction:
    stance: StanceVector
    modulators: GlobalModulators
    claims: list[Claim]  # the deduped active claims, stable order
    applied_delta: dict[str, float]  # dimension -> change applied (dimensions proposed only)
    modulator_changes: dict[str, float]  # modulator -> change (changed ones only)


def modulator_weights(agent_id: str) -> Mapping[str, float]:
    """The modulator weights of an agent: its own entry, else its agency's wildcard."""
    exact = MODULATOR_MAP.get(agent_id)
    if exact is not None:
        return exact
    return MODULATOR_MAP.get(f"{agent_id.split('.', 1)[0]}.*", {})


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _salience(output: AgentOutput) -> float:
    return clamp(output.salience)


def _content_key(output: AgentOutput) -> str:
    dump = output.model_dump(warnings=False)
    try:
        return json.dumps(dump, sort_keys=True, default=repr)
    except (TypeError, ValueError):  # keys of mixed types (only past validation)
        return repr(dump)


def canonical_order(outputs: Sequence[AgentOutput]) -> list[AgentOutput]:
    """Outputs sorted by agent id, then by content: arrival order never matters."""
    return sorted(outputs, key=lambda o: (str(o.agent_id), _content_key(o)))


def _reduce_stance(
    stance: StanceVector, outputs: Sequence[AgentOutput], turn_id: int, now_ts: float
) -> tuple[StanceVector, dict[str, float]]:
    proposed: dict[str, list[float]] = {}
    for output in outputs:
        for name, raw in (output.stance_delta or {}).items():
            value = _finite(raw)
            if name in BOUNDS and value is not None:
                proposed.setdefault(name, []).append(max(-MAX_DELTA, min(MAX_DELTA, value)))
    # an in-bounds stance is unchanged by this; one built past validation is repaired
    values = {
        name: clamp(getattr(stance, name), *BOUNDS[name], fallback=_STANCE_DEFAULTS[name])
        for name in STANCE_DIMENSIONS
    }
    applied: dict[str, float] = {}
    for name in STANCE_DIMENSIONS:
        if name not in proposed:
            continue
        low, high = BOUNDS[name]
        old = values[name]
        # fsum is exactly rounded, so the result does not depend on the order of the terms
        new = min(high, max(low, old + ALPHA * math.fsum(proposed[name])))
        values[name] = new
        applied[name] = new - old
    ts = now_ts if _finite(now_ts) is not None else clamp(stance.last_update_ts, 0, 1e18)
    updated = StanceVector.model_validate(
        {**stance.model_dump(), **values, "turn_id": turn_id, "last_update_ts": ts}
    )
    return updated, applied


def _reduce_modulators(
    modulators: GlobalModulators, outputs: Sequence[AgentOutput], now_ts: float
) -> tuple[GlobalModulators, dict[str, float]]:
    values = {
        name: clamp(getattr(modulators, name), fallback=_MODULATOR_DEFAULTS[name])
        for name in MODULATOR_NAMES
    }
    before = dict(values)
    biggest: dict[str, tuple[float, str]] = {}  # modulator -> (|change|, agent id)
    for output in outputs:
        salience = _salience(output)
        for name, weight in modulator_weights(str(output.agent_id)).items():
            if name not in values:
                continue
            current = values[name]
            if weight >= 0:
                new = current + ALPHA * weight * max(0.0, salience - current)
            else:
                new = current - ALPHA * (-weight) * salience * current
            new = min(1.0, max(0.0, new))
            step = abs(new - current)
            values[name] = new
            # the largest contributor; ties keep the first in canonical order
            if step > 0.0 and step > biggest.get(name, (0.0, ""))[0]:
                biggest[name] = (step, str(output.agent_id))
    changes = {name: values[name] - before[name] for name in MODULATOR_NAMES}
    changes = {name: change for name, change in changes.items() if change != 0.0}
    sources = dict(modulators.source_agents)
    sources.update({name: agent for name, (_, agent) in biggest.items()})
    last_update = modulators.last_update
    if _finite(now_ts) is not None:
        # a timestamp no datetime can hold keeps the previous one
        with contextlib.suppress(OverflowError, OSError, ValueError):
            last_update = datetime.fromtimestamp(now_ts, UTC)
    updated = GlobalModulators.model_validate(
        {**values, "last_update": last_update, "source_agents": sources}
    )
    return updated, changes


def reduce(
    stance: StanceVector,
    modulators: GlobalModulators,
    outputs: Sequence[AgentOutput],
    *,
    turn_id: int,
    now_ts: float,
    existing_claims: Sequence[Claim] = (),
) -> Reduction:
    """Merge a wave's agent outputs into the stance, the modulators and the claims.

    The claims are ``existing_claims`` then the outputs' claims (canonical order), deduped.
    The stance gets ``turn_id`` and ``last_update_ts = now_ts``; the modulators
    ``last_update`` = ``now_ts`` as a UTC datetime (a non-finite ``now_ts`` keeps the old).
    """
    ordered = canonical_order(outputs)
    new_stance, applied = _reduce_stance(stance, ordered, turn_id, now_ts)
    new_modulators, changes = _reduce_modulators(modulators, ordered, now_ts)
    claims = dedupe_claims([*existing_claims, *(c for o in ordered for c in o.claims)])
    return Reduction(
        stance=new_stance,
        modulators=new_modulators,
        claims=claims,
        applied_delta=applied,
        modulator_changes=changes,
    )
