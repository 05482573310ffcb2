"""The between-turns warm-up: while the person reads a reply, the agents' and the voice's
next prompt prefixes are evaluated into the models' caches on a background thread (the
runner's module doc says why). One warm-up at a time; a failure never reaches the person.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any


class Warmup:
    def __init__(self) -> None:
        self.last: dict[str, Any] = {}  # tokens, ms (or error) of the last warm-up
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self, warm_agents: Callable[[], int], warm_voice: Callable[[], int]) -> None:
        """Run both warm-ups on a thread (after any older one); ``last`` says how it went."""

        def work() -> None:
            with self._lock:  # one warm at a time; a newer one waits for the older
                t0 = time.perf_counter()
                try:
                    agents = warm_agents()
                    voice = warm_voice()
                except Exception as exc:  # a cache warm-up must never reach the person
                    self.last = {"error": f"{type(exc).__name__}: {exc}"[:300]}
                    return
                self.last = {
                    "tokens": agents + voice,
                    "agent_tokens": agents,
                    "voice_tokens": voice,
                    "ms": round((time.perf_counter() - t0) * 1000, 1),
                }

        self._thread = threading.Thread(target=work, name="rilai-warm", daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the warm-up; False if it is still running at ``timeout``."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()
