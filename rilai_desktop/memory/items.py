"""Layer 2: extracted items in SQLite with their embeddings, and the FAISS index over them.

SQLite is the truth: every item row keeps its float32 embedding, so the index can always be
rebuilt. The index holds exactly the *valid* items (``invalid_at IS NULL``); its ids are the
rows' integer ``id``. On open the saved index is checked against SQLite (count + checksum
of ids, model, dimension) and rebuilt when it is missing, corrupt or stale.

Storing drafts dedupes: the same normalised content (hash) or an embedding at or above
``dedupe_similarity`` of a valid item of the same kind reinforces that item (its count, its
turn ids) instead of inserting a near-copy. A draft with a ``slot`` (a single-valued fact
such as where the user lives) invalidates the older valid items of that slot. Reading and
searching the items (``ItemReads``, the base class) live in ``item_search.py``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory._sql import dumps, iso, new_id
from rilai_desktop.memory.item_search import ItemReads, from_blob
from rilai_desktop.memory.ports import Database, Embedder, Vectors
from rilai_desktop.memory.types import TURN_KIND, ItemDraft, MemoryItem
from rilai_desktop.memory.vector_index import StaleIndexError, VectorIndex, ids_checksum

_SPACE = re.compile(r"\s+")
# an item is in the FAISS index when valid and not paused by the person (memory/controls.py)
INDEXED = "item_id NOT IN (SELECT entry_id FROM memory_controls WHERE kind = 'item' AND paused = 1)"
NEAR_K = 8  # neighbours looked at for a near-duplicate (the nearest may be a turn record)


def content_hash(text: str) -> str:
    """sha256 of the normalised content (case and whitespace folded)."""
    norm = _SPACE.sub(" ", text.strip().lower())
    return hashlib.sha256(norm.encode("utf-8", "surrogatepass")).hexdigest()


def to_blob(vec: Vectors) -> bytes:
    return np.ascontiguousarray(vec, dtype="<f4").tobytes()


@dataclass
class StoreOutcome:
    stored: list[MemoryItem] = field(default_factory=list)
    reinforced: list[MemoryItem] = field(default_factory=list)
    invalidated: list[str] = field(default_factory=list)


class ItemLayer(ItemReads):
    """Items + embeddings in SQLite, a FAISS index derived from them."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        index_path: Path,
        *,
        exact_max: int = 250_000,
        dedupe_similarity: float = 0.92,
        clock: Clock = SYSTEM_CLOCK,
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
            f"SELECT id FROM memory_items WHERE invalid_at IS NULL AND {INDEXED}"
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
                f"SELECT id, embedding FROM memory_items WHERE invalid_at IS NULL AND {INDEXED}"
                " ORDER BY id"
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
        # the speakers' set follows the batch (a full re-read per turn grew with the log);
        # a turn record with a slot could invalidate another's, so that case reads again
        known = self._speakers
        self._speakers = None  # until the batch is stored (and if it fails)
        index = self.index
        added: list[int] = []
        removed: list[int] = []
        now = self._clock.now()
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
        if known is not None and not any(d.kind == TURN_KIND and d.slot for d in drafts):
            new = {i.speaker for i in out.stored if i.kind == TURN_KIND and i.speaker}
            self._speakers = known | new if new else known
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
                # literally the partial index's condition (migration 0008), so it is used
                "SELECT id FROM memory_items WHERE content_hash = ?"
                " AND kind != 'turn' AND invalid_at IS NULL LIMIT 1",
                (chash,),
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
            (iso(self._clock.now()), by, row[0]),
        )
        self.index.remove(np.array([row[0]], dtype=np.int64))
        self._dirty = True
        return True

    def update_content(
        self, conn: sqlite3.Connection, item_id: str, content: str, vector: Vectors
    ) -> bool:
        row = conn.execute(
            f"SELECT id, invalid_at IS NULL AND {INDEXED} FROM memory_items WHERE item_id = ?",
            (item_id,),
        ).fetchone()
        if row is None:
            return False
        conn.execute(
            "UPDATE memory_items SET content = ?, content_hash = ?, embedding = ? WHERE id = ?",
            (content, content_hash(content), to_blob(vector), row[0]),
        )
        if row[1]:  # valid and not paused: the index follows the new text
            self.index.add(np.array([row[0]], dtype=np.int64), vector.reshape(1, -1), replace=True)
            self._dirty = True
        return True

    def forget_speakers(self) -> None:
        """The turn records' speakers are read again on next use (after a bulk delete)."""
        self._speakers = None

    def set_indexed(self, conn: sqlite3.Connection, item_id: str, indexed: bool) -> bool:
        """A paused item leaves the vector index; resumed (and valid), it comes back from its
        stored embedding. False if there is no such item."""
        row = conn.execute(
            "SELECT id, embedding, invalid_at FROM memory_items WHERE item_id = ?", (item_id,)
        ).fetchone()
        if row is None:
            return False
        ids = np.array([row[0]], dtype=np.int64)
        if indexed and row[2] is None:
            vec = from_blob(row[1], self.embedder.dimension).reshape(1, -1)
            self.index.add(ids, vec, replace=True)
        else:
            self.index.remove(ids)
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
