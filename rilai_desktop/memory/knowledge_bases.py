"""Seed 004's eight named knowledge bases: SemanticSearch and UpsertVectors (layer 4).

Points ``(id, vector, payload)`` live in ``kb_points``; vectors are stored L2-normalised
as float32, so a search score is the cosine similarity. Each knowledge base gets an
in-memory exact ``VectorIndex`` built lazily from its rows and patched after every upsert
or delete that this object commits; a write made inside an outer transaction drops the
index instead (the outer transaction may still roll back), and a commit by another
connection (seen through ``PRAGMA data_version``) drops them all. Use one
``KnowledgeBases`` per database.

Upserts are all-or-nothing: every point is validated before anything is written. Points
whose stored vector does not have the embedder's dimension (written under another model)
are left out of the index and counted in ``skipped``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rilai_desktop.contracts.agent import KNOWLEDGE_BASES, KnowledgeBaseName
from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory._sql import DerivedCache, dumps, sql_errors
from rilai_desktop.memory.items import to_blob
from rilai_desktop.memory.ports import Database, Embedder, Vectors
from rilai_desktop.memory.vector_index import VectorIndex

KB_NAMES: tuple[str, ...] = KNOWLEDGE_BASES  # seed 004's eight names (contracts/agent.py)
MAX_LIMIT = 100
MAX_POINT_ID_CHARS = 200
MAX_PAYLOAD_BYTES = 1_000_000  # one point's payload, as JSON
SNIPPET_CHARS = 200


class KBPoint(BaseModel):
    """One point to upsert (seed 004 UpsertVectors ``points[]``)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    id: str
    vector: list[float]
    payload: dict[str, str] = Field(default_factory=dict)


class KBHit(BaseModel):
    """One search hit (seed 004 SemanticSearch ``hits[]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    document_id: str
    score: float
    content_snippet: str


class UpsertResult(BaseModel):
    """Seed 004 UpsertVectors response."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    success: bool
    upserted_count: int


def _bad(message: str, hint: str | None = None) -> MemoryInputError:
    return MemoryInputError(message, recovery_suggestions=[hint] if hint else None)


def check_kb_name(kb_name: Any) -> str:
    if not isinstance(kb_name, str) or kb_name not in KB_NAMES:
        raise _bad(
            f"Unknown knowledge base {kb_name!r}; valid names: {', '.join(KB_NAMES)}",
            f"Use one of: {', '.join(KB_NAMES)}",
        )
    return kb_name


