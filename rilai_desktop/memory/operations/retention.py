"""Resource retention: old conversations lose their raw *text*, never memory.

A conversation with no items is deleted (``MemoryEdits.delete_resource(cascade=False)``:
event, index, FTS). One that items were extracted from cannot be deleted
(``memory_items.source_resource_id`` is a foreign key, and ``cascade=True`` would delete
the items, which are the memory), so its text and the turn texts in its metadata are
replaced by a short marker in place: the row, its turn ids (which the items cite) and its
content hash (so re-importing the same transcript is still recognised) stay. The FTS5 entry
is swapped by hand in the same transaction (the schema has no update trigger for
resources), with a ``memory.resource_deleted`` event whose ``scope`` is ``"raw_text"``.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

from rilai_desktop.errors import MemoryInputError, RilaiError, StorageError
from rilai_desktop.memory._sql import check_days
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.operations.edits import MemoryEdits

RAW_TEXT_MARKER = "[raw text removed by retention]"


def _iso(moment: datetime) -> str:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise MemoryInputError(f"now must carry a time zone: {moment.isoformat()}")
    return moment.astimezone(UTC).isoformat()


class ResourceRetention:
    """Removes the raw text of old conversations (see the module docstring)."""

    def __init__(self, core: MemoryCore, edits: MemoryEdits) -> None:
        self._core = core
        self._edits = edits

    def apply(self, now: datetime, retention_days: int) -> int:
        """Remove the raw text of conversations stored more than ``retention_days`` ago.

        Returns how many resources lost their text (deleted outright, or marked in place
        when items cite them). Each resource is its own short transaction, so a turn never
        waits long; one that fails is reported after the others were done.
        """
        days = check_days(retention_days, "retention_days")
        cutoff = _iso(now - timedelta(days=days))
        with self._core.db.transaction() as conn:
            rows = conn.execute(
                "SELECT r.resource_id, EXISTS (SELECT 1 FROM memory_items i"
                "  WHERE i.source_resource_id = r.resource_id)"
                " FROM memory_resources r WHERE r.resource_type = 'conversation'"
                " AND r.created_at < ?"
                " AND (CASE WHEN json_valid(r.metadata)"
                "      THEN json_extract(r.metadata, '$.raw_removed_at') END) IS NULL"
                " ORDER BY r.id",
                (cutoff,),
            ).fetchall()
        done = 0
        failed: dict[str, str] = {}
        for resource_id, has_items in rows:
            rid = str(resource_id)
            try:
                gone = not has_items and self._delete_unused(rid)
                if gone or self._remove_raw_text(rid, now, days):
                    done += 1
            except (RilaiError, sqlite3.Error) as exc:
                failed[rid] = str(exc)
        if failed:
            raise StorageError(
                f"Removed the raw text of {done} old conversations; {len(failed)} failed",
                context={"done": done, "failed": failed},
            )
        return done

    def _delete_unused(self, resource_id: str) -> bool:
        """Delete a resource no item cites (event, index, FTS)."""
        try:
            return self._edits.delete_resource(resource_id, cascade=False)
        except MemoryInputError:
            return False  # items were extracted from it meanwhile: mark it instead

    def _remove_raw_text(self, resource_id: str, now: datetime, days: int) -> bool:
        with self._core.db.transaction() as conn:
            row = conn.execute(
                "SELECT id, content, metadata FROM memory_resources WHERE resource_id = ?",
                (resource_id,),
            ).fetchone()
            if row is None:
                return False
            rowid, old_content, raw_meta = int(row[0]), str(row[1]), row[2]
            kept = [
                str(r[0])
                for r in conn.execute(
                    "SELECT item_id FROM memory_items WHERE source_resource_id = ? ORDER BY id",
                    (resource_id,),
                ).fetchall()
            ]
            meta = _without_turn_text(raw_meta)
            meta["raw_removed_at"] = _iso(now)
            meta["raw_removed_reason"] = f"retention: older than {days} days"
            # external-content FTS5: take out what was indexed, index the marker instead
            conn.execute(
                "INSERT INTO memory_resources_fts (memory_resources_fts, rowid, content)"
                " VALUES ('delete', ?, ?)",
                (rowid, old_content),
            )
            conn.execute(
                "UPDATE memory_resources SET content = ?, metadata = ? WHERE id = ?",
                (
                    RAW_TEXT_MARKER,
                    json.dumps(meta, ensure_ascii=False, separators=(",", ":")),
                    rowid,
                ),
            )
            conn.execute(
                "INSERT INTO memory_resources_fts (rowid, content) VALUES (?, ?)",
                (rowid, RAW_TEXT_MARKER),
            )
            self._core.emit(
                "memory.resource_deleted",
                {
                    "resource_id": resource_id,
                    "item_ids": [],
                    "scope": "raw_text",
                    "kept_item_ids": kept,
                    "reason": f"retention: older than {days} days",
                },
            )
        return True


def _without_turn_text(raw: Any) -> dict[str, Any]:
    """The metadata with each turn's text dropped (ids, speakers and times stay: the items
    cite the turn ids). Unreadable metadata becomes ``{}``."""
    try:
        meta = json.loads(raw) if isinstance(raw, str) else {}
    except ValueError:
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    turns = meta.get("turns")
    if isinstance(turns, list):
        meta["turns"] = [
            {k: v for k, v in t.items() if k != "text"} for t in turns if isinstance(t, dict)
        ]
    return meta
