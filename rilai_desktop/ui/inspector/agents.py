"""Agents: a live table of the turn's agents — a row appears when an agent starts and is
filled in when it completes or fails.

Reads AGENT_STARTED (``agent_id``, ``wave``, ``followup``, ``why``), AGENT_COMPLETED
(``urgency``, ``confidence``, ``processing_time_ms``, ``label``, ``observation``, ``span``)
and AGENT_FAILED (``error``, ``reason``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtWidgets import QWidget

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import (
    as_dict,
    as_float,
    as_int,
    as_str,
    as_strs,
    fmt_ms,
)
from rilai_desktop.ui.inspector.panel import Panel, make_table, set_cell, table_texts

HEADERS = ["Agent", "Wave", "U/C", "ms", "Label", "Observation"]
RUNNING = "running…"


@dataclass
class AgentRow:
    agent_id: str
    wave: str
    followup: bool
    started: float | None
    why: list[str] = field(default_factory=list)
    done: bool = False


class AgentsPanel(Panel):
    title = "Agents"
    kinds = frozenset({EventKind.AGENT_STARTED, EventKind.AGENT_COMPLETED, EventKind.AGENT_FAILED})

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = make_table("Agent runs", HEADERS, self)
        self.layout_.addWidget(self.table)
        self._rows: list[AgentRow] = []

    def clear(self) -> None:
        self._rows.clear()
        self.table.setRowCount(0)

    def rows(self) -> list[list[str]]:
        """Agent, wave, U/C, ms, label, observation per row (as shown)."""
        return table_texts(self.table)

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        agent_id = as_str(payload.get("agent_id"), "?") or "?"
        if event.kind is EventKind.AGENT_STARTED:
            self._start(agent_id, payload, event.ts_monotonic)
            return
        row = self._row_for(agent_id, payload, event.ts_monotonic)
        record = self._rows[row]
        record.done = True
        ms = as_float(payload.get("processing_time_ms"))
        if ms is None and record.started is not None:
            ms = max(0.0, (event.ts_monotonic - record.started) * 1000)
        set_cell(self.table, row, 3, fmt_ms(ms))
        if event.kind is EventKind.AGENT_COMPLETED:
            self._complete(row, payload)
        else:
            reason = as_str(payload.get("reason"))
            error = as_str(payload.get("error"), "no reason given")
            text = f"failed ({reason}): {error}" if reason else f"failed: {error}"
            set_cell(self.table, row, 4, "failed")
            set_cell(self.table, row, 5, text)
        self.table.resizeRowToContents(row)

    def _start(self, agent_id: str, payload: dict[str, object], ts: float) -> None:
        followup = payload.get("followup") is True
        wave = as_int(payload.get("wave"))
        record = AgentRow(
            agent_id,
            "–" if wave is None else str(wave),
            followup,
            ts,
            as_strs(payload.get("why")),
        )
        self._rows.append(record)
        row = len(self._rows) - 1
        self.table.setRowCount(len(self._rows))
        why = "; ".join(record.why)
        name = f"{agent_id} (follow-up)" if followup else agent_id
        set_cell(self.table, row, 0, name, f"{name}\nwhy: {why}" if why else name)
        set_cell(self.table, row, 1, record.wave)
        for column in (2, 3, 4):
            set_cell(self.table, row, column, "")
        set_cell(self.table, row, 5, RUNNING)

    def _row_for(self, agent_id: str, payload: dict[str, object], ts: float) -> int:
        """The row this agent's end belongs to: its last unfinished one (a row is added
        for an end whose start the log does not hold)."""
        for row in range(len(self._rows) - 1, -1, -1):
            if self._rows[row].agent_id == agent_id and not self._rows[row].done:
                return row
        self._start(agent_id, payload, ts)
        self._rows[-1].started = None
        return len(self._rows) - 1

    def _complete(self, row: int, payload: dict[str, object]) -> None:
        urgency = as_int(payload.get("urgency"))
        confidence = as_int(payload.get("confidence"))
        uc = f"{'–' if urgency is None else urgency}/{'–' if confidence is None else confidence}"
        salience = as_float(payload.get("salience"))
        tip = f"urgency {urgency}, confidence {confidence}"
        if salience is not None:
            tip += f", salience {salience:.2f}"
        set_cell(self.table, row, 2, uc, tip)
        label = as_str(payload.get("label"))
        if payload.get("present") is False and label:
            label = f"not {label}"
        set_cell(self.table, row, 4, label)
        observation = as_str(payload.get("observation"))
        span = as_str(payload.get("span"))
        set_cell(self.table, row, 5, observation, f"{observation}\nspan: “{span}”" if span else "")
