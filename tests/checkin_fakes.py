"""Check-ins in a real event log, made by the real nudge engine on a fake clock (shared by
the app, window and shell tests of issue 31's "check-ins a person can find").

- ``quiet_hours_nudge``: a strained message late in the evening, then the engine an hour
  later, in quiet hours: ``strain_silence`` at L3, lowered by the quiet-hours gate to L2
  ("shown on next open");
- ``digest_nudge``: four quiet hours with an open thread: ``idle_threads`` at L1 (the
  daily digest);
- ``delivered_nudge``: the same strain in the daytime, L3, through a delivery.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from typing import Any

from rilai_desktop.app.nudge_facts import LogFacts
from rilai_desktop.config import NudgeSettings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.delivery import RecordingDelivery
from rilai_desktop.daemon.nudges.controls import NudgeControls
from rilai_desktop.daemon.nudges.engine import NudgeEngine
from rilai_desktop.daemon.ports import Delivery, FactsSource, Nudge
from rilai_desktop.store import EventLog
from tests.daemon.nudge_fakes import FakeFacts, LogSink, facts, goal

SID = "s-earlier"  # the conversation the seeded message belongs to


def local_time(day: int, hhmm: str, tz: tzinfo | None = None) -> datetime:
    """``hhmm`` local time (``tz``, or the machine's) on 10 March 2026 + ``day`` days."""
    h, m = map(int, hhmm.split(":"))
    naive = datetime(2026, 3, 10, h, m) + timedelta(days=day)
    return naive.replace(tzinfo=tz) if tz is not None else naive.astimezone()


def strained_message(log: EventLog, when: datetime, turn: int = 1) -> None:
    log.append(SID, turn, EventKind.TURN_STARTED, {"user_input": "I can't cope"}, ts_wall=when)
    log.append(
        SID, turn, EventKind.SENSORS_FAST_UPDATED, {"sensors": {"vulnerability": 0.9}},
        ts_wall=when,
    )  # fmt: skip
    log.append(SID, turn, EventKind.TURN_COMPLETED, {"total_time_ms": 900}, ts_wall=when)


def nudge_engine(
    log: EventLog,
    at: datetime,
    tz: tzinfo | None,
    source: FactsSource | None = None,
    delivery: Delivery | None = None,
) -> NudgeEngine:
    clock = FakeClock(at)
    return NudgeEngine(
        clock,
        LogSink(log, clock, SID),
        source if source is not None else LogFacts(log, None, clock),
        NudgeSettings(),
        delivery if delivery is not None else RecordingDelivery(),
        log,
        NudgeControls(None, tz=tz),
        session_id=lambda: SID,
        tz=tz,
    )


def quiet_hours_nudge(log: EventLog, message_at: datetime, tz: tzinfo | None) -> Nudge:
    """A strained message at ``message_at`` (late evening), the engine an hour later."""
    strained_message(log, message_at)
    at = message_at + timedelta(hours=1)
    (nudge,) = nudge_engine(log, at, tz).run(at)
    gates = [g["gate"] for g in nudge.context["gates"]]
    assert (nudge.level, nudge.context["base_level"], gates) == (2, 3, ["quiet_hours"])
    return nudge


def delivered_nudge(
    log: EventLog, message_at: datetime, tz: tzinfo | None, delivery: Delivery | None = None
) -> Nudge:
    """A strained message at ``message_at`` (daytime), the engine an hour later: L3."""
    strained_message(log, message_at, turn=2)
    at = message_at + timedelta(hours=1)
    (nudge,) = nudge_engine(log, at, tz, delivery=delivery).run(at)
    assert nudge.level == 3
    return nudge


def digest_nudge(log: EventLog, at: datetime, tz: tzinfo | None, title: str) -> Nudge:
    """``idle_threads`` at L1: five hours without a message, one open thread."""
    fields: dict[str, Any] = {
        "last_user_message_at": at - timedelta(hours=5),
        "open_threads": [goal("g-" + title, title, None, "open_thread")],
    }
    source = FakeFacts(facts(at, **fields))
    (nudge,) = nudge_engine(log, at, tz, source=source).run(at)
    assert nudge.level == 1, nudge
    return nudge
