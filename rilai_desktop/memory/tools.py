"""The memory tools agents call: recall, remember, list_categories, get_category.

They return exactly the text formats of seed 003 (section 5), so a model reads the same
shape every time. Each is a plain function over a MemoryManager; ``memory_tools(manager)``
binds them, with their descriptions, for an agent's tool list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rilai_desktop.errors import CategoryNotFoundError, RilaiError
from rilai_desktop.memory.manager import MemoryManager

RECALL_K_MAX = 20
PREVIEW_CHARS = 100


def recall(
    manager: MemoryManager,
    query: str,
    k: int = 5,
    mode: str = "hybrid",
    category: str | None = None,
) -> str:
    """Search memory for relevant information based on a query."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= RECALL_K_MAX:
        return f"Failed to recall: k must be from 1 to {RECALL_K_MAX}, got {k!r}"
    try:
        result = manager.retrieve(query, mode=mode, k=k, category_filter=category)
    except RilaiError as exc:
        return f"Failed to recall: {exc.message}"
    if not result.items:
        return f"No relevant memories found for: {query}"
    types: dict[str, str] = {}
    lines = [f"Found {len(result.items)} relevant memories:", ""]
    for n, (item, score) in enumerate(zip(result.items, result.confidence_scores, strict=True), 1):
        rid = item.source_resource_id
        if rid not in types:
            resource = manager.resource_layer.get(rid)
            types[rid] = resource.resource_type if resource else "unknown"
        lines.append(f"{n}. [{score:.2f}] {item.content}")
        lines.append(f"   Source: {types[rid]} | Category: {item.category or 'uncategorized'}")
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def remember(
    manager: MemoryManager,
    content: str,
    category: str | None = None,
    importance: str = "normal",
) -> str:
    """Store an important fact, insight, or observation to memory."""
    try:
        item = manager.remember(content, category=category, importance=importance)
    except RilaiError as exc:
        return f"Failed to remember: {exc.message}"
    preview = item.content[:PREVIEW_CHARS]
    return (
        f"Remembered: {item.item_id}\n"
        f"Category: {item.category or 'uncategorized'}\n"
        f"Importance: {item.importance}\n"
        f"Content: {preview}..."
    )


def list_categories(manager: MemoryManager) -> str:
    """List all available memory categories."""
    cats = manager.list_categories()
    if not cats:
        return "Memory Categories (0):\n\nNo categories yet."
    lines = [f"Memory Categories ({len(cats)}):", ""]
    for n, cat in enumerate(cats, 1):
        lines += [f"{n}. {cat.name}", f"   {cat.description}", f"   Items: {len(cat.item_ids)}", ""]
    return "\n".join(lines).rstrip("\n")


def get_category(manager: MemoryManager, name: str) -> str:
    """Get the full aggregated content of a memory category."""
    try:
        return manager.get_category_content(name)
    except (CategoryNotFoundError, RilaiError):
        available = ", ".join(c.name for c in manager.list_categories())
        return f"Category '{name}' not found.\n\nAvailable categories: {available}"


@dataclass(frozen=True)
class MemoryTool:
    name: str
    description: str
    call: Callable[..., str]


def memory_tools(manager: MemoryManager) -> dict[str, MemoryTool]:
    """The four tools bound to ``manager``, by name, with the descriptions agents see."""

    def bind(fn: Callable[..., str]) -> Callable[..., str]:
        def call(*args: Any, **kwargs: Any) -> str:
            return fn(manager, *args, **kwargs)

        return call

    return {
        fn.__name__: MemoryTool(fn.__name__, (fn.__doc__ or "").strip(), bind(fn))
        for fn in (recall, remember, list_categories, get_category)
    }
