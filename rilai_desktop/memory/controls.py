"""What the person decided about each memory entry: paused, pinned, last used, "not relevant".

``memory_controls`` (migration 0007) is a projection of the log: every change is a
``memory.entry_changed`` event (kind, id, change; never a text) appended in the same
transaction that writes the row, and :meth:`MemoryControls.rebuild_from_log` replays the
log into the same table. ``memory_feedback`` keeps the embedding of a query the person
marked an entry "not relevant" for: data, not a projection (the log never carries a
query's words or its vector), so a rebuild keeps its rows and only drops those whose entry
is gone.

Recall reads this module where candidates are produced (``retrieval/rag.py`` for the items
— the LLM and hybrid modes re-rank RAG's candidates — and ``relationship/memory.py``):
a paused entry is never a candidate, a pinned one always is, and an entry marked "not
relevant" for a query whose embedding is at least ``NOT_RELEVANT_COSINE`` close to the new
one has its score multiplied by ``NOT_RELEVANT_FACTOR``. Paused items also leave the FAISS
index (``items.py``), so no path through the index can see them.

``recording_paused`` is the global "memory paused" switch (the setting ``memory.paused``,
logged as ``memory.switched``): while on, the turn's memory bridge neither recalls nor
commits anything.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import numpy as np

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory._sql import iso, sql_errors
from rilai_desktop.memory.entries import ENTRY_KINDS, EntryKind
from rilai_desktop.memory.ports import Database, Vectors

Change = Literal["edited", "deleted", "paused", "resumed", "pinned", "unpinned", "not_relevant"]
NOT_RELEVANT_COSINE = 0.8
NOT_RELEVANT_FACTOR = 0.5

# each kind's table and id column (the entry's text column is in operations/entry_changes)
ENTRY_TABLES: dict[EntryKind, tuple[str, str]] = {
    "item": ("memory_items", "item_id"),
    "fact": ("memory_user_facts", "id"),
    "episode": ("memory_episodes", "id"),
    "goal": ("memory_goals", "id"),
}


def check_kind(kind: Any) -> EntryKind:
    if kind not in ENTRY_KINDS:
        raise MemoryInputError(
            f"kind must be one of {', '.join(ENTRY_KINDS)}, got {kind!r}",
            recovery_suggestions=["item, fact, episode or goal"],
        )
    return kind  # type: ignore[no-any-return]


@dataclass(frozen=True)
class ControlState:
    paused: bool = False
    pinned: bool = False
    last_used_at: str | None = None


@dataclass
class _Row:
    paused: bool = False
    pinned: bool = False
    last_used_at: str | None = None
    updated_at: str = ""


class MemoryControls:
    """The memory_controls / memory_feedback tables: reads for recall, writes in a caller's
    transaction (with the caller's event), and the rebuild from the log."""

    def __init__(self, db: Database, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._db = db
        self._clock = clock
        self.recording_paused = False

    # ── reads ─────────────────────────────────────────────────────────────
    def _rows(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with sql_errors("reading the memory controls"):
            return list(self._db.connection.execute(sql, args).fetchall())

    def state(self, kind: EntryKind, entry_id: str) -> ControlState:
        rows = self._rows(
            "SELECT paused, pinned, last_used_at FROM memory_controls"
            " WHERE kind = ? AND entry_id = ?",
            (kind, entry_id),
        )
        if not rows:
            return ControlState()
        return ControlState(bool(rows[0][0]), bool(rows[0][1]), rows[0][2])

    def states(self, kind: EntryKind | None = None) -> dict[tuple[str, str], ControlState]:
        sql = "SELECT kind, entry_id, paused, pinned, last_used_at FROM memory_controls"
        rows = self._rows(sql + " WHERE kind = ?", (kind,)) if kind else self._rows(sql)
        return {(r[0], r[1]): ControlState(bool(r[2]), bool(r[3]), r[4]) for r in rows}

    def paused(self, kind: EntryKind) -> set[str]:
        rows = self._rows(
            "SELECT entry_id FROM memory_controls WHERE kind = ? AND paused = 1", (kind,)
        )
        return {str(r[0]) for r in rows}

    def pinned(self, kind: EntryKind) -> list[str]:
        """Pinned and not paused (a paused entry is never recalled, pinned or not)."""
        rows = self._rows(
            "SELECT entry_id FROM memory_controls WHERE kind = ? AND pinned = 1 AND paused = 0"
            " ORDER BY updated_at, entry_id",
            (kind,),
        )
        return [str(r[0]) for r in rows]

    def pinned_item_rows(self) -> list[int]:
        """The rowids of the valid items that are pinned and not paused (RAG's extra
        candidates)."""
        rows = self._rows(
            "SELECT m.id FROM memory_items m JOIN memory_controls c"
            " ON c.kind = 'item' AND c.entry_id = m.item_id"
            " WHERE c.pinned = 1 AND c.paused = 0 AND m.invalid_at IS NULL ORDER BY m.id"
        )
        return [int(r[0]) for r in rows]

    def lowered(self, kind: EntryKind, query_vector: Callable[[], Vectors]) -> dict[str, float]:
        """entry id -> score factor, for the entries marked "not relevant" for a query like
        this one (cosine ≥ NOT_RELEVANT_COSINE); the query is embedded only when some entry
        of ``kind`` has such a mark."""
        rows = self._rows(
            "SELECT entry_id, query_embedding FROM memory_feedback WHERE kind = ?", (kind,)
        )
        if not rows:
            return {}
        qvec = np.asarray(query_vector(), dtype=np.float32).reshape(-1)
        out: dict[str, float] = {}
        for entry_id, blob in rows:
            stored = np.frombuffer(blob, dtype=np.float32)
            if stored.shape != qvec.shape:
                continue  # from another embedding model: not comparable
            if float(np.dot(stored, qvec)) >= NOT_RELEVANT_COSINE:
                out[str(entry_id)] = NOT_RELEVANT_FACTOR
        return out

    # ── writes, in the caller's transaction ───────────────────────────────
    def _upsert(self, tx: sqlite3.Connection, kind: str, entry_id: str, **fields: Any) -> None:
        now = iso(self._clock.now())
        tx.execute(
            "INSERT INTO memory_controls (kind, entry_id, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (kind, entry_id) DO NOTHING",
            (kind, entry_id, now),
        )
        sets = ", ".join(f"{k} = ?" for k in fields)
        tx.execute(
            f"UPDATE memory_controls SET {sets}, updated_at = ? WHERE kind = ? AND entry_id = ?",
            (*fields.values(), now, kind, entry_id),
        )

    def apply(self, tx: sqlite3.Connection, kind: EntryKind, entry_id: str, change: Change) -> None:
        """Project one change (the caller appends its event in the same transaction)."""
        if change in ("paused", "resumed"):
            self._upsert(tx, kind, entry_id, paused=int(change == "paused"))
        elif change in ("pinned", "unpinned"):
            self._upsert(tx, kind, entry_id, pinned=int(change == "pinned"))
        elif change == "deleted":
            tx.execute(
                "DELETE FROM memory_controls WHERE kind = ? AND entry_id = ?", (kind, entry_id)
            )
            tx.execute(
                "DELETE FROM memory_feedback WHERE kind = ? AND entry_id = ?", (kind, entry_id)
            )

    def add_feedback(
        self, tx: sqlite3.Connection, kind: EntryKind, entry_id: str, vector: Vectors
    ) -> None:
        tx.execute(
            "INSERT INTO memory_feedback (kind, entry_id, query_embedding, created_at)"
            " VALUES (?, ?, ?, ?)",
            (
                kind,
                entry_id,
                np.asarray(vector, dtype=np.float32).reshape(-1).tobytes(),
                iso(self._clock.now()),
            ),
        )

    def mark_used(self, refs: Iterable[tuple[str, str]], at: datetime) -> None:
        """The entries whose text reached a reply's prompt (``memory.used``), used ``at``."""
        when = iso(at)
        with sql_errors("marking memory as used"), self._db.transaction() as tx:
            for kind, entry_id in refs:
                if kind in ENTRY_KINDS:
                    self._upsert(tx, kind, entry_id, last_used_at=when)

    def clear(self, tx: sqlite3.Connection) -> dict[str, int]:
        counts = {}
        for table in ("memory_controls", "memory_feedback"):
            counts[table] = int(tx.execute(f"DELETE FROM {table}").rowcount)
        return counts

    # ── the rebuild ───────────────────────────────────────────────────────
    def rebuild_from_log(self, events: Iterable[Any]) -> dict[str, int]:
        """memory_controls replayed from the log (``EngineEvent``s in log order), then
        reconciled with the tables: a row whose entry no longer exists is dropped, as are
        feedback rows of entries that are gone. Returns how many rows were paused/pinned."""
        state: dict[tuple[str, str], _Row] = {}
        switched: bool | None = None
        for event in events:
            kind, payload = str(event.kind), event.payload
            at = iso(event.ts_wall) or ""
            if kind == "memory.entry_changed":
                key = (str(payload["kind"]), str(payload["entry_id"]))
                _replay(state, key, str(payload["change"]), at)
            elif kind == "memory.item_deleted":
                state.pop(("item", str(payload["item_id"])), None)
            elif kind == "memory.resource_deleted":
                for iid in payload.get("item_ids", []):
                    state.pop(("item", str(iid)), None)
            elif kind == "memory.used":
                for ref in payload.get("entries", []):
                    key = (str(ref.get("kind")), str(ref.get("entry_id")))
                    if key[0] in ENTRY_KINDS:
                        row = state.setdefault(key, _Row(updated_at=at))
                        row.last_used_at, row.updated_at = at, at
            elif kind == "memory.forgotten":
                state.clear()
            elif kind == "memory.switched":
                switched = bool(payload.get("paused"))
        with sql_errors("rebuilding the memory controls"), self._db.transaction() as tx:
            tx.execute("DELETE FROM memory_controls")
            tx.executemany(
                "INSERT INTO memory_controls"
                " (kind, entry_id, paused, pinned, last_used_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (k, e, int(r.paused), int(r.pinned), r.last_used_at, r.updated_at)
                    for (k, e), r in state.items()
                ],
            )
            for kind_name, (table, col) in ENTRY_TABLES.items():
                for target in ("memory_controls", "memory_feedback"):
                    tx.execute(
                        f"DELETE FROM {target} WHERE kind = ? AND entry_id NOT IN"
                        f" (SELECT {col} FROM {table})",
                        (kind_name,),
                    )
            counts = tx.execute(
                "SELECT COALESCE(SUM(paused), 0), COALESCE(SUM(pinned), 0) FROM memory_controls"
            ).fetchone()
        if switched is not None:
            self.recording_paused = switched
        return {"paused": int(counts[0]), "pinned": int(counts[1])}


def _replay(state: dict[tuple[str, str], _Row], key: tuple[str, str], change: str, at: str) -> None:
    if change == "deleted":
        state.pop(key, None)
        return
    if change not in ("paused", "resumed", "pinned", "unpinned"):
        return  # edited / not_relevant: the text and the feedback live in the tables
    row = state.setdefault(key, _Row(updated_at=at))
    if change in ("paused", "resumed"):
        row.paused = change == "paused"
    else:
        row.pinned = change == "pinned"
    row.updated_at = at


def snapshot(controls: MemoryControls) -> Mapping[str, set[str]]:
    """The paused and pinned sets of every kind (what a rebuild must reproduce)."""
    out: dict[str, set[str]] = {}
    for (kind, entry_id), st in controls.states().items():
        if st.paused:
            out.setdefault(f"{kind}:paused", set()).add(entry_id)
        if st.pinned:
            out.setdefault(f"{kind}:pinned", set()).add(entry_id)
    return out
