"""The memory system behind the turn's ``TurnMemory`` port (``turn/ports.py``).

``turn/`` cannot import ``memory/`` (it would pull sqlite3, faiss and torch into the turn)
and ``memory/`` must not know about turns' types, so this small bridge, used only by the
composition root, translates between them:

- recall: the relationship memory's episodes, user facts and open threads ranked for the message,
  plus the best layer-2 items from RAG search (lexical + dense, no model call); a turn
  record reads with who said it and when (:func:`said_line`); and, when the agents'
  manifests ask for knowledge bases (seed 004), the few documents there closest to the
  message (the query embedded once; empty knowledge bases skipped; a cosine floor keeps
  unrelated documents out);
- commit: the user's message stored as a one-turn conversation resource and run through
  the rule extractor (fast; the LLM extractor stays for `rilai memory ingest`); extracted
  preferences, boundaries and biography also become user facts with evidence counts; the
  turn's memory candidates (episode, agents' facts and goals) go through
  ``RelationshipMemory.apply_candidates`` in one transaction; then (seed 002) the turn's
  artefacts go to the context store with an expiry and its task to the day's journal
  (``MemoryManager.record_turn``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rilai_desktop.contracts import MemoryCandidate
from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.errors import RilaiError
from rilai_desktop.turn.ports import CommitPlan, Recall

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from rilai_desktop.memory.manager import MemoryManager

# item kind → the seed's UserFact category (kinds not listed do not become user facts)
FACT_CATEGORY = {
    "preference": "preference",
    "boundary": "boundary",
    "biography": "background",
    "relationship": "relationship",
    "goal": "goal",
    "value": "other",
}
ITEM_SCORE_FLOOR = 0.25  # RAG fused score below which an item is not worth a prompt line
# a turn record is the whole turn, not a fact: only when it is clearly about the message
# (Dana's "do you remember where I moved?" recalled "I don't think I want to be here
# anymore" at 0.37 and three more of her turns; the voice then said it did not remember)
RECORD_SCORE_FLOOR = 0.4
# a knowledge-base document is a prompt line only this close to the message (cosine, the
# embedder's vectors). Measured on all-MiniLM-L6-v2: a document that answers the message
# 0.66-0.86, one on a neighbouring theme ("what should I cook tonight" / a cake recipe,
# "a rough day at work" / a journaling tip) 0.29-0.33, an unrelated one under 0.13
KNOWLEDGE_SCORE_FLOOR = 0.4
MAX_KNOWLEDGE = 3


USER_SPEAKERS = frozenset({"user", "you", "me"})


def said_line(item: Any, now: datetime | None = None) -> str:
    """What the voice's notes read for a recalled item: a turn record, or a fact drawn from
    one person's turn, says who said it and when ("on 8 May 2023 they said: I went to a
    support group yesterday (yesterday = 7 May 2023)"; the notes then turn "I" into
    "they"); anything else reads as itself."""
    if item.valid_at is None or not (item.kind == "turn" or item.speaker):
        return str(item.content)
    when_said = _when(item.valid_at, now or datetime.now(UTC))
    speaker = (item.speaker or "").strip()
    who = "they" if not speaker or speaker.lower() in USER_SPEAKERS else speaker
    text = " ".join(str(item.content).split())
    dates = [
        f"{d['phrase']} = {d['label']}" for d in item.dates if d.get("phrase") and d.get("label")
    ]
    when = f" ({'; '.join(dates)})" if dates else ""
    return f"{when_said} {who} said: {text}{when}"


def _when(at: datetime, now: datetime) -> str:
    """ "earlier today", "yesterday", "on Monday" (this week), "on 8 May" (this year) or
    "on 8 May 2023": how a person would place it."""
    from rilai_desktop.memory.dates import MONTHS, WEEKDAYS, day_label

    days = (now.date() - at.date()).days
    if days <= 0:
        return "earlier today"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"on {WEEKDAYS[at.weekday()].title()}"
    if at.year == now.year:
        return f"on {at.day} {MONTHS[at.month - 1].title()}"
    return f"on {day_label(at)}"


class MemoryBridge:
    def __init__(
        self,
        manager: MemoryManager,
        *,
        k_items: int = 5,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.manager = manager
        self.k_items = k_items
        self.clock = clock  # "yesterday", "on Monday": relative to now

    @property
    def paused(self) -> bool:
        """The global "memory paused" switch (issue 20): no recall, no commit."""
        return self.manager.controls.recording_paused

    def recall(self, query: str, *, k: int = 5, knowledge_bases: Sequence[str] = ()) -> Recall:
        m = self.manager
        if self.paused:  # nothing Rilai learned is recalled; the person's documents still are
            return Recall(knowledge=self.knowledge(query, knowledge_bases))
        bundle = m.relationship.recall_for_workspace(query, k_episodes=2, k_facts=k, k_threads=3)
        items: list[dict[str, Any]] = []
        if query.strip():
            found = m.retrieve(query[:2000], mode="rag", k=self.k_items)
            pinned = set(m.controls.pinned("item"))  # always considered: no score floor
            for item, score in zip(found.items, found.confidence_scores, strict=False):
                floor = RECORD_SCORE_FLOOR if item.kind == "turn" else ITEM_SCORE_FLOOR
                if score < floor and item.item_id not in pinned:
                    continue
                items.append(
                    {
                        "item_id": item.item_id,
                        "content": said_line(item, self.clock.now()),
                        "text": item.content,  # their words as stored (said_line: + who, when)
                        "category": item.category,
                        "kind": item.kind,
                        "score": round(float(score), 4),
                        "source_turn_ids": item.source_turn_ids,
                    }
                )
        return Recall(
            episodes=bundle["episodes"],
            user_facts=bundle["user_facts"],
            open_threads=bundle["open_threads"],
            items=items,
            knowledge=self.knowledge(query, knowledge_bases),
        )

    def knowledge(self, query: str, knowledge_bases: Sequence[str]) -> list[dict[str, Any]]:
        """The documents of ``knowledge_bases`` closest to ``query``: {"kb", "id", "text",
        "score"}, best first, at most MAX_KNOWLEDGE, none under KNOWLEDGE_SCORE_FLOOR."""
        kbs = self.manager.knowledge_bases
        filled = [kb for kb in dict.fromkeys(knowledge_bases) if kbs.count(kb) > 0]
        if not filled or not query.strip():
            return []
        vector = kbs.embedder.embed_one(query[:2000])[0]
        hits: list[dict[str, Any]] = []
        for kb in filled:
            for hit in kbs.semantic_search("", kb, MAX_KNOWLEDGE, query_vector=vector):
                if hit.score >= KNOWLEDGE_SCORE_FLOOR:
                    hits.append(
                        {
                            "kb": kb,
                            "id": hit.document_id,
                            "text": hit.content_snippet,
                            "score": round(hit.score, 4),
                        }
                    )
        hits.sort(key=lambda h: (-h["score"], h["kb"], h["id"]))
        return hits[:MAX_KNOWLEDGE]

    def commit(self, plan: CommitPlan) -> dict[str, Any]:
        from rilai_desktop.memory.types import Turn

        m = self.manager
        if self.paused:  # memory paused: no items, turn records, facts, episodes, goals
            return {"memory_paused": True}  # nor the turn's context / journal entry
        m.bind_turn(plan.session_id, plan.turn_id)
        summary: dict[str, Any] = {"items_stored": 0, "items_reinforced": 0}
        facts: list[MemoryCandidate] = []
        if plan.extract_items and plan.user_text.strip():
            turn = Turn(
                id=f"{plan.session_id}:{plan.turn_id}",
                speaker="user",
                text=plan.user_text[:20_000],
                at=datetime.now(UTC),
            )
            ingested = m.ingest_turns(
                [turn],
                metadata={"session_id": plan.session_id, "turn_id": plan.turn_id},
                mode="rules",
            )
            summary["items_stored"] = len(ingested.stored)
            summary["items_reinforced"] = len(ingested.reinforced)
            for item in ingested.stored + ingested.reinforced:
                if item.kind in ("commitment", "goal"):  # an open thread to follow up on
                    facts.append(
                        MemoryCandidate(
                            type="goal",
                            content=item.content[:200],
                            importance=0.6,
                            source_agent="memory.rules",
                        )
                    )
                category = FACT_CATEGORY.get(item.kind)
                if category is None:
                    continue
                facts.append(
                    MemoryCandidate(
                        type="user_fact",
                        content=item.content[:300],
                        importance=max(0.5, item.confidence),
                        source_agent="memory.rules",
                        context={"category": category, "item_id": item.item_id},
                    )
                )
        applied = m.relationship.apply_candidates(
            [*facts, *plan.candidates], session_id=plan.session_id, turn_id=plan.turn_id
        )
        summary.update(applied)
        if plan.started_at is not None:
            self._journal(plan, summary)
        return summary

    def _journal(self, plan: CommitPlan, summary: dict[str, Any]) -> None:
        """Seed 002: the turn's artefacts (and what memory kept) to the context store, and
        its task to the day's journal. A failure here is reported in the summary and the
        log; what memory already kept stays."""
        assert plan.started_at is not None
        try:
            item = self.manager.record_turn(
                plan.session_id,
                plan.turn_id,
                started_at=plan.started_at,
                duration_ms=plan.duration_ms,
                artefacts={**plan.artefacts, "memory": dict(summary)},
            )
        except RilaiError as exc:
            log.warning("the turn's journal entry was not written: %s", exc)
            summary["journal_error"] = exc.message
        else:
            summary["context_id"] = item.id
