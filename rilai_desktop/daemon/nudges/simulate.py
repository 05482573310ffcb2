"""``rilai nudges simulate``: play a scripted day through the REAL engine on a fake clock.

The world is small and deterministic: each scripted message goes through ``sense`` (the
caller hands in the real fast sensors, ``turn/sensors``: the daemon does not import the
turn), which stand in for the agents and the reducer:

- stance strain ← max(strain, vulnerability, safety_risk) — distress raises it;
- arousal ← max(arousal, 0.3 + 0.6·vulnerability); social_risk ← max(…, rupture);
- fatigue ← max(fatigue, min(0.8, sitting minutes / 150)) — a long sitting tires;
- the message's strain and rupture come from ``signals.py``, as for the real log;

and everything decays toward baseline between events with the daemon's own
``decay_affect`` and the half-lives from settings (never while a turn runs). Every
``tick_seconds`` of fake time the engine runs at that instant, with an in-memory event
log, in-memory controls and a recording delivery, so budgets, cooldowns and spacing are
rebuilt from the events exactly as in the daemon. The summary then checks the promises:
the budget held in every rolling hour and day, nothing above L2 in quiet hours, nothing
during a turn, every nudge with a reason and a level, no forbidden phrase.
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any, Final

from rilai_desktop.config import DaemonSettings, NudgeSettings
from rilai_desktop.contracts import EngineEvent, EventKind, SensorOutput
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.decay import (
    MODULATOR_BASELINES,
    STANCE_BASELINES,
    HalfLives,
    decay_affect,
)
from rilai_desktop.daemon.delivery import RecordingDelivery
from rilai_desktop.daemon.nudges.budget import DAY, HOUR
from rilai_desktop.daemon.nudges.controls import NudgeControls
from rilai_desktop.daemon.nudges.engine import NudgeEngine
from rilai_desktop.daemon.nudges.ladder import LEVEL_NAMES, level_cost
from rilai_desktop.daemon.nudges.quiet_hours import QUIET_MAX_LEVEL, in_quiet_hours, local
from rilai_desktop.daemon.nudges.scenario import Step
from rilai_desktop.daemon.nudges.signals import message_strain, ruptured
from rilai_desktop.daemon.nudges.wording import forbidden_phrase
from rilai_desktop.daemon.ports import NudgeFacts, ThreadFact

Sense = Callable[[str], Mapping[str, SensorOutput]]
"""Reads one message: sensor name → reading (``FastSensors().read``)."""

SITTING_GAP: Final = timedelta(minutes=30)
MAX_HOURS: Final = 24 * 14


class MemoryEventLog:
    """An in-memory event log: ``contracts.EventSink`` + ``EventReader`` for the simulator
    and tests. Events are real, validated ``EngineEvent``s stamped with the fake clock's
    time; ``session_id`` is the session the simulated daemon writes to."""

    def __init__(self, clock: FakeClock, session_id: str | None = None) -> None:
        self.clock = clock
        self.session_id = session_id or str(uuid.uuid4())
        self.stored: list[EngineEvent] = []
        self._seq = itertools.count()

    def append(
        self,
        session_id: str,
        turn_id: int,
        kind: EventKind | str,
        payload: Mapping[str, Any] | None = None,
    ) -> EngineEvent:
        n = next(self._seq)
        event = EngineEvent(
            session_id=session_id,
            turn_id=turn_id,
            seq=n,
            ts_monotonic=float(n),
            ts_wall=self.clock.now(),
            kind=kind,
            payload=dict(payload or {}),
        )
        self.stored.append(event)
        return event

    def events(
        self,
        *,
        session_id: str | None = None,
        kind: EventKind | list[EventKind] | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[EngineEvent]:
        kinds = None if kind is None else ({kind} if isinstance(kind, EventKind) else set(kind))
        found = [
            e
            for e in self.stored
            if (kinds is None or e.kind in kinds)
            and (session_id is None or e.session_id == session_id)
        ]
        if newest_first:
            found.reverse()
        return found if limit is None else found[:limit]


@dataclass
class SimWorld:
    """The simulated person and Rilai's state: a ``FactsSource`` for the engine."""

    half_lives: HalfLives
    updated_at: datetime
    sense: Sense
    stance: dict[str, float] = field(default_factory=lambda: dict(STANCE_BASELINES))
    modulators: dict[str, float] = field(default_factory=lambda: dict(MODULATOR_BASELINES))
    last_user_at: datetime | None = None
    sitting_start: datetime | None = None
    sitting_turns: int = 0
    turn_until: datetime | None = None
    turns: list[tuple[datetime, datetime]] = field(default_factory=list)
    threads: dict[str, ThreadFact] = field(default_factory=dict)
    rupture: bool = False
    last_strain: float = 0.0

    def turn_running(self, now: datetime) -> bool:
        return self.turn_until is not None and now < self.turn_until

    def decay_to(self, now: datetime) -> None:
        if self.turn_running(now) or now <= self.updated_at:
            return
        elapsed = (now - self.updated_at).total_seconds()
        result = decay_affect(self.stance, self.modulators, elapsed, self.half_lives)
        self.stance, self.modulators = result.stance_after(), result.modulators_after()
        self.updated_at = now

    def message(self, now: datetime, text: str, turn_s: float) -> None:
        readings = {n: o.probability for n, o in self.sense(text).items()}
        if self.last_user_at is None or now - self.last_user_at > SITTING_GAP:
            self.sitting_start, self.sitting_turns = now, 0
        self.sitting_turns += 1
        self.last_user_at = now
        assert self.sitting_start is not None
        sitting_min = (now - self.sitting_start).total_seconds() / 60
        s, m = self.stance, self.modulators
        s["strain"] = max(s["strain"], readings["vulnerability"], readings["safety_risk"])
        m["arousal"] = max(m["arousal"], 0.3 + 0.6 * readings["vulnerability"])
        m["social_risk"] = max(m["social_risk"], readings["rupture"])
        m["fatigue"] = max(m["fatigue"], min(0.8, sitting_min / 150))
        self.last_strain = message_strain(s["strain"], readings)
        self.rupture = ruptured(readings)
        self.updated_at = max(self.updated_at, now)
        self.turn_until = now + timedelta(seconds=turn_s)
        self.turns.append((now, self.turn_until))

    def facts(self, now: datetime) -> NudgeFacts:
        return NudgeFacts(
            now=now,
            stance=dict(self.stance),
            modulators=dict(self.modulators),
            last_user_message_at=self.last_user_at,
            session_started_at=self.sitting_start,
            turns_this_session=self.sitting_turns,
            turn_running=self.turn_running(now),
            open_threads=sorted(self.threads.values(), key=lambda t: t.id),
            rupture_unresolved=self.rupture,
            last_strain=self.last_strain,
        )


