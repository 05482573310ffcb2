"""The vector index's lifecycle and snapshots, stats, health and export."""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import time
from pathlib import Path

from rilai_desktop.errors import StorageError
from rilai_desktop.memory._sql import parse_dt
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.types import (
    MemoryStats,
)
from rilai_desktop.memory.vector_index import sidecar_path
from rilai_desktop.paths import make_private_dirs, private_opener

log = logging.getLogger(__name__)


class MemoryUpkeep:
    """Open and save the index, rebuild it, report on memory and copy it out."""

    def __init__(self, core: MemoryCore, storage_dir: Path) -> None:
        self._core = core
        self._storage_dir = storage_dir

    # ── lifecycle ─────────────────────────────────────────────────────────
    def open(self) -> tuple[str, float] | None:
        """Load (or rebuild) the vector index; a rebuild is recorded as an event."""
        self._core.item_layer.ensure_model_recorded()
        fixed = self._core.category_layer.sync_files()  # a killed write's pages
        if fixed:
            log.warning("%d category page(s) put back in line with the database", len(fixed))
        rebuilt = self._core.item_layer.open()
        if rebuilt is not None:
            self._core.emit_now(
                "memory.index_rebuilt",
                {
                    "reason": rebuilt[0],
                    "item_count": len(self._core.item_layer.index),
                    "rebuild_time_ms": round(rebuilt[1], 3),
                },
            )
        return rebuilt

    def close(self) -> None:
        self._core.item_layer.save_index()

    # ── index, stats, health, export ──────────────────────────────────────
    def rebuild_index(self) -> int:
        reason, ms = self._core.item_layer.rebuild_index("requested")
        n = len(self._core.item_layer.index)
        self._core.emit_now(
            "memory.index_rebuilt",
            {"reason": reason, "item_count": n, "rebuild_time_ms": round(ms, 3)},
        )
        return n

    def get_stats(self) -> MemoryStats:
        conn = self._core.db.connection
        by_type = self._core.resource_layer.count_by_type()
        by_cat = self._core.item_layer.count_by_category()
        last_ex = conn.execute("SELECT MAX(created_at) FROM memory_items").fetchone()[0]
        storage = 0
        for path in (self._storage_dir, self._core.category_layer.folder):
            if path.is_dir():
                storage += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        db_file = conn.execute("PRAGMA database_list").fetchone()[2]
        if db_file and os.path.exists(db_file):
            storage += os.path.getsize(db_file)
        return MemoryStats(
            total_resources=sum(by_type.values()),
            total_items=self._core.item_layer.count(),  # facts and turn records
            total_categories=len(self._core.category_layer.names()),
            vector_index_size=len(self._core.item_layer.index),
            storage_bytes=storage,
            resources_by_type=by_type,
            items_by_category=by_cat,
            last_extraction_at=parse_dt(last_ex),
            last_consolidation_at=parse_dt(self._core.category_layer.last_consolidated()),
        )

    def is_healthy(self) -> bool:
        """Storage writable, index loaded and in sync, embedder answering."""
        try:
            if not os.access(self._storage_dir, os.W_OK):
                return False
            if not self._core.item_layer.index_loaded:
                return False
            # the index holds the valid items the person has not paused
            if len(self._core.item_layer.index) != len(self._core.item_layer.expected_ids()):
                return False
            # a fresh text each time, so the embedder's cache cannot answer for a dead model
            self._core.embedder.embed([f"health check {time.monotonic_ns()}"])
        except Exception:
            return False
        return True

    def export(self, folder: Path) -> dict[str, int]:
        """Everything the user's memory holds, as JSON lines + the category markdown."""
        make_private_dirs(folder)
        conn = self._core.db.connection
        counts: dict[str, int] = {}
        with open(folder / "resources.jsonl", "w", encoding="utf-8", opener=private_opener) as fh:
            n = 0
            for row in conn.execute(
                "SELECT resource_id, resource_type, content, metadata, created_at"
                " FROM memory_resources ORDER BY id"
            ):
                fh.write(
                    json.dumps(
                        {
                            "resource_id": row[0],
                            "resource_type": row[1],
                            "content": row[2],
                            "metadata": json.loads(row[3]),
                            "created_at": row[4],
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
                n += 1
            counts["resources"] = n
        with open(folder / "items.jsonl", "w", encoding="utf-8", opener=private_opener) as fh:
            n = 0
            for row in conn.execute("SELECT item_id FROM memory_items ORDER BY id").fetchall():
                item = self._core.item_layer.get(str(row[0]))
                if item is not None:
                    fh.write(item.model_dump_json(exclude={"embedding"}) + "\n")
                    n += 1
            counts["items"] = n
        cat_dir = folder / "categories"
        make_private_dirs(cat_dir)
        cats = self._core.category_layer.list_all()
        for cat in cats:
            page = cat_dir / f"{cat.name}.md"
            with open(page, "w", encoding="utf-8", opener=private_opener) as out:
                out.write(cat.markdown_content)
        counts["categories"] = len(cats)
        return counts

    def snapshot_index(self, dest: Path) -> Path | None:
        """Copy the saved vector index (and its sidecar) to the file ``dest`` (0600, in an
        owner-only folder), through a ``.partial`` beside it. None when there is no index
        file yet (an empty memory)."""
        layer = self._core.item_layer
        layer.save_index()
        if not layer.index_path.is_file():
            return None
        # this writer's own partial: another process may snapshot to ``dest`` this second
        partial = dest.with_name(f".{dest.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
        try:
            dest.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(dest.parent, 0o700)
            self.export_index_snapshot(partial)
            os.chmod(partial, 0o600)
            os.replace(partial, dest)
            side = sidecar_path(layer.index_path)
            if side.is_file():
                shutil.copyfile(side, sidecar_path(dest))
                os.chmod(sidecar_path(dest), 0o600)
        except OSError as exc:
            partial.unlink(missing_ok=True)
            raise StorageError(
                f"Could not snapshot the vector index to {dest}: {exc}",
                context={"path": str(dest)},
            ) from exc
        return dest

    def export_index_snapshot(self, dest: Path) -> None:
        self._core.item_layer.save_index()
        shutil.copy2(self._core.item_layer.index_path, dest)
