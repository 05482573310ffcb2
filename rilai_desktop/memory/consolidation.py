"""Items -> category markdown with footnote citations; an optional model-written summary.

The structure is deterministic (sections by item kind, one bullet per item, a footnote per
bullet naming the item, its resource and turns) so nothing is invented and every line can be
traced. The medium-tier model only writes a 1-3 sentence summary at the top, through a
JSON schema. If the model fails, ConsolidationError is raised and the caller keeps the
previous content (seed 003's matrix).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from datetime import datetime

from rilai_desktop.errors import ConsolidationError, RilaiError
from rilai_desktop.memory.categories import title_of
from rilai_desktop.memory.ports import TextModel
from rilai_desktop.memory.types import MemoryCategory, MemoryItem

MAX_LISTED = 200
SUMMARY_SCHEMA = {
    "type": "object",
    "properties": {"summary": {"type": "string", "minLength": 1, "maxLength": 400}},
    "required": ["summary"],
    "additionalProperties": False,
}
_PARROT = ("summarise", "summarize", "json", "bullet", "the facts below")


class MemoryConsolidator:
    def __init__(
        self,
        model: TextModel | None = None,
        *,
        max_retries: int = 2,
        backoff_base: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self._sleep = sleep

    def summary(self, category: MemoryCategory, items: Sequence[MemoryItem]) -> str | None:
        if self.model is None or not items:
            return None
        facts = "\n".join(f"- {i.content[:200]}" for i in items[:30])
        messages = [
            {
                "role": "system",
                "content": "Write 1-3 plain sentences that sum up what these notes say "
                "about the user. Only use the notes. Reply in JSON.",
            },
            {"role": "user", "content": f"Topic: {category.description}\nNotes:\n{facts}"},
        ]
        last: Exception | None = None
        for attempt in range(self.max_retries + 1):
            try:
                reply = self.model.complete(
                    messages, schema=SUMMARY_SCHEMA, max_tokens=160, temperature=0.2
                )
                text = str(json.loads(reply.text)["summary"]).strip()
                if not text or any(p in text.lower() for p in _PARROT):
                    raise ValueError(f"unusable summary: {text[:80]!r}")
                return text
            except (RilaiError, ValueError, KeyError, TypeError) as exc:
                last = exc
                if attempt < self.max_retries:
                    self._sleep(self.backoff_base * (2**attempt))
        raise ConsolidationError(
            f"Consolidation of '{category.name}' failed: {last}",
            context={"category_name": category.name},
        ) from last

    def render(
        self,
        category: MemoryCategory,
        items: Sequence[MemoryItem],
        resource_types: dict[str, str],
        now: datetime,
        summary: str | None = None,
    ) -> str:
        lines = [f"# {title_of(category.name)}", "", f"*{category.description}*", ""]
        if summary:
            lines += [summary, ""]
        if not items:
            lines += ["*No items yet.*", ""]
        listed = sorted(items, key=lambda i: i.valid_at or i.created_at, reverse=True)
        listed = listed[:MAX_LISTED]
        by_kind: dict[str, list[MemoryItem]] = {}
        for item in listed:
            by_kind.setdefault(item.kind, []).append(item)
        notes: list[str] = []
        for kind in sorted(by_kind):
            lines += [f"## {title_of(kind)}", ""]
            for item in by_kind[kind]:
                notes.append(_footnote(len(notes) + 1, item, resource_types))
                text = " ".join(item.content.split())
                lines.append(f"- {text} [^{len(notes)}]")
            lines.append("")
        if len(items) > len(listed):
            lines += [f"*…and {len(items) - len(listed)} older items.*", ""]
        if notes:
            lines += ["---", "", "## Sources", "", *notes, ""]
        resources = {i.source_resource_id for i in items}
        lines += [
            "---",
            f"*Last consolidated: {now.strftime('%Y-%m-%d %H:%M:%S')}*",
            f"*Items: {len(items)} | Resources: {len(resources)}*",
            "",
        ]
        return "\n".join(lines)


def _footnote(n: int, item: MemoryItem, resource_types: dict[str, str]) -> str:
    kind = resource_types.get(item.source_resource_id, "resource")
    turns = f", turns {', '.join(item.source_turn_ids[:5])}" if item.source_turn_ids else ""
    return f"[^{n}]: {item.item_id} — from {kind} {item.source_resource_id}{turns}"