@dataclass
class SimResult:
    start: datetime
    end: datetime
    tz: str
    tick_seconds: int
    settings: dict[str, Any]
    timeline: list[dict[str, Any]]
    summary: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "tz": self.tz,
            "tick_seconds": self.tick_seconds,
            "settings": self.settings,
            "timeline": self.timeline,
            "summary": self.summary,
        }


def _apply(step: Step, world: SimWorld, controls: NudgeControls) -> None:
    world.decay_to(step.at)
    if step.action == "user":
        world.message(step.at, step.value, step.options["turn_s"])
    elif step.action == "goal":
        gid = f"goal-{step.line}"
        world.threads[gid] = ThreadFact(
            gid, step.value, step.options["kind"], step.options["deadline"], step.at
        )
    elif step.action == "done":
        for gid, thread in list(world.threads.items()):
            if thread.title == step.value:
                del world.threads[gid]
    elif step.action == "stance":
        world.stance.update(step.value)
    elif step.action == "modulators":
        world.modulators.update(step.value)
    elif step.action == "snooze":
        controls.snooze(step.at, step.value)
    elif step.action == "mute":
        controls.mute_for_day(step.at)
    elif step.action == "unmute":
        controls.unmute()


def simulate(
    steps: list[Step],
    *,
    start: datetime,
    hours: float,
    nudges: NudgeSettings,
    daemon: DaemonSettings,
    sense: Sense,
    tz: tzinfo | None = None,
) -> SimResult:
    """Play ``hours`` from ``start`` (aware) through a real :class:`NudgeEngine`; each
    scripted message is read with ``sense``."""
    if not 0 < hours <= MAX_HOURS:
        raise ValueError(f"hours must be more than 0 and at most {MAX_HOURS}")
    settings = nudges if nudges.enabled else nudges.model_copy(update={"enabled": True})
    clock = FakeClock(start)
    log = MemoryEventLog(clock)
    world = SimWorld(HalfLives.from_settings(daemon), clock.now(), sense)
    controls = NudgeControls(None, tz=tz)
    delivery = RecordingDelivery()
    engine = NudgeEngine(
        clock,
        log,
        world,
        settings,
        delivery,
        log,
        controls,
        tz=tz,
        session_id=lambda: log.session_id,
    )
    end = clock.now() + timedelta(hours=hours)
    tick = timedelta(seconds=daemon.tick_seconds)
    pending = sorted(steps, key=lambda s: s.at)
    deferred = ticks = 0
    cpu0 = time.process_time()
    now = clock.now()
    while now <= end:
        while pending and pending[0].at <= now:
            _apply(pending.pop(0), world, controls)
        world.decay_to(now)
        engine.run(now)
        ticks += 1
        report = engine.last_report
        if report is not None and report.skipped and "turn" in report.skipped:
            deferred += 1
        now = clock.advance(tick.total_seconds())
    cpu = time.process_time() - cpu0
    records = sorted(engine.history(), key=lambda r: r.at)
    timeline = [_entry(r.to_nudge(), tz) for r in records]
    summary = _summary(timeline, records, world, settings, tz, ticks, deferred, cpu)
    summary["delivered"] = len(delivery.delivered)
    return SimResult(
        start=start,
        end=end,
        tz=str(local(start, tz).tzinfo),
        tick_seconds=daemon.tick_seconds,
        settings={
            "per_hour": settings.per_hour,
            "per_day": settings.per_day,
            "quiet_start": settings.quiet_start,
            "quiet_end": settings.quiet_end,
            "cooldown_hours": settings.cooldown_hours,
            "simulated_as_on": not nudges.enabled,
        },
        timeline=timeline,
        summary=summary,
    )