def _check_string(name: str, value: str, *, max_chars: int | None = None) -> None:
    if max_chars is not None and len(value) > max_chars:
        raise _bad(f"{name} has {len(value):,} characters (limit {max_chars:,})")
    if "\x00" in value:
        raise _bad(f"{name} contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad(f"{name} contains an unpaired surrogate (not valid Unicode)") from None


def _unit_vector(name: str, values: Any, dimension: int) -> Vectors:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        raise _bad(f"{name} must be a list of {dimension} numbers")
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise _bad(f"{name} must be a list of {dimension} numbers") from None
    if arr.ndim != 1 or arr.shape[0] != dimension:
        got = arr.shape[0] if arr.ndim == 1 else f"shape {arr.shape}"
        raise _bad(
            f"{name} has dimension {got}, but the embedder's dimension is {dimension}",
            f"Pass vectors of length {dimension} (embedding model dimension)",
        )
    if not np.all(np.isfinite(arr)):
        raise _bad(f"{name} contains NaN or infinity")
    norm = float(np.linalg.norm(arr))
    if norm == 0.0 or not math.isfinite(norm):
        raise _bad(f"{name} is the zero vector (it has no direction to compare)")
    return (arr / norm).astype(np.float32)


def snippet(payload: Mapping[str, str]) -> str:
    """``content``, else ``text``, else the payload as JSON; at most 200 characters."""
    text = payload.get("content") or payload.get("text")
    if not text:
        text = json.dumps(dict(payload), ensure_ascii=False, sort_keys=True)
    return text[:SNIPPET_CHARS]


@dataclass
class _KBIndex:
    index: VectorIndex
    ids: dict[str, int] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    next_id: int = 0

    def int_id(self, point_id: str) -> int:
        found = self.ids.get(point_id)
        if found is None:
            found = self.next_id
            self.next_id += 1
            self.ids[point_id] = found
            self.names[found] = point_id
        return found


class KnowledgeBases:
    """The eight named knowledge bases of seed 004, in ``kb_points``."""

    def __init__(self, db: Database, embedder: Embedder, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self._db = db
        self.embedder = embedder
        self._clock = clock
        self._indexes: DerivedCache[str, _KBIndex] = DerivedCache(lambda: self._db.connection)
        self.skipped: dict[str, int] = {}

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    # ── the per-KB indexes ────────────────────────────────────────────────
    def _drop(self, kb_name: str | None = None) -> None:
        self._indexes.drop(kb_name)

    def _index(self, kb_name: str) -> _KBIndex:
        return self._indexes.get(kb_name, lambda: self._build(kb_name))

    def _build(self, kb_name: str) -> _KBIndex:
        with sql_errors(f"reading {kb_name}"):
            rows = self._db.connection.execute(
                "SELECT point_id, vector FROM kb_points WHERE kb_name = ? ORDER BY point_id",
                (kb_name,),
            ).fetchall()
        dim = self.dimension
        usable = [(pid, blob) for pid, blob in rows if blob is not None and len(blob) == 4 * dim]
        self.skipped[kb_name] = len(rows) - len(usable)
        vecs = np.empty((len(usable), dim), dtype=np.float32)
        for i, (_, blob) in enumerate(usable):
            vecs[i] = np.frombuffer(blob, dtype="<f4")
        names = dict(enumerate(pid for pid, _ in usable))
        ids = np.arange(len(usable), dtype=np.int64)
        return _KBIndex(
            VectorIndex.build(dim, ids, vecs),
            ids={pid: i for i, pid in names.items()},
            names=names,
            next_id=len(usable),
        )

    # ── SemanticSearch ────────────────────────────────────────────────────
    def semantic_search(
        self,
        query: str,
        kb_name: str,
        limit: int = 10,
        query_vector: Sequence[float] | npt.NDArray[np.floating[Any]] | None = None,
    ) -> list[KBHit]:
        """The ``limit`` points of ``kb_name`` closest to the query, best first."""
        kb_name = check_kb_name(kb_name)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
            raise _bad(
                f"limit must be an integer from 1 to {MAX_LIMIT}, got {limit!r}",
                f"Pass limit between 1 and {MAX_LIMIT}",
            )
        if query_vector is not None:
            qvec = _unit_vector("query_vector", query_vector, self.dimension)
        else:
            if not isinstance(query, str):
                raise _bad(f"query must be a string, not {type(query).__name__}")
            if not query.strip():
                raise _bad("query is empty", "Pass a query text, or a query_vector")
            qvec = self.embedder.embed_one(query)[0]
        kb = self._index(kb_name)
        k = min(limit, len(kb.index))
        if k == 0:
            return []
        scores, ids = kb.index.search(qvec.reshape(1, -1), k)
        hits: list[tuple[str, float]] = []
        for score, iid in zip(scores[0], ids[0], strict=True):
            name = kb.names.get(int(iid))
            if iid >= 0 and name is not None:
                hits.append((name, float(score)))
        if not hits:
            return []
        payloads = self._payloads(kb_name, [h[0] for h in hits])
        return [
            KBHit(document_id=pid, score=score, content_snippet=snippet(payloads.get(pid, {})))
            for pid, score in hits
            if pid in payloads
        ]

    def _payloads(self, kb_name: str, ids: list[str]) -> dict[str, dict[str, str]]:
        marks = ", ".join("?" * len(ids))
        with sql_errors(f"reading {kb_name}"):
            rows = self._db.connection.execute(
                f"SELECT point_id, payload FROM kb_points WHERE kb_name = ?"
                f" AND point_id IN ({marks})",
                [kb_name, *ids],
            ).fetchall()
        out: dict[str, dict[str, str]] = {}
        for pid, text in rows:
            try:
                data = json.loads(text)
            except ValueError:
                data = {}
            out[pid] = {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
        return out

    # ── UpsertVectors ─────────────────────────────────────────────────────
    def _check_point(self, i: int, raw: Any) -> tuple[str, Vectors, str]:
        where = f"point {i}"
        if isinstance(raw, KBPoint):
            point = raw
        elif isinstance(raw, Mapping):
            try:
                point = KBPoint.model_validate(dict(raw))
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = ".".join(str(p) for p in err["loc"])
                raise _bad(
                    f"{where}: {loc or 'point'}: {err['msg']}; nothing was written",
                    'Each point is {"id": str, "vector": [float, ...], "payload": {str: str}}',
                ) from None
        else:
            raise _bad(f"{where} must be a KBPoint or a mapping, not {type(raw).__name__}")
        if not isinstance(point.id, str) or not point.id.strip():
            raise _bad(f"{where}: id is empty; nothing was written")
        _check_string(f"{where}: id", point.id, max_chars=MAX_POINT_ID_CHARS)
        try:
            vec = _unit_vector(f"{where}: vector", point.vector, self.dimension)
        except MemoryInputError as exc:
            raise _bad(
                exc.message + "; nothing was written", *exc.recovery_suggestions[:1]
            ) from None
        if not isinstance(point.payload, dict):
            raise _bad(f"{where}: payload must be a dict of str to str; nothing was written")
        for key, value in point.payload.items():
            if not isinstance(key, str) or not isinstance(value, str):
                raise _bad(f"{where}: payload must map str to str; nothing was written")
            _check_string(f"{where}: payload key {key[:40]!r}", key)
            _check_string(f"{where}: payload[{key[:40]!r}]", value)
        payload = dumps(point.payload)
        if len(payload.encode("utf-8")) > MAX_PAYLOAD_BYTES:
            raise _bad(
                f"{where}: payload is over {MAX_PAYLOAD_BYTES:,} bytes as JSON; nothing was written"
            )
        return point.id, vec, payload

    def upsert_vectors(
        self, kb_name: str, points: Sequence[KBPoint | Mapping[str, Any]]
    ) -> UpsertResult:
        """Insert or replace points, all or nothing; ``upserted_count`` counts distinct ids.

        When one call repeats an id, the last point with it wins.
        """
        kb_name = check_kb_name(kb_name)
        if isinstance(points, str | bytes | Mapping) or not isinstance(points, Sequence):
            raise _bad(f"points must be a list of points, not {type(points).__name__}")
        checked: dict[str, tuple[Vectors, str]] = {}
        for i, raw in enumerate(points):
            pid, vec, payload = self._check_point(i, raw)
            checked.pop(pid, None)  # keep the order of the last occurrence
            checked[pid] = (vec, payload)
        if not checked:
            return UpsertResult(success=True, upserted_count=0)
        return self._write(kb_name, checked)

    def _write(self, kb_name: str, checked: dict[str, tuple[Vectors, str]]) -> UpsertResult:
        now = self._clock.now().isoformat()
        conn = self._db.connection
        try:
            with sql_errors(f"upserting into {kb_name}"), self._db.transaction() as tx:
                tx.executemany(
                    "INSERT INTO kb_points (kb_name, point_id, vector, payload, updated_at)"
                    " VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (kb_name, point_id) DO UPDATE SET vector = excluded.vector,"
                    " payload = excluded.payload, updated_at = excluded.updated_at",
                    [
                        (kb_name, pid, to_blob(vec), payload, now)
                        for pid, (vec, payload) in checked.items()
                    ],
                )
        except BaseException:
            self._drop(kb_name)
            raise
        if conn.in_transaction:  # joined an outer transaction that may still roll back
            self._drop(kb_name)
        else:
            with self._indexes.lock:
                kb = self._indexes.peek(kb_name)
                if kb is not None:
                    known = [kb.ids[pid] for pid in checked if pid in kb.ids]
                    if known:  # replaced points: drop their old vectors first
                        kb.index.remove(np.array(known, dtype=np.int64))
                    ids = np.array([kb.int_id(pid) for pid in checked], dtype=np.int64)
                    vecs = np.stack([vec for vec, _ in checked.values()])
                    kb.index.add(ids, vecs)
        return UpsertResult(success=True, upserted_count=len(checked))

    def upsert_texts(self, kb_name: str, docs: Mapping[str, str]) -> UpsertResult:
        """Embed each text and upsert it with payload ``{"content": text}``."""
        kb_name = check_kb_name(kb_name)
        if not isinstance(docs, Mapping):
            raise _bad(f"docs must map ids to texts, not {type(docs).__name__}")
        items = list(docs.items())
        for i, (pid, text) in enumerate(items):
            if not isinstance(pid, str) or not isinstance(text, str):
                raise _bad(f"document {i}: ids and texts must be strings; nothing was written")
            if not text.strip():
                raise _bad(f"document {pid[:40]!r} is empty; nothing was written")
            _check_string(f"document {pid[:40]!r}", text)
        if not items:
            return UpsertResult(success=True, upserted_count=0)
        vecs = self.embedder.embed([text for _, text in items])
        points = [
            KBPoint.model_construct(id=pid, vector=vec.tolist(), payload={"content": text})
            for (pid, text), vec in zip(items, vecs, strict=True)
        ]
        return self.upsert_vectors(kb_name, points)

    # ── the rest ──────────────────────────────────────────────────────────
    def count(self, kb_name: str) -> int:
        kb_name = check_kb_name(kb_name)
        with sql_errors(f"counting {kb_name}"):
            row = self._db.connection.execute(
                "SELECT COUNT(*) FROM kb_points WHERE kb_name = ?", (kb_name,)
            ).fetchone()
        return int(row[0])

    def delete(self, kb_name: str, ids: Sequence[str]) -> int:
        """Delete points by id; how many existed."""
        kb_name = check_kb_name(kb_name)
        if isinstance(ids, str | bytes) or not isinstance(ids, Sequence):
            raise _bad(f"ids must be a list of ids, not {type(ids).__name__}")
        wanted = list(dict.fromkeys(str(i) for i in ids))
        if not wanted:
            return 0
        conn = self._db.connection
        try:
            with sql_errors(f"deleting from {kb_name}"), self._db.transaction() as tx:
                removed = 0
                for pid in wanted:
                    cur = tx.execute(
                        "DELETE FROM kb_points WHERE kb_name = ? AND point_id = ?", (kb_name, pid)
                    )
                    removed += cur.rowcount
        except BaseException:
            self._drop(kb_name)
            raise
        if conn.in_transaction:
            self._drop(kb_name)
        else:
            with self._indexes.lock:
                kb = self._indexes.peek(kb_name)
                if kb is not None:
                    gone = [kb.ids[p] for p in wanted if p in kb.ids]
                    kb.index.remove(np.array(gone, dtype=np.int64))
        return removed


__all__ = [
    "KB_NAMES",
    "KBHit",
    "KBPoint",
    "KnowledgeBaseName",
    "KnowledgeBases",
    "UpsertResult",
    "check_kb_name",
    "snippet",
]
