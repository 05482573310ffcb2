"""Export: every memory entry the person has not paused, to a folder (format version 1).

The rows are read in one read transaction, so a turn committing meanwhile cannot leave
the file with an item whose source is missing. The folder gets ``rilai-memory.json``
(written through a temporary file and renamed, so a crash never leaves half a file under
the real name), ``categories/<name>.md`` and ``memory.md``. A category that files a
paused item is re-rendered from its exported items (its model-written summary left out,
since it may quote the paused one), so a paused text is in none of the files.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rilai_desktop.errors import MemoryInputError, StorageError
from rilai_desktop.memory.consolidation import MemoryConsolidator
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.transfer.readable import render_readable
from rilai_desktop.memory.transfer.schema import (
    CATEGORIES_DIR,
    FORMAT,
    JSON_NAME,
    READABLE_NAME,
    VERSION,
    EntryRef,
    ExportedCategory,
    ExportedEpisode,
    ExportedFact,
    ExportedGoal,
    ExportedItem,
    ExportedKBPoint,
    ExportedSource,
    MemoryExport,
    counts_text,
)
from rilai_desktop.memory.types import MemoryItem
from rilai_desktop.paths import make_private_dirs


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote: counts per section, the paused entries left out, the files."""

    folder: Path
    counts: dict[str, int]
    paused_left_out: int
    files: list[Path] = field(default_factory=list)

    def lines(self) -> list[str]:
        """What was written, what was left out and why, in words (the CLI and the window)."""
        out = [f"Exported {counts_text(self.counts)} to {self.folder}"]
        n = self.paused_left_out
        if n:
            out.append(f"{n} paused entr{'y' if n == 1 else 'ies'} left out (you paused them)")
        out.append(f"{self.folder / READABLE_NAME} says it in prose")
        return out


def _loads(text: str | None, default: Any) -> Any:
    if not text:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


def _source_metadata(raw: str) -> dict[str, Any]:
    """The resource's metadata without the words of its turns."""
    meta = _loads(raw, {})
    if not isinstance(meta, dict):
        return {}
    turns = meta.get("turns")
    if isinstance(turns, list):
        meta["turns"] = [
            {k: v for k, v in t.items() if k != "text"} for t in turns if isinstance(t, dict)
        ]
    return meta


