"""The EventSink port (contracts/ports.py) and the event reader the daemon uses.

Implementations: the store's EventLog, the app's LogEventSink over it, the simulator's
in-memory MemoryEventLog and the daemon tests' ListSink.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.app.daemon_state import LogEventSink
from rilai_desktop.contracts import EngineEvent, EventKind, EventSink
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.nudges.simulate import MemoryEventLog
from rilai_desktop.errors import RilaiError
from rilai_desktop.store import EventLog
from tests.daemon.core_fakes import ListSink

START = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)


@dataclass
class Impl:
    sink: EventSink
    stored: Callable[[], int]  # how many events the sink holds


def _event_log(tmp: Path) -> Iterator[Impl]:
    with EventLog(tmp / "rilai.db") as log:
        yield Impl(log, log.count)


def _log_event_sink(tmp: Path) -> Iterator[Impl]:
    with EventLog(tmp / "rilai.db") as log:
        yield Impl(LogEventSink(log, clock=FakeClock(START)), log.count)


def _memory_event_log(tmp: Path) -> Iterator[Impl]:
    log = MemoryEventLog(FakeClock(START))
    yield Impl(log, lambda: len(log.stored))


def _list_sink(tmp: Path) -> Iterator[Impl]:
    sink = ListSink()
    yield Impl(sink, lambda: len(sink.events))


SINKS = {
    "EventLog": _event_log,
    "LogEventSink": _log_event_sink,
    "MemoryEventLog": _memory_event_log,
    "ListSink": _list_sink,
}


@pytest.fixture(params=list(SINKS))
def impl(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Impl]:
    yield from SINKS[request.param](tmp_path)


def test_append_returns_the_event_as_stored(impl: Impl) -> None:
    event = impl.sink.append("s1", 3, EventKind.DAEMON_TICK, {"timestamp": 1.5})
    assert isinstance(event, EngineEvent)
    assert (event.session_id, event.turn_id, event.kind) == ("s1", 3, EventKind.DAEMON_TICK)
    assert event.payload == {"timestamp": 1.5}
    assert event.ts_wall.tzinfo is not None
    assert impl.stored() == 1


def test_seq_strictly_increases_within_a_session(impl: Impl) -> None:
    seqs: dict[str, list[int]] = {}
    for i, sid in enumerate(["a", "b", "a", "c", "a", "b"]):
        event = impl.sink.append(sid, 0, EventKind.DAEMON_TICK, {"timestamp": float(i)})
        seqs.setdefault(sid, []).append(event.seq)
    for in_session in seqs.values():
        assert all(x < y for x, y in pairwise(in_session))


def test_a_missing_payload_is_stored_as_empty(impl: Impl) -> None:
    assert impl.sink.append("s", 1, EventKind.SESSION_STARTED).payload == {}


def test_the_kind_may_be_given_by_its_value(impl: Impl) -> None:
    event = impl.sink.append("s", 0, "daemon_tick", {"timestamp": 2.0})
    assert event.kind is EventKind.DAEMON_TICK


@pytest.mark.parametrize(
    ("kind", "payload"),
    [
        (EventKind.DAEMON_TICK, {"timestamp": "soon"}),
        (EventKind.DAEMON_TICK, {"timestamp": float("nan")}),
        (EventKind.MODULATORS_DECAYED, {"elapsed_s": -1, "modulators": {}, "stance": {}}),
    ],
)
def test_an_invalid_payload_raises_and_stores_nothing(
    impl: Impl, kind: EventKind, payload: dict[str, Any]
) -> None:
    # the store says EventPayloadError (a RilaiError); the in-memory fakes let pydantic's
    # ValidationError (a ValueError) through. Callers only rely on "it raises".
    with pytest.raises((RilaiError, ValueError)):
        impl.sink.append("s", 0, kind, payload)
    assert impl.stored() == 0


def test_an_unknown_kind_raises_and_stores_nothing(impl: Impl) -> None:
    with pytest.raises((RilaiError, ValueError)):
        impl.sink.append("s", 0, "no_such_kind", {})
    assert impl.stored() == 0


# ── the read side the daemon's nudge history needs (daemon.ports.EventReader) ──────────
READERS = {"EventLog": _event_log, "MemoryEventLog": _memory_event_log}


@pytest.fixture(params=list(READERS))
def reader(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    for impl in READERS[request.param](tmp_path):
        yield impl.sink


def test_events_filter_by_session_and_kind_oldest_first(reader: Any) -> None:
    a1 = reader.append("a", 0, EventKind.DAEMON_TICK, {"timestamp": 1.0})
    reader.append("b", 0, EventKind.DAEMON_TICK, {"timestamp": 2.0})
    a2 = reader.append("a", 1, EventKind.SESSION_STARTED, {})
    a3 = reader.append("a", 0, EventKind.DAEMON_TICK, {"timestamp": 3.0})
    assert [e.seq for e in reader.events(session_id="a")] == [a1.seq, a2.seq, a3.seq]
    ticks = reader.events(session_id="a", kind=EventKind.DAEMON_TICK)
    assert [e.seq for e in ticks] == [a1.seq, a3.seq]
    both = reader.events(kind=[EventKind.SESSION_STARTED, EventKind.DAEMON_TICK])
    assert len(both) == 4


def test_events_newest_first_with_a_limit(reader: Any) -> None:
    made = [reader.append("a", 0, EventKind.DAEMON_TICK, {"timestamp": float(i)}) for i in range(5)]
    newest = reader.events(kind=EventKind.DAEMON_TICK, newest_first=True, limit=2)
    assert [e.seq for e in newest] == [made[4].seq, made[3].seq]
    assert reader.events(kind=EventKind.PROACTIVE_NUDGE) == []
