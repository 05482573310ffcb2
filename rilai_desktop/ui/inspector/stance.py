"""Stance: the eight stance dimensions drawn as bars, each with this turn's change marked,
and the global modulators the agents moved.

Reads STANCE_UPDATED (``current``, ``delta``, and ``previous`` where the log has it) and
MODULATORS_UPDATED (``current``, ``changes``, ``source_agents``).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from rilai_desktop.contracts import STANCE_DIMENSIONS, EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import as_dict, as_float, as_str, fmt_num, fmt_signed
from rilai_desktop.ui.inspector.panel import Panel, make_table, set_cell, table_texts

# valence runs from −1 (unpleasant) to 1; every other dimension from 0 to 1
SIGNED = frozenset({"valence"})
ROW_HEIGHT = 22
NAME_WIDTH = 84
VALUE_WIDTH = 40
GAP = 12
DELTA_WIDTH = 56
UP = QColor("#2e8b57")  # a rise this turn
DOWN = QColor("#c0392b")  # a fall this turn


@dataclass(frozen=True)
class Dimension:
    name: str
    current: float
    delta: float

    @property
    def previous(self) -> float:
        return self.current - self.delta

    def describe(self) -> str:
        return f"{self.name} {fmt_num(self.current)} ({fmt_signed(self.delta)} this turn)"


class StanceChart(QWidget):
    """A bar per dimension, filled to its value, with the change this turn drawn from the
    previous value (a tick) to the current one (the bar's end) in green or red."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stance-chart")
        self.setAccessibleName("Stance chart")
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # focus lets a reader hear the values
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.dimensions: list[Dimension] = []
        self._update_text()

    def set_dimensions(self, dimensions: list[Dimension]) -> None:
        self.dimensions = dimensions
        self._update_text()
        self.updateGeometry()
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(320, ROW_HEIGHT * max(1, len(self.dimensions)) + 8)

    def minimumSizeHint(self) -> QSize:
        return QSize(NAME_WIDTH + VALUE_WIDTH + DELTA_WIDTH + 80, self.sizeHint().height())

    def _update_text(self) -> None:
        text = "; ".join(d.describe() for d in self.dimensions) or "no stance this turn"
        self.setAccessibleDescription(text)
        self.setToolTip(text.replace("; ", "\n"))

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        track_left = NAME_WIDTH
        track_width = max(20.0, self.width() - NAME_WIDTH - VALUE_WIDTH - DELTA_WIDTH - GAP - 8)
        for row, dim in enumerate(self.dimensions):
            top = 4 + row * ROW_HEIGHT
            text_rect = QRectF(0, top, NAME_WIDTH - 6, ROW_HEIGHT)
            painter.setPen(palette.text().color())
            align = Qt.AlignmentFlag.AlignVCenter
            painter.drawText(text_rect, align | Qt.AlignmentFlag.AlignRight, dim.name)
            track = QRectF(track_left, top + 5, track_width, ROW_HEIGHT - 10)
            painter.setPen(QPen(palette.mid().color(), 1))
            painter.setBrush(palette.base().color())
            painter.drawRoundedRect(track, 3, 3)
            painter.setPen(Qt.PenStyle.NoPen)

            def x_of(value: float, dim: Dimension = dim, track: QRectF = track) -> float:
                low = -1.0 if dim.name in SIGNED else 0.0
                share = (min(1.0, max(low, value)) - low) / (1.0 - low)
                return track.left() + share * track.width()

            origin = x_of(0.0)
            now = x_of(dim.current)
            fill = QRectF(min(origin, now), track.top(), abs(now - origin), track.height())
            painter.setBrush(palette.highlight().color())
            painter.drawRect(fill)
            if dim.name in SIGNED:  # the neutral middle of a signed dimension
                painter.setPen(QPen(palette.mid().color(), 1))
                painter.drawLine(int(origin), int(track.top()), int(origin), int(track.bottom()))
                painter.setPen(Qt.PenStyle.NoPen)
            if round(dim.delta, 3) != 0:
                before = x_of(dim.previous)
                colour = UP if dim.delta > 0 else DOWN
                left, width = min(before, now), max(3.0, abs(now - before))
                painter.setBrush(colour)
                painter.drawRect(QRectF(left, track.top(), width, track.height()))
                painter.setPen(QPen(palette.text().color(), 1.5))
                tick = QRectF(before, track.top() - 3, 0, track.height() + 6)
                painter.drawLine(tick.topLeft(), tick.bottomLeft())
                painter.setPen(colour)
            else:
                painter.setPen(palette.text().color())
            delta_rect = QRectF(track.right() + GAP + VALUE_WIDTH, top, DELTA_WIDTH, ROW_HEIGHT)
            painter.drawText(delta_rect, align, fmt_signed(dim.delta))
            value_rect = QRectF(track.right() + 4, top, VALUE_WIDTH, ROW_HEIGHT)
            painter.setPen(palette.text().color())
            painter.drawText(value_rect, align | Qt.AlignmentFlag.AlignRight, fmt_num(dim.current))
        painter.end()


class StancePanel(Panel):
    title = "Stance"
    kinds = frozenset({EventKind.STANCE_UPDATED, EventKind.MODULATORS_UPDATED})

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.chart = StanceChart(self)
        self.modulators = make_table(
            "Modulators", ["Modulator", "Value", "Change", "Moved by"], self
        )
        heading = QLabel("Modulators", self)
        heading.setAccessibleName("Modulators heading")
        self.layout_.addWidget(self.chart)
        self.layout_.addWidget(heading)
        self.layout_.addWidget(self.modulators)

    def clear(self) -> None:
        self.chart.set_dimensions([])
        self.modulators.setRowCount(0)

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        if event.kind is EventKind.STANCE_UPDATED:
            self._stance(payload)
        else:
            self._modulators(payload)

    def dimensions(self) -> list[Dimension]:
        return list(self.chart.dimensions)

    def modulator_rows(self) -> list[list[str]]:
        return table_texts(self.modulators)

    def _stance(self, payload: dict[str, object]) -> None:
        current = as_dict(payload.get("current"))
        delta = as_dict(payload.get("delta"))
        previous = as_dict(payload.get("previous"))
        names = [n for n in STANCE_DIMENSIONS if n in current or n in delta]
        names += sorted(n for n in {*current, *delta} if n not in STANCE_DIMENSIONS)
        dims: list[Dimension] = []
        for name in names:
            now = as_float(current.get(name))
            change = as_float(delta.get(name))
            before = as_float(previous.get(name))
            if now is None and change is None:
                continue
            if change is None:
                change = now - before if now is not None and before is not None else 0.0
            if now is None:
                now = (before if before is not None else 0.0) + change
            dims.append(Dimension(name, now, change))
        self.chart.set_dimensions(dims)

    def _modulators(self, payload: dict[str, object]) -> None:
        current = as_dict(payload.get("current"))
        changes = as_dict(payload.get("changes"))
        sources = as_dict(payload.get("source_agents"))
        names = list(dict.fromkeys([*current, *changes]))
        self.modulators.setRowCount(len(names))
        for row, name in enumerate(names):
            set_cell(self.modulators, row, 0, name)
            set_cell(self.modulators, row, 1, fmt_num(current.get(name)))
            set_cell(self.modulators, row, 2, fmt_signed(changes.get(name)))
            set_cell(self.modulators, row, 3, as_str(sources.get(name)))