def _paused(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    rows = conn.execute("SELECT kind, entry_id FROM memory_controls WHERE paused = 1")
    return {(str(k), str(e)) for k, e in rows.fetchall()}


def _pinned(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    rows = conn.execute("SELECT kind, entry_id FROM memory_controls WHERE pinned = 1")
    return {(str(k), str(e)) for k, e in rows.fetchall()}


def collect(
    core: MemoryCore, consolidator: MemoryConsolidator, app_version: str
) -> tuple[MemoryExport, dict[str, str], int]:
    """The export (validated by its own model) and each category's markdown; how many
    paused entries were left out."""
    conn = core.db.connection
    with core.db.transaction():  # one snapshot of every table
        paused = _paused(conn)
        pinned = _pinned(conn)
        items = [
            ExportedItem(
                item_id=r[0],
                text=r[1],
                kind=r[2],
                category=r[3],
                slot=r[4],
                speaker=r[5],
                confidence=r[6],
                importance=r[7],
                created_at=r[8],
                valid_at=r[9],
                invalid_at=r[10],
                invalidated_by=r[11],
                reinforcement_count=r[12],
                last_reinforced_at=r[13],
                source_id=r[14],
                source_turn_ids=_loads(r[15], []),
                dates=_loads(r[16], []),
            )
            for r in conn.execute(
                "SELECT item_id, content, kind, category, slot, speaker, confidence, importance,"
                " created_at, valid_at, invalid_at, invalidated_by, reinforcement_count,"
                " last_reinforced_at, source_resource_id, source_turn_ids, dates"
                " FROM memory_items ORDER BY id"
            ).fetchall()
            if ("item", r[0]) not in paused
        ]
        used = {i.source_id for i in items}
        sources = [
            ExportedSource(
                source_id=r[0],
                type=r[1],
                created_at=r[2],
                content_hash=r[3],
                metadata=_source_metadata(r[4]),
            )
            for r in conn.execute(
                "SELECT resource_id, resource_type, created_at, content_hash, metadata"
                " FROM memory_resources ORDER BY id"
            ).fetchall()
            if r[0] in used
        ]
        facts = [
            ExportedFact(
                id=r[0],
                text=r[1],
                category=r[2],
                confidence=r[3],
                source=r[4],
                first_observed=r[5],
                last_confirmed=r[6],
                evidence_count=r[7],
            )
            for r in conn.execute(
                "SELECT id, fact, category, confidence, source, first_observed, last_confirmed,"
                " evidence_count FROM memory_user_facts ORDER BY first_observed, rowid"
            ).fetchall()
            if ("fact", r[0]) not in paused
        ]
        episodes = [
            ExportedEpisode(
                id=r[0],
                timestamp=r[1],
                text=r[2],
                emotions=_loads(r[3], []),
                participants=_loads(r[4], []),
                tags=_loads(r[5], []),
                importance=r[6],
                turn_id=r[7],
                session_id=r[8],
            )
            for r in conn.execute(
                "SELECT id, timestamp, summary, emotions, participants, tags, importance,"
                " turn_id, session_id FROM memory_episodes ORDER BY timestamp, rowid"
            ).fetchall()
            if ("episode", r[0]) not in paused
        ]
        goals = [
            ExportedGoal(
                id=r[0],
                kind=r[1],
                text=r[2],
                status=r[3],
                deadline=r[4],
                notes=r[5],
                source_turn_ids=_loads(r[6], []),
                created_at=r[7],
                updated_at=r[8],
            )
            for r in conn.execute(
                "SELECT id, kind, title, status, deadline, notes, source_turn_ids, created_at,"
                " updated_at FROM memory_goals ORDER BY created_at, rowid"
            ).fetchall()
            if ("goal", r[0]) not in paused
        ]
        categories, pages = _categories(core, consolidator, conn, paused)
        kb_points = _kb_points(conn)
    exported = {
        "item": {i.item_id for i in items},
        "fact": {f.id for f in facts},
        "episode": {e.id for e in episodes},
        "goal": {g.id for g in goals},
    }
    paused_count = len(paused)
    export = MemoryExport(
        format=FORMAT,
        version=VERSION,
        exported_at=core.clock.now(),
        app_version=app_version,
        embedding_model=f"{core.embedder.model_id}/{core.embedder.dimension}",
        sources=sources,
        items=items,
        user_facts=facts,
        episodes=episodes,
        goals=goals,
        categories=categories,
        pinned=[
            EntryRef(kind=kind, entry_id=entry_id)
            for kind, entry_id in sorted(pinned)
            if entry_id in exported.get(kind, set())
        ],
        knowledge_bases=kb_points,
    )
    return export, pages, paused_count


def _categories(
    core: MemoryCore,
    consolidator: MemoryConsolidator,
    conn: sqlite3.Connection,
    paused: set[tuple[str, str]],
) -> tuple[list[ExportedCategory], dict[str, str]]:
    paused_items = {e for k, e in paused if k == "item"}
    out: list[ExportedCategory] = []
    pages: dict[str, str] = {}
    for cat in core.category_layer.list_all():
        row = conn.execute(
            "SELECT last_consolidated_at FROM memory_categories WHERE name = ?", (cat.name,)
        ).fetchone()
        summary_row = conn.execute(
            "SELECT value FROM memory_meta WHERE key = ?", (f"category_summary:{cat.name}",)
        ).fetchone()
        summary = None if summary_row is None else str(summary_row[0])
        markdown = cat.markdown_content
        if paused_items & set(cat.item_ids):
            filed = core.item_layer.get_by_category(cat.name)
            kept: list[MemoryItem] = [i for i in filed if i.item_id not in paused_items]
            types = {
                str(rid): str(rtype)
                for rid, rtype in conn.execute(
                    "SELECT resource_id, resource_type FROM memory_resources"
                ).fetchall()
            }
            summary = None
            markdown = consolidator.render(cat, kept, types, core.clock.now(), None)
        pages[cat.name] = markdown
        out.append(
            ExportedCategory(
                category_id=cat.category_id,
                name=cat.name,
                description=cat.description,
                file=f"{CATEGORIES_DIR}/{cat.name}.md",
                summary=summary,
                updated_at=cat.updated_at,
                last_consolidated_at=None if row is None else row[0],
            )
        )
    return out, pages


def _kb_points(conn: sqlite3.Connection) -> list[ExportedKBPoint]:
    """The knowledge bases' documents that have a text (a point stored as a bare vector
    cannot be re-embedded, and its vector is not part of the format)."""
    out: list[ExportedKBPoint] = []
    for kb, pid, payload in conn.execute(
        "SELECT kb_name, point_id, payload FROM kb_points ORDER BY kb_name, point_id"
    ).fetchall():
        data = _loads(payload, {})
        if not isinstance(data, dict):
            continue
        data = {str(k): str(v) for k, v in data.items()}
        if (data.get("content") or data.get("text") or "").strip():
            out.append(ExportedKBPoint(kb=kb, id=pid, payload=data))
    return out


def _write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def export_memory(
    core: MemoryCore, consolidator: MemoryConsolidator, folder: Path, *, app_version: str
) -> ExportReport:
    """Write the export into ``folder`` (created if needed; an earlier export in it is
    replaced, category pages included)."""
    if folder.exists() and not folder.is_dir():
        raise MemoryInputError(
            f"{folder} exists and is not a directory; nothing was exported",
            context={"path": str(folder)},
            recovery_suggestions=["Give a new or an existing directory to export into"],
        )
    export, pages, paused = collect(core, consolidator, app_version)
    cat_dir = folder / CATEGORIES_DIR
    files: list[Path] = []
    try:
        make_private_dirs(cat_dir)  # the folder and its missing parents: 0700
        for old in cat_dir.glob("*.md"):  # an earlier export's pages
            if old.stem not in pages:
                old.unlink()
        for name, markdown in pages.items():
            _write_text(cat_dir / f"{name}.md", markdown)
            files.append(cat_dir / f"{name}.md")
        _write_text(folder / READABLE_NAME, render_readable(export, pages))
        files.append(folder / READABLE_NAME)
        body = export.model_dump_json(indent=2, exclude_none=False)
        _write_text(folder / JSON_NAME, body + "\n")
        files.append(folder / JSON_NAME)
    except OSError as exc:
        raise StorageError(
            f"Could not write the memory export to {folder}: {exc}",
            context={"path": str(folder)},
        ) from exc
    return ExportReport(folder=folder, counts=export.counts(), paused_left_out=paused, files=files)
