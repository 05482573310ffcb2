"""The Inspector: a dock with one tab per section of the turn (sensors, stance, agents,
deliberation, council, critics, memory, timing), fed by the turn's events.

It is fed only by events — the live stream through ``on_event``, or an earlier turn's
logged events through ``show_turn`` — and never reads the database itself. A
TURN_STARTED clears every panel for the new turn; events of another turn (or the
daemon's, turn 0) are ignored. A panel that cannot read an odd payload logs it and the
rest of the inspector goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QTabWidget, QVBoxLayout, QWidget

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector.agents import AgentsPanel
from rilai_desktop.ui.inspector.council import CouncilPanel
from rilai_desktop.ui.inspector.critics import CriticsPanel
from rilai_desktop.ui.inspector.deliberation import DeliberationPanel
from rilai_desktop.ui.inspector.fields import as_dict, as_str, fmt_ms
from rilai_desktop.ui.inspector.memory import MemoryPanel
from rilai_desktop.ui.inspector.panel import Panel
from rilai_desktop.ui.inspector.sensors import SensorsPanel
from rilai_desktop.ui.inspector.stance import StancePanel
from rilai_desktop.ui.inspector.timing import TimingPanel

log = logging.getLogger(__name__)

TOGGLE_SHORTCUT = "Ctrl+I"
PREVIEW_CHARS = 60


class Inspector(QDockWidget):
    """The turn inspector dock. ``turn_changed`` carries the turn now shown."""

    turn_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Inspector", parent)
        self.setObjectName("inspector")
        self.setAccessibleName("Inspector")
        self.setAllowedAreas(
            Qt.DockWidgetArea.RightDockWidgetArea | Qt.DockWidgetArea.LeftDockWidgetArea
        )
        toggle = self.toggleViewAction()
        toggle.setShortcut(QKeySequence(TOGGLE_SHORTCUT))
        toggle.setText("Inspector")
        toggle.setToolTip(f"Show or hide the inspector ({TOGGLE_SHORTCUT})")

        body = QWidget(self)
        body.setObjectName("inspector-body")
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        self.header = QLabel("No turn yet", body)
        self.header.setObjectName("inspector-turn")
        self.header.setAccessibleName("Inspected turn")
        self.header.setWordWrap(True)
        self.tabs = QTabWidget(body)
        self.tabs.setObjectName("inspector-tabs")
        self.tabs.setAccessibleName("Inspector sections")
        self.tabs.tabBar().setAccessibleName("Inspector section tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(True)

        self.sensors = SensorsPanel()
        self.stance = StancePanel()
        self.agents = AgentsPanel()
        self.deliberation = DeliberationPanel()
        self.council = CouncilPanel()
        self.critics = CriticsPanel()
        self.memory = MemoryPanel()
        self.timing = TimingPanel()
        self.panels: tuple[Panel, ...] = (
            self.sensors,
            self.stance,
            self.agents,
            self.deliberation,
            self.council,
            self.critics,
            self.memory,
            self.timing,
        )
        for panel in self.panels:
            self.tabs.addTab(panel, panel.title)
        layout.addWidget(self.header)
        layout.addWidget(self.tabs)
        self.setWidget(body)

        self._session: str | None = None
        self._turn: int | None = None
        self._input = ""
        self._state = ""
        self._replayed = False

    # ── the public API ───────────────────────────────────────────────────────

    @property
    def turn_id(self) -> int | None:
        """The turn shown (None before any)."""
        return self._turn

    @property
    def session_id(self) -> str | None:
        """The session of the turn shown (None before any)."""
        return self._session

    def on_event(self, event: EngineEvent) -> None:
        """Show one event of the live turn (a TURN_STARTED begins a new one)."""
        if event.kind is EventKind.TURN_STARTED:
            self._begin(event)
        elif self._turn is None:
            if event.turn_id == 0:
                return  # the daemon's, between turns
            self._begin(event)
        elif (event.session_id, event.turn_id) != (self._session, self._turn):
            return  # another turn's, or the daemon's
        self._dispatch(event)

    def show_turn(self, events: Sequence[EngineEvent]) -> None:
        """Re-open an earlier turn from its logged events: clear, then replay them."""
        self._clear()
        self._session = None
        self._turn = None
        for event in events:
            self.on_event(event)
        self._replayed = True
        self._update_header()

    def clear(self) -> None:
        """Forget the turn shown."""
        self._clear()
        self._session = None
        self._turn = None
        self.header.setText("No turn yet")

    # ── inside ───────────────────────────────────────────────────────────────

    def _clear(self) -> None:
        for panel in self.panels:
            panel.clear()
        self._input = ""
        self._state = ""
        self._replayed = False

    def _begin(self, event: EngineEvent) -> None:
        self._clear()
        changed = (event.session_id, event.turn_id) != (self._session, self._turn)
        self._session = event.session_id
        self._turn = event.turn_id
        self._update_header()
        if changed:
            self.turn_changed.emit(event.turn_id)

    def _dispatch(self, event: EngineEvent) -> None:
        self._note(event)
        for panel in self.panels:
            if event.kind in panel.kinds:
                try:
                    panel.handle(event)
                except Exception:  # an odd payload must not take the window down
                    log.exception(
                        "the %s panel could not show %s (turn %s, seq %s)",
                        panel.title,
                        event.kind.value,
                        event.turn_id,
                        event.seq,
                    )

    def _note(self, event: EngineEvent) -> None:
        """Keep the header's line about the turn: its message and where it stands."""
        payload = as_dict(event.payload)
        kind = event.kind
        if kind is EventKind.TURN_STARTED:
            self._input = as_str(payload.get("user_input"))
            self._state = "started"
        elif kind is EventKind.TURN_STAGE_CHANGED:
            self._state = f"stage: {as_str(payload.get('stage'), '?')}"
        elif kind is EventKind.TURN_COMPLETED:
            self._state = f"done in {fmt_ms(payload.get('total_time_ms'))}"
        elif kind is EventKind.TURN_ABORTED:
            stage = as_str(payload.get("stage"))
            reason = as_str(payload.get("reason"), "aborted")
            self._state = reason + (f" at {stage}" if stage else "")
        elif kind is EventKind.ERROR:
            self._state = f"error: {as_str(payload.get('error'))}"
        else:
            return
        self._update_header()

    def _update_header(self) -> None:
        if self._turn is None:
            self.header.setText("No turn yet")
            return
        text = " ".join(self._input.split())
        if len(text) > PREVIEW_CHARS:
            text = text[: PREVIEW_CHARS - 1] + "…"
        parts = [f"Turn {self._turn}"]
        if text:
            parts.append(f"“{text}”")
        if self._state:
            parts.append(self._state)
        if self._replayed:
            parts.append("(from the log)")
        self.header.setText(" · ".join(parts))
        self.header.setToolTip(self._input)
