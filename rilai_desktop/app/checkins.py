"""Check-ins a person can find (issue 31): what a client shows when it opens, and every
check-in the log holds.

A nudge lowered to "shown on next open" (L2, or an L3/L4 that could not be delivered) and
the daily digest (L1) live only in the log until a client opens. On open, a client (the
window, the shell) asks :meth:`CheckIns.open` what to show, shows it, then calls
:meth:`CheckIns.mark_seen`: one NUDGE_SEEN event at turn 0 of the conversation names the
check-ins shown and the digest's day, so no later open — of any client — shows them
again. Both run on the engine's one worker (``engine.run_job``): the read sees no half
of a turn, and the write goes where every client's write goes.

The rules (docs/nudges.md, "On open"):

- **pending**: ``NudgeEngine.pending`` (L2 or undelivered L3/L4, since the person's last
  message, under a day old, the newest per condition) less those a NUDGE_SEEN names;
- **digest**: the L1 nudges of yesterday and today (local dates) that no NUDGE_SEEN
  names, on the first open of a day that has any; once shown (NUDGE_SEEN ``digest_day``
  is today) nothing more is digested that day — later ones wait for tomorrow's first open;
- **held**: nothing is shown while check-ins are off, snoozed or muted; nothing is marked
  either, so they are still there at the next open after that;
- **entries**: every check-in the log holds (level ≥ 1: L0 is "log only"; the newest
  ``HISTORY_LIMIT``), oldest first, each with its state — the check-ins dock lists them.

A check-in is named by its condition and its decision time (``context.at``, in UTC): the
nudge engine decides each condition at most once per run, so the pair is unique.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, Any, Final

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import RilaiError

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine
    from rilai_desktop.config import NudgeSettings
    from rilai_desktop.daemon.nudges import NudgeEngine
    from rilai_desktop.daemon.ports import Nudge
    from rilai_desktop.store import EventLog

log = logging.getLogger(__name__)

SEEN_LIMIT: Final = 500
"""Newest NUDGE_SEEN events read (one per open that showed something: months)."""

DELIVERED: Final = "delivered"  # an L3/L4 the person saw as it happened
WAITING: Final = "waiting"  # shown on this open (then marked seen)
SEEN: Final = "seen"  # shown on an earlier open
DIGEST: Final = "digest"  # an L1: the daily digest
HELD: Final = "held"  # would be shown now, but check-ins are off, snoozed or muted
NOT_SHOWN: Final = "not shown"  # waited, but a message came first or it grew stale
STATE_WORDS: Final[dict[str, str]] = {
    DELIVERED: "",
    WAITING: "new",
    HELD: "waiting",
    SEEN: "seen",
    DIGEST: "digest",
    NOT_SHOWN: "not shown",
}


DIGEST_TITLE: Final = "Your daily digest: quiet check-ins that did not need to interrupt you"


def when_words(at: datetime, now: datetime, tz: tzinfo | None = None) -> str:
    """A check-in's time for people: "20:05", "yesterday 20:05", or "Mon 9 Mar 20:05"."""
    here, today = at.astimezone(tz), now.astimezone(tz).date()
    if here.date() == today:
        return here.strftime("%H:%M")
    if here.date() == today - timedelta(days=1):
        return here.strftime("yesterday %H:%M")
    return f"{here.strftime('%a')} {here.day} {here.strftime('%b %H:%M')}"


def checkin_key(nudge: Nudge) -> tuple[str, str]:
    """(condition, decision time in UTC, ISO 8601): how NUDGE_SEEN names a check-in."""
    return nudge.condition, nudge.at.astimezone(UTC).isoformat()


@dataclass(frozen=True)
class CheckIn:
    """One check-in of the log, as the dock lists it: the nudge and its state."""

    nudge: Nudge
    state: str

    @property
    def key(self) -> tuple[str, str]:
        return checkin_key(self.nudge)


@dataclass(frozen=True)
class OnOpen:
    """What a client shows when it opens: ``pending`` check-ins (oldest first), the
    ``digest`` (or none), the log's ``entries`` for the dock; ``held`` says why nothing
    is shown now (check-ins off, snoozed, muted), else None."""

    at: datetime
    day: date
    pending: list[Nudge] = field(default_factory=list)
    digest: list[Nudge] = field(default_factory=list)
    entries: list[CheckIn] = field(default_factory=list)
    held: str | None = None

    @property
    def to_show(self) -> bool:
        return bool(self.pending or self.digest)


