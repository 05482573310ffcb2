"""Import: an export folder into this data directory's memory, all or nothing.

Everything is checked (``reader.py``) and embedded with the installed embedder before the
write transaction opens; then one transaction inserts the rows (FTS5 follows through the
tables' triggers), writes the category pages (put back if it rolls back), restores the
pins and appends one ``memory.imported`` event. The FAISS index is rebuilt from the stored
embeddings after the commit (a crash in between is healed by the index check on open).

Into a memory that already holds entries, import refuses unless ``merge`` is set; a merge
skips what is already there: the same id, or the same content (an item's content hash and
kind, a fact's hash, an episode's summary and time, a goal's kind and title), a category
or knowledge-base document of the same name.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rilai_desktop.errors import MemoryNotEmptyError
from rilai_desktop.memory._sql import dumps, iso
from rilai_desktop.memory.items import content_hash, to_blob
from rilai_desktop.memory.knowledge_bases import KBPoint, KnowledgeBases
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.ports import Vectors
from rilai_desktop.memory.relationship import RelationshipMemory, fact_hash
from rilai_desktop.memory.relationship.checks import _norm_title, _ts
from rilai_desktop.memory.transfer.reader import read_export
from rilai_desktop.memory.transfer.schema import VERSION, MemoryExport, counts_text

IMPORTED_SOURCE_TEXT = "[imported from a Rilai memory export: the conversation's text stays out]"
_COMPANION_MODEL_KEY = "companion_embedding_model"
_BATCH = 256
_TABLES = (
    ("items", "memory_items"),
    ("user_facts", "memory_user_facts"),
    ("episodes", "memory_episodes"),
    ("goals", "memory_goals"),
    ("categories", "memory_categories"),
    ("knowledge_bases", "kb_points"),
)


@dataclass(frozen=True)
class ImportReport:
    """What an import wrote, per section, and what a merge skipped as already there."""

    folder: Path
    merge: bool
    counts: dict[str, int]
    skipped: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """What came in and what a merge skipped, in words (the CLI and the window)."""
        out = [f"Imported {counts_text(self.counts)} from {self.folder}"]
        if self.skipped:
            out.append(
                f"already there, skipped: {counts_text(self.skipped)}"
                " (the same id or the same content)"
            )
        return out


def existing_counts(conn: sqlite3.Connection) -> dict[str, int]:
    return {
        name: int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
        for name, table in _TABLES
    }


def _refuse_non_empty(conn: sqlite3.Connection, folder: Path) -> None:
    held = {k: n for k, n in existing_counts(conn).items() if n}
    if held:
        what = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in held.items())
        raise MemoryNotEmptyError(
            f"this memory is not empty ({what}); nothing was imported",
            context={"path": str(folder), **held},
            recovery_suggestions=[
                "Import with --merge to add what is not already there",
                "Or import into a fresh data directory (a new RILAI_HOME)",
            ],
        )


@dataclass
class _Plan:
    """What will be written: the export's entries minus those a merge finds already there."""

    export: MemoryExport
    pages: dict[str, str]
    skipped: dict[str, int] = field(default_factory=dict)

    def keep(self, section: str, present: bool) -> bool:
        if present:
            self.skipped[section] = self.skipped.get(section, 0) + 1
        return not present


def _one(conn: sqlite3.Connection, sql: str, args: Sequence[object]) -> bool:
    return conn.execute(sql, tuple(args)).fetchone() is not None