def _entry(nudge: Any, tz: tzinfo | None) -> dict[str, Any]:
    ctx = nudge.context
    gates = ctx.get("gates") if isinstance(ctx.get("gates"), list) else []
    return {
        "at": local(nudge.at, tz).isoformat(timespec="minutes"),
        "time": local(nudge.at, tz).strftime("%H:%M"),
        "level": nudge.level,
        "level_name": LEVEL_NAMES.get(nudge.level, "?"),
        "condition": nudge.condition,
        "reason": nudge.reason,
        "suggestion": nudge.suggestion,
        "score": ctx.get("score"),
        "gates": [f"{g.get('gate')}: L{g.get('from')}→L{g.get('to')}" for g in gates],
        "delivered": bool(ctx.get("delivered")),
    }


def _max_window(records: list[Any], window: timedelta) -> int:
    best = 0
    for r in records:
        best = max(best, sum(level_cost(o.level) for o in records if r.at - window < o.at <= r.at))
    return best


def _summary(
    timeline: list[dict[str, Any]],
    records: list[Any],
    world: SimWorld,
    settings: NudgeSettings,
    tz: tzinfo | None,
    ticks: int,
    deferred: int,
    cpu: float,
) -> dict[str, Any]:
    hour_max, day_max = _max_window(records, HOUR), _max_window(records, DAY)
    loud_in_quiet = [
        r
        for r in records
        if r.level > QUIET_MAX_LEVEL
        and in_quiet_hours(r.at, settings.quiet_start, settings.quiet_end, tz)
    ]
    during_turn = [r for r in records if any(a <= r.at < b for a, b in world.turns)]
    forbidden = [e for e in timeline if forbidden_phrase(e["suggestion"])]
    every_reason = all(e["reason"].strip() and 0 <= e["level"] <= 4 for e in timeline)
    by_level = {f"L{n}": sum(1 for e in timeline if e["level"] == n) for n in range(5)}
    checks = {
        "budget_ok": hour_max <= settings.per_hour and day_max <= settings.per_day,
        "quiet_hours_ok": not loud_in_quiet,
        "no_nudge_during_turn": not during_turn,
        "every_nudge_has_reason_and_level": every_reason,
        "no_forbidden_phrase": not forbidden,
    }
    return {
        "nudges": len(timeline),
        "by_level": by_level,
        "max_cost_rolling_hour": hour_max,
        "max_cost_rolling_day": day_max,
        "per_hour": settings.per_hour,
        "per_day": settings.per_day,
        "above_l2_in_quiet_hours": len(loud_in_quiet),
        "during_turn": len(during_turn),
        "ticks": ticks,
        "deferred_ticks_turn_running": deferred,
        "cpu_s": round(cpu, 3),
        "checks": checks,
        "ok": all(checks.values()),
    }
