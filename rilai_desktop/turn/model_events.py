"""Model-call events into the running turn.

The model adapters report MODEL_CALL_STARTED / MODEL_CALL_COMPLETED to one ``on_event``
sink, fixed when the router is built. The composition root passes a ``ModelEventRelay``
there; while a turn runs, the relay forwards each event to that turn's ``emit`` (so it is
appended to the log in order, between the agent's own events) tagged with the caller
("agent:emotion.stress", "voice", "council", ...). Outside a turn the events are dropped.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from rilai_desktop.contracts import EventKind
from rilai_desktop.turn.state import Emit


class ModelEventRelay:
    """The caller is per thread: agents of one wave run on two threads at once."""

    def __init__(self) -> None:
        self._target: Emit | None = None
        self._local = threading.local()

    @property
    def _caller(self) -> str:
        return str(getattr(self._local, "caller", ""))

    def __call__(self, kind: EventKind, payload: Mapping[str, Any]) -> None:
        target = self._target
        if target is None:
            return
        target(kind, {**payload, "caller": self._caller})

    @contextmanager
    def attached(self, emit: Emit) -> Iterator[None]:
        previous = self._target
        self._target = emit
        try:
            yield
        finally:
            self._target = previous

    @contextmanager
    def caller(self, name: str) -> Iterator[None]:
        previous = self._caller
        self._local.caller = name
        try:
            yield
        finally:
            self._local.caller = previous
