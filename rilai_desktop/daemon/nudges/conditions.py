"""The five conditions a nudge can come from, evaluated on one :class:`NudgeFacts`.

Each condition that holds yields a :class:`Candidate`: a stable ``condition`` key (the
cooldown key: ``deadline:<goal id>:<stage>``, so two goals cool down apart and a deadline's
three stages — a day ahead, the same day, the last two hours — each speak once, the
6-hour cooldown cannot swallow the last call), an ``anchor`` (the
episode it is about: a second nudge for the same episode is never sent), a plain-words
``reason`` for the log, and the score inputs (``scoring.py``). Pure: no clock, no I/O.

The thresholds are named constants, each with why it has its value. Times are measured
from ``facts.now``; a missing or future timestamp means "not known", never a crash.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from rilai_desktop.daemon.nudges.scoring import intervention_score
from rilai_desktop.daemon.ports import NudgeFacts, ThreadFact

# (a) high strain, then silence
STRAIN_THRESHOLD: Final = 0.6
"""Strain at the last message at or above which a later silence is worth a check-in.
The vulnerability sensor's decision threshold is 0.5; 0.6 asks for a clear reading."""
STRAIN_SILENCE: Final = timedelta(minutes=45)
"""Long enough that the person has stepped away, not just typing a long reply."""
STRAIN_STALE: Final = timedelta(hours=12)
"""After half a day the morning's strain is old news: a check-in would feel odd."""

# (b) an open goal's deadline approaching (three stages, nearer = more at stake)
DEADLINE_WINDOW: Final = timedelta(hours=24)
"""Only deadlines within a day: further out, a reminder is noise."""
DEADLINE_SOON: Final = timedelta(hours=8)
"""Within a working day: still time to act, but today."""
DEADLINE_NOW: Final = timedelta(hours=2)
"""Within two hours: the last useful moment for a reminder."""
DEADLINE_QUIET: Final = timedelta(minutes=20)
"""No reminder in the middle of a conversation: wait for a pause this long."""
DEADLINE_STAGES: Final[tuple[tuple[str, timedelta, float, float], ...]] = (
    # stage, up to, stakes, reversibility (how much is lost by saying it later)
    ("now", DEADLINE_NOW, 1.0, 0.0),
    ("soon", DEADLINE_SOON, 0.75, 0.3),
    ("day", DEADLINE_WINDOW, 0.45, 0.7),
)
OPEN_THREAD_STAKES: Final = 0.8
"""An open thread with a date is softer than a goal the person set: its stakes × 0.8."""

# (c) an unresolved rupture
RUPTURE_SILENCE: Final = timedelta(minutes=20)
"""Give the person room first; a repair offered at once reads as defensive."""
RUPTURE_STALE: Final = timedelta(hours=48)
"""After two days the moment has passed; the next conversation repairs it naturally."""

# (d) a long session with fatigue
LONG_SESSION: Final = timedelta(minutes=90)
"""About the length after which a break helps most people concentrate again."""
FATIGUE_THRESHOLD: Final = 0.5
"""The fatigue modulator half-way up: the agents have read tiredness more than once."""
SESSION_ACTIVE: Final = timedelta(minutes=30)
"""The sitting is still going only if the last message is this recent."""

# (e) idle with open threads
IDLE_AFTER: Final = timedelta(hours=4)
"""Half a working day of silence: long enough that a thread may have been forgotten."""
MAX_THREADS_IN_REASON: Final = 3


@dataclass(frozen=True)
class Candidate:
    """A condition that holds, with everything the score, the gates and the wording need."""

    condition: str
    kind: str
    reason: str
    domain: str
    stakes: float
    confidence: float
    reversibility: float
    anchor: str
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return intervention_score(
            stakes=self.stakes,
            confidence=self.confidence,
            reversibility=self.reversibility,
            domain=self.domain,
        )

    def inputs(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "stakes": round(self.stakes, 4),
            "confidence": round(self.confidence, 4),
            "reversibility": round(self.reversibility, 4),
        }


def _since(now: datetime, then: datetime | None) -> timedelta | None:
    """How long ago ``then`` was; None when unknown or in the future (a skewed clock)."""
    if then is None:
        return None
    try:
        delta = now - then
    except TypeError:  # naive vs aware: unknowable
        return None
    return None if delta < timedelta(0) else delta


def _value(values: dict[str, float], name: str) -> float:
    raw = values.get(name, 0.0)
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return 0.0
    return float(raw)


def _hours(delta: timedelta) -> float:
    return round(delta.total_seconds() / 3600, 2)


