"""Ports that more than one engine package speaks: typing only, no implementation.

:class:`EventSink` is the write side of the append-only event log, with the shape
``store.EventLog.append`` offers. The turn (its events), memory (its mutations, inside
the write transaction) and the daemon (ticks, decay, nudges: turn_id 0) all write through
it; the composition root passes the EventLog or an adapter over it (``app.daemon_state.
LogEventSink`` stamps the daemon's clock and tells listeners), tests pass the same or an
in-memory fake (``daemon.nudges.simulate.MemoryEventLog``). ``tests/ports`` holds the
contract every implementation passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from rilai_desktop.contracts.event_kind import EventKind
from rilai_desktop.contracts.events import EngineEvent


class EventSink(Protocol):
    """Appends one event and returns it as stored.

    Callers rely on: the payload is validated against its kind's model before anything is
    written (an invalid one raises and stores nothing); the returned event carries the
    given ``session_id``, ``turn_id`` and kind, and a ``seq`` above every earlier one of
    that session (the EventLog counts per session; the fakes count globally);
    ``payload=None`` stores ``{}``. A sink with transactions (the EventLog) joins an open
    write transaction, so memory's mutations are all or nothing.
    """

    def append(
        self,
        session_id: str,
        turn_id: int,
        kind: EventKind | str,
        payload: Mapping[str, Any] | None = None,
    ) -> EngineEvent: ...
