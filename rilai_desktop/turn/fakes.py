"""Fakes for the turn's ports, shipped beside the real adapters (DESIGN rule 4).

- ``InMemoryTurnMemory``: a tiny memory that keeps what a turn commits and recalls it by
  shared words — enough to test that a fact told in one turn reaches a later one. Its
  ``threads`` (open goals and threads) are recalled on every turn, the first three, as
  the real memory lists its open goals. Its ``documents`` (knowledge base → id → text)
  are searched only for the knowledge bases a recall names (``kb_searches`` records
  which), scored by the share of the query's words a document holds.

The model fakes a turn test needs (``ScriptedLLM``, ``RoleModels`` for role → model and
``agent_answer`` for the agents' label schemas) are in ``llm/fake.py``: the turn talks to
models through the port in ``contracts/llm.py`` only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rilai_desktop.turn.ports import CommitPlan, Recall

_WORD = re.compile(r"[a-z0-9']+")
_STOP = frozenset(
    "i a an the to of and or is am are was my me you it in on at for do".split()  # noqa: SIM905
)


KNOWLEDGE_FLOOR = 0.3  # share of the query's words a document must hold to be recalled
MAX_KNOWLEDGE = 3


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


@dataclass
class InMemoryTurnMemory:
    facts: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    threads: list[dict[str, Any]] = field(default_factory=list)  # {"title", ...}
    documents: dict[str, dict[str, str]] = field(default_factory=dict)  # kb -> id -> text
    kb_searches: list[str] = field(default_factory=list)  # the knowledge bases searched
    commits: list[CommitPlan] = field(default_factory=list)

    def recall(self, query: str, *, k: int = 5, knowledge_bases: Sequence[str] = ()) -> Recall:
        q = _words(query)

        def hits(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
            scored = [(len(q & _words(str(r[key]))), i, r) for i, r in enumerate(rows)]
            return [r for s, _, r in sorted(scored, key=lambda t: (-t[0], t[1])) if s > 0][:k]

        facts = hits(self.facts, "fact")
        return Recall(
            episodes=hits(self.episodes, "summary"),
            user_facts=facts,
            open_threads=self.threads[:3],
            items=[{"content": f["fact"], "category": "fact"} for f in facts],
            knowledge=self._knowledge(q, knowledge_bases),
        )

    def _knowledge(self, q: set[str], knowledge_bases: Sequence[str]) -> list[dict[str, Any]]:
        hits: list[dict[str, Any]] = []
        for kb in knowledge_bases:
            docs = self.documents.get(kb)
            if not docs:
                continue  # an empty knowledge base is not searched
            self.kb_searches.append(kb)
            for doc_id, text in docs.items():
                score = len(q & _words(text)) / len(q) if q else 0.0
                if score >= KNOWLEDGE_FLOOR:
                    hits.append({"kb": kb, "id": doc_id, "text": text, "score": round(score, 4)})
        hits.sort(key=lambda h: (-h["score"], h["kb"], h["id"]))
        return hits[:MAX_KNOWLEDGE]

    def commit(self, plan: CommitPlan) -> dict[str, Any]:
        self.commits.append(plan)
        added = 0
        if plan.extract_items and plan.user_text.strip():
            self.facts.append(
                {"fact": plan.user_text[:300], "category": "other", "turn_id": plan.turn_id}
            )
            added += 1
        episodes = 0
        for cand in plan.candidates:
            if cand.type == "episodic":
                self.episodes.append({"summary": cand.content, "turn_id": plan.turn_id})
                episodes += 1
            elif cand.type == "user_fact":
                self.facts.append({"fact": cand.content, "category": "other"})
                added += 1
        return {"facts_new": added, "episodes": episodes}
