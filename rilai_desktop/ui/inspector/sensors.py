"""Sensors: each fast sensor's probability as a bar, with the spans that were its evidence.

Reads SENSORS_FAST_UPDATED (``sensors``: name → probability, ``evidence``: name → spans),
SENSORS_ENSEMBLE_UPDATED when it carries ``sensors``, and SAFETY_INTERRUPT.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QProgressBar, QWidget

from rilai_desktop.contracts import SENSOR_NAMES, EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import as_dict, as_float, as_str, as_strs, fmt_num
from rilai_desktop.ui.inspector.panel import Panel, make_table, set_cell, table_texts

BAR_STEPS = 100  # the bar's resolution: probabilities to the hundredth


def _order(name: str) -> tuple[int, str]:
    return (SENSOR_NAMES.index(name), name) if name in SENSOR_NAMES else (len(SENSOR_NAMES), name)


class SensorsPanel(Panel):
    title = "Sensors"
    kinds = frozenset(
        {
            EventKind.SENSORS_FAST_UPDATED,
            EventKind.SENSORS_ENSEMBLE_UPDATED,
            EventKind.SAFETY_INTERRUPT,
        }
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = make_table("Sensor readings", ["Sensor", "Probability", "Evidence"], self)
        self.interrupt = QLabel(self)
        self.interrupt.setObjectName("sensors-interrupt")
        self.interrupt.setAccessibleName("Safety interrupt")
        self.interrupt.setWordWrap(True)
        self.interrupt.setVisible(False)
        self.layout_.addWidget(self.interrupt)
        self.layout_.addWidget(self.table)
        self._values: dict[str, float] = {}
        self._evidence: dict[str, list[str]] = {}

    def clear(self) -> None:
        self._values.clear()
        self._evidence.clear()
        self.table.setRowCount(0)
        self.interrupt.clear()
        self.interrupt.setVisible(False)

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        if event.kind is EventKind.SAFETY_INTERRUPT:
            self._interrupt(payload)
            return
        sensors = as_dict(payload.get("sensors"))
        if not sensors:
            return
        for name, value in sensors.items():
            number = as_float(value)
            if number is not None:
                self._values[name] = min(1.0, max(0.0, number))
        for name, spans in as_dict(payload.get("evidence")).items():
            self._evidence[name] = as_strs(spans)
        self._render()

    def rows(self) -> list[list[str]]:
        """Sensor, probability, evidence per row (as shown)."""
        return table_texts(self.table)

    def _interrupt(self, payload: dict[str, object]) -> None:
        reason = as_str(payload.get("reason"), "safety interrupt")
        sensor = as_str(payload.get("sensor"))
        value = as_float(payload.get("value"))
        detail = f" ({sensor} {fmt_num(value)})" if sensor and value is not None else ""
        self.interrupt.setText(f"Safety interrupt: {reason}{detail}")
        self.interrupt.setVisible(True)

    def _render(self) -> None:
        names = sorted(self._values, key=_order)
        self.table.setRowCount(len(names))
        for row, name in enumerate(names):
            value = self._values[name]
            spans = self._evidence.get(name, [])
            set_cell(self.table, row, 0, name)
            set_cell(self.table, row, 1, fmt_num(value))
            set_cell(self.table, row, 2, "; ".join(f"“{s}”" for s in spans))
            bar = self.table.cellWidget(row, 1)
            if not isinstance(bar, QProgressBar):
                bar = QProgressBar(self.table)
                bar.setRange(0, BAR_STEPS)
                bar.setTextVisible(True)
                bar.setAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setCellWidget(row, 1, bar)
            bar.setValue(round(value * BAR_STEPS))
            bar.setFormat(fmt_num(value))
            bar.setAccessibleName(f"{name} probability")
            bar.setAccessibleDescription(fmt_num(value))
        self.table.resizeRowsToContents()
