"""User facts: hypotheses about the user, with an embedding of the fact (``memory_user_facts``).

Observing a fact that is already known confirms it instead of inserting a copy: the same
normalised text (case and whitespace folded; any category), or a cosine of at least
``fact_similarity`` (0.9) with a fact of the same category. Confirming adds one to the
evidence count, moves ``last_confirmed`` to now and raises the confidence to
``min(1, max(old, new) + 0.05)``.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from rilai_desktop.contracts.memory import (
    UserFact,
)
from rilai_desktop.memory._sql import sql_errors
from rilai_desktop.memory.item_search import from_blob
from rilai_desktop.memory.items import to_blob
from rilai_desktop.memory.ports import Vectors
from rilai_desktop.memory.relationship.checks import (
    CONFIRM_BOOST,
    FACT_CATEGORIES,
    MAX_FACT_CHARS,
    MAX_SOURCE_CHARS,
    _bad,
    _choice,
    _text,
    _ts,
    _unit,
    fact_hash,
)
from rilai_desktop.memory.relationship.rows import _FACT_COLS, _fact
from rilai_desktop.memory.relationship.store import RelationshipStore


@dataclass
class _FactOutcome:
    fact: UserFact
    confirmed: bool


class FactMemory(RelationshipStore):
    """Observe (or confirm), read, list, edit and delete user facts."""

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
