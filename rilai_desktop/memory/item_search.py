"""Layer 2, read side: items by id, resource or category, and the two search channels.

``ItemReads`` is the base of ``ItemLayer`` (``items.py``, the write side and the index's
lifecycle): it reads rows from SQLite and searches them densely (the FAISS index, which the
subclass owns and keeps in step) or lexically (FTS5 BM25).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rilai_desktop.errors import VectorIndexError
from rilai_desktop.memory._sql import fts_query, parse_dt, utc_now
from rilai_desktop.memory.ports import Database, Embedder, Vectors
from rilai_desktop.memory.types import TURN_KIND, MemoryItem
from rilai_desktop.memory.vector_index import VectorIndex

_COLS = (
    "id, item_id, content, source_resource_id, source_turn_ids, category, kind, slot,"
    " confidence, importance, created_at, reinforcement_count, valid_at, invalid_at,"
    " speaker, dates"
)


def from_blob(blob: bytes, dimension: int) -> Vectors:
    arr = np.frombuffer(blob, dtype="<f4")
    if arr.size != dimension:
        raise VectorIndexError(f"a stored embedding has {arr.size} dims, expected {dimension}")
    return arr.astype(np.float32)


@dataclass
class Hit:
    """A candidate from one retrieval channel: row id and raw score."""

    row_id: int
    score: float


class ItemReads:
    """Reading and searching the items (the index itself is the subclass's)."""

    _db: Database
    embedder: Embedder
    _speakers: frozenset[str] | None

    @property
    def index(self) -> VectorIndex:
        raise NotImplementedError

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
