"""Memory: what was recalled for this reply and what the turn committed.

Reads MEMORY_RETRIEVED (``episodes``, ``user_facts``, ``open_threads``, ``items``,
``knowledge``), MEMORY_CANDIDATES_PROPOSED (``candidates``, ``importance``,
``quarantined``) and MEMORY_COMMITTED (``summary``).
"""

from __future__ import annotations

from PySide6.QtWidgets import QTreeWidgetItem, QWidget

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import (
    as_dict,
    as_float,
    as_list,
    as_str,
    fmt_num,
    row_text,
)
from rilai_desktop.ui.inspector.panel import Panel, make_tree, tree_item, tree_texts

# (payload key, heading) of what a recall holds, in the order shown
RECALLED = (
    ("user_facts", "User facts"),
    ("episodes", "Episodes"),
    ("open_threads", "Open threads"),
    ("items", "Items"),
    ("knowledge", "Knowledge"),
)


def _detail(row: object, key: str) -> str:
    """The second column for a recalled row: its knowledge base, category or score."""
    data = as_dict(row)
    parts: list[str] = []
    if key == "knowledge" and data.get("kb"):
        parts.append(as_str(data.get("kb")))
    for field in ("category", "kind", "status"):
        value = as_str(data.get(field))
        if value and value not in parts:
            parts.append(value)
    for field in ("score", "confidence", "importance"):
        number = as_float(data.get(field))
        if number is not None:
            parts.append(f"{field} {fmt_num(number)}")
            break
    return ", ".join(parts)


class MemoryPanel(Panel):
    title = "Memory"
    kinds = frozenset(
        {
            EventKind.MEMORY_RETRIEVED,
            EventKind.MEMORY_CANDIDATES_PROPOSED,
            EventKind.MEMORY_COMMITTED,
        }
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tree = make_tree("Memory recalled and committed", ["Memory", "Detail"], self)
        self.layout_.addWidget(self.tree)

    def clear(self) -> None:
        self.tree.clear()

    def lines(self) -> list[str]:
        return tree_texts(self.tree)

    def handle(self, event: EngineEvent) -> None:
        payload = as_dict(event.payload)
        if event.kind is EventKind.MEMORY_RETRIEVED:
            self._recalled(payload)
        elif event.kind is EventKind.MEMORY_CANDIDATES_PROPOSED:
            self._proposed(payload)
        else:
            self._committed(payload)

    def _section(self, title: str, detail: str = "") -> QTreeWidgetItem:
        item = tree_item(self.tree, [title, detail])
        item.setExpanded(True)
        return item

    def _recalled(self, payload: dict[str, object]) -> None:
        total = sum(len(as_list(payload.get(key))) for key, _ in RECALLED)
        top = self._section("Recalled", "nothing" if total == 0 else f"{total} in all")
        for key, heading in RECALLED:
            rows = [r for r in as_list(payload.get(key)) if row_text(r)]
            if not rows:
                continue
            group = tree_item(top, [f"{heading} ({len(rows)})", ""])
            for row in rows:
                tree_item(group, [row_text(row), _detail(row, key)])
            group.setExpanded(True)

    def _proposed(self, payload: dict[str, object]) -> None:
        candidates = [c for c in as_list(payload.get("candidates")) if row_text(c)]
        notes = []
        importance = as_float(payload.get("importance"))
        if importance is not None:
            notes.append(f"importance {fmt_num(importance)}")
        if payload.get("quarantined") is True:
            notes.append("quarantined")
        top = self._section(f"Proposed ({len(candidates)})", ", ".join(notes))
        for candidate in candidates:
            tree_item(top, [row_text(candidate), _detail(candidate, "candidates")])

    def _committed(self, payload: dict[str, object]) -> None:
        summary = as_dict(payload.get("summary"))
        top = self._section("Committed", "nothing" if not summary else "")
        for key, value in summary.items():
            if isinstance(value, bool):
                shown = "yes" if value else "no"
            else:
                shown = fmt_num(value) if isinstance(value, float) else as_str(value)
            tree_item(top, [key.replace("_", " "), shown])