def _plan(conn: sqlite3.Connection, export: MemoryExport, pages: dict[str, str]) -> _Plan:
    """The export with what this memory already holds left out (a no-op when empty)."""
    plan = _Plan(export, pages)
    src = [
        s
        for s in export.sources
        if plan.keep(
            "sources",
            _one(conn, "SELECT 1 FROM memory_resources WHERE resource_id = ?", [s.source_id]),
        )
    ]
    items = [
        i
        for i in export.items
        if plan.keep(
            "items",
            _one(conn, "SELECT 1 FROM memory_items WHERE item_id = ?", [i.item_id])
            or _one(
                conn,
                "SELECT 1 FROM memory_items WHERE content_hash = ? AND kind = ?"
                " AND source_turn_ids = ?",
                [content_hash(i.text), i.kind, dumps(i.source_turn_ids)],
            ),
        )
    ]
    facts = [
        f
        for f in export.user_facts
        if plan.keep(
            "user_facts",
            _one(
                conn,
                "SELECT 1 FROM memory_user_facts WHERE id = ? OR fact_hash = ?",
                [f.id, fact_hash(f.text)],
            ),
        )
    ]
    episodes = [
        e
        for e in export.episodes
        if plan.keep(
            "episodes",
            _one(
                conn,
                "SELECT 1 FROM memory_episodes WHERE id = ? OR (summary = ? AND timestamp = ?)",
                [e.id, e.text, _ts(e.timestamp)],
            ),
        )
    ]
    have_goals = {
        (str(k), _norm_title(str(t)))
        for k, t in conn.execute("SELECT kind, title FROM memory_goals").fetchall()
    }
    goals = [
        g
        for g in export.goals
        if plan.keep(
            "goals",
            _one(conn, "SELECT 1 FROM memory_goals WHERE id = ?", [g.id])
            or (g.kind, _norm_title(g.text)) in have_goals,
        )
    ]
    cats = [
        c
        for c in export.categories
        if plan.keep(
            "categories",
            _one(
                conn,
                "SELECT 1 FROM memory_categories WHERE name = ? OR category_id = ?",
                [c.name, c.category_id],
            ),
        )
    ]
    kb = [
        p
        for p in export.knowledge_bases
        if plan.keep(
            "knowledge_bases",
            _one(conn, "SELECT 1 FROM kb_points WHERE kb_name = ? AND point_id = ?", [p.kb, p.id]),
        )
    ]
    kept = {
        "item": {i.item_id for i in items},
        "fact": {f.id for f in facts},
        "episode": {e.id for e in episodes},
        "goal": {g.id for g in goals},
    }
    # model_construct: every part was validated with the whole file already
    plan.export = MemoryExport.model_construct(
        **{
            **export.__dict__,
            "sources": src,
            "items": items,
            "user_facts": facts,
            "episodes": episodes,
            "goals": goals,
            "categories": cats,
            "knowledge_bases": kb,
            "pinned": [p for p in export.pinned if p.entry_id in kept[p.kind]],
        }
    )
    return plan


def _embed(core: MemoryCore, texts: Sequence[str]) -> Vectors:
    if not texts:
        return np.zeros((0, core.embedder.dimension), dtype=np.float32)
    parts = [core.embed(list(texts[i : i + _BATCH])) for i in range(0, len(texts), _BATCH)]
    return np.concatenate([np.asarray(p, dtype=np.float32) for p in parts])


def import_memory(
    core: MemoryCore,
    relationship: RelationshipMemory,
    knowledge_bases: KnowledgeBases,
    folder: Path,
    *,
    merge: bool = False,
) -> ImportReport:
    """Import the export in ``folder``; see the module docstring for what merge skips."""
    export, pages = read_export(folder)
    conn = core.db.connection
    if not merge:
        _refuse_non_empty(conn, folder)
    plan = _plan(conn, export, pages)
    ex = plan.export
    item_vecs = _embed(core, [i.text for i in ex.items])
    fact_vecs = _embed(core, [f.text for f in ex.user_facts])
    episode_vecs = _embed(core, [e.text for e in ex.episodes])
    kb_texts = [p.payload.get("content") or p.payload.get("text") or "" for p in ex.knowledge_bases]
    kb_vecs = _embed(core, kb_texts)
    model = f"{core.embedder.model_id}/{core.embedder.dimension}"
    bound = (core.session_id, core.turn_id)
    core.bind_turn("memory", 0)
    try:
        with core.mutation() as tx:
            _write(tx, core, plan, item_vecs, fact_vecs, episode_vecs, model)
            if ex.knowledge_bases:  # joins this transaction (all or nothing)
                for kb_name in sorted({p.kb for p in ex.knowledge_bases}):
                    points = [
                        KBPoint.model_construct(id=p.id, vector=v.tolist(), payload=p.payload)
                        for p, v in zip(ex.knowledge_bases, kb_vecs, strict=True)
                        if p.kb == kb_name
                    ]
                    knowledge_bases.upsert_vectors(kb_name, points)
            counts = ex.counts()
            core.emit(
                "memory.imported",
                {
                    "format_version": VERSION,
                    "merge": merge,
                    "counts": counts,
                    "skipped": plan.skipped,
                    "pinned": [p.model_dump() for p in ex.pinned],
                },
            )
    finally:
        core.bind_turn(*bound)
        relationship.invalidate_cache()
    if ex.items:
        core.item_layer.rebuild_index("imported")
    return ImportReport(folder=folder, merge=merge, counts=counts, skipped=dict(plan.skipped))