class CheckIns:
    """What to show on open and marking it seen, for one client (``"window"``,
    ``"shell"``) of one Engine. ``clock`` and ``tz`` as the nudge engine's (tests pin
    them; ``tz`` None is the machine's local zone)."""

    def __init__(
        self,
        engine: Engine,
        client: str,
        *,
        clock: Clock | None = None,
        tz: tzinfo | None = None,
    ) -> None:
        self._engine = engine
        self.client = client
        self.clock = clock if clock is not None else SYSTEM_CLOCK
        self.tz = tz

    # ── the client's side: each waits for the engine's worker ──────────────
    def open(self) -> OnOpen:
        """What to show now (reads only). Not on a GUI thread: it waits for the worker."""
        return self._engine.run_job(self.read)

    def mark_seen(self, opened: OnOpen) -> EngineEvent | None:
        """Log what ``opened`` showed as seen (NUDGE_SEEN); None when it showed nothing."""
        return self._engine.run_job(lambda: self.write_seen(opened))

    # ── on the worker ──────────────────────────────────────────────────────
    def read(self) -> OnOpen:
        from rilai_desktop.daemon.nudges.history import read_history

        now = self.clock.now()
        nudges = self._nudge_engine()
        today = nudges.today(now)
        records = [r for r in read_history(self._log()) if r.level >= 1]
        seen, digested_today = seen_in_log(self._log(), today)
        pending = [n for n in nudges.pending(now) if checkin_key(n) not in seen]
        pending.sort(key=lambda n: n.at)
        digest: list[Nudge] = []
        if not digested_today:
            days = (today - timedelta(days=1), today)
            digest = [n for d in days for n in nudges.digest(d) if checkin_key(n) not in seen]
        waiting = {checkin_key(n) for n in (*pending, *digest)}
        held = self._held(now)
        now_state = WAITING if held is None else HELD
        entries = [
            CheckIn(n, now_state if checkin_key(n) in waiting else _state(n, seen))
            for n in sorted((r.to_nudge() for r in records), key=lambda n: n.at)
        ]
        if held is not None:
            pending, digest = [], []
        return OnOpen(now, today, pending, digest, entries, held)

    def write_seen(self, opened: OnOpen) -> EngineEvent | None:
        if not opened.to_show:
            return None
        shown = [
            {"condition": condition, "at": at, "level": n.level}
            for n in (*opened.pending, *opened.digest)
            for condition, at in [checkin_key(n)]
        ]
        payload: dict[str, Any] = {"client": self.client, "nudges": shown}
        if opened.digest:
            payload["digest_day"] = opened.day.isoformat()
        event_log = self._log()
        return event_log.append(self._engine.session_id, 0, EventKind.NUDGE_SEEN, payload)

    # ── reading ────────────────────────────────────────────────────────────
    def _log(self) -> EventLog:
        return self._engine.parts.core.event_log

    def _settings(self) -> NudgeSettings:
        """The saved settings (``rilai nudges settings --off`` reaches a running app), or
        the start-up ones where the file is bad — as the daemon reads them."""
        try:
            return self._engine.settings.saved().settings.nudges
        except RilaiError:
            return self._engine.settings.current.nudges

    def _nudge_engine(self) -> NudgeEngine:
        """A nudge engine that only reads (its ``pending`` and ``digest``)."""
        from rilai_desktop.app.nudge_facts import LogFacts
        from rilai_desktop.daemon.nudges import NudgeControls, NudgeEngine

        event_log = self._log()
        return NudgeEngine(
            self.clock,
            _NoWrites(),
            LogFacts(event_log, None, self.clock),
            self._settings(),
            None,
            event_log,
            NudgeControls(None),  # pending and digest never read the controls: _held does
            session_id=lambda: self._engine.session_id,
            tz=self.tz,
        )

    def _held(self, now: datetime) -> str | None:
        if not self._settings().enabled:
            return "check-ins are off"
        reason = self._engine.nudges.state().quiet_reason(now)
        return None if reason is None else f"check-ins are {reason}"


def seen_in_log(event_log: EventLog, today: date) -> tuple[set[tuple[str, str]], bool]:
    """The check-ins NUDGE_SEEN events name (``checkin_key``s), and whether ``today``'s
    digest was shown (`rilai nudges list` leaves the seen ones out of "waiting" too)."""
    seen: set[tuple[str, str]] = set()
    digested = False
    for event in event_log.events(kind=EventKind.NUDGE_SEEN, limit=SEEN_LIMIT, newest_first=True):
        payload = event.payload
        digested = digested or payload.get("digest_day") == today.isoformat()
        for ref in payload.get("nudges", []):
            if isinstance(ref, dict):
                seen.add((str(ref.get("condition", "")), _utc_iso(ref.get("at"))))
    return seen, digested


def _state(nudge: Nudge, seen: set[tuple[str, str]]) -> str:
    if checkin_key(nudge) in seen:
        return SEEN
    if nudge.level == 1:
        return DIGEST
    if nudge.level >= 3 and nudge.context.get("delivered"):
        return DELIVERED
    return NOT_SHOWN


def _utc_iso(text: object) -> str:
    """A logged time as ``checkin_key`` writes it (an odd one stays as it is: no match)."""
    if not isinstance(text, str):
        return ""
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return text
    if parsed.tzinfo is None:
        return text
    return parsed.astimezone(UTC).isoformat()


class _NoWrites:
    """The read-only nudge engine's sink: on open nothing is decided, so nothing is
    written through it (a call here is a bug)."""

    def append(self, session_id: str, turn_id: int, kind: Any, payload: Any = None) -> Any:
        raise RuntimeError("the check-ins on open do not decide nudges")
