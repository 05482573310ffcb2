"""Council: the decision for this turn — whether to speak, the intent, tone and urgency,
the key points and the do-nots, and which rule or model decided.

Reads COUNCIL_DECISION_MADE (``speak``, ``intent``, ``tone``, ``urgency``, ``key_points``,
``do_not``, ``asks_user``, ``reasons``, ``thinking``, ``used_model``,
``agent_influence``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QScrollArea, QWidget

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import as_dict, as_str, as_strs
from rilai_desktop.ui.inspector.panel import Panel

# (key, label) in the order shown
FIELDS = (
    ("speak", "Speak"),
    ("intent", "Intent"),
    ("tone", "Tone"),
    ("urgency", "Urgency"),
    ("key_points", "Key points"),
    ("do_not", "Do not"),
    ("asks_user", "Asks"),
    ("decided_by", "Decided by"),
    ("reasons", "Reasons"),
    ("influence", "Agents that shaped it"),
)


def _bullets(lines: list[str]) -> str:
    return "\n".join(f"• {line}" for line in lines)


class CouncilPanel(Panel):
    title = "Council"
    kinds = frozenset({EventKind.COUNCIL_DECISION_MADE})

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        scroll = QScrollArea(self)
        scroll.setObjectName("council-scroll")
        scroll.setAccessibleName("Council decision")
        scroll.setWidgetResizable(True)
        body = QWidget(scroll)
        form = QFormLayout(body)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.values: dict[str, QLabel] = {}
        for key, label in FIELDS:
            value = QLabel("–", body)
            value.setObjectName(f"council-{key.replace('_', '-')}")
            value.setAccessibleName(f"Council {label.lower()}")
            value.setWordWrap(True)
            value.setTextFormat(Qt.TextFormat.PlainText)
            value.setTextInteractionFlags(
                Qt.TextInteractionFlag.TextSelectableByMouse
                | Qt.TextInteractionFlag.TextSelectableByKeyboard
            )
            caption = QLabel(f"{label}:", body)
            caption.setBuddy(value)
            form.addRow(caption, value)
            self.values[key] = value
        scroll.setWidget(body)
        self.layout_.addWidget(scroll)

    def clear(self) -> None:
        for value in self.values.values():
            value.setText("–")

    def text(self, key: str) -> str:
        """What the panel shows for ``key`` (one of FIELDS' keys)."""
        return self.values[key].text()

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        speak = payload.get("speak")
        shown = {
            "speak": "yes" if speak is True else "no (stays quiet)" if speak is False else "–",
            "intent": as_str(payload.get("intent")),
            "tone": as_str(payload.get("tone")),
            "urgency": as_str(payload.get("urgency")),
            "key_points": _bullets(as_strs(payload.get("key_points"))),
            "do_not": _bullets(as_strs(payload.get("do_not"))),
            "asks_user": as_str(payload.get("asks_user")),
            "decided_by": self._decided_by(payload),
            "reasons": _bullets(as_strs(payload.get("reasons"))) or as_str(payload.get("thinking")),
            "influence": self._influence(as_dict(payload.get("agent_influence"))),
        }
        for key, text in shown.items():
            self.values[key].setText(text or "–")

    @staticmethod
    def _decided_by(payload: dict[str, object]) -> str:
        """'model: …' when the council model chose the intent, else the rule that fired
        (the first reason), or the fallback taken when the model could not answer."""
        reasons = as_strs(payload.get("reasons"))
        if payload.get("used_model") is True:
            said = [r for r in reasons if r.startswith("model")]
            return f"model: {said[0]}" if said else "model"
        opened = bool(reasons) and reasons[0].startswith("no rule")
        if opened:
            fallback = [r for r in reasons[1:] if "model" in r]
            return f"fallback: {fallback[0]}" if fallback else "fallback"
        return f"rule: {reasons[0]}" if reasons else ""

    @staticmethod
    def _influence(influence: dict[str, object]) -> str:
        by_agent = as_dict(influence.get("by_agent"))
        shaped = [
            name
            for name, effect in by_agent.items()
            if as_dict(effect).get("decision") is True or as_dict(effect).get("notes") is True
        ]
        fields = as_strs(influence.get("fields"))
        text = ", ".join(shaped)
        if fields:
            text += f" (changed: {', '.join(fields)})"
        return text.strip()
