"""Timing: milliseconds per stage, tokens per role (prompt, cached, completion) and each
model call.

Stage times come live from the TURN_STAGE_CHANGED timestamps (a stage lasts until the
next one starts) and are replaced by the runner's own ``stage_ms`` when TURN_COMPLETED
arrives (with ``total_time_ms`` and ``tokens``: role → prompt / cached / completion).
MODEL_CALL_COMPLETED adds a row per call (``caller``, ``model``, ``prompt_tokens``,
``cached_prompt_tokens``, ``completion_tokens``, ``latency_ms``).
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import as_dict, as_float, as_int, as_str, fmt_ms
from rilai_desktop.ui.inspector.panel import Panel, make_table, set_cell, table_texts

TOKEN_KEYS = ("prompt", "cached", "completion")


def _count(value: object) -> str:
    number = as_int(value)
    return "–" if number is None else str(number)


class TimingPanel(Panel):
    title = "Timing"
    kinds = frozenset(
        {
            EventKind.TURN_STARTED,
            EventKind.TURN_STAGE_CHANGED,
            EventKind.TURN_COMPLETED,
            EventKind.TURN_ABORTED,
            EventKind.MODEL_CALL_COMPLETED,
        }
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.total = QLabel("Total: –", self)
        self.total.setObjectName("timing-total")
        self.total.setAccessibleName("Total time")
        self.stages = make_table("Stage times", ["Stage", "ms", "Starts at"], self, stretch=0)
        self.tokens = make_table(
            "Tokens by role", ["Role", "Prompt", "Cached", "Completion"], self, stretch=0
        )
        self.calls = make_table(
            "Model calls", ["Caller", "Model", "Prompt", "Cached", "Completion", "ms"], self, 0
        )
        self.layout_.addWidget(self.total)
        self.layout_.addWidget(self.stages, 3)
        self.layout_.addWidget(self.tokens, 2)
        self.layout_.addWidget(self.calls, 2)
        self.calls.setVisible(False)  # until a model call is reported
        self._start: float | None = None
        self._stage_at: dict[str, float] = {}  # stage -> its start (monotonic seconds)
        self._stage_ms: dict[str, float] = {}
        self._current: str | None = None

    def clear(self) -> None:
        self._start = None
        self._stage_at.clear()
        self._stage_ms.clear()
        self._current = None
        self.total.setText("Total: –")
        for table in (self.stages, self.tokens, self.calls):
            table.setRowCount(0)
        self.calls.setVisible(False)

    def stage_rows(self) -> list[list[str]]:
        return table_texts(self.stages)

    def token_rows(self) -> list[list[str]]:
        return table_texts(self.tokens)

    def call_rows(self) -> list[list[str]]:
        return table_texts(self.calls)

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        ts = event.ts_monotonic
        kind = event.kind
        if kind is EventKind.TURN_STARTED:
            self._start = ts
        elif kind is EventKind.TURN_STAGE_CHANGED:
            self._close_stage(ts)
            stage = as_str(payload.get("stage"), "?") or "?"
            self._current = stage
            self._stage_at.setdefault(stage, ts)
            if self._start is None:
                self._start = ts
        elif kind is EventKind.MODEL_CALL_COMPLETED:
            self._call(payload)
            return
        else:
            self._close_stage(ts)
            self._current = None
            if kind is EventKind.TURN_COMPLETED:
                self._completed(payload)
            else:
                stage = as_str(payload.get("stage"))
                reason = as_str(payload.get("reason"), "aborted")
                where = f" at {stage}" if stage else ""
                self.total.setText(f"Total: {self._elapsed(ts)} ({reason}{where})")
        self._render()

    def _close_stage(self, ts: float) -> None:
        if self._current is not None and self._current in self._stage_at:
            ms = (ts - self._stage_at[self._current]) * 1000
            self._stage_ms[self._current] = max(0.0, ms)

    def _elapsed(self, ts: float) -> str:
        return "–" if self._start is None else fmt_ms(max(0.0, (ts - self._start) * 1000))

    def _completed(self, payload: dict[str, object]) -> None:
        for stage, ms in as_dict(payload.get("stage_ms")).items():
            number = as_float(ms)
            if number is not None:
                self._stage_ms[stage] = number
        self.total.setText(f"Total: {fmt_ms(payload.get('total_time_ms'))}")
        tokens = as_dict(payload.get("tokens"))
        self.tokens.setRowCount(len(tokens))
        sums = dict.fromkeys(TOKEN_KEYS, 0)
        for row, (role, counts) in enumerate(tokens.items()):
            numbers = as_dict(counts)
            set_cell(self.tokens, row, 0, role)
            for column, key in enumerate(TOKEN_KEYS, start=1):
                set_cell(self.tokens, row, column, _count(numbers.get(key)))
                sums[key] += as_int(numbers.get(key), 0) or 0
        if len(tokens) > 1:
            row = self.tokens.rowCount()
            self.tokens.setRowCount(row + 1)
            set_cell(self.tokens, row, 0, "all")
            for column, key in enumerate(TOKEN_KEYS, start=1):
                set_cell(self.tokens, row, column, str(sums[key]))

    def _call(self, payload: dict[str, object]) -> None:
        row = self.calls.rowCount()
        self.calls.setRowCount(row + 1)
        self.calls.setVisible(True)
        set_cell(self.calls, row, 0, as_str(payload.get("caller")))
        set_cell(self.calls, row, 1, as_str(payload.get("model")))
        set_cell(self.calls, row, 2, _count(payload.get("prompt_tokens")))
        set_cell(self.calls, row, 3, _count(payload.get("cached_prompt_tokens")))
        set_cell(self.calls, row, 4, _count(payload.get("completion_tokens")))
        set_cell(self.calls, row, 5, fmt_ms(payload.get("latency_ms")))

    def _render(self) -> None:
        stages = list(dict.fromkeys([*self._stage_at, *self._stage_ms]))
        self.stages.setRowCount(len(stages))
        for row, stage in enumerate(stages):
            running = stage == self._current
            set_cell(self.stages, row, 0, stage + (" (running)" if running else ""))
            set_cell(self.stages, row, 1, "…" if running else fmt_ms(self._stage_ms.get(stage)))
            at = self._stage_at.get(stage)
            since = None if at is None or self._start is None else (at - self._start) * 1000
            set_cell(self.stages, row, 2, fmt_ms(since))
