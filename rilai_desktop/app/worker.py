"""The engine's one worker: every write a client asks for runs on this thread, one at a
time, in the order asked (the Anki habit: one thread owns the collection's writes).

A turn, a reset and a memory edit never interleave: a memory edit asked for while a turn
runs waits for the turn. A call made on the worker thread itself runs inline (no
deadlock). ``close()`` finishes the queued work, then stops the thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from rilai_desktop.errors import EngineClosedError

T = TypeVar("T")

_STOP = object()


class Worker:
    def __init__(self, name: str = "rilai-engine") -> None:
        self._queue: queue.Queue[Any] = queue.Queue()
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            fn, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as exc:  # handed to whoever waits on the future
                future.set_exception(exc)

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        if threading.current_thread() is self._thread:
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)
            return future
        with self._lock:
            if self._closed:
                raise EngineClosedError("The engine is closed: nothing more can run on it")
            self._queue.put((fn, future))
        return future

    def call(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the worker and wait for its result (or its exception)."""
        return self.submit(fn).result()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def close(self, timeout: float | None = None) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._queue.put(_STOP)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)
