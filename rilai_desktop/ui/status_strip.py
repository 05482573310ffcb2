"""The status strip at the window's foot: the current stage and how long it has run, the
voice tier and model, memory's size, and where the check-ins stand.

Everything it shows arrives from the bridge's signals (stage events of the running turn,
memory stats and the daemon's state read off the GUI thread); it reads nothing itself.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QStatusBar

DAEMON_KINDS = frozenset({"daemon_tick", "proactive_nudge"})


class StatusStrip(QObject):
    def __init__(self, bar: QStatusBar) -> None:
        super().__init__(bar)
        self.stage_label = QLabel("loading…")
        self.stage_label.setAccessibleName("Current stage")
        self.model_label = QLabel("")
        self.model_label.setAccessibleName("Voice model")
        self.memory_label = QLabel("")
        self.memory_label.setAccessibleName("Memory size")
        self.daemon_label = QLabel("")
        self.daemon_label.setObjectName("daemon-state")
        self.daemon_label.setAccessibleName("Check-ins state")
        self.api_label = QLabel("")
        self.api_label.setObjectName("api-state")
        self.api_label.setAccessibleName("Local API state")
        labels = (self.stage_label, self.model_label, self.memory_label, self.daemon_label)
        for label in (*labels, self.api_label):
            bar.addWidget(label)
        self._stage = ""
        self._stage_started = 0.0
        self._memory_text = ""
        self._memory_paused = False
        self._tick = QTimer(self)
        self._tick.setInterval(100)
        self._tick.timeout.connect(self._show_elapsed)

    def note(self, text: str) -> None:
        """A line in place of the stage (ready, stopping…, a hint)."""
        self.stage_label.setText(text)

    def stage(self, name: str) -> None:
        """The running turn entered ``name``: shown with its elapsed time, ticking."""
        self._stage, self._stage_started = name, time.monotonic()
        self._tick.start()
        self._show_elapsed()

    def turn_over(self, note: str) -> None:
        self._tick.stop()
        self._stage = ""
        self.stage_label.setText(note)

    def _show_elapsed(self) -> None:
        if self._stage:
            elapsed = time.monotonic() - self._stage_started
            self.stage_label.setText(f"{self._stage} · {elapsed:.1f} s")

    def voice(self, text: str) -> None:
        self.model_label.setText(text)

    def memory(self, stats: object) -> None:
        """``MemoryStats`` (or None where memory is off), read by the bridge."""
        total = getattr(stats, "total_items", None)
        self._memory_text = f"memory: {total} items" if total is not None else ""
        self._show_memory()

    def memory_paused(self, paused: bool) -> None:
        """The global "memory paused" switch (issue 20): said beside memory's size."""
        self._memory_paused = paused
        self._show_memory()

    def _show_memory(self) -> None:
        parts = ["memory paused"] if self._memory_paused else []
        self.memory_label.setText(
            " · ".join([*parts, self._memory_text] if self._memory_text else parts)
        )

    def api(self, text: str) -> None:
        """The local API: "API on 127.0.0.1:8765", why it is off, or "" (off, not said)."""
        self.api_label.setText(text)

    def daemon(self, status: object) -> None:
        """``app.daemon_status.DaemonStatus``: running, paused until…, quiet hours, off."""
        self.daemon_label.setText(str(getattr(status, "text", "")))
