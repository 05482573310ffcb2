"""The relationship memory's shared plumbing: the clock, embeddings and the recall cache.

``RelationshipStore`` is the base of the episode, fact and goal stores
(``episodes.py``, ``facts.py``, ``goals.py``) that ``RelationshipMemory`` combines. It
keeps a cached matrix of each table's embeddings (dropped on every write through these
classes, on a commit by another connection and when a table's row count or highest rowid
changes), records the embedding model in ``memory_meta`` and re-embeds every row once when
the model (or its dimension) changes, so vectors from two models are never compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.memory._sql import DerivedCache, sql_errors
from rilai_desktop.memory.controls import MemoryControls
from rilai_desktop.memory.item_search import from_blob
from rilai_desktop.memory.items import to_blob
from rilai_desktop.memory.ports import Database, Embedder, Vectors
from rilai_desktop.memory.relationship.checks import (
    RECENCY_HALF_LIFE_DAYS,
    W_PRIOR,
    W_RECENCY,
    W_SIMILARITY,
    _aware,
    _dt,
)

_META_KEY = "companion_embedding_model"

_REEMBED_BATCH = 256


@dataclass
class _Matrix:
    """Every row of one table, as arrays for brute-force scoring."""

    ids: list[str]
    vectors: Vectors  # (n, dim), unit rows
    prior: npt.NDArray[np.float64]  # importance or confidence
    times: npt.NDArray[np.float64]  # POSIX seconds of timestamp / last_confirmed
    fingerprint: tuple[int, int] = (0, 0)  # (row count, max rowid) when loaded


class RelationshipStore:
    """The database, the embedder and the cached embedding matrices, shared by the parts."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        clock: Clock = SYSTEM_CLOCK,
        fact_similarity: float = 0.9,
    ) -> None:
        self._db = db
        self.embedder = embedder
        self._clock = clock
        self.fact_similarity = fact_similarity
        self._derived: DerivedCache[str, _Matrix] = DerivedCache(lambda: self._db.connection)
        self._model_checked = False
        # the person's controls (memory/controls.py), set by the MemoryManager: recall skips
        # paused entries, adds pinned ones and lowers those marked "not relevant"
        self.controls: MemoryControls | None = None

    # ── plumbing ──────────────────────────────────────────────────────────
    def _now(self) -> datetime:
        return _aware("the clock's time", self._clock.now())

    def invalidate_cache(self) -> None:
        """Forget the cached embedding matrices (after editing the tables by other means)."""
        self._invalidate()

    def _invalidate(self) -> None:
        self._derived.drop()

    def _embed(self, texts: Sequence[str]) -> Vectors:
        return self.embedder.embed(list(texts))

    def _want_model(self) -> str:
        return f"{self.embedder.model_id}/{self.embedder.dimension}"

    def _ensure_model(self) -> None:
        """Re-embed every row once if the stored vectors came from another model."""
        if self._model_checked:
            return
        conn = self._db.connection
        want = self._want_model()
        with sql_errors("checking the embedding model"):
            row = conn.execute("SELECT value FROM memory_meta WHERE key = ?", (_META_KEY,))
            found = row.fetchone()
        if found is None or found[0] != want:
            self._reembed_all(want)
        if not conn.in_transaction:
            self._model_checked = True

    def _reembed_all(self, want: str) -> None:
        conn = self._db.connection
        with sql_errors("re-embedding the relationship memory"):
            episodes = conn.execute("SELECT id, summary FROM memory_episodes").fetchall()
            facts = conn.execute("SELECT id, fact FROM memory_user_facts").fetchall()
        updates: list[tuple[str, list[tuple[bytes, str]]]] = []
        for table, rows in (("memory_episodes", episodes), ("memory_user_facts", facts)):
            pairs: list[tuple[bytes, str]] = []
            for start in range(0, len(rows), _REEMBED_BATCH):
                chunk = rows[start : start + _REEMBED_BATCH]
                vecs = self._embed([text for _, text in chunk])
                pairs.extend((to_blob(v), rid) for (rid, _), v in zip(chunk, vecs, strict=True))
            updates.append((table, pairs))
        with sql_errors("re-embedding the relationship memory"), self._db.transaction() as tx:
            for table, pairs in updates:
                tx.executemany(f"UPDATE {table} SET embedding = ? WHERE id = ?", pairs)
            tx.execute(
                "INSERT INTO memory_meta (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (_META_KEY, want),
            )
        self._invalidate()

    def _fingerprint(self, table: Literal["episodes", "facts"]) -> tuple[int, int]:
        name = "memory_episodes" if table == "episodes" else "memory_user_facts"
        with sql_errors(f"reading the {table}"):
            row = self._db.connection.execute(
                f"SELECT COUNT(*), COALESCE(MAX(rowid), 0) FROM {name}"
            ).fetchone()
        return int(row[0]), int(row[1])

    def _matrix(self, table: Literal["episodes", "facts"]) -> _Matrix:
        fingerprint = self._fingerprint(table)

        def build() -> _Matrix:
            matrix = self._load_matrix(table)
            matrix.fingerprint = fingerprint
            return matrix

        return self._derived.get(table, build, lambda m: m.fingerprint == fingerprint)

    def _load_matrix(self, table: Literal["episodes", "facts"]) -> _Matrix:
        conn = self._db.connection
        if table == "episodes":
            sql = "SELECT id, embedding, importance, timestamp, summary FROM memory_episodes"
        else:
            sql = "SELECT id, embedding, confidence, last_confirmed, fact FROM memory_user_facts"
        with sql_errors(f"reading the {table}"):
            rows = conn.execute(sql).fetchall()
        dim = self.embedder.dimension
        vectors = np.zeros((len(rows), dim), dtype=np.float32)
        missing: list[int] = []
        for i, row in enumerate(rows):
            blob = row[1]
            if blob is None or len(blob) != 4 * dim:
                missing.append(i)
            else:
                vectors[i] = from_blob(blob, dim)
        if missing:  # rows written without a usable embedding (not by us): embed in memory
            vectors[missing] = self._embed([rows[i][4] for i in missing])
        return _Matrix(
            ids=[r[0] for r in rows],
            vectors=vectors,
            prior=np.array([r[2] for r in rows], dtype=np.float64),
            times=np.array([_dt(r[3]).timestamp() for r in rows], dtype=np.float64),
        )

    # ── recall ────────────────────────────────────────────────────────────
    def _rank(
        self,
        matrix: _Matrix,
        qvec: Vectors | None,
        k: int,
        now: datetime,
        *,
        skip: frozenset[str] | set[str] = frozenset(),
        factors: dict[str, float] | None = None,
    ) -> list[str]:
        """The best ``k`` ids, leaving out ``skip``, each score times its factor (if any)."""
        if k == 0 or not matrix.ids:
            return []
        if qvec is None:
            sim = np.zeros(len(matrix.ids), dtype=np.float64)
        else:
            sim = (matrix.vectors @ qvec).astype(np.float64)
        age_days = np.maximum(now.timestamp() - matrix.times, 0.0) / 86_400.0
        recency = np.power(0.5, age_days / RECENCY_HALF_LIFE_DAYS)
        score = W_SIMILARITY * sim + W_PRIOR * matrix.prior + W_RECENCY * recency
        if factors:
            score = score * np.array([factors.get(i, 1.0) for i in matrix.ids])
        order = np.argsort(-score, kind="stable")
        ranked = [matrix.ids[int(i)] for i in order if matrix.ids[int(i)] not in skip]
        return ranked[:k]

    def _fetch(self, table: str, cols: str, ids: list[str]) -> list[Any]:
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        with sql_errors(f"reading {table}"):
            rows = self._db.connection.execute(
                f"SELECT {cols} FROM {table} WHERE id IN ({marks})", ids
            ).fetchall()
        by_id = {r[0]: r for r in rows}
        return [by_id[i] for i in ids if i in by_id]