def _minutes(delta: timedelta) -> int:
    return int(delta.total_seconds() // 60)


def strain_then_silence(facts: NudgeFacts) -> Candidate | None:
    silence = _since(facts.now, facts.last_user_message_at)
    strain = _value({"s": facts.last_strain}, "s")
    if silence is None or strain < STRAIN_THRESHOLD:
        return None
    if not STRAIN_SILENCE <= silence <= STRAIN_STALE:
        return None
    assert facts.last_user_message_at is not None
    return Candidate(
        condition="strain_silence",
        kind="strain_silence",
        reason=(
            f"strain was high ({strain:.2f}) at the last message, "
            f"then {_minutes(silence)} min without a message"
        ),
        domain="health",
        stakes=strain,
        confidence=0.7,
        reversibility=0.6,
        anchor=facts.last_user_message_at.isoformat(),
        detail={"strain": round(strain, 4), "silence_min": _minutes(silence)},
    )


def _deadline_stage(left: timedelta) -> tuple[str, float, float] | None:
    for stage, upto, stakes, reversibility in DEADLINE_STAGES:
        if left <= upto:
            return stage, stakes, reversibility
    return None


def deadlines(facts: NudgeFacts) -> list[Candidate]:
    silence = _since(facts.now, facts.last_user_message_at)
    if silence is not None and silence < DEADLINE_QUIET:
        return []
    found: list[Candidate] = []
    for thread in facts.open_threads:
        if thread.deadline is None:
            continue
        try:
            left = thread.deadline - facts.now
        except TypeError:
            continue
        if left <= timedelta(0):
            continue  # passed: a reminder now would only scold
        staged = _deadline_stage(left)
        if staged is None:
            continue
        stage, stakes, reversibility = staged
        if thread.kind != "goal":
            stakes *= OPEN_THREAD_STAKES
        found.append(
            Candidate(
                condition=f"deadline:{thread.id}:{stage}",
                kind="deadline",
                reason=f"an open {thread.kind.replace('_', ' ')} is due in {_hours(left)} h",
                domain="work",
                stakes=stakes,
                confidence=0.95,
                reversibility=reversibility,
                anchor=f"{thread.deadline.isoformat()}/{stage}",
                detail={
                    "goal_id": thread.id,
                    "title": thread.title,
                    "hours_left": _hours(left),
                    "stage": stage,
                    "deadline": thread.deadline.isoformat(),
                },
            )
        )
    return found


def unresolved_rupture(facts: NudgeFacts) -> Candidate | None:
    silence = _since(facts.now, facts.last_user_message_at)
    if not facts.rupture_unresolved or silence is None:
        return None
    if not RUPTURE_SILENCE <= silence <= RUPTURE_STALE:
        return None
    assert facts.last_user_message_at is not None
    return Candidate(
        condition="rupture",
        kind="rupture",
        reason=f"the last exchange went wrong and was not repaired ({_minutes(silence)} min ago)",
        domain="social",
        stakes=0.7,
        confidence=0.7,
        reversibility=0.5,
        anchor=facts.last_user_message_at.isoformat(),
        detail={"silence_min": _minutes(silence)},
    )


def long_session_fatigue(facts: NudgeFacts) -> Candidate | None:
    fatigue = _value(facts.modulators, "fatigue")
    session = _since(facts.now, facts.session_started_at)
    silence = _since(facts.now, facts.last_user_message_at)
    if session is None or silence is None or fatigue < FATIGUE_THRESHOLD:
        return None
    if session < LONG_SESSION or silence > SESSION_ACTIVE:
        return None
    assert facts.session_started_at is not None
    return Candidate(
        condition="long_session",
        kind="long_session",
        reason=(
            f"a {_minutes(session)} min session ({facts.turns_this_session} messages) "
            f"with fatigue at {fatigue:.2f}"
        ),
        domain="health",
        stakes=fatigue,
        confidence=0.6,
        reversibility=0.8,
        anchor=facts.session_started_at.isoformat(),
        detail={"session_min": _minutes(session), "fatigue": round(fatigue, 4)},
    )


def _open(threads: list[ThreadFact]) -> list[ThreadFact]:
    return [t for t in threads if t.title.strip()]


def idle_with_threads(facts: NudgeFacts) -> Candidate | None:
    silence = _since(facts.now, facts.last_user_message_at)
    threads = _open(facts.open_threads)
    if silence is None or silence < IDLE_AFTER or not threads:
        return None
    assert facts.last_user_message_at is not None
    n = len(threads)
    return Candidate(
        condition="idle_threads",
        kind="idle_threads",
        reason=f"{_hours(silence)} h without a message and {n} open thread(s)",
        domain="idle",
        stakes=0.3 + 0.1 * min(3, n - 1),
        confidence=0.9,
        reversibility=0.9,
        anchor=facts.last_user_message_at.isoformat(),
        detail={
            "threads": n,
            "titles": [t.title for t in threads[:MAX_THREADS_IN_REASON]],
            "idle_h": _hours(silence),
        },
    )


def evaluate(facts: NudgeFacts) -> list[Candidate]:
    """Every condition that holds now, highest score first (ties: by condition key)."""
    found: list[Candidate] = []
    for single in (strain_then_silence, unresolved_rupture, long_session_fatigue):
        candidate = single(facts)
        if candidate is not None:
            found.append(candidate)
    found.extend(deadlines(facts))
    idle = idle_with_threads(facts)
    if idle is not None:
        found.append(idle)
    found.sort(key=lambda c: (-c.score, c.condition))
    return found
