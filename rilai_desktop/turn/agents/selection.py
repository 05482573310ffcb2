"""Which agents run in each wave of a turn: pure, deterministic scoring (no clock, no I/O).

Why a scored plan and not "run everything": one agent call costs 1-2 s on this class of
machine, so a turn can afford wave 0 (the five always-on agents) and a handful more. The
scheduler picks those few from what the cheap signals say.

Score of a wave-1+ agent (all factors in [0, 1], so the score is too)::

    score = relevance × agency weight × cooldown factor
    relevance = 1 - Π(1 - term)            (noisy-or over the terms below)

Terms: each sensor trigger (weight × probability), each modulator trigger (weight × the
modulator's rise above its resting level), each distinct keyword hit (``KEYWORD_HIT``,
at most ``MAX_KEYWORD_HITS`` counted) and the caller's ``boost`` (by agent id or agency
id). Nothing else: an agent runs because this message is relevant to it (there is no base
score that wakes an agent on every turn; issue 16). Cooldown is soft: ``0.5 + 0.5 ·
elapsed / cooldown`` (capped at 1), so a strongly triggered agent can still run.
docs/agents.md has the tables and a worked example.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import Final

from rilai_desktop.contracts.numbers import clamp
from rilai_desktop.turn.agents.agencies import agency_of
from rilai_desktop.turn.agents.loader import AgentRegistry
from rilai_desktop.turn.agents.registry import AgentSpec

KEYWORD_HIT: Final[float] = 0.5  # relevance from one keyword hit (two: 0.75, three: 0.875)
MAX_KEYWORD_HITS: Final[int] = 3
COOLDOWN_FLOOR: Final[float] = 0.5  # the factor just after an agent ran
SCAN_CHARS: Final[int] = 20_000  # keywords are looked for in the first 20k characters only
# Where a modulator rests: only its rise above this counts (arousal rests at 0.3).
MODULATOR_REST: Final[Mapping[str, float]] = {"arousal": 0.3}


@dataclass(frozen=True)
class SchedulerSettings:
    max_agents_per_wave: int = 3  # wave 1+ only; wave 0 is always the five always-on
    token_budget: int = 1200  # per turn, for wave 1+ (sum of cost_estimate)
    min_score: float = 0.15  # below this an agent does not run


@dataclass(frozen=True)
class ScheduledAgent:
    agent_id: str
    score: float
    reasons: tuple[str, ...]  # e.g. ("sensor vulnerability 0.82×0.9", "keyword 'rent'")


def _keyword_pattern(keywords: tuple[str, ...]) -> re.Pattern[str] | None:
    """One case-insensitive alternation per agent, on word boundaries ("rent" ≠ "parent").

    Boundaries are look-arounds on ``\\w`` rather than ``\\b`` so a keyword that starts or
    ends with punctuation still matches; whitespace inside a phrase matches any run of it.
    """
    if not keywords:
        return None
    parts = sorted(
        (r"\s+".join(re.escape(w) for w in kw.split()) for kw in keywords), key=len, reverse=True
    )
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", re.IGNORECASE)


def normalise_text(text: str) -> str:
    """What keywords are matched against: the first SCAN_CHARS, typographic quotes folded."""
    if not isinstance(text, str):
        return ""
    return text[:SCAN_CHARS].replace("\u2019", "'").replace("\u2018", "'")


def cooldown_factor(cooldown: int, last_run: float | None, now: float) -> float:
    """Soft penalty: COOLDOWN_FLOOR just after a run, rising linearly to 1 at ``cooldown``."""
    if last_run is None or cooldown <= 0 or not math.isfinite(last_run) or not math.isfinite(now):
        return 1.0
    elapsed = max(0.0, now - last_run)  # a clock that went back counts as "just ran"
    return min(1.0, COOLDOWN_FLOOR + (1 - COOLDOWN_FLOOR) * elapsed / cooldown)


class Scheduler:
    """Plans waves from a registry; keeps nothing between calls but compiled patterns."""

    def __init__(
        self, registry: AgentRegistry, settings: SchedulerSettings = SchedulerSettings()
    ) -> None:
        self.registry = registry
        self.settings = settings
        self._patterns: dict[str, re.Pattern[str] | None] = {
            spec.id: _keyword_pattern(spec.triggers.keywords) for spec in registry.all()
        }

    def wave0(self) -> list[ScheduledAgent]:
        """The always-on agents, in registry order."""
        return [ScheduledAgent(s.id, 1.0, ("always on",)) for s in self.registry.always_on()]

    def rank(
        self,
        wave: int,
        *,
        user_text: str,
        sensors: Mapping[str, float],
        modulators: Mapping[str, float],
        last_run: Mapping[str, float],
        now: float,
        ran: Set[str],
        boost: Mapping[str, float] | None = None,
    ) -> list[ScheduledAgent]:
        """Every wave-1+ candidate not in ``ran`` with its score, best first (ties by id)."""
        text = normalise_text(user_text)
        scored = [
            self._score(spec, wave, text, sensors, modulators, last_run, now, boost or {})
            for spec in self.registry.all()
            if not spec.always_on and spec.id not in ran
        ]
        return sorted(scored, key=lambda s: (-s.score, s.agent_id))

    def plan_wave(
        self,
        wave: int,
        *,
        user_text: str,
        sensors: Mapping[str, float],
        modulators: Mapping[str, float],
        last_run: Mapping[str, float],
        now: float,
        ran: Set[str],
        budget_left: int,
        boost: Mapping[str, float] | None = None,
    ) -> list[ScheduledAgent]:
        """The agents to run in ``wave``: best scores first, within budget and max per wave.

        Wave 0 is :meth:`wave0` (less any already run). An agent whose cost does not fit
        what is left is skipped, and a cheaper one further down may still be taken.
        """
        if wave <= 0:
            return [a for a in self.wave0() if a.agent_id not in ran]
        left = min(budget_left, self.settings.token_budget)
        plan: list[ScheduledAgent] = []
        ranked = self.rank(
            wave,
            user_text=user_text,
            sensors=sensors,
            modulators=modulators,
            last_run=last_run,
            now=now,
            ran=ran,
            boost=boost,
        )
        for candidate in ranked:
            if len(plan) >= self.settings.max_agents_per_wave:
                break
            if candidate.score < self.settings.min_score or candidate.score <= 0.0:
                break  # sorted: nothing further down scores higher
            cost = self.registry.get(candidate.agent_id).manifest.cost_estimate
            if cost > left:
                continue
            left -= cost
            plan.append(candidate)
        return plan

    def _score(
        self,
        spec: AgentSpec,
        wave: int,
        text: str,
        sensors: Mapping[str, float],
        modulators: Mapping[str, float],
        last_run: Mapping[str, float],
        now: float,
        boost: Mapping[str, float],
    ) -> ScheduledAgent:
        terms: list[float] = []
        reasons: list[str] = []
        for name, weight in spec.triggers.sensors.items():
            p = clamp(sensors.get(name, 0.0))
            if p * weight > 0:
                terms.append(p * weight)
                reasons.append(f"sensor {name} {p:.2f}×{weight:g}")
        for name, weight in spec.triggers.modulators.items():
            rest = MODULATOR_REST.get(name, 0.0)
            rise = max(0.0, clamp(modulators.get(name, rest)) - rest) / (1 - rest)
            if rise * weight > 0:
                terms.append(rise * weight)
                reasons.append(f"modulator {name} {rise:.2f}×{weight:g}")
        pattern = self._patterns.get(spec.id)
        if pattern is not None and text:
            hits = _distinct_hits(pattern, text)
            terms.extend([KEYWORD_HIT] * min(len(hits), MAX_KEYWORD_HITS))
            reasons.extend(f"keyword '{h}'" for h in hits[:MAX_KEYWORD_HITS])
        for key in (spec.id, spec.agency):
            extra = clamp(boost.get(key, 0.0))
            if extra > 0:
                terms.append(extra)
                reasons.append(f"boost {key} {extra:.2f}")
        relevance = 1.0 - math.prod(1.0 - t for t in terms)
        weight = agency_of(spec.id).weight
        factor = cooldown_factor(spec.manifest.cooldown, _last(last_run, spec.id), now)
        if factor < 1.0:
            reasons.append(f"cooldown ×{factor:.2f}")
        score = round(min(1.0, max(0.0, relevance * weight * factor)), 4)
        return ScheduledAgent(spec.id, score, tuple(reasons))


def _last(last_run: Mapping[str, float], agent_id: str) -> float | None:
    value = last_run.get(agent_id)
    return float(value) if isinstance(value, int | float) else None


def _distinct_hits(pattern: re.Pattern[str], text: str) -> list[str]:
    """Distinct keyword matches in order of first appearance, lower-cased, spaces folded."""
    seen: dict[str, None] = {}
    for match in pattern.finditer(text):
        seen.setdefault(" ".join(match.group(0).lower().split()), None)
        if len(seen) >= MAX_KEYWORD_HITS:
            break
    return list(seen)
