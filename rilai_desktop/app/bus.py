"""One bus for every logged event: turns, daemon ticks, nudges, memory changes.

The event log is the truth (the eventsourcing habit): the bus is fed by the log itself
(``EventLog.add_listener``), so whatever any part of the engine appends reaches every
subscriber once it is committed, in log order, and nothing that rolled back ever does.
Subscribers run on the writing thread: a client hands the event on (the window posts it to
the Qt thread) and returns. A subscriber that raises is logged and dropped from nothing:
it cannot stop a write or another subscriber.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from rilai_desktop.contracts import EngineEvent

log = logging.getLogger(__name__)

Subscriber = Callable[[EngineEvent], None]


class EventBus:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[Subscriber] = []

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback`` with every event from now on; returns the unsubscribe."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: EngineEvent) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(event)
            except Exception:
                log.exception("a bus subscriber failed on %s", event.kind.value)

    @property
    def subscriber_count(self) -> int:
        with self._lock:
            return len(self._subscribers)
