"""RelationshipMemory: what Rilai knows of the user, for recall in a turn (seed 000).

Episodes (``episodes.py``), user facts (``facts.py``) and goals/open threads (``goals.py``)
combined over the shared database; this class adds the two things a turn needs: the
relevant episodes, facts and open threads for the workspace (``recall_for_workspace``) and
the commit of the turn's memory candidates in one transaction (``apply_candidates``).

Recall ranks episodes and facts by ``0.7·cosine + 0.2·prior + 0.1·recency`` (prior =
importance or confidence; recency halves every 30 days) by brute force over the cached
embedding matrices of ``store.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import ValidationError

from rilai_desktop.contracts.memory import (
    MemoryCandidate,
)
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory._sql import sql_errors
from rilai_desktop.memory.relationship.checks import (
    FACT_CATEGORIES,
    GOAL_KINDS,
    MAX_LABELS,
    MAX_QUERY_CHARS,
    MAX_SESSION_CHARS,
    MAX_SOURCE_CHARS,
    MAX_SUMMARY_CHARS,
    MAX_TITLE_CHARS,
    MIN_CANDIDATE_IMPORTANCE,
    _bad,
    _cut,
    _int,
    _optional_deadline,
    _optional_labels,
    _text,
)
from rilai_desktop.memory.relationship.episodes import EpisodeMemory
from rilai_desktop.memory.relationship.facts import FactMemory
from rilai_desktop.memory.relationship.goals import GoalMemory
from rilai_desktop.memory.relationship.rows import _EPISODE_COLS, _FACT_COLS, _episode, _fact


class RelationshipMemory(EpisodeMemory, FactMemory, GoalMemory):
    """Episodes, user facts and goals/open threads over the shared database."""

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
        ctl = self.controls
        skip: dict[str, set[str]] = {"episode": set(), "fact": set(), "goal": set()}
        pinned: dict[str, list[str]] = {"episode": [], "fact": [], "goal": []}
        lowered: dict[str, dict[str, float]] = {"episode": {}, "fact": {}}
        if ctl is not None:  # paused: never; pinned: always; "not relevant": lowered
            for kind in ("episode", "fact", "goal"):
                skip[kind] = ctl.paused(kind)
                pinned[kind] = ctl.pinned(kind)
            if qvec is not None:
                vec = qvec
                lowered = {
                    "episode": ctl.lowered("episode", lambda: vec),
                    "fact": ctl.lowered("fact", lambda: vec),
                }
        episode_ids = self._rank(
            self._matrix("episodes"),
            qvec,
            k_episodes,
            now,
            skip=skip["episode"],
            factors=lowered["episode"],
        )
        fact_ids = self._rank(
            self._matrix("facts"), qvec, k_facts, now, skip=skip["fact"], factors=lowered["fact"]
        )
        episode_ids += [i for i in pinned["episode"] if i not in episode_ids]
        fact_ids += [i for i in pinned["fact"] if i not in fact_ids]
        episodes = [
            _episode(r).model_dump(mode="json")
            for r in self._fetch("memory_episodes", _EPISODE_COLS, episode_ids)
        ]
        facts = [
            _fact(r).model_dump(mode="json")
            for r in self._fetch("memory_user_facts", _FACT_COLS, fact_ids)
        ]
        open_goals = [g for g in self.list_goals("open") if g.id not in skip["goal"]]
        first = set(pinned["goal"])
        chosen = [g for g in open_goals if g.id in first]
        chosen += [g for g in open_goals if g.id not in first][:k_threads]
        threads = [g.model_dump(mode="json") for g in chosen]
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
