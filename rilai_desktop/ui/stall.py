"""The GUI thread's longest stall while a real turn runs (for `rilai bench ui`).

A timer on the GUI thread ticks every 5 ms; the longest gap between two ticks while the
turn runs is how long the window could not repaint or take a key. The turn itself runs on
the Engine's worker, as in the app.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from rilai_desktop.ui.app import DesktopApp

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine

TICK_MS = 5


def measure_stall(
    open_engine: Callable[[], Engine], messages: Sequence[str], *, timeout_s: float = 600.0
) -> dict[str, Any]:
    app = QApplication.instance() or QApplication(["rilai-bench-ui"])
    desktop = DesktopApp(open_engine, tray_available=lambda: False, with_daemon=False)
    window = desktop.window
    desktop.start()
    deadline = time.monotonic() + timeout_s

    def pump_until(done: Callable[[], bool]) -> None:
        while not done() and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.001)

    pump_until(lambda: window.bridge is not None)
    if window.bridge is None:
        raise RuntimeError("the engine did not open")
    bridge = window.bridge
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        if bridge.busy:
            gaps.append((now - last[0]) * 1000)
        last[0] = now

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    timer.start()
    turns: list[float] = []
    for message in messages:
        started = time.perf_counter()
        window.input.setPlainText(message)
        window.input.submit()
        pump_until(lambda: bridge.busy)
        pump_until(lambda: not bridge.busy)
        turns.append(time.perf_counter() - started)
    timer.stop()
    window.close()
    gaps.sort()
    return {
        "max_stall_ms": round(max(gaps), 1) if gaps else 0.0,
        "p99_gap_ms": round(gaps[int(len(gaps) * 0.99) - 1], 1) if gaps else 0.0,
        "ticks": len(gaps),
        "tick_ms": TICK_MS,
        "turn_s": [round(t, 2) for t in turns],
    }
