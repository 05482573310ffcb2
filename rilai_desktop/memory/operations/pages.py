"""The category pages (layer 3): create, list, render from the items, consolidate.

Rendering without the model (``refresh_category``) keeps the last model-written summary
(``memory_meta``); the model runs on consolidation only. A consolidation that fails keeps
the previous page and raises.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rilai_desktop.errors import (
    ConsolidationError,
)
from rilai_desktop.memory.consolidation import MemoryConsolidator
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.types import (
    MemoryCategory,
)


class CategoryPages:
    """Layer 3 over the core: pages rendered from the items, consolidated by a model."""

    def __init__(self, core: MemoryCore, consolidator: MemoryConsolidator) -> None:
        self._core = core
        self._consolidator = consolidator

    def update_categories(self, touched: set[str], to_consolidate: set[str]) -> None:
        for name in sorted(touched):
            if self._core.config.auto_consolidate and name in to_consolidate:
                try:
                    self.consolidate_category(name)
                    continue
                except ConsolidationError as exc:
                    self._core.last_warnings.append(str(exc))
            self.refresh_category(name)

    def categories_of(self, item_ids: Sequence[str]) -> set[str]:
        if not item_ids:
            return set()
        marks = ",".join("?" * len(item_ids))
        rows = self._core.db.connection.execute(
            f"SELECT DISTINCT category FROM memory_items WHERE item_id IN ({marks})"
            " AND category IS NOT NULL",
            list(item_ids),
        ).fetchall()
        return {str(r[0]) for r in rows}

    def refresh_category(self, name: str) -> str:
        """Re-render a category's markdown from its items without a model call (no event).

        Keeps the last model-written summary; the model runs on consolidation only.
        """
        return self._render_category(name, summary=None, use_model=False, emit=False)

    # ── Layer 3 ───────────────────────────────────────────────────────────
    def create_category(self, name: str, description: str) -> MemoryCategory:
        with self._core.mutation(index=False) as conn:
            cat = self._core.category_layer.insert(conn, name, description)
            self._core.emit(
                "memory.category_created",
                {"category_id": cat.category_id, "name": cat.name, "description": cat.description},
            )
        return cat

    def list_categories(self) -> list[MemoryCategory]:
        return self._core.category_layer.list_all()

    def get_category_content(self, category_name: str) -> str:
        return self._core.category_layer.require(category_name).markdown_content

    def consolidate_category(
        self, category_name: str, force: bool = False, *, use_model: bool = True
    ) -> str:
        """Items -> markdown. On a model failure the previous content is kept and raised."""
        del force  # consolidation is cheap to repeat; the interval lives in store_drafts
        return self._render_category(category_name, summary=None, use_model=use_model, emit=True)

    def _render_category(
        self, category_name: str, *, summary: str | None, use_model: bool, emit: bool
    ) -> str:
        category = self._core.category_layer.require(category_name)
        start = time.perf_counter()
        items = self._core.item_layer.get_by_category(category_name)
        summary_key = f"category_summary:{category_name}"
        if use_model:
            summary = self._consolidator.summary(category, items)
        else:
            row = self._core.db.connection.execute(
                "SELECT value FROM memory_meta WHERE key = ?", (summary_key,)
            ).fetchone()
            summary = None if row is None else str(row[0])
        res_ids = sorted({i.source_resource_id for i in items})
        types: dict[str, str] = {}
        if res_ids:
            marks = ",".join("?" * len(res_ids))
            for rid, rtype in self._core.db.connection.execute(
                f"SELECT resource_id, resource_type FROM memory_resources"
                f" WHERE resource_id IN ({marks})",
                res_ids,
            ).fetchall():
                types[str(rid)] = str(rtype)
        content = self._consolidator.render(category, items, types, self._core.clock.now(), summary)
        with self._core.mutation(index=False) as conn:
            self._core.category_layer.update_content(
                conn, category_name, content, consolidated=emit
            )
            if use_model and summary is not None:
                conn.execute(
                    "INSERT INTO memory_meta (key, value) VALUES (?, ?)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (summary_key, summary),
                )
            if emit:
                self._core.emit(
                    "memory.category_consolidated",
                    {
                        "category_id": category.category_id,
                        "name": category_name,
                        "item_count": len(items),
                        "content_length": len(content),
                        "consolidation_time_ms": round((time.perf_counter() - start) * 1000, 3),
                    },
                )
        return content
