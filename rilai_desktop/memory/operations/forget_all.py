"""Forget everything: what memory holds, and the conversations it was made from, gone from
disk (issue 20).

Emptied: the memory tables (resources, items — turn records included —, categories, the
context store, episodes, user facts, goals, the controls and feedback), their FTS5 tables
(rebuilt/optimized so the deleted text leaves the shadow tables' segments), the FAISS index
(rewritten empty), the category files, the journal, and the event log (the conversations
the facts came from; ``message_search`` follows the log by its triggers). Then the WAL is
checkpointed and truncated and the database VACUUMed, so the text is not left in free
pages either. Kept: the named knowledge bases (``kb_points``: the person's own documents,
not something Rilai learned) and ``memory_meta`` (which embedding model made the vectors).
One ``memory.forgotten`` event with the counts, never a text, is appended afterwards.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from rilai_desktop.memory._sql import sql_errors
from rilai_desktop.memory.operations.core import MemoryCore

# child tables first (items name their resource)
FORGOTTEN_TABLES = (
    "memory_items",
    "memory_resources",
    "memory_categories",
    "contexts",
    "memory_episodes",
    "memory_user_facts",
    "memory_goals",
    "memory_controls",
    "memory_feedback",
)
FTS_TABLES = ("memory_items_fts", "memory_resources_fts")
LOG_FTS_TABLES = ("message_search",)


def _existing(conn: sqlite3.Connection, names: tuple[str, ...]) -> list[str]:
    found = {
        str(r[0])
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    }
    return [n for n in names if n in found]


def _empty_folder(folder: Path) -> int:
    """Every file under ``folder`` removed (the folder itself stays); how many."""
    if not folder.is_dir():
        return 0
    n = 0
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            n += sum(1 for p in entry.rglob("*") if p.is_file())
            shutil.rmtree(entry)
        else:
            entry.unlink()
            n += 1
    return n


def forget_everything(
    core: MemoryCore, *, journal_dir: Path, extra_dirs: tuple[Path, ...] = ()
) -> dict[str, int]:
    """Empty memory and the log (see the module's docstring); the counts removed."""
    conn = core.db.connection
    counts: dict[str, int] = {}
    with sql_errors("forgetting everything"), core.mutation() as tx:
        for table in _existing(tx, FORGOTTEN_TABLES):
            counts[table] = int(tx.execute(f"DELETE FROM {table}").rowcount)
        counts["events"] = int(tx.execute("DELETE FROM events").rowcount)
        # external-content FTS5: 'rebuild' re-reads the (now empty) table; ordinary FTS5
        # (message_search): its rows went with the events, 'optimize' merges the segments
        for fts in _existing(tx, FTS_TABLES):
            tx.execute(f"INSERT INTO {fts} ({fts}) VALUES ('rebuild')")
            tx.execute(f"INSERT INTO {fts} ({fts}) VALUES ('optimize')")
        for fts in _existing(tx, LOG_FTS_TABLES):
            tx.execute(f"DELETE FROM {fts}")
            tx.execute(f"INSERT INTO {fts} ({fts}) VALUES ('optimize')")
    layer = core.item_layer
    layer.rebuild_index("forgotten")  # an empty index, saved over the old file
    counts["category_files"] = _empty_folder(core.category_layer.folder)
    counts["journal_files"] = _empty_folder(journal_dir)
    for folder in extra_dirs:
        counts[f"{folder.name}_files"] = _empty_folder(folder)
    with sql_errors("compacting the database"):
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    core.emit_now("memory.forgotten", {"counts": counts})
    return counts
