"""Small fakes shared by the nudge tests (no unittest.mock of our own code)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from rilai_desktop.config import NudgeSettings
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.delivery import RecordingDelivery
from rilai_desktop.daemon.nudges.controls import NudgeControls
from rilai_desktop.daemon.nudges.engine import NudgeEngine
from rilai_desktop.daemon.nudges.simulate import MemoryEventLog
from rilai_desktop.daemon.ports import NudgeFacts, ThreadFact
from rilai_desktop.store import EventLog

TZ = timezone(timedelta(hours=1))  # tests pin the local zone; never the machine's
START = datetime(2025, 3, 10, 10, 0, tzinfo=TZ)  # a Monday, 10:00 local: not quiet


def at(hhmm: str, day: int = 0) -> datetime:
    """A local time on the test day (``day`` days later), as aware UTC."""
    h, m = map(int, hhmm.split(":"))
    local = START.replace(hour=h, minute=m) + timedelta(days=day)
    return local.astimezone(UTC)


def facts(now: datetime, **fields: Any) -> NudgeFacts:
    base: dict[str, Any] = {
        "now": now,
        "stance": {"strain": 0.0},
        "modulators": {"fatigue": 0.0},
        "last_user_message_at": None,
        "session_started_at": None,
        "turns_this_session": 0,
        "turn_running": False,
    }
    base.update(fields)
    return NudgeFacts(**base)


def goal(gid: str, title: str, deadline: datetime | None, kind: str = "goal") -> ThreadFact:
    return ThreadFact(gid, title, kind, deadline)


@dataclass
class FakeFacts:
    """A FactsSource whose facts a test sets; ``now`` is filled from each call."""

    current: NudgeFacts
    calls: int = 0

    def facts(self, now: datetime) -> NudgeFacts:
        self.calls += 1
        return replace(self.current, now=now)

    def set(self, **fields: Any) -> None:
        self.current = replace(self.current, **fields)


class LogSink:
    """``contracts.EventSink`` over a real EventLog: ts_wall from the (fake) clock."""

    def __init__(self, log: EventLog, clock: FakeClock, session_id: str = "s-test") -> None:
        self.log, self.clock, self.session_id = log, clock, session_id

    def append(
        self,
        session_id: str,
        turn_id: int,
        kind: EventKind | str,
        payload: Mapping[str, Any] | None = None,
    ) -> EngineEvent:
        return self.log.append(session_id, turn_id, kind, payload, ts_wall=self.clock.now())


@dataclass
class Rig:
    """An engine over an in-memory log with a fake clock, fake facts and recording delivery."""

    clock: FakeClock
    log: MemoryEventLog
    source: FakeFacts
    delivery: RecordingDelivery
    controls: NudgeControls
    settings: NudgeSettings
    engine: NudgeEngine = field(init=False)

    def __post_init__(self) -> None:
        self.engine = self.build()

    def build(self) -> NudgeEngine:
        return NudgeEngine(
            self.clock,
            self.log,
            self.source,
            self.settings,
            self.delivery,
            self.log,
            self.controls,
            session_id=lambda: self.log.session_id,
            tz=TZ,
        )

    def run(self, now: datetime | None = None) -> list[Any]:
        when = now or self.clock.now()
        self.clock.set(when)
        return self.engine.run(when)

    def nudge_events(self) -> list[EngineEvent]:
        return self.log.events(kind=EventKind.PROACTIVE_NUDGE)


def rig(start: datetime | None = None, **settings: Any) -> Rig:
    clock = FakeClock(start or at("10:00"))
    return Rig(
        clock=clock,
        log=MemoryEventLog(clock, session_id="s-test"),
        source=FakeFacts(facts(clock.now())),
        delivery=RecordingDelivery(),
        controls=NudgeControls(None, tz=TZ),
        settings=NudgeSettings(**settings),
    )
