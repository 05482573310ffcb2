"""The nudge engine's facts, read from the REAL event log and memory's goals.

``LogFacts(event_log, goals, clock)`` implements ``daemon.ports.FactsSource``. It lives in
the composition root (``app/``) because it opens the store's and memory's types, which
the daemon itself may not import. What it reads, and from which events:

- last user message: the newest TURN_STARTED (its ``ts_wall``);
- a turn running: that TURN_STARTED has no TURN_COMPLETED / TURN_ABORTED yet and is less
  than :data:`TURN_STALE` old (older means a process died mid-turn; the log marks it
  aborted on its next open), or the app's own ``turn_running`` callable says so;
- the session (a sitting): the run of TURN_STARTED in that session with no gap over
  :data:`SESSION_GAP`, since the shell resumes one session for days;
- stance/modulators: the one projection the turn and the headless daemon use
  (``turn.session.current_affect``: per dimension, the newest of STANCE_UPDATED /
  MODULATORS_UPDATED ``current`` and MODULATORS_DECAYED ``after``), defaults where none says;
- strain at the last message: the newest STANCE_UPDATED's strain and the last message's
  vulnerability sensor (SENSORS_FAST_UPDATED), combined by ``signals.message_strain``;
- rupture unresolved: the last message's rupture sensor at or above its threshold, or
  that turn's COUNCIL_DECISION_MADE chose ``meta`` for a rupture (council_rules.py rule 4);
- open goals/threads: a callable (``relationship_goals(...)`` over RelationshipMemory).

Odd payloads (an older version, a hand edit) are read as "not known", never a traceback.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.clock import Clock
from rilai_desktop.daemon.decay import (
    MODULATOR_BASELINES,
    MODULATOR_BOUNDS,
    STANCE_BASELINES,
    STANCE_BOUNDS,
    clean,
)
from rilai_desktop.daemon.nudges.signals import message_strain, ruptured
from rilai_desktop.daemon.ports import NudgeFacts, ThreadFact
from rilai_desktop.errors import RilaiError
from rilai_desktop.store import EventLog
from rilai_desktop.turn.session import current_affect

if TYPE_CHECKING:
    from rilai_desktop.memory.relationship import RelationshipMemory, UserGoal

log = logging.getLogger(__name__)

TURN_STALE: Final = timedelta(minutes=15)
"""A turn takes seconds to a couple of minutes; one "running" for longer has died."""
SESSION_GAP: Final = timedelta(minutes=30)
"""A pause longer than this ends a sitting (matches conditions.SESSION_ACTIVE)."""
SESSION_SCAN: Final = 500

GoalsSource = Callable[[], Iterable[ThreadFact]]


def _floats(values: object, names: Sequence[str], key: str | None = None) -> dict[str, float]:
    """``{name: float}`` for the names present and finite (``key``: read ``v[key]``)."""
    if not isinstance(values, dict):
        return {}
    out: dict[str, float] = {}
    for name in names:
        raw = values.get(name)
        if key is not None:
            raw = raw.get(key) if isinstance(raw, dict) else None
        if isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
            out[name] = float(raw)
    return out


class LogFacts:
    """``FactsSource`` over the real event log (and a goals callable)."""

    def __init__(
        self,
        event_log: EventLog,
        goals: GoalsSource | None = None,
        clock: Clock | None = None,
        *,
        turn_running: Callable[[], bool] | None = None,
    ) -> None:
        self.log = event_log
        self.goals = goals
        self.clock = clock
        self._turn_running = turn_running

    def facts(self, now: datetime | None = None) -> NudgeFacts:
        at = now if now is not None else self._now()
        stance, modulators = self._affect()
        last = self._last_turn()
        last_at = None if last is None else last.ts_wall
        running = last is not None and self._open(last, at)
        if self._turn_running is not None and self._turn_running():
            running = True
        sensors = self._turn_payload(last, EventKind.SENSORS_FAST_UPDATED).get("sensors")
        sensors = sensors if isinstance(sensors, dict) else {}
        started, turns = self._sitting(last)
        return NudgeFacts(
            now=at,
            stance=stance,
            modulators=modulators,
            last_user_message_at=last_at,
            session_started_at=started,
            turns_this_session=turns,
            turn_running=running,
            open_threads=self._threads(),
            rupture_unresolved=last is not None and (ruptured(sensors) or self._meta(last)),
            last_strain=message_strain(self._last_stance_strain(), sensors),
        )

    def _now(self) -> datetime:
        if self.clock is None:
            raise ValueError("LogFacts.facts() needs a time: pass now, or give it a clock")
        return self.clock.now()

    # ── the conversation ───────────────────────────────────────────────────
    def _last_turn(self) -> EngineEvent | None:
        found = self.log.events(kind=EventKind.TURN_STARTED, limit=1, newest_first=True)
        return found[0] if found else None

    def _open(self, started: EngineEvent, now: datetime) -> bool:
        if now - started.ts_wall > TURN_STALE:
            return False
        ended = self.log.events(
            kind=[EventKind.TURN_COMPLETED, EventKind.TURN_ABORTED],
            session_id=started.session_id,
            turn_id=started.turn_id,
            limit=1,
        )
        return not ended

    def _turn_payload(self, started: EngineEvent | None, kind: EventKind) -> dict[str, Any]:
        if started is None:
            return {}
        found = self.log.events(
            kind=kind,
            session_id=started.session_id,
            turn_id=started.turn_id,
            limit=1,
            newest_first=True,
        )
        return dict(found[0].payload) if found else {}

    def _meta(self, started: EngineEvent) -> bool:
        decision = self._turn_payload(started, EventKind.COUNCIL_DECISION_MADE)
        reasons = decision.get("reasons")
        return decision.get("intent") == "meta" and any(
            isinstance(r, str) and "rupture" in r for r in (reasons or [])
        )

    def _sitting(self, last: EngineEvent | None) -> tuple[datetime | None, int]:
        """When the current sitting began, and how many messages it has had."""
        if last is None:
            return None, 0
        starts = self.log.events(
            kind=EventKind.TURN_STARTED,
            session_id=last.session_id,
            limit=SESSION_SCAN,
            newest_first=True,
        )
        began, count = last.ts_wall, 0
        for event in starts:
            if began - event.ts_wall > SESSION_GAP:
                break
            began, count = min(began, event.ts_wall), count + 1
        return began, max(1, count)

    # ── the affect ─────────────────────────────────────────────────────────
    def _affect(self) -> tuple[dict[str, float], dict[str, float]]:
        """The one projection the turn and the headless daemon use (``current_affect``),
        with the baselines for dimensions it leaves out."""
        affect = current_affect(self.log)
        stance, modulators = affect.stance, affect.modulators
        return (
            clean(stance, STANCE_BASELINES, STANCE_BOUNDS),
            clean(modulators, MODULATOR_BASELINES, MODULATOR_BOUNDS),
        )

    def _last_stance_strain(self) -> float:
        found = self.log.events(kind=EventKind.STANCE_UPDATED, limit=1, newest_first=True)
        if not found:
            return 0.0
        return _floats(found[0].payload.get("current"), ("strain",)).get("strain", 0.0)

    # ── goals ──────────────────────────────────────────────────────────────
    def _threads(self) -> list[ThreadFact]:
        if self.goals is None:
            return []
        try:
            return list(self.goals())
        except RilaiError as exc:  # memory unreadable: nudge on what we know
            log.warning("open goals unavailable for nudges: %s", exc)
            return []


class _NoEmbedder:
    """RelationshipMemory wants an embedder; listing goals never embeds. If something ever
    did, failing loudly beats re-embedding the user's memory with a wrong model."""

    dimension = 0
    model_id = "none (goals only)"

    def embed(self, texts: Sequence[str]) -> Any:
        raise RuntimeError("the nudge facts reader lists goals only; it cannot embed")

    def embed_one(self, text: str) -> Any:
        raise RuntimeError("the nudge facts reader lists goals only; it cannot embed")


def thread_fact(goal: UserGoal) -> ThreadFact:
    """A UserGoal as the conditions see it."""
    return ThreadFact(
        id=goal.id,
        title=goal.title,
        kind=goal.kind,
        deadline=goal.deadline,
        updated_at=goal.updated_at,
    )


def relationship_goals(memory: RelationshipMemory) -> GoalsSource:
    """A goals source over a ``RelationshipMemory`` (its open goals and threads)."""

    def read() -> list[ThreadFact]:
        return [thread_fact(g) for g in memory.list_goals(status="open")]

    return read


def goals_from_log(event_log: EventLog) -> GoalsSource:
    """Open goals straight from the shared database, without loading an embedding model
    (the daemon and ``rilai nudges`` must stay light): a RelationshipMemory with no embedder."""
    from rilai_desktop.memory.relationship import RelationshipMemory

    return relationship_goals(RelationshipMemory(event_log, _NoEmbedder()))


__all__ = [
    "LogFacts",
    "goals_from_log",
    "relationship_goals",
    "thread_fact",
]
