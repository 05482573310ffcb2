"""The user's corrections and deletions: edit, invalidate or forget an item; delete a resource.

Each runs in one write transaction with its event; a deleted item leaves the vector index
and the category pages that cited it are re-rendered.
"""

from __future__ import annotations

import contextlib
from typing import Any

from rilai_desktop.errors import (
    CategoryNotFoundError,
    MemoryInputError,
)
from rilai_desktop.memory.categories import check_category_name
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.operations.pages import CategoryPages
from rilai_desktop.memory.types import (
    IMPORTANCE_LEVELS,
    MemoryItem,
)


class MemoryEdits:
    """Changes to what memory holds, after the fact."""

    def __init__(self, core: MemoryCore, pages: CategoryPages) -> None:
        self._core = core
        self._pages = pages

    def update_item(
        self,
        item_id: str,
        *,
        content: str | None = None,
        category: str | None = None,
        importance: str | None = None,
    ) -> MemoryItem:
        """The user corrects an item: text (re-embedded), category or importance."""
        if self._core.item_layer.get(item_id) is None:
            raise MemoryInputError(f"no memory item {item_id!r}")
        fields: dict[str, Any] = {}
        if category is not None:
            fields["category"] = check_category_name(category)
        if importance is not None:
            if importance not in IMPORTANCE_LEVELS:
                raise MemoryInputError("importance must be low, normal or high")
            fields["importance"] = importance
        vector = None
        if content is not None:
            if not content.strip() or len(content) > 2000:
                raise MemoryInputError("item content must be 1-2,000 characters")
            vector = self._core.embed([content])[0]
        with self._core.mutation() as conn:
            if category is not None:
                self._core.ensure_category(conn, category)
            self._core.item_layer.set_fields(conn, item_id, **fields)
            if content is not None and vector is not None:
                self._core.item_layer.update_content(conn, item_id, content.strip(), vector)
            self._core.emit("memory.item_updated", {"item_id": item_id, "change": "edited"})
        item = self._core.item_layer.get(item_id)
        assert item is not None
        return item

    def invalidate_item(self, item_id: str, by: str | None = None) -> bool:
        with self._core.mutation() as conn:
            done = self._core.item_layer.invalidate(conn, item_id, by)
            if done:
                self._core.emit(
                    "memory.item_updated", {"item_id": item_id, "change": "invalidated"}
                )
        return done

    def forget_item(self, item_id: str) -> bool:
        """Delete an item for good (row, FTS entry, vector); the event keeps only its id."""
        cats = self._pages.categories_of([item_id])
        with self._core.mutation() as conn:
            gone = self._core.item_layer.delete_rows(conn, "item_id = ?", (item_id,))
            for iid in gone:
                self._core.emit("memory.item_deleted", {"item_id": iid})
        self._core.item_layer.save_index()
        for name in sorted(cats):
            self._pages.refresh_category(name)  # the page must stop citing the forgotten item
        return bool(gone)

    def delete_resource(self, resource_id: str, cascade: bool = True) -> bool:
        with self._core.mutation() as conn:
            exists = conn.execute(
                "SELECT 1 FROM memory_resources WHERE resource_id = ?", (resource_id,)
            ).fetchone()
            if exists is None:
                return False
            cats = [
                str(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT category FROM memory_items WHERE source_resource_id = ?"
                    " AND category IS NOT NULL",
                    (resource_id,),
                ).fetchall()
            ]
            if cascade:
                gone = self._core.item_layer.delete_rows(
                    conn, "source_resource_id = ?", (resource_id,)
                )
            else:
                n = conn.execute(
                    "SELECT COUNT(*) FROM memory_items WHERE source_resource_id = ?",
                    (resource_id,),
                ).fetchone()[0]
                if n:
                    raise MemoryInputError(
                        f"resource {resource_id} still has {n} items (each must name its source)",
                        recovery_suggestions=["Delete with cascade=True, or forget the items"],
                    )
                gone = []
            self._core.resource_layer.delete(conn, resource_id)
            for iid in gone:
                self._core.emit("memory.item_deleted", {"item_id": iid})
            self._core.emit(
                "memory.resource_deleted", {"resource_id": resource_id, "item_ids": gone}
            )
        self._core.item_layer.save_index()
        for name in cats:
            with contextlib.suppress(CategoryNotFoundError):
                self._pages.refresh_category(name)
        return True
