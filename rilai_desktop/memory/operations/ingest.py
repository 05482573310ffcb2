"""Into memory: resources stored, items extracted from them and stored with their categories.

Embeddings are computed before the write transaction opens, so the write lock is never held
while torch runs. A conversation is its turns rendered as text with the turns in its
metadata; the same turns ingested again are recognised and skipped. A batch of
conversations (a transcript file) is embedded in one pass and its category pages are
re-rendered once, at the end.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rilai_desktop.errors import (
    MemoryInputError,
    ResourceNotFoundError,
)
from rilai_desktop.memory.categories import check_category_name
from rilai_desktop.memory.conversation import (
    render_turns,
    resource_turns,
    turns_metadata,
)
from rilai_desktop.memory.extraction import LLMExtractor, RuleExtractor, extract_drafts
from rilai_desktop.memory.items import StoreOutcome
from rilai_desktop.memory.operations.core import MemoryCore
from rilai_desktop.memory.operations.edits import MemoryEdits
from rilai_desktop.memory.operations.pages import CategoryPages
from rilai_desktop.memory.ports import Vectors
from rilai_desktop.memory.resources import validate_resource_input
from rilai_desktop.memory.settings import ExtractMode
from rilai_desktop.memory.turn_records import with_records
from rilai_desktop.memory.types import (
    IMPORTANCE_LEVELS,
    TURN_KIND,
    ItemDraft,
    MemoryItem,
    Resource,
    Turn,
)


@dataclass
class IngestResult:
    """What one conversation added: facts (``stored``/``reinforced``; the extractor's) and
    its turn records (``records``: one per person's turn, memory/turn_records.py)."""

    resource: Resource
    stored: list[MemoryItem]
    reinforced: list[MemoryItem]
    invalidated: list[str]
    warnings: list[str]
    records: list[MemoryItem] = field(default_factory=list)


def _facts(items: Sequence[MemoryItem]) -> list[MemoryItem]:
    return [i for i in items if i.kind != TURN_KIND]


def _records(items: Sequence[MemoryItem]) -> list[MemoryItem]:
    return [i for i in items if i.kind == TURN_KIND]


class MemoryIngest:
    """Resources in; items extracted, embedded and stored."""

    def __init__(
        self,
        core: MemoryCore,
        pages: CategoryPages,
        edits: MemoryEdits,
        rules: RuleExtractor,
        llm_extractor: LLMExtractor | None,
    ) -> None:
        self._core = core
        self._pages = pages
        self._edits = edits
        self.rules = rules
        self.llm_extractor = llm_extractor
        self._deferred: tuple[set[str], set[str]] | None = None

    # ── Layer 1 ───────────────────────────────────────────────────────────
    def store_resource(
        self, content: str, resource_type: str, metadata: dict[str, Any] | None = None
    ) -> Resource:
        meta = validate_resource_input(content, resource_type, metadata)
        with self._core.db.transaction() as conn:
            resource = self._core.resource_layer.insert(conn, content, resource_type, meta)
            self._core.emit(
                "memory.resource_stored",
                {
                    "resource_id": resource.resource_id,
                    "resource_type": resource.resource_type,
                    "content_length": len(content),
                    "metadata_keys": sorted(meta),
                },
            )
        return resource

    def get_resource(self, resource_id: str) -> Resource:
        resource = self._core.resource_layer.get(resource_id)
        if resource is None:
            raise ResourceNotFoundError(resource_id)
        return resource

    # ── Layer 2 ───────────────────────────────────────────────────────────
    def extract_and_store(
        self,
        resource_id: str,
        category_hint: str | None = None,
        *,
        mode: ExtractMode | None = None,
    ) -> list[MemoryItem]:
        """Extract items from a resource and store them; returns the new and reinforced items."""
        return self._extract(resource_id, category_hint, mode).stored_and_reinforced

    def _extract(
        self, resource_id: str, category_hint: str | None, mode: ExtractMode | None
    ) -> _Extraction:
        if category_hint is not None:
            check_category_name(category_hint)
        resource = self.get_resource(resource_id)
        start = time.perf_counter()
        turns = resource_turns(resource)
        drafts, warnings = extract_drafts(
            turns,
            mode or self._core.config.extract_mode,
            rules=self.rules,
            llm=self.llm_extractor,
            category_hint=category_hint,
        )
        drafts = with_records(turns, drafts)
        outcome = self.store_drafts(resource_id, drafts, started=start)
        self._core.last_warnings = warnings
        return _Extraction(resource, outcome, warnings)

    def store_drafts(
        self,
        resource_id: str,
        drafts: Sequence[ItemDraft],
        *,
        started: float | None = None,
        vectors: Vectors | None = None,
    ) -> StoreOutcome:
        """Embed (outside the lock), then store drafts, their categories and the event."""
        return self._store_drafts(lambda: resource_id, drafts, started=started, vectors=vectors)

    def _store_drafts(
        self,
        resource_of: Callable[[], str],
        drafts: Sequence[ItemDraft],
        *,
        started: float | None = None,
        vectors: Vectors | None = None,
    ) -> StoreOutcome:
        """``resource_of`` runs first inside the write transaction (it may store the resource
        the drafts come from, so that both land together) and returns its id."""
        start = time.perf_counter() if started is None else started
        if vectors is None and drafts:
            vectors = self._core.embed([d.content for d in drafts])
        to_consolidate: list[str] = []
        with self._core.mutation() as conn:
            resource_id = resource_of()
            if (
                conn.execute(
                    "SELECT 1 FROM memory_resources WHERE resource_id = ?", (resource_id,)
                ).fetchone()
                is None
            ):
                raise ResourceNotFoundError(resource_id)
            for name in sorted({d.category for d in drafts if d.category}):
                self._core.ensure_category(conn, name)
            outcome = self._core.item_layer.store_drafts(conn, drafts, resource_id, vectors)
            counts: dict[str, int] = {}
            for item in outcome.stored:
                if item.category:
                    counts[item.category] = counts.get(item.category, 0) + 1
            for name, n in counts.items():
                pending = self._core.category_layer.bump_pending(conn, name, n)
                if pending >= self._core.config.consolidation_interval:
                    to_consolidate.append(name)
            for old in outcome.invalidated:
                self._core.emit("memory.item_updated", {"item_id": old, "change": "invalidated"})
            for item in outcome.reinforced:
                self._core.emit(
                    "memory.item_updated", {"item_id": item.item_id, "change": "reinforced"}
                )
            all_items = [*outcome.stored, *outcome.reinforced]
            self._core.emit(
                "memory.items_extracted",
                {
                    "resource_id": resource_id,
                    "item_ids": [i.item_id for i in all_items],
                    "item_count": len(outcome.stored),
                    "categories": sorted({i.category for i in all_items if i.category}),
                    "extraction_time_ms": round((time.perf_counter() - start) * 1000, 3),
                },
            )
        touched = {i.category for i in [*outcome.stored, *outcome.reinforced] if i.category}
        if outcome.invalidated:
            touched |= self._pages.categories_of(outcome.invalidated)
        if self._deferred is not None:  # a batch ingest renders each category once, at the end
            self._deferred[0].update(touched)
            self._deferred[1].update(to_consolidate)
            return outcome
        self._pages.update_categories(touched, set(to_consolidate))
        return outcome

    def ingest_turns(
        self,
        turns: Sequence[Turn],
        *,
        metadata: dict[str, Any] | None = None,
        mode: ExtractMode | None = None,
        category_hint: str | None = None,
    ) -> IngestResult:
        """Store a conversation (its turns in the metadata) and extract items from it."""
        if not turns:
            raise MemoryInputError("a conversation needs at least one turn")
        meta = dict(metadata or {})
        meta["turns"] = turns_metadata(turns)
        content = render_turns(turns)
        same = self._same_conversation(content, meta["turns"])
        if same is not None:
            # the same turns again (a re-ingested file): nothing new to learn, and
            # reinforcing every item a second time would inflate their counts
            return IngestResult(same, [], [], [], ["already ingested: " + same.resource_id])
        resource = self.store_resource(content, "conversation", meta)
        try:
            ex = self._extract(resource.resource_id, category_hint, mode)
        except BaseException:
            # nothing half-written: a conversation whose extraction failed is not kept
            self._edits.delete_resource(resource.resource_id)
            raise
        return IngestResult(
            resource,
            _facts(ex.outcome.stored),
            _facts(ex.outcome.reinforced),
            ex.outcome.invalidated,
            ex.warnings,
            _records(ex.outcome.stored),
        )

    def ingest_sessions(
        self,
        sessions: Sequence[tuple[Sequence[Turn], dict[str, Any]]],
        *,
        mode: ExtractMode | None = None,
        category_hint: str | None = None,
    ) -> list[IngestResult]:
        """Ingest many conversations (a transcript file): one embedding pass for all.

        Every session is extracted first, then all drafts are embedded in one batched call
        (one small ``encode`` per session is ~20% slower on this machine), then each session
        is stored in its own transaction, in order; categories are re-rendered once at the
        end. Sessions already stored are skipped with a warning.
        """
        if category_hint is not None:
            check_category_name(category_hint)
        plans: list[tuple[dict[str, Any], str, list[ItemDraft], list[str]] | Resource] = []
        for turns, metadata in sessions:
            if not turns:
                raise MemoryInputError("a conversation needs at least one turn")
            meta = dict(metadata)
            meta["turns"] = turns_metadata(turns)
            content = render_turns(turns)
            validate_resource_input(content, "conversation", meta)
            same = self._same_conversation(content, meta["turns"])
            if same is not None:
                plans.append(same)
                continue
            drafts, warnings = extract_drafts(
                list(turns),
                mode or self._core.config.extract_mode,
                rules=self.rules,
                llm=self.llm_extractor,
                category_hint=category_hint,
            )
            plans.append((meta, content, with_records(turns, drafts), warnings))
        texts = [d.content for p in plans if not isinstance(p, Resource) for d in p[2]]
        vectors = self._core.embed(texts) if texts else None
        results: list[IngestResult] = []
        offset = 0
        self._deferred = (set(), set())
        try:
            for plan in plans:
                if isinstance(plan, Resource):
                    results.append(
                        IngestResult(plan, [], [], [], ["already ingested: " + plan.resource_id])
                    )
                    continue
                meta, content, drafts, warnings = plan
                vecs = None if vectors is None else vectors[offset : offset + len(drafts)]
                offset += len(drafts)
                stored: list[Resource] = []

                def resource_of(
                    content: str = content,
                    meta: dict[str, Any] = meta,
                    out: list[Resource] = stored,
                ) -> str:
                    out.append(self.store_resource(content, "conversation", meta))
                    return out[0].resource_id

                outcome = self._store_drafts(resource_of, drafts, vectors=vecs)
                results.append(
                    IngestResult(
                        stored[0],
                        _facts(outcome.stored),
                        _facts(outcome.reinforced),
                        outcome.invalidated,
                        warnings,
                        _records(outcome.stored),
                    )
                )
        finally:
            touched, consolidate = self._deferred
            self._deferred = None
            self._pages.update_categories(touched, consolidate)
            self._core.item_layer.save_index()
        return results

    def _same_conversation(self, content: str, turns: list[dict[str, Any]]) -> Resource | None:
        digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
        ids = [t["id"] for t in turns]
        # a short reply to "How are you?" recurs: the first turn's id narrows the rows in
        # SQLite, so a turn does not load every earlier resource with the same text
        rows = self._core.db.connection.execute(
            "SELECT resource_id FROM memory_resources WHERE content_hash = ?"
            " AND resource_type = 'conversation' AND json_extract(metadata, '$.turns[0].id') IS ?",
            (digest, ids[0]),
        ).fetchall()
        for (rid,) in rows:
            resource = self._core.resource_layer.get(str(rid))
            stored = resource.metadata.get("turns") if resource else None
            if (
                resource is not None
                and isinstance(stored, list)
                and [t.get("id") for t in stored if isinstance(t, dict)] == ids
            ):
                return resource
        return None

    def remember(
        self,
        content: str,
        category: str | None = None,
        importance: str = "normal",
        *,
        source_turn_ids: Sequence[str] = (),
    ) -> MemoryItem:
        """Store one fact as told (the `remember` tool): a feedback resource + one item."""
        if importance not in IMPORTANCE_LEVELS:
            raise MemoryInputError(f"importance must be low, normal or high, got {importance!r}")
        if category is not None:
            check_category_name(category)
        validate_resource_input(content, "feedback", None)
        if len(content) > 2000:
            raise MemoryInputError(
                f"a memory item holds at most 2,000 characters, this one has {len(content):,}",
                recovery_suggestions=["Store long text with store_resource() and extract from it"],
            )
        drafts = self.rules.extract([Turn(id="remember", speaker="user", text=content)])
        kind = drafts[0].kind if drafts and drafts[0].kind != "utterance" else "fact"
        cat = category or (drafts[0].category if drafts and kind != "fact" else None) or "notes"
        draft = ItemDraft(
            content=content.strip(),
            kind=kind,
            category=cat,
            confidence=0.9,
            importance=importance,
            source_turn_ids=list(source_turn_ids),
        )
        # embed first, then the resource, the item and their events in one transaction:
        # if anything fails, nothing (not even the resource) is written
        vectors = self._core.embed([draft.content])
        outcome = self._store_drafts(
            lambda: self.store_resource(content, "feedback", {"via": "remember"}).resource_id,
            [draft],
            vectors=vectors,
        )
        items = [*outcome.stored, *outcome.reinforced]
        return items[0]


@dataclass
class _Extraction:
    resource: Resource
    outcome: StoreOutcome
    warnings: list[str]

    @property
    def stored_and_reinforced(self) -> list[MemoryItem]:
        return _facts([*self.outcome.stored, *self.outcome.reinforced])
