"""Seed 000's companion memory: episodes, user facts, goals and open threads (layers 3 and 7).

Three tables of migration 0003 hold it: ``memory_episodes`` (what happened, with an
embedding of the summary), ``memory_user_facts`` (hypotheses about the user, with an
embedding of the fact) and ``memory_goals`` (goals and open threads with optional
deadlines). Every write goes through ``db.transaction()``, so it joins a turn's commit when
one is open. Times are stored as fixed-width UTC ISO-8601 text
(``2026-01-20T10:00:00.000000+00:00``) so they order as text.

Observing a fact that is already known confirms it instead of inserting a copy: the same
normalised text (case and whitespace folded; any category), or a cosine of at least
``fact_similarity`` (0.9) with a fact of the same category. Confirming adds one to the
evidence count, moves ``last_confirmed`` to now and raises the confidence to
``min(1, max(old, new) + 0.05)``.

Recall ranks episodes and facts by ``0.7·cosine + 0.2·prior + 0.1·recency`` (prior =
importance or confidence; recency halves every 30 days) by brute force over a cached
matrix of the stored embeddings; the cache is dropped on every write through this class,
on a commit by another connection (``PRAGMA data_version``) and when a table's row count
or highest rowid changes (a row inserted or deleted by other code on the same connection;
code that *edits* rows by other means should call ``invalidate_cache()``); it is rebuilt
lazily and only ever cached from committed data. The embedding model that produced the stored
vectors is recorded in ``memory_meta``; a different model (or dimension) re-embeds every
row once, so vectors from two models are never compared.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sqlite3
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt
from pydantic import AwareDatetime, Field, ValidationError

from rilai_desktop.contracts._base import Contract
from rilai_desktop.contracts.memory import (
    EpisodicEvent,
    MemoryCandidate,
    UserFact,
    UserFactCategory,
)
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory._sql import Clock, DerivedCache, dumps, sql_errors, utc_now
from rilai_desktop.memory.items import from_blob, to_blob
from rilai_desktop.memory.ports import Database, Embedder, Vectors

GoalKind = Literal["goal", "open_thread"]
GoalStatus = Literal["open", "done", "dropped"]

FACT_CATEGORIES: tuple[str, ...] = get_args(UserFactCategory)
GOAL_KINDS: tuple[str, ...] = get_args(GoalKind)
GOAL_STATUSES: tuple[str, ...] = get_args(GoalStatus)

MAX_SUMMARY_CHARS = 500
MAX_FACT_CHARS = 300
MAX_TITLE_CHARS = 300
MAX_NOTES_CHARS = 10_000
MAX_LABEL_CHARS = 100  # one emotion / participant / tag
MAX_LABELS = 50
MAX_SOURCE_CHARS = 200
MAX_SESSION_CHARS = 200
MAX_TURN_REFS = 1000
MAX_QUERY_CHARS = 4000  # recall cuts longer queries (the embedder sees far less anyway)
MIN_CANDIDATE_IMPORTANCE = 0.3
CONFIRM_BOOST = 0.05

W_SIMILARITY = 0.7
W_PRIOR = 0.2
W_RECENCY = 0.1
RECENCY_HALF_LIFE_DAYS = 30.0

_META_KEY = "companion_embedding_model"
_EPISODE_COLS = (
    "id, timestamp, summary, emotions, participants, tags, importance, turn_id, session_id"
)
_FACT_COLS = (
    "id, fact, category, confidence, source, first_observed, last_confirmed, evidence_count"
)
_GOAL_COLS = "id, kind, title, status, deadline, notes, source_turn_ids, created_at, updated_at"
_EPISODE_FIELDS = frozenset(
    {
        "summary",
        "emotions",
        "participants",
        "tags",
        "importance",
        "turn_id",
        "session_id",
        "timestamp",
    }
)
_GOAL_FIELDS = frozenset({"title", "kind", "status", "deadline", "notes", "source_turn_ids"})
_SPACE = re.compile(r"\s+")
_REEMBED_BATCH = 256


class CompanionGoal(Contract):
    """A goal the user is working towards, or an open thread Rilai should come back to."""

    id: str = Field(description="UUID")
    kind: GoalKind = Field(default="goal", description="goal or open_thread")
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS, description="What it is")
    status: GoalStatus = Field(default="open", description="open, done or dropped")
    deadline: AwareDatetime | None = Field(default=None, description="When it is due")
    notes: str = Field(default="", max_length=MAX_NOTES_CHARS, description="Free notes")
    source_turn_ids: list[str] = Field(default_factory=list, description="Turns it came from")
    created_at: AwareDatetime = Field(description="When it was recorded")
    updated_at: AwareDatetime = Field(description="When it last changed")


# ── validation ───────────────────────────────────────────────────────────────


def _bad(message: str, hint: str | None = None) -> MemoryInputError:
    return MemoryInputError(
        message + "; nothing was written",
        recovery_suggestions=[hint] if hint else None,
    )


def _text(name: str, value: Any, *, max_chars: int, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _bad(f"{name} must be a string, not {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise _bad(f"{name} is empty", f"Give {name} some text")
    if len(value) > max_chars:
        raise _bad(
            f"{name} has {len(value):,} characters (limit {max_chars:,})",
            f"Shorten {name} to at most {max_chars} characters",
        )
    if "\x00" in value:
        raise _bad(f"{name} contains a NUL character", "Remove the \\x00 characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad(
            f"{name} contains an unpaired surrogate and is not valid Unicode text",
            "Decode the text properly (UTF-8) before storing it",
        ) from None
    return value


def _labels(name: str, values: Any) -> list[str]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise _bad(f"{name} must be a list of strings, not {type(values).__name__}")
    if len(values) > MAX_LABELS:
        raise _bad(f"{name} has {len(values)} entries (limit {MAX_LABELS})")
    return [_text(f"{name}[{i}]", v, max_chars=MAX_LABEL_CHARS) for i, v in enumerate(values)]


def _turn_refs(values: Any) -> list[str]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise _bad(f"source_turn_ids must be a list, not {type(values).__name__}")
    if len(values) > MAX_TURN_REFS:
        raise _bad(f"source_turn_ids has {len(values)} entries (limit {MAX_TURN_REFS})")
    out: list[str] = []
    for i, v in enumerate(values):
        if isinstance(v, int) and not isinstance(v, bool):
            v = str(v)
        out.append(_text(f"source_turn_ids[{i}]", v, max_chars=MAX_LABEL_CHARS))
    return out


def _unit(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad(f"{name} must be a number between 0 and 1, not {type(value).__name__}")
    out = float(value)
    if not math.isfinite(out) or not 0.0 <= out <= 1.0:
        raise _bad(f"{name} must be between 0 and 1, got {value!r}")
    return out


def _int(name: str, value: Any, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{name} must be an integer, not {type(value).__name__}")
    if value < minimum:
        raise _bad(f"{name} must be ≥ {minimum}, got {value}")
    return value


def _aware(name: str, value: Any) -> datetime:
    if not isinstance(value, datetime):
        raise _bad(f"{name} must be a datetime, not {type(value).__name__}")
    if value.tzinfo is None or value.utcoffset() is None:
        raise _bad(
            f"{name} is a naive datetime ({value.isoformat()})",
            "Pass a timezone-aware datetime, e.g. datetime.now(UTC)",
        )
    return value


def _choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise _bad(f"{name} {value!r} is not one of: {', '.join(allowed)}")
    return value


def _ts(dt: datetime) -> str:
    """Fixed-width UTC ISO-8601, so stored times order as text."""
    return dt.astimezone(UTC).isoformat(timespec="microseconds")


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def fact_hash(text: str) -> str:
    """sha256 of the fact with case and whitespace folded (the ``fact_hash`` column)."""
    norm = _SPACE.sub(" ", text.strip().casefold())
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


def _norm_title(text: str) -> str:
    return _SPACE.sub(" ", text.strip().casefold())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# ── rows ─────────────────────────────────────────────────────────────────────


def _episode(row: Sequence[Any]) -> EpisodicEvent:
    return EpisodicEvent(
        id=row[0],
        timestamp=_dt(row[1]),
        summary=row[2],
        emotions=json.loads(row[3]),
        participants=json.loads(row[4]),
        tags=json.loads(row[5]),
        importance=row[6],
        turn_id=row[7],
        session_id=row[8],
    )


def _fact(row: Sequence[Any]) -> UserFact:
    return UserFact(
        id=row[0],
        fact=row[1],
        category=row[2],
        confidence=row[3],
        source=row[4],
        first_observed=_dt(row[5]),
        last_confirmed=_dt(row[6]),
        evidence_count=row[7],
    )


def _goal(row: Sequence[Any]) -> CompanionGoal:
    return CompanionGoal(
        id=row[0],
        kind=row[1],
        title=row[2],
        status=row[3],
        deadline=None if row[4] is None else _dt(row[4]),
        notes=row[5],
        source_turn_ids=json.loads(row[6]),
        created_at=_dt(row[7]),
        updated_at=_dt(row[8]),
    )


@dataclass
class _Matrix:
    """Every row of one table, as arrays for brute-force scoring."""

    ids: list[str]
    vectors: Vectors  # (n, dim), unit rows
    prior: npt.NDArray[np.float64]  # importance or confidence
    times: npt.NDArray[np.float64]  # POSIX seconds of timestamp / last_confirmed
    fingerprint: tuple[int, int] = (0, 0)  # (row count, max rowid) when loaded


@dataclass
class _FactOutcome:
    fact: UserFact
    confirmed: bool


class CompanionMemory:
    """Episodes, user facts and goals/open threads over the shared database."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        clock: Clock = utc_now,
        fact_similarity: float = 0.9,
    ) -> None:
        self._db = db
        self.embedder = embedder
        self._clock = clock
        self.fact_similarity = fact_similarity
        self._derived: DerivedCache[str, _Matrix] = DerivedCache(lambda: self._db.connection)
        self._model_checked = False

    # ── plumbing ──────────────────────────────────────────────────────────
    def _now(self) -> datetime:
        return _aware("the clock's time", self._clock())

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
        with sql_errors("re-embedding companion memory"):
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
        with sql_errors("re-embedding companion memory"), self._db.transaction() as tx:
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

    # ── episodes ──────────────────────────────────────────────────────────
    def _check_episode(
        self,
        summary: Any,
        emotions: Any,
        participants: Any,
        tags: Any,
        importance: Any,
        turn_id: Any,
        session_id: Any,
        timestamp: Any,
    ) -> EpisodicEvent:
        return EpisodicEvent(
            id=str(uuid.uuid4()),
            timestamp=self._now() if timestamp is None else _aware("timestamp", timestamp),
            summary=_text("summary", summary, max_chars=MAX_SUMMARY_CHARS),
            emotions=_labels("emotions", emotions),
            participants=_labels("participants", participants),
            tags=_labels("tags", tags),
            importance=_unit("importance", importance),
            turn_id=_int("turn_id", turn_id),
            session_id=_text(
                "session_id", session_id, max_chars=MAX_SESSION_CHARS, allow_empty=True
            ),
        )

    @staticmethod
    def _insert_episode(tx: sqlite3.Connection, event: EpisodicEvent, vec: Vectors) -> None:
        tx.execute(
            f"INSERT INTO memory_episodes ({_EPISODE_COLS}, embedding)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                event.id,
                _ts(event.timestamp),
                event.summary,
                dumps(event.emotions),
                dumps(event.participants),
                dumps(event.tags),
                event.importance,
                event.turn_id,
                event.session_id,
                to_blob(vec),
            ),
        )

    def add_episode(
        self,
        summary: str,
        *,
        emotions: Sequence[str] = (),
        participants: Sequence[str] = (),
        tags: Sequence[str] = (),
        importance: float = 0.5,
        turn_id: int = 0,
        session_id: str = "",
        timestamp: datetime | None = None,
    ) -> EpisodicEvent:
        """Store an episode (with the embedding of its summary) and return it."""
        event = self._check_episode(
            summary, emotions, participants, tags, importance, turn_id, session_id, timestamp
        )
        self._ensure_model()
        vec = self._embed([event.summary])[0]
        try:
            with sql_errors("saving the episode"), self._db.transaction() as tx:
                self._insert_episode(tx, event, vec)
        finally:
            self._invalidate()
        return event

    def get_episode(self, episode_id: str) -> EpisodicEvent | None:
        with sql_errors("reading the episode"):
            row = self._db.connection.execute(
                f"SELECT {_EPISODE_COLS} FROM memory_episodes WHERE id = ?", (str(episode_id),)
            ).fetchone()
        return None if row is None else _episode(row)

    def list_episodes(self, limit: int = 50, since: datetime | None = None) -> list[EpisodicEvent]:
        """The most recent episodes first; ``since`` keeps those at or after that time."""
        limit = _int("limit", limit, minimum=1)
        sql = f"SELECT {_EPISODE_COLS} FROM memory_episodes"
        args: list[Any] = []
        if since is not None:
            sql += " WHERE timestamp >= ?"
            args.append(_ts(_aware("since", since)))
        sql += " ORDER BY timestamp DESC, rowid DESC LIMIT ?"
        args.append(limit)
        with sql_errors("listing episodes"):
            rows = self._db.connection.execute(sql, args).fetchall()
        return [_episode(r) for r in rows]

    def update_episode(self, episode_id: str, **fields: Any) -> EpisodicEvent:
        """Change some fields of an episode (re-embedding when the summary changes)."""
        unknown = sorted(set(fields) - _EPISODE_FIELDS)
        if unknown:
            raise _bad(
                f"update_episode() cannot change {', '.join(unknown)}",
                f"Fields that can change: {', '.join(sorted(_EPISODE_FIELDS))}",
            )
        if "timestamp" in fields and fields["timestamp"] is None:
            raise _bad("timestamp cannot be cleared", "Pass a timezone-aware datetime")
        current = self.get_episode(episode_id)
        if current is None:
            raise _bad(f"no such episode: {episode_id!r}", "list_episodes() shows the ids")
        merged = current.model_dump()
        merged.update(fields)
        checked = self._check_episode(
            merged["summary"],
            merged["emotions"],
            merged["participants"],
            merged["tags"],
            merged["importance"],
            merged["turn_id"],
            merged["session_id"],
            merged["timestamp"],
        )
        event = checked.model_copy(update={"id": current.id})
        self._ensure_model()
        vec = self._embed([event.summary])[0] if event.summary != current.summary else None
        try:
            with sql_errors("updating the episode"), self._db.transaction() as tx:
                cur = tx.execute(
                    "UPDATE memory_episodes SET timestamp = ?, summary = ?, emotions = ?,"
                    " participants = ?, tags = ?, importance = ?, turn_id = ?, session_id = ?"
                    " WHERE id = ?",
                    (
                        _ts(event.timestamp),
                        event.summary,
                        dumps(event.emotions),
                        dumps(event.participants),
                        dumps(event.tags),
                        event.importance,
                        event.turn_id,
                        event.session_id,
                        event.id,
                    ),
                )
                if cur.rowcount == 0:
                    raise _bad(f"no such episode: {episode_id!r}")
                if vec is not None:
                    tx.execute(
                        "UPDATE memory_episodes SET embedding = ? WHERE id = ?",
                        (to_blob(vec), event.id),
                    )
        finally:
            self._invalidate()
        return event

    def delete_episode(self, episode_id: str) -> bool:
        try:
            with sql_errors("deleting the episode"), self._db.transaction() as tx:
                cur = tx.execute("DELETE FROM memory_episodes WHERE id = ?", (str(episode_id),))
                return cur.rowcount > 0
        finally:
            self._invalidate()

    # ── user facts ────────────────────────────────────────────────────────
    def _check_fact(self, fact: Any, category: Any, confidence: Any, source: Any) -> None:
        _text("fact", fact, max_chars=MAX_FACT_CHARS)
        _choice("category", category, FACT_CATEGORIES)
        _unit("confidence", confidence)
        _text("source", source, max_chars=MAX_SOURCE_CHARS)

    def _observe_tx(
        self,
        tx: sqlite3.Connection,
        fact: str,
        category: str,
        confidence: float,
        source: str,
        vec: Vectors,
        now: datetime,
    ) -> _FactOutcome:
        digest = fact_hash(fact)
        match = tx.execute(
            "SELECT id FROM memory_user_facts WHERE fact_hash = ?"
            " ORDER BY first_observed, rowid LIMIT 1",
            (digest,),
        ).fetchone()
        match_id: str | None = None if match is None else match[0]
        if match_id is None:
            dim = self.embedder.dimension
            best = -2.0
            for rid, blob in tx.execute(
                "SELECT id, embedding FROM memory_user_facts WHERE category = ?", (category,)
            ):
                if blob is None or len(blob) != 4 * dim:
                    continue
                sim = float(np.dot(from_blob(blob, dim), vec))
                if sim >= self.fact_similarity and sim > best:
                    best, match_id = sim, rid
        if match_id is not None:
            row = tx.execute(
                "SELECT confidence FROM memory_user_facts WHERE id = ?", (match_id,)
            ).fetchone()
            new_conf = min(1.0, max(float(row[0]), confidence) + CONFIRM_BOOST)
            tx.execute(
                "UPDATE memory_user_facts SET evidence_count = evidence_count + 1,"
                " last_confirmed = ?, confidence = ? WHERE id = ?",
                (_ts(now), new_conf, match_id),
            )
            found = tx.execute(
                f"SELECT {_FACT_COLS} FROM memory_user_facts WHERE id = ?", (match_id,)
            ).fetchone()
            return _FactOutcome(_fact(found), confirmed=True)
        out = UserFact(
            id=str(uuid.uuid4()),
            fact=fact,
            category=category,
            confidence=confidence,
            source=source,
            first_observed=now,
            last_confirmed=now,
            evidence_count=1,
        )
        tx.execute(
            f"INSERT INTO memory_user_facts ({_FACT_COLS}, fact_hash, embedding)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                out.id,
                out.fact,
                out.category,
                out.confidence,
                out.source,
                _ts(now),
                _ts(now),
                1,
                digest,
                to_blob(vec),
            ),
        )
        return _FactOutcome(out, confirmed=False)

    def observe_fact(self, fact: str, category: str, *, confidence: float, source: str) -> UserFact:
        """Record a fact about the user, or confirm the known fact it repeats."""
        return self._observe(fact, category, confidence=confidence, source=source).fact

    def _observe(self, fact: str, category: str, *, confidence: float, source: str) -> _FactOutcome:
        self._check_fact(fact, category, confidence, source)
        self._ensure_model()
        vec = self._embed([fact])[0]
        now = self._now()
        try:
            with sql_errors("saving the fact"), self._db.transaction() as tx:
                return self._observe_tx(tx, fact, category, float(confidence), source, vec, now)
        finally:
            self._invalidate()

    def get_fact(self, fact_id: str) -> UserFact | None:
        with sql_errors("reading the fact"):
            row = self._db.connection.execute(
                f"SELECT {_FACT_COLS} FROM memory_user_facts WHERE id = ?", (str(fact_id),)
            ).fetchone()
        return None if row is None else _fact(row)

    def list_facts(
        self, category: str | None = None, min_confidence: float = 0.0
    ) -> list[UserFact]:
        """Facts at or above ``min_confidence``, most confident first."""
        min_confidence = _unit("min_confidence", min_confidence)
        sql = f"SELECT {_FACT_COLS} FROM memory_user_facts WHERE confidence >= ?"
        args: list[Any] = [min_confidence]
        if category is not None:
            sql += " AND category = ?"
            args.append(_choice("category", category, FACT_CATEGORIES))
        sql += " ORDER BY confidence DESC, last_confirmed DESC, rowid"
        with sql_errors("listing facts"):
            rows = self._db.connection.execute(sql, args).fetchall()
        return [_fact(r) for r in rows]

    def update_fact(
        self,
        fact_id: str,
        fact: str | None = None,
        category: str | None = None,
        confidence: float | None = None,
    ) -> UserFact:
        """Edit a fact (the user correcting Rilai); a new text is re-embedded and re-hashed."""
        current = self.get_fact(fact_id)
        if current is None:
            raise _bad(f"no such fact: {fact_id!r}", "list_facts() shows the ids")
        new_fact = current.fact if fact is None else _text("fact", fact, max_chars=MAX_FACT_CHARS)
        new_cat = (
            current.category if category is None else _choice("category", category, FACT_CATEGORIES)
        )
        new_conf = current.confidence if confidence is None else _unit("confidence", confidence)
        self._ensure_model()
        vec = self._embed([new_fact])[0] if new_fact != current.fact else None
        try:
            with sql_errors("updating the fact"), self._db.transaction() as tx:
                cur = tx.execute(
                    "UPDATE memory_user_facts SET fact = ?, category = ?, confidence = ?,"
                    " fact_hash = ? WHERE id = ?",
                    (new_fact, new_cat, new_conf, fact_hash(new_fact), current.id),
                )
                if cur.rowcount == 0:
                    raise _bad(f"no such fact: {fact_id!r}")
                if vec is not None:
                    tx.execute(
                        "UPDATE memory_user_facts SET embedding = ? WHERE id = ?",
                        (to_blob(vec), current.id),
                    )
        finally:
            self._invalidate()
        return current.model_copy(
            update={"fact": new_fact, "category": new_cat, "confidence": new_conf}
        )

    def delete_fact(self, fact_id: str) -> bool:
        try:
            with sql_errors("deleting the fact"), self._db.transaction() as tx:
                cur = tx.execute("DELETE FROM memory_user_facts WHERE id = ?", (str(fact_id),))
                return cur.rowcount > 0
        finally:
            self._invalidate()

    # ── goals and open threads ────────────────────────────────────────────
    def _insert_goal(self, tx: sqlite3.Connection, goal: CompanionGoal) -> None:
        tx.execute(
            f"INSERT INTO memory_goals ({_GOAL_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                goal.id,
                goal.kind,
                goal.title,
                goal.status,
                None if goal.deadline is None else _ts(goal.deadline),
                goal.notes,
                dumps(goal.source_turn_ids),
                _ts(goal.created_at),
                _ts(goal.updated_at),
            ),
        )

    def _new_goal(
        self,
        title: Any,
        kind: Any,
        deadline: Any,
        notes: Any,
        source_turn_ids: Any,
    ) -> CompanionGoal:
        now = self._now()
        return CompanionGoal(
            id=str(uuid.uuid4()),
            kind=_choice("kind", kind, GOAL_KINDS),
            title=_text("title", title, max_chars=MAX_TITLE_CHARS),
            status="open",
            deadline=None if deadline is None else _aware("deadline", deadline),
            notes=_text("notes", notes, max_chars=MAX_NOTES_CHARS, allow_empty=True),
            source_turn_ids=_turn_refs(source_turn_ids),
            created_at=now,
            updated_at=now,
        )

    def add_goal(
        self,
        title: str,
        *,
        kind: GoalKind = "goal",
        deadline: datetime | None = None,
        notes: str = "",
        source_turn_ids: Sequence[str | int] = (),
    ) -> CompanionGoal:
        goal = self._new_goal(title, kind, deadline, notes, source_turn_ids)
        with sql_errors("saving the goal"), self._db.transaction() as tx:
            self._insert_goal(tx, goal)
        return goal

    def get_goal(self, goal_id: str) -> CompanionGoal | None:
        with sql_errors("reading the goal"):
            row = self._db.connection.execute(
                f"SELECT {_GOAL_COLS} FROM memory_goals WHERE id = ?", (str(goal_id),)
            ).fetchone()
        return None if row is None else _goal(row)

    def update_goal(self, goal_id: str, **fields: Any) -> CompanionGoal:
        """Change some fields of a goal or thread (``deadline=None`` clears the deadline)."""
        unknown = sorted(set(fields) - _GOAL_FIELDS)
        if unknown:
            raise _bad(
                f"update_goal() cannot change {', '.join(unknown)}",
                f"Fields that can change: {', '.join(sorted(_GOAL_FIELDS))}",
            )
        current = self.get_goal(goal_id)
        if current is None:
            raise _bad(f"no such goal: {goal_id!r}", "list_goals(status=None) shows the ids")
        changes: dict[str, Any] = {}
        if "title" in fields:
            changes["title"] = _text("title", fields["title"], max_chars=MAX_TITLE_CHARS)
        if "kind" in fields:
            changes["kind"] = _choice("kind", fields["kind"], GOAL_KINDS)
        if "status" in fields:
            changes["status"] = _choice("status", fields["status"], GOAL_STATUSES)
        if "deadline" in fields:
            dl = fields["deadline"]
            changes["deadline"] = None if dl is None else _aware("deadline", dl)
        if "notes" in fields:
            changes["notes"] = _text(
                "notes", fields["notes"], max_chars=MAX_NOTES_CHARS, allow_empty=True
            )
        if "source_turn_ids" in fields:
            changes["source_turn_ids"] = _turn_refs(fields["source_turn_ids"])
        changes["updated_at"] = self._now()
        goal = CompanionGoal.model_validate({**current.model_dump(), **changes})
        with sql_errors("updating the goal"), self._db.transaction() as tx:
            cur = tx.execute(
                "UPDATE memory_goals SET kind = ?, title = ?, status = ?, deadline = ?,"
                " notes = ?, source_turn_ids = ?, updated_at = ? WHERE id = ?",
                (
                    goal.kind,
                    goal.title,
                    goal.status,
                    None if goal.deadline is None else _ts(goal.deadline),
                    goal.notes,
                    dumps(goal.source_turn_ids),
                    _ts(goal.updated_at),
                    goal.id,
                ),
            )
            if cur.rowcount == 0:
                raise _bad(f"no such goal: {goal_id!r}")
        return goal

    def close_goal(
        self, goal_id: str, status: Literal["done", "dropped"] = "done"
    ) -> CompanionGoal:
        _choice("status", status, ("done", "dropped"))
        return self.update_goal(goal_id, status=status)

    def delete_goal(self, goal_id: str) -> bool:
        with sql_errors("deleting the goal"), self._db.transaction() as tx:
            cur = tx.execute("DELETE FROM memory_goals WHERE id = ?", (str(goal_id),))
            return cur.rowcount > 0

    def list_goals(
        self, status: GoalStatus | None = "open", kind: GoalKind | None = None
    ) -> list[CompanionGoal]:
        """Goals (``status=None``: any status), soonest deadline first, undated last."""
        sql = f"SELECT {_GOAL_COLS} FROM memory_goals WHERE 1 = 1"
        args: list[Any] = []
        if status is not None:
            sql += " AND status = ?"
            args.append(_choice("status", status, GOAL_STATUSES))
        if kind is not None:
            sql += " AND kind = ?"
            args.append(_choice("kind", kind, GOAL_KINDS))
        sql += " ORDER BY deadline IS NULL, deadline, created_at, rowid"
        with sql_errors("listing goals"):
            rows = self._db.connection.execute(sql, args).fetchall()
        return [_goal(r) for r in rows]

    def due_within(self, delta: timedelta) -> list[CompanionGoal]:
        """Open goals and threads whose deadline falls between now and now + ``delta``."""
        if not isinstance(delta, timedelta):
            raise _bad(f"delta must be a timedelta, not {type(delta).__name__}")
        if delta < timedelta(0):
            raise _bad(f"delta must not be negative, got {delta}")
        now = self._now()
        with sql_errors("listing due goals"):
            rows = self._db.connection.execute(
                f"SELECT {_GOAL_COLS} FROM memory_goals WHERE status = 'open'"
                " AND deadline IS NOT NULL AND deadline >= ? AND deadline <= ?"
                " ORDER BY deadline, created_at, rowid",
                (_ts(now), _ts(now + delta)),
            ).fetchall()
        return [_goal(r) for r in rows]

    # ── recall ────────────────────────────────────────────────────────────
    def _rank(self, matrix: _Matrix, qvec: Vectors | None, k: int, now: datetime) -> list[str]:
        if k == 0 or not matrix.ids:
            return []
        if qvec is None:
            sim = np.zeros(len(matrix.ids), dtype=np.float64)
        else:
            sim = (matrix.vectors @ qvec).astype(np.float64)
        age_days = np.maximum(now.timestamp() - matrix.times, 0.0) / 86_400.0
        recency = np.power(0.5, age_days / RECENCY_HALF_LIFE_DAYS)
        score = W_SIMILARITY * sim + W_PRIOR * matrix.prior + W_RECENCY * recency
        order = np.argsort(-score, kind="stable")[:k]
        return [matrix.ids[int(i)] for i in order]

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

    def recall_for_workspace(
        self, query: str, *, k_episodes: int = 3, k_facts: int = 5, k_threads: int = 5
    ) -> dict[str, list[dict[str, Any]]]:
        """The MEMORY_RETRIEVED payload for a turn: relevant episodes, facts, open threads.

        An empty query ranks by importance/confidence and recency alone.
        """
        if not isinstance(query, str):
            raise _bad(f"query must be a string, not {type(query).__name__}")
        k_episodes = _int("k_episodes", k_episodes)
        k_facts = _int("k_facts", k_facts)
        k_threads = _int("k_threads", k_threads)
        self._ensure_model()
        text = query[:MAX_QUERY_CHARS]
        qvec = self._embed([text])[0] if text.strip() else None
        now = self._now()
        episode_ids = self._rank(self._matrix("episodes"), qvec, k_episodes, now)
        fact_ids = self._rank(self._matrix("facts"), qvec, k_facts, now)
        episodes = [
            _episode(r).model_dump(mode="json")
            for r in self._fetch("memory_episodes", _EPISODE_COLS, episode_ids)
        ]
        facts = [
            _fact(r).model_dump(mode="json")
            for r in self._fetch("memory_user_facts", _FACT_COLS, fact_ids)
        ]
        threads = [g.model_dump(mode="json") for g in self.list_goals("open")[:k_threads]]
        return {"episodes": episodes, "user_facts": facts, "open_threads": threads}

    # ── a turn's memory commit ────────────────────────────────────────────
    def apply_candidates(
        self,
        candidates: Sequence[MemoryCandidate | Mapping[str, Any]],
        *,
        session_id: str,
        turn_id: int,
    ) -> dict[str, int]:
        """Commit a turn's memory candidates in one transaction; a summary of what happened.

        Candidates under importance 0.3, with empty or unusable content (NUL, broken
        Unicode, a fact over 300 characters) are dropped; episode summaries and goal titles
        over their limit are cut with an ellipsis. A goal whose title repeats an open goal
        of the same kind re-affirms it (the turn is added to its ``source_turn_ids``) rather
        than adding a copy; ``goals`` counts goals added or re-affirmed.
        """
        session_id = _text("session_id", session_id, max_chars=MAX_SESSION_CHARS, allow_empty=True)
        turn_id = _int("turn_id", turn_id)
        if isinstance(candidates, str | bytes) or not isinstance(candidates, Sequence):
            raise _bad(f"candidates must be a list, not {type(candidates).__name__}")
        summary = {"episodes": 0, "facts_new": 0, "facts_confirmed": 0, "goals": 0, "dropped": 0}
        now = self._now()
        plan: list[tuple[str, Any]] = []
        texts: list[str] = []
        for raw in candidates:
            op = self._plan_candidate(raw, session_id, turn_id, now)
            if op is None:
                summary["dropped"] += 1
                continue
            plan.append(op)
            if op[0] == "episode":
                texts.append(op[1].summary)
            elif op[0] == "fact":
                texts.append(op[1][0])
        if not plan:
            return summary
        self._ensure_model()
        vecs = self._embed(texts) if texts else np.zeros((0, self.embedder.dimension), np.float32)
        v = 0
        try:
            with sql_errors("committing the turn's memories"), self._db.transaction() as tx:
                for kind, item in plan:
                    if kind == "episode":
                        self._insert_episode(tx, item, vecs[v])
                        v += 1
                        summary["episodes"] += 1
                    elif kind == "fact":
                        fact, category, confidence, source = item
                        out = self._observe_tx(tx, fact, category, confidence, source, vecs[v], now)
                        v += 1
                        summary["facts_confirmed" if out.confirmed else "facts_new"] += 1
                    else:
                        self._goal_tx(tx, item, turn_id, now)
                        summary["goals"] += 1
        finally:
            self._invalidate()
        return summary

    def _plan_candidate(
        self, raw: Any, session_id: str, turn_id: int, now: datetime
    ) -> tuple[str, Any] | None:
        try:
            cand = raw if isinstance(raw, MemoryCandidate) else MemoryCandidate.model_validate(raw)
        except ValidationError:
            return None
        if cand.importance < MIN_CANDIDATE_IMPORTANCE or not cand.content.strip():
            return None
        ctx = cand.context or {}
        try:
            if cand.type in ("episodic", "session_note"):
                tags = _optional_labels(ctx.get("tags"))
                if cand.type == "session_note" and "session_note" not in tags:
                    tags.append("session_note")
                event = self._check_episode(
                    _cut(cand.content, MAX_SUMMARY_CHARS),
                    _optional_labels(ctx.get("emotions")),
                    _optional_labels(ctx.get("participants")),
                    tags[:MAX_LABELS],
                    cand.importance,
                    turn_id,
                    session_id,
                    now,
                )
                return ("episode", event)
            if cand.type == "user_fact":
                category = ctx.get("category", "other")
                if category not in FACT_CATEGORIES:
                    category = "other"
                source = _cut(f"turn {turn_id} ({cand.source_agent})", MAX_SOURCE_CHARS)
                self._check_fact(cand.content, category, cand.importance, source)
                return ("fact", (cand.content, category, cand.importance, source))
            kind = ctx.get("kind", "goal")
            deadline = _optional_deadline(ctx.get("deadline"))
            goal = self._new_goal(
                _cut(cand.content, MAX_TITLE_CHARS),
                kind if kind in GOAL_KINDS else "goal",
                deadline,
                "",
                [str(turn_id)],
            )
            return ("goal", goal)
        except (MemoryInputError, ValidationError):
            return None

    def _goal_tx(
        self, tx: sqlite3.Connection, goal: CompanionGoal, turn_id: int, now: datetime
    ) -> None:
        want = _norm_title(goal.title)
        for gid, title, refs in tx.execute(
            "SELECT id, title, source_turn_ids FROM memory_goals"
            " WHERE status = 'open' AND kind = ? ORDER BY created_at, rowid",
            (goal.kind,),
        ).fetchall():
            if _norm_title(title) != want:
                continue
            turns = json.loads(refs)
            if str(turn_id) not in turns and len(turns) < MAX_TURN_REFS:
                turns.append(str(turn_id))
            tx.execute(
                "UPDATE memory_goals SET source_turn_ids = ?, updated_at = ? WHERE id = ?",
                (dumps(turns), _ts(now), gid),
            )
            if goal.deadline is not None:
                tx.execute(
                    "UPDATE memory_goals SET deadline = ? WHERE id = ? AND deadline IS NULL",
                    (_ts(goal.deadline), gid),
                )
            return
        self._insert_goal(tx, goal)


def _optional_labels(value: Any) -> list[str]:
    """A candidate context's list of labels, or [] when it is not a usable list."""
    if value is None:
        return []
    try:
        return _labels("labels", value)
    except MemoryInputError:
        return []


def _optional_deadline(value: Any) -> datetime | None:
    """A candidate context's deadline (aware datetime or ISO text), or None if unusable."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if isinstance(value, datetime) and value.tzinfo is not None and value.utcoffset() is not None:
        return value
    return None


__all__ = [
    "FACT_CATEGORIES",
    "GOAL_KINDS",
    "GOAL_STATUSES",
    "CompanionGoal",
    "CompanionMemory",
    "GoalKind",
    "GoalStatus",
    "fact_hash",
]
