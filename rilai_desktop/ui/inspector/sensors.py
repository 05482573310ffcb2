"""Sensors: each fast sensor's probability as a bar, with the spans that were its evidence,
and above them the conversation's safety risk for the turn.

Reads SENSORS_FAST_UPDATED (``sensors``: name → probability, ``evidence``: name → spans,
``risk``: the conversation's risk state, ``notes``: name → the reading's note) and
SAFETY_INTERRUPT (with its
``situation`` and ``level`` when logged). "Conversation risk" shows the level as a bar,
the careful window, protect / careful for this turn, the situation in words, the reasons,
and the exemplar bank's note and the model check's verdict when the ``safety_risk``
note carries them; "no safety concern" when the level is 0 and nothing is careful; nothing
at all for an older event without ``risk``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from rilai_desktop.contracts import SENSOR_NAMES, EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import as_dict, as_float, as_str, as_strs, fmt_num
from rilai_desktop.ui.inspector.panel import Panel, make_table, set_cell, table_texts
from rilai_desktop.ui.inspector.risk import TurnRisk, read_risk, situation_word

BAR_STEPS = 100  # the bar's resolution: probabilities to the hundredth


def _order(name: str) -> tuple[int, str]:
    return (SENSOR_NAMES.index(name), name) if name in SENSOR_NAMES else (len(SENSOR_NAMES), name)


class SensorsPanel(Panel):
    title = "Sensors"
    kinds = frozenset(
        {
            EventKind.SENSORS_FAST_UPDATED,
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
        self.risk_box = RiskBox(self)
        self.layout_.addWidget(self.interrupt)
        self.layout_.addWidget(self.risk_box)
        self.layout_.addWidget(self.table, 1)
        self._values: dict[str, float] = {}
        self._evidence: dict[str, list[str]] = {}

    def clear(self) -> None:
        self._values.clear()
        self._evidence.clear()
        self.table.setRowCount(0)
        self.interrupt.clear()
        self.interrupt.setVisible(False)
        self.risk_box.show_risk(None)

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        if event.kind is EventKind.SAFETY_INTERRUPT:
            self._interrupt(payload)
            return
        if event.kind is EventKind.SENSORS_FAST_UPDATED and "risk" in payload:
            self.risk_box.show_risk(read_risk(payload))
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
        situation = [situation_word(flag) for flag in as_strs(payload.get("situation"))]
        level = as_float(payload.get("level"))
        after = [", ".join(situation)] if situation else []
        after += [f"level {fmt_num(level)}"] if level is not None else []
        tail = f" — {'; '.join(after)}" if after else ""
        self.interrupt.setText(f"Safety interrupt: {reason}{detail}{tail}")
        self.interrupt.setVisible(True)

    def risk_lines(self) -> list[str]:
        """What "Conversation risk" shows, line by line ([] when hidden)."""
        return self.risk_box.lines()

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


class RiskBox(QGroupBox):
    """ "Conversation risk": the turn's risk state (hidden for an event without one)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Conversation risk", parent)
        self.setObjectName("sensors-risk")
        self.setAccessibleName("Conversation risk")
        self.level_text = QLabel(self)
        self.level_text.setObjectName("sensors-risk-level-text")
        self.level_text.setAccessibleName("Conversation risk level")
        self.level = QProgressBar(self)  # a slim bar beside the number: no text on the chunk
        self.level.setObjectName("sensors-risk-level")
        self.level.setAccessibleName("Conversation risk level")
        self.level.setRange(0, BAR_STEPS)
        self.level.setTextVisible(False)
        self.level.setFixedSize(80, max(6, self.fontMetrics().height() // 2))
        self.verdict = QLabel(self)
        self.verdict.setObjectName("sensors-risk-verdict")
        self.verdict.setAccessibleName("This turn")
        bold = QFont(self.verdict.font())
        bold.setBold(True)
        self.verdict.setFont(bold)
        self.details = QLabel(self)
        self.details.setObjectName("sensors-risk-details")
        self.details.setAccessibleName("Conversation risk details")
        self.details.setWordWrap(True)
        self.details.setTextFormat(Qt.TextFormat.PlainText)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.setSpacing(10)
        top.addWidget(self.level_text)
        top.addWidget(self.level)
        top.addWidget(self.verdict, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.details)
        self.risk: TurnRisk | None = None
        self.setVisible(False)

    def show_risk(self, risk: TurnRisk | None) -> None:
        self.risk = risk
        self.setVisible(risk is not None)
        if risk is None:
            self.details.clear()
            return
        quiet = risk.quiet
        for widget in (self.level_text, self.level, self.verdict):
            widget.setVisible(not quiet)
        if quiet:
            self.details.setText("no safety concern")
            return
        self.level_text.setText(f"level {fmt_num(risk.level)}")
        self.level.setValue(round(risk.level * BAR_STEPS))
        self.level.setAccessibleDescription(fmt_num(risk.level))
        self.verdict.setText(f"{risk.verdict()} this turn")
        self.details.setText("\n".join(self._detail_lines(risk)))

    def _detail_lines(self, risk: TurnRisk) -> list[str]:
        first = [risk.window()]  # the careful window after this turn
        if risk.turn_risk is not None:
            first.append(f"this message {fmt_num(risk.turn_risk)}")
        if risk.level_before is not None:
            first.append(f"level before {fmt_num(risk.level_before)}")
        lines = [" · ".join(first)]
        if risk.situation:
            lines.append("situation: " + "; ".join(risk.situation_words()))
        lines += [f"• {reason}" for reason in risk.reasons]
        if risk.bank:
            lines.append(f"bank: {risk.bank}")
        if risk.check:
            lines.append(f"model check: {risk.check}")
        return lines

    def lines(self) -> list[str]:
        """The box's text, line by line ([] when hidden)."""
        if self.risk is None:
            return []
        if self.risk.quiet:
            return [self.details.text()]
        head = f"{self.level_text.text()} · {self.verdict.text()}"
        return [head, *[line for line in self.details.text().split("\n") if line]]
