"""The nudge engine: conditions → score → ladder → gates → wording → log and delivery.

One :meth:`NudgeEngine.run` per daemon tick. The gates, in order, each recorded in the
decision (and in the PROACTIVE_NUDGE context as ``gates``):

1. ``nudges.enabled`` off → nothing at all: no evaluation, no event, not even L0. "Off"
   means Rilai stops thinking about check-ins; a log of what it would have said is itself
   the kind of record the person turned off.
2. a turn is running → nothing now (deferred): the next tick looks again.
3. snoozed / muted for the day → L2+ drops to L1 (kept for the digest, never shown).
4. quiet hours (local time) → L3/L4 drop to L2 ("shown on next open"); never raised.
5. cooldown → the same condition key within ``nudges.cooldown_hours`` of its last nudge
   (any level) is dropped; so is a second nudge about the same episode (``anchor``).
6. spacing → an L3/L4 within :data:`SPACING` of the last one that reached out is
   deferred (not dropped): two messages a minute apart read as nagging.
7. budget → over the rolling hour/day budget, the highest level that still fits.

What survives is worded (``wording.py``), delivered when L3/L4, then written as
PROACTIVE_NUDGE {reason, suggestion, level, context}. Cooldowns, anchors, spacing and the
budget are rebuilt from those events on every run, so they survive restarts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from typing import Any, Final

from rilai_desktop.config import NudgeSettings
from rilai_desktop.contracts import EventKind, EventSink
from rilai_desktop.contracts.clock import Clock
from rilai_desktop.daemon.nudges.budget import Budget
from rilai_desktop.daemon.nudges.conditions import Candidate, evaluate
from rilai_desktop.daemon.nudges.controls import NudgeControls
from rilai_desktop.daemon.nudges.cooldowns import already_said, cooldown_left
from rilai_desktop.daemon.nudges.history import NudgeRecord, on_local_day, read_history
from rilai_desktop.daemon.nudges.ladder import (
    DELIVERED_LEVELS,
    L1_DIGEST,
    L2_ON_OPEN,
    level_cost,
    level_for_score,
)
from rilai_desktop.daemon.nudges.quiet_hours import QUIET_MAX_LEVEL, in_quiet_hours, local
from rilai_desktop.daemon.nudges.wording import Generator, safe_title, word
from rilai_desktop.daemon.ports import (
    Delivery,
    EventReader,
    FactsSource,
    Nudge,
    SessionPicker,
)

log = logging.getLogger(__name__)

SPACING: Final = timedelta(minutes=20)
"""Least time between two nudges that reach out (L3/L4)."""
PENDING_MAX_AGE: Final = timedelta(hours=24)
"""An L2 older than a day is stale: "shown on next open" only while it still matters."""


@dataclass(frozen=True)
class GateStep:
    """One gate that was active for a candidate: its level before and after."""

    gate: str
    before: int
    after: int
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "from": self.before, "to": self.after, "note": self.note}


@dataclass
class Decision:
    """What the engine decided for one candidate (``dropped`` set: not emitted)."""

    candidate: Candidate
    score: float
    base_level: int
    level: int
    gates: list[GateStep] = field(default_factory=list)
    dropped: str | None = None

    def lower(self, gate: str, to: int, note: str = "") -> None:
        self.gates.append(GateStep(gate, self.level, min(self.level, to), note))
        self.level = min(self.level, to)

    def as_dict(self) -> dict[str, Any]:
        return {
            "condition": self.candidate.condition,
            "score": self.score,
            "base_level": self.base_level,
            "level": self.level,
            "gates": [g.as_dict() for g in self.gates],
            "dropped": self.dropped,
        }


@dataclass
class RunReport:
    """One run: why it was skipped, or every candidate's decision and what was emitted."""

    at: datetime
    skipped: str | None = None
    decisions: list[Decision] = field(default_factory=list)
    nudges: list[Nudge] = field(default_factory=list)


SettingsSource = NudgeSettings | Callable[[], NudgeSettings]


