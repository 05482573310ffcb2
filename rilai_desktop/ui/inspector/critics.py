"""Critics: per reply attempt, which critics passed and which failed (and why), beside the
model that wrote the attempt.

Reads VOICE_RENDERED (``attempt``, ``model``, ``escalated``, ``fallback``, ``text``,
``replaced_because``) and CRITICS_UPDATED (``results``: ``critic``, ``passed``, ``reason``,
``severity``; ``attempt``).
"""

from __future__ import annotations

from PySide6.QtWidgets import QTreeWidgetItem, QWidget

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import as_dict, as_int, as_list, as_str, as_strs
from rilai_desktop.ui.inspector.panel import Panel, make_tree, tree_item, tree_texts

PREVIEW_CHARS = 80


class CriticsPanel(Panel):
    title = "Critics"
    kinds = frozenset({EventKind.VOICE_RENDERED, EventKind.CRITICS_UPDATED})

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tree = make_tree("Critic results", ["Attempt / critic", "Result", "Reason"], self)
        self.layout_.addWidget(self.tree)
        self._attempts: dict[int, QTreeWidgetItem] = {}
        self._titles: dict[int, tuple[str, str]] = {}  # attempt -> (heading, verdict)
        self._checked = 0  # CRITICS_UPDATED events so far (older logs name no attempt)

    def clear(self) -> None:
        self.tree.clear()
        self._attempts.clear()
        self._titles.clear()
        self._checked = 0

    def lines(self) -> list[str]:
        return tree_texts(self.tree)

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        if event.kind is EventKind.VOICE_RENDERED:
            self._voice(payload)
        else:
            self._results(payload)

    def _attempt(self, number: int) -> QTreeWidgetItem:
        item = self._attempts.get(number)
        if item is None:
            item = tree_item(self.tree, [f"Attempt {number}"])
            item.setFirstColumnSpanned(True)
            self._attempts[number] = item
            self._titles[number] = (f"Attempt {number}", "")
        return item

    def _title(self, number: int, heading: str | None = None, verdict: str | None = None) -> None:
        old_heading, old_verdict = self._titles.get(number, (f"Attempt {number}", ""))
        heading = old_heading if heading is None else heading
        verdict = old_verdict if verdict is None else verdict
        self._titles[number] = (heading, verdict)
        text = f"{heading} — {verdict}" if verdict else heading
        item = self._attempt(number)
        item.setText(0, text)
        item.setToolTip(0, text)

    def _voice(self, payload: dict[str, object]) -> None:
        number = as_int(payload.get("attempt"), len(self._attempts)) or 0
        item = self._attempt(number)
        model = as_str(payload.get("model"))
        notes = [model] if model else []
        if payload.get("escalated") is True:
            notes.append("escalated")
        if payload.get("fallback") is True:
            notes.append("fallback")
        self._title(number, f"Attempt {number}" + (f" · {', '.join(notes)}" if notes else ""))
        text = as_str(payload.get("text")).strip()
        if text:
            preview = text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"
            reply = tree_item(item, [f"reply: “{preview}”"], text)
            reply.setFirstColumnSpanned(True)
        replaced = as_strs(payload.get("replaced_because"))
        if replaced:
            because = tree_item(item, [f"replaced because: {'; '.join(replaced)}"])
            because.setFirstColumnSpanned(True)

    def _results(self, payload: dict[str, object]) -> None:
        number = as_int(payload.get("attempt"), self._checked) or 0
        self._checked += 1
        item = self._attempt(number)
        failed = 0
        results = [as_dict(r) for r in as_list(payload.get("results"))]
        for result in results:
            passed = result.get("passed")
            verdict = "pass" if passed is True else "FAIL" if passed is False else "?"
            failed += passed is False
            reason = as_str(result.get("reason"))
            severity = as_str(result.get("severity"))
            if passed is False and severity:
                reason = f"[{severity}] {reason}"
            tree_item(item, [as_str(result.get("critic"), "?"), verdict, reason])
        self._title(number, verdict=f"{failed} failed" if failed else f"all {len(results)} passed")
        item.setExpanded(failed > 0 or len(self._attempts) == 1)