def _write(
    tx: sqlite3.Connection,
    core: MemoryCore,
    plan: _Plan,
    item_vecs: Vectors,
    fact_vecs: Vectors,
    episode_vecs: Vectors,
    model: str,
) -> None:
    ex = plan.export
    for key in ("embedding_model", _COMPANION_MODEL_KEY):
        tx.execute(
            "INSERT INTO memory_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
            (key, model),
        )
    for s in ex.sources:
        tx.execute(
            "INSERT INTO memory_resources (resource_id, resource_type, content, content_hash,"
            " metadata, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                s.source_id,
                s.type,
                IMPORTED_SOURCE_TEXT,
                s.content_hash,
                dumps({**s.metadata, "imported": True}),
                iso(s.created_at),
            ),
        )
    for c in ex.categories:
        tx.execute(
            "INSERT INTO memory_categories (category_id, name, description, markdown_content,"
            " updated_at, last_consolidated_at) VALUES (?, ?, ?, ?, ?, ?)",
            (
                c.category_id,
                c.name,
                c.description,
                plan.pages[c.name],
                iso(c.updated_at),
                iso(c.last_consolidated_at),
            ),
        )
        core.category_layer.write_file(c.name, plan.pages[c.name])
        if c.summary:
            tx.execute(
                "INSERT INTO memory_meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (f"category_summary:{c.name}", c.summary),
            )
    for i, vec in zip(ex.items, item_vecs, strict=True):
        if i.category is not None:
            core.ensure_category(tx, i.category)
        tx.execute(
            "INSERT INTO memory_items (item_id, content, content_hash, embedding,"
            " source_resource_id, source_turn_ids, category, kind, slot, confidence,"
            " importance, created_at, reinforcement_count, last_reinforced_at, valid_at,"
            " invalid_at, invalidated_by, speaker, dates)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                i.item_id,
                i.text,
                content_hash(i.text),
                to_blob(vec),
                i.source_id,
                dumps(i.source_turn_ids),
                i.category,
                i.kind,
                i.slot,
                i.confidence,
                i.importance,
                iso(i.created_at),
                i.reinforcement_count,
                iso(i.last_reinforced_at),
                iso(i.valid_at),
                iso(i.invalid_at),
                i.invalidated_by,
                i.speaker,
                dumps(i.dates),
            ),
        )
    for f, vec in zip(ex.user_facts, fact_vecs, strict=True):
        tx.execute(
            "INSERT INTO memory_user_facts (id, fact, category, confidence, source,"
            " first_observed, last_confirmed, evidence_count, fact_hash, embedding)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                f.id,
                f.text,
                f.category,
                f.confidence,
                f.source,
                _ts(f.first_observed),
                _ts(f.last_confirmed),
                f.evidence_count,
                fact_hash(f.text),
                to_blob(vec),
            ),
        )
    for e, vec in zip(ex.episodes, episode_vecs, strict=True):
        tx.execute(
            "INSERT INTO memory_episodes (id, timestamp, summary, emotions, participants, tags,"
            " importance, turn_id, session_id, embedding) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                e.id,
                _ts(e.timestamp),
                e.text,
                dumps(e.emotions),
                dumps(e.participants),
                dumps(e.tags),
                e.importance,
                e.turn_id,
                e.session_id,
                to_blob(vec),
            ),
        )
    for g in ex.goals:
        tx.execute(
            "INSERT INTO memory_goals (id, kind, title, status, deadline, notes,"
            " source_turn_ids, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (
                g.id,
                g.kind,
                g.text,
                g.status,
                None if g.deadline is None else _ts(g.deadline),
                g.notes,
                dumps(g.source_turn_ids),
                _ts(g.created_at),
                _ts(g.updated_at),
            ),
        )
    now = iso(core.clock.now())
    for ref in ex.pinned:
        tx.execute(
            "INSERT INTO memory_controls (kind, entry_id, pinned, updated_at) VALUES (?, ?, 1, ?)"
            " ON CONFLICT (kind, entry_id) DO UPDATE SET pinned = 1,"
            " updated_at = excluded.updated_at",
            (ref.kind, ref.entry_id, now),
        )
