""" "Why Rilai said this": one reply's explanation, as the log recorded it.

Opened by the "Why?" button under a reply. The panel asks the bridge for the turn's
explanation (``Engine.explain_turn``, read off the GUI thread) and shows it in plain
sections: the memories that were in the voice's notes (each with Edit, Pause and
"Not relevant"), the passages of their documents, the sensors that fired with their
evidence, the key points and the agents' claims behind them, the council's decision and
what decided it, and the critics' verdicts. Only what reached the voice's prompt is
listed (``memory.used``), never what recall found and dropped. Nothing shown here goes
back into a prompt. A careful or protective turn says why in one sentence under the reply,
from the conversation's risk the turn logged (``inspector.risk.why_sentence``).

The memory buttons call the engine's memory facade by name through
``EngineBridge.memory_action`` (``edit``, ``set_paused``, ``not_relevant``), off the GUI
thread; the answer (or the refusal) comes back as a line under the memories.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from rilai_desktop.app.explain import TurnExplanation, UsedMemory
    from rilai_desktop.ui.bridge import EngineBridge
    from rilai_desktop.ui.inspector.risk import TurnRisk

KIND_NAMES = {
    "fact": "what Rilai knows about you",
    "item": "something you said",
    "episode": "an earlier moment",
    "goal": "an open thread",
}
DONE = {
    "edit": "Saved: the correction is what Rilai recalls from now on.",
    "set_paused": "Done: a paused memory is kept but never recalled.",
    "not_relevant": "Noted: this memory counts for less in questions like this one.",
}
DECIDED_BY = {
    "rule": "a rule",
    "model": "the council model",
    "fallback": "the fallback (no rule fired and the model did not answer)",
}


def _label(text: str, name: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse
        | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    label.setAccessibleName(name)
    return label


def _button(text: str, name: str, parent: QWidget) -> QPushButton:
    button = QPushButton(text, parent)
    button.setAccessibleName(name)
    button.setAutoDefault(False)
    return button


class MemoryRow(QWidget):
    """One memory that was in the voice's notes, with its three controls and an inline
    editor (Edit shows it; Save sends the correction)."""

    def __init__(self, memory: UsedMemory, panel: WhyPanel) -> None:
        super().__init__(panel)
        self.memory, self.panel = memory, panel
        self.paused = False
        self.setObjectName("why-memory")
        kind = KIND_NAMES.get(memory.kind, memory.kind)
        self.text = _label(memory.text, f"Memory ({kind}): {memory.text[:160]}", self)
        self.text.setObjectName("why-memory-text")
        caption = _label(kind, "Kind of memory", self)
        caption.setObjectName("why-memory-kind")
        self.edit_button = _button("Edit", f"Edit this memory: {memory.text[:80]}", self)
        self.pause_button = _button("Pause", f"Pause this memory: {memory.text[:80]}", self)
        self.irrelevant_button = _button(
            "Not relevant",
            f"Not relevant to questions like this one: {memory.text[:80]}",
            self,
        )
        self.editor = QLineEdit(memory.text, self)
        self.editor.setAccessibleName("Corrected memory")
        self.save_button = _button("Save", "Save the corrected memory", self)
        self.cancel_button = _button("Cancel", "Keep the memory as it was", self)
        for widget in (self.editor, self.save_button, self.cancel_button):
            widget.setVisible(False)
        known = bool(memory.entry_id)  # an entry without an id cannot be controlled
        for button in (self.edit_button, self.pause_button, self.irrelevant_button):
            button.setEnabled(known)
        self.edit_button.clicked.connect(self._start_edit)
        self.save_button.clicked.connect(self._save)
        self.cancel_button.clicked.connect(lambda: self._editing(False))
        self.editor.returnPressed.connect(self._save)
        self.pause_button.clicked.connect(self._toggle_pause)
        self.irrelevant_button.clicked.connect(self._not_relevant)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(caption, 1)
        for button in (self.edit_button, self.pause_button, self.irrelevant_button):
            buttons.addWidget(button)
        editing = QHBoxLayout()
        editing.setContentsMargins(0, 0, 0, 0)
        editing.addWidget(self.editor, 1)
        editing.addWidget(self.save_button)
        editing.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addWidget(self.text)
        layout.addLayout(editing)
        layout.addLayout(buttons)

    def _editing(self, on: bool) -> None:
        for widget in (self.editor, self.save_button, self.cancel_button):
            widget.setVisible(on)
        self.edit_button.setVisible(not on)
        if on:
            self.editor.setFocus()
            self.editor.selectAll()

    def _start_edit(self) -> None:
        self._editing(True)

    def _save(self) -> None:
        text = self.editor.text().strip()
        if not text:
            self.panel.say("A memory cannot be empty: write the correction, or Pause it.")
            return
        self._editing(False)
        self.panel.act(self, "edit", self.memory.kind, self.memory.entry_id, text)

    def _toggle_pause(self) -> None:
        self.panel.act(self, "set_paused", self.memory.kind, self.memory.entry_id, not self.paused)

    def _not_relevant(self) -> None:
        query = self.panel.explanation.user_text if self.panel.explanation else ""
        self.panel.act(self, "not_relevant", self.memory.kind, self.memory.entry_id, query)

    def done(self, name: str, args: tuple[object, ...]) -> None:
        """The facade said yes: show what changed."""
        if name == "set_paused" and args and isinstance(args[-1], bool):
            self.paused = args[-1]
            self.pause_button.setText("Resume" if self.paused else "Pause")
            verb = "Resume" if self.paused else "Pause"
            self.pause_button.setAccessibleName(f"{verb} this memory: {self.memory.text[:80]}")
        elif name == "edit" and args and isinstance(args[-1], str):
            self.text.setText(args[-1])


class WhyPanel(QDialog):
    """The explanation of one reply (a window of its own, not modal)."""

    def __init__(self, bridge: EngineBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.setObjectName("why-panel")
        self.setWindowTitle("Why Rilai said this")
        self.setAccessibleName("Why Rilai said this")
        self.resize(560, 620)
        self.explanation: TurnExplanation | None = None
        self.risk: TurnRisk | None = None
        self._wanted: tuple[str, int] | None = None
        self._risk_for: tuple[str, int] | None = None  # the turn ``_risk_read`` is for
        self._risk_read: TurnRisk | None = None
        self._pending: list[tuple[MemoryRow, str, tuple[object, ...]]] = []
        self.rows: list[MemoryRow] = []
        self.status = _label("", "What happened to the memory", self)
        self.status.setObjectName("why-status")
        self.area = QScrollArea(self)
        self.area.setObjectName("why-scroll")
        self.area.setAccessibleName("The explanation")
        self.area.setWidgetResizable(True)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.close)
        for button in close.buttons():
            button.setAccessibleName("Close the explanation")
        layout = QVBoxLayout(self)
        layout.addWidget(self.area, 1)
        layout.addWidget(self.status)
        layout.addWidget(close)
        self._body(_label("Reading this turn from the log…", "Loading", self))
        bridge.explained.connect(self._on_explained)
        bridge.explained_risk.connect(self._on_risk)
        bridge.memory_changed.connect(self._on_changed)
        bridge.memory_failed.connect(self._on_failed)

    # ── asking and answering ──────────────────────────────────────────────
    def show_turn(self, session_id: str, turn_id: int) -> None:
        """Ask for ``turn_id``'s explanation (read off the GUI thread) and show the panel."""
        self._wanted = (session_id, turn_id)
        self.setWindowTitle(f"Why Rilai said this (turn {turn_id})")
        self.status.clear()
        self._body(_label("Reading this turn from the log…", "Loading", self))
        self.bridge.explain_turn(session_id, turn_id)
        self.show()
        self.raise_()

    def _on_explained(self, explanation: object) -> None:
        from rilai_desktop.app.explain import TurnExplanation

        if not isinstance(explanation, TurnExplanation):
            return
        turn = (explanation.session_id, explanation.turn_id)
        if turn != self._wanted:
            return  # an answer for a turn asked about earlier
        self.show_explanation(explanation, self._risk_read if self._risk_for == turn else None)

    def _on_risk(self, session_id: str, turn_id: int, risk: object) -> None:
        """The conversation's risk the turn logged (comes just before its explanation)."""
        from rilai_desktop.ui.inspector.risk import TurnRisk

        self._risk_for = (session_id, turn_id)
        self._risk_read = risk if isinstance(risk, TurnRisk) else None

    def act(self, row: MemoryRow, name: str, *args: object) -> None:
        """One of a memory's buttons: the facade method ``name``, off the GUI thread."""
        self._pending.append((row, name, args))
        self.say("Working…")
        self.bridge.memory_action(name, *args)

    def _take(self, name: str) -> tuple[MemoryRow, tuple[object, ...]] | None:
        for i, (row, asked, args) in enumerate(self._pending):
            if asked == name:
                del self._pending[i]
                return row, args
        return None

    def _on_changed(self, name: str, _result: object) -> None:
        taken = self._take(name)
        if taken is None:
            return
        row, args = taken
        row.done(name, args)
        self.say(DONE.get(name, "Done."))

    def _on_failed(self, name: str, why: str) -> None:
        if self._take(name) is not None:
            self.say(f"That did not work: {why}")

    def say(self, text: str) -> None:
        self.status.setText(text)

    # ── the sections ──────────────────────────────────────────────────────
    def _body(self, *widgets: QWidget) -> None:
        body = QWidget()
        body.setObjectName("why-body")
        layout = QVBoxLayout(body)
        for widget in widgets:
            layout.addWidget(widget)
        layout.addStretch(1)
        self.area.setWidget(body)

    def _section(self, title: str, lines: list[str] | None = None) -> QGroupBox:
        box = QGroupBox(title)
        box.setObjectName("why-section")
        box.setAccessibleName(title)
        layout = QVBoxLayout(box)
        for line in lines or []:
            layout.addWidget(_label(line, f"{title}: {line[:160]}", box))
        return box

    def show_explanation(self, explanation: TurnExplanation, risk: TurnRisk | None = None) -> None:
        """Show ``explanation``; ``risk`` (the conversation's risk the turn logged) adds one
        sentence under the reply when the turn was careful or protective."""
        self.explanation = explanation
        self.risk = risk
        self.rows = []
        self._pending.clear()
        self._body(
            self._turn_section(explanation),
            self._memory_section(explanation),
            *self._passages_section(explanation),
            self._sensor_section(explanation),
            self._points_section(explanation),
            self._decision_section(explanation),
            self._critics_section(explanation),
        )

    def _turn_section(self, e: TurnExplanation) -> QGroupBox:
        from rilai_desktop.ui.inspector.risk import why_sentence

        lines = [f"You wrote: {e.user_text}", f"Rilai: {e.reply}"]
        if e.voice_model:  # which model wrote it: a tier on another machine says so too
            lines.append(f"Written by: {e.voice_model}")
        box = self._section("This turn", lines)
        careful = why_sentence(self.risk)
        layout = box.layout()
        if careful and layout is not None:
            label = _label(careful, f"Why Rilai was careful: {careful}", box)
            label.setObjectName("why-careful")
            layout.addWidget(label)
        return box

    def _memory_section(self, e: TurnExplanation) -> QGroupBox:
        box = self._section("Memories in Rilai's notes for this reply")
        layout = box.layout()
        assert layout is not None
        if not e.memory_logged:
            line = "This turn was recorded before Rilai logged which memories its notes held."
        elif not e.memories:
            line = "None: no memory was in the notes for this reply."
        else:
            line = ""
            for memory in e.memories:
                row = MemoryRow(memory, self)
                row.setParent(box)
                self.rows.append(row)
                layout.addWidget(row)
        if line:
            layout.addWidget(_label(line, f"Memories: {line}", box))
        return box

    def _passages_section(self, e: TurnExplanation) -> list[QGroupBox]:
        if not e.passages:
            return []
        return [
            self._section(
                "From your documents", [f"{p.text}  ({p.kb}, {p.doc_id})" for p in e.passages]
            )
        ]

    def _sensor_section(self, e: TurnExplanation) -> QGroupBox:
        lines = [
            f"{s.name} {s.probability:.2f} (fires at {s.threshold:.2f})"
            + (": " + "; ".join(f"“{span}”" for span in s.evidence) if s.evidence else "")
            for s in e.sensors
        ]
        if e.safety_interrupt:
            lines.insert(0, f"Safety interrupt: {e.safety_interrupt}")
        return self._section("What Rilai noticed (sensors that fired)", lines or ["None fired."])

    def _points_section(self, e: TurnExplanation) -> QGroupBox:
        lines = []
        for point in e.key_points:
            if point.claims:
                said = "; ".join(f"{agent}: “{text}”" for agent, text in point.claims)
                lines.append(f"{point.text} — from {said}")
            else:
                lines.append(f"{point.text} — the council's own rule")
        return self._section("Key points and the agents' claims behind them", lines or ["None."])

    def _decision_section(self, e: TurnExplanation) -> QGroupBox:
        d = e.decision
        if d is None:
            return self._section("The council's decision", ["No decision was logged."])
        who = DECIDED_BY.get(d.decided_by, "")
        lines = [
            f"Intent: {d.intent or '–'}; tone: {d.tone or '–'}"
            + ("" if d.speak is not False else "; stays quiet"),
            f"Decided by {who}: {d.reason}" if who else (d.reason or "–"),
        ]
        return self._section("The council's decision", lines)

    def _critics_section(self, e: TurnExplanation) -> QGroupBox:
        lines = []
        for c in e.critics:
            verdict = "passed" if c.passed else "failed"
            which = "the fixed reply" if c.fallback else f"attempt {c.attempt + 1}"
            lines.append(f"{c.critic} {verdict} ({which})" + (f": {c.reason}" if c.reason else ""))
        return self._section("The critics' verdicts", lines or ["No critic ran."])

    # ── for tests and screen readers ──────────────────────────────────────
    def careful_text(self) -> str:
        """The sentence on a careful or protective turn ("" for any other)."""
        body = self.area.widget()
        label = None if body is None else body.findChild(QLabel, "why-careful")
        return label.text() if label is not None else ""

    def memory_texts(self) -> list[str]:
        return [row.text.text() for row in self.rows]

    def section_titles(self) -> list[str]:
        body = self.area.widget()
        return [] if body is None else [b.title() for b in body.findChildren(QGroupBox)]
