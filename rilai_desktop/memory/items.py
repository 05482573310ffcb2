"""Layer 2: extracted items in SQLite with their embeddings, and the FAISS index over them.

SQLite is the truth: every item row keeps its float32 embedding, so the index can always be
rebuilt. The index holds exactly the *valid* items (``invalid_at IS NULL``); its ids are the
rows' integer ``id``. On open the saved index is checked against SQLite (count + checksum
of ids, model, dimension) and rebuilt when it is missing, corrupt or stale.

Storing drafts dedupes: the same normalised content (hash) or an embedding at or above
``dedupe_similarity`` of a valid item of the same kind reinforces that item (its count, its
turn ids) instead of inserting a near-copy. A draft with a ``slot`` (a single-valued fact
such as where the user lives) invalidates the older valid items of that slot.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rilai_desktop.errors import MemoryInputError, VectorIndexError
from rilai_desktop.memory._sql import Clock, dumps, fts_query, iso, new_id, parse_dt, utc_now
from rilai_desktop.memory.ports import Database, Embedder, Vectors
from rilai_desktop.memory.types import TURN_KIND, ItemDraft, MemoryItem
from rilai_desktop.memory.vector_index import StaleIndexError, VectorIndex, ids_checksum

_COLS = (
    "id, item_id, content, source_resource_id, source_turn_ids, category, kind, slot,"
    " confidence, importance, created_at, reinforcement_count, valid_at, invalid_at,"
    " speaker, dates"
)
_SPACE = re.compile(r"\s+")
NEAR_K = 8  # neighbours looked at for a near-duplicate (the nearest may be a turn record)


def content_hash(text: str) -> str:
    """sha256 of the normalised content (case and whitespace folded)."""
    norm = _SPACE.sub(" ", text.strip().lower())
    return hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()


def to_blob(vec: Vectors) -> bytes:
    return np.ascontiguousarray(vec, dtype="<f4").tobytes()


def from_blob(blob: bytes, dimension: int) -> Vectors:
    arr = np.frombuffer(blob, dtype="<f4")
    if arr.size != dimension:
        raise VectorIndexError(f"a stored embedding has {arr.size} dims, expected {dimension}")
    return arr.astype(np.float32)


@dataclass
class StoreOutcome:
    stored: list[MemoryItem] = field(default_factory=list)
    reinforced: list[MemoryItem] = field(default_factory=list)
    invalidated: list[str] = field(default_factory=list)


@dataclass
class Hit:
    """A candidate from one retrieval channel: row id and raw score."""

    row_id: int
    score: float


class ItemLayer:
    """Items + embeddings in SQLite, a FAISS index derived from them."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        index_path: Path,
        *,
        exact_max: int = 250_000,
        dedupe_similarity: float = 0.92,
        clock: Clock = utc_now,
    ) -> None:
        self._db = db
        self.embedder = embedder
        self.index_path = index_path
        self.exact_max = exact_max
        self.dedupe_similarity = dedupe_similarity
        self._clock = clock
        self._index: VectorIndex | None = None
        self._dirty = False
        self._lock = threading.RLock()
        self.last_rebuild_reason: str | None = None
        self._speakers: frozenset[str] | None = None  # of the turn records; None: unknown

    # ── the index ─────────────────────────────────────────────────────────
    @property
    def index(self) -> VectorIndex:
        with self._lock:
            if self._index is None:
                self.open()
            assert self._index is not None
            return self._index

    @property
    def index_loaded(self) -> bool:
        return self._index is not None

    def discard_index(self) -> None:
        """Forget the in-memory index: a transaction that changed it rolled back. The next
        use loads the saved index, or rebuilds it from SQLite if that is stale."""
        with self._lock:
            self._index = None
            self._dirty = True

    def expected_ids(self) -> np.ndarray[Any, np.dtype[np.int64]]:
        rows = self._db.connection.execute(
            "SELECT id FROM memory_items WHERE invalid_at IS NULL"
        ).fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def open(self) -> tuple[str, float] | None:
        """Load the saved index if it matches SQLite; else rebuild. (reason, ms) if rebuilt."""
        with self._lock:
            ids = self.expected_ids()
            try:
                self._index = VectorIndex.load_checked(
                    self.index_path,
                    dimension=self.embedder.dimension,
                    model_id=self.embedder.model_id,
                    expected_count=len(ids),
                    expected_checksum=ids_checksum(ids),
                    exact_max=self.exact_max,
                )
                self._dirty = False
                return None
            except StaleIndexError as exc:
                if len(ids) == 0 and "missing" in exc.reason:
                    self._index = VectorIndex(self.embedder.dimension, exact_max=self.exact_max)
                    self._dirty = True
                    return None
                return self.rebuild_index(exc.reason)

    def rebuild_index(self, reason: str = "requested") -> tuple[str, float]:
        """Rebuild from the embeddings in SQLite (re-embedding if the model changed); save."""
        start = time.perf_counter()
        with self._lock:
            self._reembed_if_model_changed()
            conn = self._db.connection
            rows = conn.execute(
                "SELECT id, embedding FROM memory_items WHERE invalid_at IS NULL ORDER BY id"
            ).fetchall()
            dim = self.embedder.dimension
            ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            vecs = np.empty((len(rows), dim), dtype=np.float32)
            for i, (_, blob) in enumerate(rows):
                vecs[i] = from_blob(blob, dim)
            self._index = VectorIndex.build(dim, ids, vecs, exact_max=self.exact_max, threads=None)
            self._dirty = True
            self.save_index()
            self.last_rebuild_reason = reason
        return reason, (time.perf_counter() - start) * 1000

    def _reembed_if_model_changed(self) -> None:
        conn = self._db.connection
        row = conn.execute("SELECT value FROM memory_meta WHERE key = 'embedding_model'").fetchone()
        want = f"{self.embedder.model_id}/{self.embedder.dimension}"
        if row is not None and row[0] == want:
            return
        items = conn.execute("SELECT id, content FROM memory_items").fetchall()
        with self._db.transaction() as tx:
            for start in range(0, len(items), 256):
                chunk = items[start : start + 256]
                vecs = self.embedder.embed([c for _, c in chunk])
                tx.executemany(
                    "UPDATE memory_items SET embedding = ? WHERE id = ?",
                    [(to_blob(v), rid) for (rid, _), v in zip(chunk, vecs, strict=True)],
                )
            tx.execute(
                "INSERT INTO memory_meta (key, value) VALUES ('embedding_model', ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (want,),
            )

    def save_index(self) -> None:
        with self._lock:
            if self._index is None or not self._dirty:
                return
            self._index.save(self.index_path, model_id=self.embedder.model_id)
            self._dirty = False

    def ensure_model_recorded(self) -> None:
        """Record which embedding model produced the stored vectors (first use)."""
        want = f"{self.embedder.model_id}/{self.embedder.dimension}"
        with self._db.transaction() as tx:
            tx.execute(
                "INSERT INTO memory_meta (key, value) VALUES ('embedding_model', ?)"
                " ON CONFLICT (key) DO NOTHING",
                (want,),
            )

    # ── writing ───────────────────────────────────────────────────────────
    def store_drafts(
        self,
        conn: sqlite3.Connection,
        drafts: Sequence[ItemDraft],
        resource_id: str,
        vectors: Vectors | None = None,
    ) -> StoreOutcome:
        """Store drafts inside the caller's transaction (dedupe, reinforce, invalidate).

        ``vectors`` are the drafts' embeddings (computed by the caller before the write
        transaction opens, so the lock is not held while torch runs).
        """
        if vectors is None:
            vectors = self.embedder.embed([d.content for d in drafts]) if drafts else None
        out = StoreOutcome()
        if not drafts:
            return out
        assert vectors is not None
        if any(d.speaker for d in drafts):
            self._speakers = None
        index = self.index
        added: list[int] = []
        removed: list[int] = []
        now = self._clock()
        vecs = np.asarray(vectors, dtype=np.float32)
        # one batched search for all drafts (BLAS), and draft-to-draft similarities, instead
        # of a FAISS search per draft: at 100K items that is the difference between ~7 ms
        # and well under 1 ms per item
        # several neighbours, not one: the nearest item may be a turn record (the very turn
        # the fact was drawn from), which a fact is never merged into
        if len(index):
            top_scores, top_ids = index.search(vecs, min(NEAR_K, len(index)))
        else:
            top_scores = np.zeros((len(drafts), 1), dtype=np.float32)
            top_ids = np.full((len(drafts), 1), -1, dtype=np.int64)
        batch_sims = vecs @ vecs.T
        batch_rows: list[int | None] = [None] * len(drafts)
        try:
            for j, draft in enumerate(drafts):
                near = [
                    (int(i), float(sc))
                    for i, sc in zip(top_ids[j], top_scores[j], strict=True)
                    if i >= 0 and sc >= self.dedupe_similarity
                ]
                for i in range(j):
                    row_i = batch_rows[i]
                    if row_i is not None and batch_sims[j, i] >= self.dedupe_similarity:
                        near.append((row_i, float(batch_sims[j, i])))
                near.sort(key=lambda pair: pair[1], reverse=True)
                batch_rows[j] = self._store_one(
                    conn, draft, vecs[j], resource_id, now, index, out, added, removed, near
                )
        except BaseException:
            # the caller's transaction rolls back: undo our index changes the cheap way
            self._index = None
            self._dirty = True
            raise
        if added or removed:
            self._dirty = True
        return out

    def _store_one(
        self,
        conn: sqlite3.Connection,
        draft: ItemDraft,
        vec: Vectors,
        resource_id: str,
        now: Any,
        index: VectorIndex,
        out: StoreOutcome,
        added: list[int],
        removed: list[int],
        near: Sequence[tuple[int, float]],
    ) -> int:
        """Store or reinforce one draft; returns the row id it ended up in. ``near``: items
        at or above the dedupe similarity, most similar first."""
        chash = content_hash(draft.content)
        record = draft.kind == TURN_KIND  # a turn record is never merged: each turn is itself
        if record:
            # the same conversation extracted again: its turns already have their records
            again = conn.execute(
                "SELECT id FROM memory_items WHERE source_resource_id = ? AND kind = ?"
                " AND source_turn_ids = ? AND invalid_at IS NULL LIMIT 1",
                (resource_id, TURN_KIND, dumps(list(dict.fromkeys(draft.source_turn_ids)))),
            ).fetchone()
            if again is not None:
                return int(again[0])
        same = (
            None
            if record
            else conn.execute(
                "SELECT id FROM memory_items WHERE content_hash = ? AND invalid_at IS NULL"
                " AND kind != ? LIMIT 1",
                (chash, TURN_KIND),
            ).fetchone()
        )
        target = int(same[0]) if same is not None else None
        for near_id, _score in () if target is not None or record else near:
            row = conn.execute(
                "SELECT kind, slot, invalid_at FROM memory_items WHERE id = ?", (near_id,)
            ).fetchone()
            if row is not None and row[0] == draft.kind and row[1] == draft.slot and row[2] is None:
                target = near_id
                break
        if target is not None:
            self._reinforce(conn, target, draft, now)
            item = self.get_row(conn, target)
            if item is not None:
                out.reinforced.append(item)
            return target
        valid_at = draft.valid_at or now
        if draft.slot:
            older = conn.execute(
                "SELECT id, item_id FROM memory_items WHERE slot = ? AND invalid_at IS NULL"
                " AND valid_at <= ?",
                (draft.slot, iso(valid_at)),
            ).fetchall()
        else:
            older = []
        newer = None
        if draft.slot:
            # a statement older than the slot's current value (sessions ingested out of
            # order) is history from the start: stored, but already superseded
            newer = conn.execute(
                "SELECT item_id, valid_at FROM memory_items WHERE slot = ?"
                " AND invalid_at IS NULL AND valid_at > ? ORDER BY valid_at LIMIT 1",
                (draft.slot, iso(valid_at)),
            ).fetchone()
        item_id = new_id("item")
        cur = conn.execute(
            "INSERT INTO memory_items (item_id, content, content_hash, embedding,"
            " source_resource_id, source_turn_ids, category, kind, slot, confidence,"
            " importance, created_at, valid_at, speaker, dates)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                item_id,
                draft.content,
                chash,
                to_blob(vec),
                resource_id,
                dumps(list(dict.fromkeys(draft.source_turn_ids))),
                draft.category,
                draft.kind,
                draft.slot,
                draft.confidence,
                draft.importance,
                iso(now),
                iso(valid_at),
                draft.speaker,
                dumps(draft.dates),
            ),
        )
        row_id = int(cur.lastrowid or 0)
        if newer is not None:
            conn.execute(
                "UPDATE memory_items SET invalid_at = ?, invalidated_by = ? WHERE id = ?",
                (newer[1], newer[0], row_id),
            )
            out.invalidated.append(item_id)
            item = self.get_row(conn, row_id)
            assert item is not None
            out.stored.append(item)
            return row_id
        for old_id, old_item_id in older:
            conn.execute(
                "UPDATE memory_items SET invalid_at = ?, invalidated_by = ? WHERE id = ?",
                (iso(valid_at), item_id, old_id),
            )
            index.remove(np.array([old_id], dtype=np.int64))
            removed.append(int(old_id))
            out.invalidated.append(str(old_item_id))
        index.add(np.array([row_id], dtype=np.int64), vec.reshape(1, -1))
        added.append(row_id)
        item = self.get_row(conn, row_id)
        assert item is not None
        out.stored.append(item)
        return row_id

    def _reinforce(self, conn: sqlite3.Connection, row_id: int, draft: ItemDraft, now: Any) -> None:
        row = conn.execute(
            "SELECT source_turn_ids, confidence FROM memory_items WHERE id = ?", (row_id,)
        ).fetchone()
        turns = list(dict.fromkeys([*json.loads(row[0]), *draft.source_turn_ids]))
        conn.execute(
            "UPDATE memory_items SET reinforcement_count = reinforcement_count + 1,"
            " last_reinforced_at = ?, source_turn_ids = ?, confidence = ? WHERE id = ?",
            (iso(now), dumps(turns), max(float(row[1]), draft.confidence), row_id),
        )

    def invalidate(self, conn: sqlite3.Connection, item_id: str, by: str | None = None) -> bool:
        row = conn.execute(
            "SELECT id FROM memory_items WHERE item_id = ? AND invalid_at IS NULL", (item_id,)
        ).fetchone()
        if row is None:
            return False
        conn.execute(
            "UPDATE memory_items SET invalid_at = ?, invalidated_by = ? WHERE id = ?",
            (iso(self._clock()), by, row[0]),
        )
        self.index.remove(np.array([row[0]], dtype=np.int64))
        self._dirty = True
        return True

    def update_content(
        self, conn: sqlite3.Connection, item_id: str, content: str, vector: Vectors
    ) -> bool:
        row = conn.execute(
            "SELECT id, invalid_at FROM memory_items WHERE item_id = ?", (item_id,)
        ).fetchone()
        if row is None:
            return False
        conn.execute(
            "UPDATE memory_items SET content = ?, content_hash = ?, embedding = ? WHERE id = ?",
            (content, content_hash(content), to_blob(vector), row[0]),
        )
        if row[1] is None:
            self.index.add(np.array([row[0]], dtype=np.int64), vector.reshape(1, -1), replace=True)
            self._dirty = True
        return True

    def set_fields(self, conn: sqlite3.Connection, item_id: str, **fields: Any) -> bool:
        allowed = {"category", "importance", "confidence"}
        bad = set(fields) - allowed
        if bad:
            raise MemoryInputError(f"cannot set {', '.join(sorted(bad))} on an item")
        if not fields:
            return False
        sets = ", ".join(f"{k} = ?" for k in fields)
        cur = conn.execute(
            f"UPDATE memory_items SET {sets} WHERE item_id = ?", (*fields.values(), item_id)
        )
        return cur.rowcount > 0

    def delete_rows(self, conn: sqlite3.Connection, where: str, args: Sequence[Any]) -> list[str]:
        """Delete items matching ``where`` (SQL over memory_items); returns their item_ids."""
        self._speakers = None
        rows = conn.execute(f"SELECT id, item_id FROM memory_items WHERE {where}", args).fetchall()
        if not rows:
            return []
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        conn.executemany("DELETE FROM memory_items WHERE id = ?", [(int(i),) for i in ids])
        self.index.remove(ids)
        self._dirty = True
        return [str(r[1]) for r in rows]

    # ── reading ───────────────────────────────────────────────────────────
    def next_records(self, row_ids: Sequence[int]) -> dict[int, MemoryItem]:
        """row id of a turn record -> the record stored right after it from the same
        conversation (the next person's turn), for those that have one."""
        out: dict[int, MemoryItem] = {}
        conn = self._db.connection
        for row_id in row_ids:
            row = conn.execute(
                f"SELECT {_COLS} FROM memory_items WHERE kind = ? AND id > ?"
                " AND source_resource_id = (SELECT source_resource_id FROM memory_items"
                " WHERE id = ?) AND invalid_at IS NULL ORDER BY id LIMIT 1",
                (TURN_KIND, row_id, row_id),
            ).fetchone()
            if row is not None:
                out[row_id] = _row(row)
        return out

    def speakers(self) -> frozenset[str]:
        """Who has turn records (memory/query_plan.py matches their names in questions)."""
        known = self._speakers
        if known is None:
            rows = self._db.connection.execute(
                "SELECT DISTINCT speaker FROM memory_items WHERE kind = ?"
                " AND speaker IS NOT NULL AND invalid_at IS NULL",
                (TURN_KIND,),
            ).fetchall()
            known = self._speakers = frozenset(str(r[0]) for r in rows)
        return known

    def get(self, item_id: str, *, with_embedding: bool = False) -> MemoryItem | None:
        row = self._db.connection.execute(
            f"SELECT {_COLS} FROM memory_items WHERE item_id = ?", (item_id,)
        ).fetchone()
        if row is None:
            return None
        item = _row(row)
        if with_embedding:
            blob = self._db.connection.execute(
                "SELECT embedding FROM memory_items WHERE id = ?", (row[0],)
            ).fetchone()[0]
            item.embedding = from_blob(blob, self.embedder.dimension).tolist()
        return item

    def get_row(self, conn: sqlite3.Connection, row_id: int) -> MemoryItem | None:
        row = conn.execute(f"SELECT {_COLS} FROM memory_items WHERE id = ?", (row_id,)).fetchone()
        return None if row is None else _row(row)

    def get_rows(self, row_ids: Iterable[int]) -> dict[int, MemoryItem]:
        ids = list(row_ids)
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._db.connection.execute(
            f"SELECT {_COLS} FROM memory_items WHERE id IN ({marks})", ids
        ).fetchall()
        return {int(r[0]): _row(r) for r in rows}

    def row_meta(self, row_ids: Sequence[int]) -> dict[int, tuple[str | None, str, str, bool]]:
        """id -> (category, importance, created_at, valid) for scoring and filtering."""
        if not row_ids:
            return {}
        marks = ",".join("?" * len(row_ids))
        rows = self._db.connection.execute(
            "SELECT id, category, importance, valid_at, invalid_at IS NULL"
            f" FROM memory_items WHERE id IN ({marks})",
            list(row_ids),
        ).fetchall()
        return {int(r[0]): (r[1], r[2], r[3], bool(r[4])) for r in rows}

    def get_by_resource(self, resource_id: str) -> list[MemoryItem]:
        rows = self._db.connection.execute(
            f"SELECT {_COLS} FROM memory_items WHERE source_resource_id = ? ORDER BY id",
            (resource_id,),
        ).fetchall()
        return [_row(r) for r in rows]

    def get_by_category(self, category: str, *, include_invalid: bool = False) -> list[MemoryItem]:
        sql = f"SELECT {_COLS} FROM memory_items WHERE category = ?"
        if not include_invalid:
            sql += " AND invalid_at IS NULL"
        rows = self._db.connection.execute(sql + " ORDER BY id", (category,)).fetchall()
        return [_row(r) for r in rows]

    def dense_search(self, vector: Vectors, k: int, *, category: str | None = None) -> list[Hit]:
        """Top-k valid items by cosine; with a category, searched wider then filtered."""
        index = self.index
        n = len(index)
        if n == 0:
            return []
        if category is None:
            scores, ids = index.search(vector, min(k, n))
            return [Hit(int(i), float(s)) for s, i in zip(scores[0], ids[0], strict=True) if i >= 0]
        in_cat = self._db.connection.execute(
            "SELECT COUNT(*) FROM memory_items WHERE category = ? AND invalid_at IS NULL",
            (category,),
        ).fetchone()[0]
        if in_cat == 0:
            return []
        wide = min(n, max(k * 20, 200))
        scores, ids = index.search(vector, wide)
        cats = self.row_meta([int(i) for i in ids[0] if i >= 0])
        hits = [
            Hit(int(i), float(s))
            for s, i in zip(scores[0], ids[0], strict=True)
            if i >= 0 and cats.get(int(i), (None,))[0] == category
        ]
        if len(hits) >= min(k, in_cat):
            return hits[:k]
        # a small category far from the query: score it exactly from SQLite
        rows = self._db.connection.execute(
            "SELECT id, embedding FROM memory_items WHERE category = ? AND invalid_at IS NULL",
            (category,),
        ).fetchall()
        mat = np.stack([from_blob(b, self.embedder.dimension) for _, b in rows])
        sims = mat @ np.asarray(vector, dtype=np.float32).reshape(-1)
        order = np.argsort(-sims)[:k]
        return [Hit(int(rows[j][0]), float(sims[j])) for j in order]

    def cosines(self, vector: Vectors, row_ids: Sequence[int]) -> dict[int, float]:
        """Exact cosine of ``vector`` with the stored embeddings of ``row_ids``."""
        if not row_ids:
            return {}
        marks = ",".join("?" * len(row_ids))
        rows = self._db.connection.execute(
            f"SELECT id, embedding FROM memory_items WHERE id IN ({marks})", list(row_ids)
        ).fetchall()
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        dim = self.embedder.dimension
        return {int(r[0]): float(from_blob(r[1], dim) @ q) for r in rows}

    def lexical_search(self, query: str, k: int, *, category: str | None = None) -> list[Hit]:
        """Top-k valid items by FTS5 BM25; score = -bm25 (higher is better).

        The FTS top hits are taken first (a subquery) and only they are joined to the items
        to drop invalidated ones: joining every match before ORDER BY ... LIMIT costs ~3x
        the bare FTS query at 100K items (measured by `rilai bench memory`). If the window
        loses too many hits to the filters, it widens; a category filter scans all matches.
        """
        match = fts_query(query)
        if match is None:
            return []
        conn = self._db.connection
        try:
            if category is not None:
                rows = conn.execute(
                    "SELECT f.rowid, bm25(memory_items_fts) FROM memory_items_fts f"
                    " JOIN memory_items i ON i.id = f.rowid"
                    " WHERE memory_items_fts MATCH ? AND i.invalid_at IS NULL"
                    " AND i.category = ? ORDER BY bm25(memory_items_fts) LIMIT ?",
                    (match, category, k),
                ).fetchall()
                return [Hit(int(r[0]), -float(r[1])) for r in rows]
            window = max(2 * k, 20)
            while True:
                rows = conn.execute(
                    "SELECT f.id, f.score FROM (SELECT rowid AS id,"
                    " bm25(memory_items_fts) AS score FROM memory_items_fts"
                    " WHERE memory_items_fts MATCH ? ORDER BY score LIMIT ?) f"
                    " JOIN memory_items i ON i.id = f.id WHERE i.invalid_at IS NULL"
                    " ORDER BY f.score LIMIT ?",
                    (match, window, k),
                ).fetchall()
                if len(rows) >= k or window >= 1 << 20:
                    break
                total = conn.execute(
                    "SELECT COUNT(*) FROM (SELECT rowid FROM memory_items_fts"
                    " WHERE memory_items_fts MATCH ? LIMIT ?)",
                    (match, window + 1),
                ).fetchone()[0]
                if total <= window:
                    break  # every match was in the window: nothing more to find
                window *= 4
        except sqlite3.OperationalError:
            return []
        return [Hit(int(r[0]), -float(r[1])) for r in rows]

    def count(self, *, valid_only: bool = True) -> int:
        sql = "SELECT COUNT(*) FROM memory_items"
        if valid_only:
            sql += " WHERE invalid_at IS NULL"
        return int(self._db.connection.execute(sql).fetchone()[0])

    def count_by_category(self) -> dict[str, int]:
        """Valid facts per category (turn records belong to no category: not counted)."""
        rows = self._db.connection.execute(
            "SELECT COALESCE(category, 'uncategorized'), COUNT(*) FROM memory_items"
            " WHERE invalid_at IS NULL AND kind != ? GROUP BY category",
            (TURN_KIND,),
        ).fetchall()
        return {str(c): int(n) for c, n in rows}

    def valid_candidates(self, limit: int, *, category: str | None = None) -> list[MemoryItem]:
        """Most recent / important valid items (the LLM retriever's fallback candidates)."""
        sql = f"SELECT {_COLS} FROM memory_items WHERE invalid_at IS NULL"
        args: list[Any] = []
        if category is not None:
            sql += " AND category = ?"
            args.append(category)
        sql += " ORDER BY (importance = 'high') DESC, valid_at DESC LIMIT ?"
        args.append(limit)
        return [_row(r) for r in self._db.connection.execute(sql, args).fetchall()]


def _row(row: Sequence[Any]) -> MemoryItem:
    return MemoryItem.model_construct(
        item_id=row[1],
        content=row[2],
        embedding=None,
        source_resource_id=row[3],
        source_turn_ids=json.loads(row[4]),
        category=row[5],
        kind=row[6],
        slot=row[7],
        confidence=float(row[8]),
        importance=row[9],
        created_at=parse_dt(row[10]) or utc_now(),
        reinforcement_count=int(row[11]),
        valid_at=parse_dt(row[12]),
        invalid_at=parse_dt(row[13]),
        speaker=row[14],
        dates=json.loads(row[15] or "[]"),
    )