class NudgeEngine:
    """Implements ``ports.NudgeRunner``. ``settings`` may be a callable, so a long-running
    daemon can see ``rilai nudges settings --off`` without a restart; ``tz`` pins the local
    zone (tests), ``None`` is the machine's; ``generate`` is an optional wording generator
    whose text must pass the same forbidden-phrase check as the templates; ``session_id``
    picks the session of its PROACTIVE_NUDGE events (turn_id 0)."""

    def __init__(
        self,
        clock: Clock,
        sink: EventSink,
        facts: FactsSource,
        settings: SettingsSource,
        delivery: Delivery | None,
        reader: EventReader,
        controls: NudgeControls,
        *,
        session_id: SessionPicker,
        tz: tzinfo | None = None,
        generate: Generator | None = None,
    ) -> None:
        self.clock = clock
        self.sink = sink
        self.session_id = session_id
        self.facts = facts
        self._settings = settings
        self.delivery = delivery
        self.reader = reader
        self.controls = controls
        self.tz = tz
        self.generate = generate
        self.last_report: RunReport | None = None

    @property
    def settings(self) -> NudgeSettings:
        source = self._settings
        return source if isinstance(source, NudgeSettings) else source()

    # ── deciding (no side effects) ─────────────────────────────────────────
    def decide(self, now: datetime | None = None) -> RunReport:
        """Every candidate's fate at ``now``, without writing or delivering anything."""
        at = now if now is not None else self.clock.now()
        settings = self.settings
        report = RunReport(at=at)
        if not settings.enabled:
            report.skipped = "nudges are off"
            return report
        facts = self.facts.facts(at)
        if facts.turn_running:
            report.skipped = "a turn is running (deferred)"
            return report
        history = read_history(self.reader)
        budget = Budget.at(history, at, settings.per_hour, settings.per_day)
        quiet_reason = self.controls.state().quiet_reason(at)
        quiet_hours = in_quiet_hours(at, settings.quiet_start, settings.quiet_end, self.tz)
        cooldown = timedelta(hours=settings.cooldown_hours)
        last_reach = _last_reach_out(history)
        for candidate in evaluate(facts):
            score = candidate.score
            d = Decision(candidate, score, level_for_score(score), level_for_score(score))
            report.decisions.append(d)
            if quiet_reason is not None and d.level > L1_DIGEST:
                d.lower(quiet_reason, L1_DIGEST, "logged for the digest, not shown")
            if quiet_hours and d.level > QUIET_MAX_LEVEL:
                d.lower(
                    "quiet_hours",
                    QUIET_MAX_LEVEL,
                    f"{settings.quiet_start}–{settings.quiet_end}: shown on next open",
                )
            if already_said(history, candidate.condition, candidate.anchor):
                d.dropped = "already nudged about this episode"
                continue
            left = cooldown_left(history, candidate.condition, at, cooldown)
            if left is not None:
                d.dropped = f"cooldown ({int(left.total_seconds() // 60)} min left)"
                continue
            if d.level in DELIVERED_LEVELS and last_reach is not None:
                since = at - last_reach
                if since < SPACING:
                    d.dropped = f"spacing: deferred, the last one reached out {_min(since)} min ago"
                    continue
            fitting = budget.highest_fitting(d.level)
            if fitting < d.level:
                d.lower("budget", fitting, _budget_note(budget))
            budget = budget.spend(d.level)
            if d.level in DELIVERED_LEVELS:
                last_reach = at
        return report

    # ── running (emits and delivers) ───────────────────────────────────────
    def run(self, now: datetime | None = None) -> list[Nudge]:
        """Decide at ``now``, then word, deliver (L3/L4) and log every surviving nudge."""
        report = self.decide(now)
        for d in report.decisions:
            if d.dropped is None:
                report.nudges.append(self._emit(report.at, d))
        self.last_report = report
        return list(report.nudges)

    def _emit(self, at: datetime, d: Decision) -> Nudge:
        c = d.candidate
        wording = word(c, self.generate)
        context: dict[str, Any] = {
            "condition": c.condition,
            "kind": c.kind,
            "anchor": c.anchor,
            "at": at.isoformat(),
            "score": d.score,
            "base_level": d.base_level,
            "gates": [g.as_dict() for g in d.gates],
            "inputs": c.inputs(),
            "detail": _detail(c),
            "wording": wording.template,
            "wording_fallback": wording.fallback,
            "cost": level_cost(d.level),
            "delivered": False,
            "delivery": None,
        }
        nudge = Nudge(c.condition, c.reason, wording.text, d.level, context, at)
        if d.level in DELIVERED_LEVELS and self.delivery is not None:
            context["delivery"] = getattr(self.delivery, "name", type(self.delivery).__name__)
            try:
                context["delivered"] = bool(self.delivery.deliver(nudge))
            except Exception:  # a broken delivery must not lose the nudge: it is logged
                log.exception("nudge delivery failed")
        payload = {
            "reason": nudge.reason,
            "suggestion": nudge.suggestion,
            "level": nudge.level,
            "context": context,
        }
        self.sink.append(self.session_id(), 0, EventKind.PROACTIVE_NUDGE, payload)
        return nudge

    # ── reading back ───────────────────────────────────────────────────────
    def history(self) -> list[NudgeRecord]:
        return read_history(self.reader)

    def pending(self, now: datetime | None = None) -> list[Nudge]:
        """Nudges waiting for the next open: L2 since the person's last message (and
        L3/L4 that could not be delivered), under a day old, the newest per condition."""
        at = now if now is not None else self.clock.now()
        last_message = self.facts.facts(at).last_user_message_at
        seen: set[str] = set()
        out: list[Nudge] = []
        for record in read_history(self.reader):
            if at - record.at > PENDING_MAX_AGE or record.at > at:
                continue
            if last_message is not None and record.at <= last_message:
                continue
            waiting = record.level == L2_ON_OPEN or (
                record.level in DELIVERED_LEVELS and not record.context.get("delivered")
            )
            if waiting and record.condition not in seen:
                seen.add(record.condition)
                out.append(record.to_nudge())
        return out

    def digest(self, day: date) -> list[Nudge]:
        """The L1 nudges of ``day`` (local date), oldest first."""
        records = [r for r in read_history(self.reader) if r.level == L1_DIGEST]
        return [r.to_nudge() for r in on_local_day(records, day, self.tz)]

    def today(self, now: datetime | None = None) -> date:
        return local(now if now is not None else self.clock.now(), self.tz).date()


def _min(delta: timedelta) -> int:
    return int(delta.total_seconds() // 60)


def _last_reach_out(history: list[NudgeRecord]) -> datetime | None:
    times = [r.at for r in history if r.level in DELIVERED_LEVELS]
    return max(times) if times else None


def _budget_note(budget: Budget) -> str:
    return (
        f"spent {budget.spent_hour}/{budget.per_hour} this hour, "
        f"{budget.spent_day}/{budget.per_day} today"
    )


def _detail(candidate: Candidate) -> dict[str, Any]:
    """The candidate's detail for the log, titles made safe (they are the person's text)."""
    out: dict[str, Any] = {}
    for key, value in candidate.detail.items():
        if key == "title":
            out[key] = safe_title(value)
        elif key == "titles" and isinstance(value, list):
            out[key] = [safe_title(v) for v in value]
        else:
            out[key] = value
    return out
