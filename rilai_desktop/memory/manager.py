"""MemoryManager: the one entry point to the three layers (seed 003's API, synchronous).

The seed's API is async; ours is synchronous because every caller already runs it off the
UI thread (the app's one database worker, the CLI, the daemon). Each mutation runs in one
write transaction on the shared connection together with its ``memory.*`` event, so the
event log and the memory tables never disagree. Embeddings are computed before the
transaction opens, so the write lock is never held while torch runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rilai_desktop.errors import (
    CategoryNotFoundError,
    ConsolidationError,
    EmbeddingError,
    MemoryInputError,
    ResourceNotFoundError,
    StorageError,
)
from rilai_desktop.memory._sql import Clock, iso, parse_dt, utc_now
from rilai_desktop.memory.categories import CategoryLayer, check_category_name
from rilai_desktop.memory.consolidation import MemoryConsolidator
from rilai_desktop.memory.context_store import ContextStore
from rilai_desktop.memory.conversation import (
    render_turns,
    resource_turns,
    turns_metadata,
)
from rilai_desktop.memory.extraction import LLMExtractor, RuleExtractor, extract_drafts
from rilai_desktop.memory.items import ItemLayer, StoreOutcome
from rilai_desktop.memory.journal import Journal
from rilai_desktop.memory.knowledge_bases import KnowledgeBases
from rilai_desktop.memory.layers import ShortTermMemory
from rilai_desktop.memory.ports import Database, Embedder, EventSink, TextModel, Vectors
from rilai_desktop.memory.relationship import RelationshipMemory
from rilai_desktop.memory.resources import ResourceLayer, validate_resource_input
from rilai_desktop.memory.retrieval import (
    ConfidenceScorer,
    ConfidenceWeights,
    FusionWeights,
    HybridRetriever,
    LLMRetriever,
    RAGRetriever,
    check_query,
)
from rilai_desktop.memory.turn_records import with_records
from rilai_desktop.memory.types import (
    IMPORTANCE_LEVELS,
    TURN_KIND,
    ItemDraft,
    MemoryCategory,
    MemoryItem,
    MemoryStats,
    Resource,
    RetrievalMode,
    RetrievalResult,
    Turn,
)

ExtractMode = Literal["rules", "llm", "both"]


@dataclass(frozen=True)
class MemoryRetryConfig:
    """Retry configuration for memory operations (seed 003)."""

    embedding_max_retries: int = 3
    embedding_backoff_base: float = 1.0
    embedding_backoff_max: float = 30.0
    extraction_max_retries: int = 2
    extraction_backoff_base: float = 2.0
    consolidation_max_retries: int = 2
    consolidation_backoff_base: float = 2.0
    retrieval_max_retries: int = 2
    retrieval_backoff_base: float = 1.0


@dataclass(frozen=True)
class MemoryConfig:
    """Configuration (seed 003's MemoryConfig, local defaults)."""

    storage_dir: Path = Path("memory")
    embedding_model: str = "all-MiniLM-L6-v2"
    embedding_dimension: int = 384
    extraction_model: str = "medium"
    consolidation_model: str = "medium"
    max_resource_size: int = 1_000_000
    default_k: int = 5
    # calibrated by tools/tune_memory.py on the tuning split: escalating below 0.65 sends
    # 32% of queries to the model and catches 56% of the top-1 misses (balanced acc. 0.68)
    escalation_threshold: float = 0.65
    consolidation_interval: int = 10
    retention_days: int = 90
    # ours
    exact_index_max: int = 250_000
    dedupe_similarity: float = 0.92
    llm_candidates: int = 20
    extract_mode: ExtractMode = "both"
    auto_consolidate: bool = True


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


class MemoryManager:
    """Orchestrates resources -> items -> categories, retrieval and the index."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        storage_dir: Path,
        categories_dir: Path,
        journal_dir: Path | None = None,
        events: EventSink | None = None,
        config: MemoryConfig | None = None,
        retry: MemoryRetryConfig | None = None,
        extraction_model: TextModel | None = None,
        consolidation_model: TextModel | None = None,
        retrieval_model: TextModel | None = None,
        fusion: FusionWeights | None = None,
        confidence: ConfidenceWeights | None = None,
        clock: Clock = utc_now,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config or MemoryConfig(storage_dir=storage_dir)
        self.retry = retry or MemoryRetryConfig()
        self.storage_dir = storage_dir
        self._db = db
        self._events = events
        self._clock = clock
        self._sleep = sleep
        self.embedder = embedder
        self.session_id = "memory"
        self.turn_id = 0
        try:
            storage_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise StorageError(
                f"Cannot create the memory directory {storage_dir}: {exc}",
                context={"path": str(storage_dir)},
            ) from exc
        self.resource_layer = ResourceLayer(db, clock=clock)
        self.item_layer = ItemLayer(
            db,
            embedder,
            storage_dir / "index.faiss",
            exact_max=self.config.exact_index_max,
            dedupe_similarity=self.config.dedupe_similarity,
            clock=clock,
        )
        self.category_layer = CategoryLayer(db, categories_dir, clock=clock)
        self.rules = RuleExtractor()
        self.llm_extractor = (
            None
            if extraction_model is None
            else LLMExtractor(
                extraction_model,
                retries=self.retry.extraction_max_retries,
                backoff_base=self.retry.extraction_backoff_base,
                sleep=sleep,
            )
        )
        self.consolidator = MemoryConsolidator(
            consolidation_model,
            max_retries=self.retry.consolidation_max_retries,
            backoff_base=self.retry.consolidation_backoff_base,
            sleep=sleep,
        )
        self.rag = RAGRetriever(
            self.item_layer, _RetryingEmbedder(self), weights=fusion, clock=clock
        )
        self.llm_retriever = (
            None
            if retrieval_model is None
            else LLMRetriever(
                self.rag,
                retrieval_model,
                max_candidates=self.config.llm_candidates,
                max_retries=self.retry.retrieval_max_retries,
                backoff_base=self.retry.retrieval_backoff_base,
                sleep=sleep,
            )
        )
        self.hybrid = HybridRetriever(
            self.rag,
            self.llm_retriever,
            escalation_threshold=self.config.escalation_threshold,
            variance_threshold=1.0,
            scorer=ConfidenceScorer(confidence),
        )
        self.last_warnings: list[str] = []
        self._deferred: tuple[set[str], set[str]] | None = None
        # beside the three layers, in the same database: seed 000's relationship memory,
        # seed 004's knowledge bases and short-term layers, seed 002's context store and
        # (files) the journal
        self.relationship = RelationshipMemory(db, embedder, clock=clock)
        self.knowledge_bases = KnowledgeBases(db, embedder, clock=clock)
        self.short_term = ShortTermMemory()
        self.contexts = ContextStore(db, clock=clock)
        self.journal = Journal(journal_dir or storage_dir / "agents", clock=clock)

    # ── lifecycle ─────────────────────────────────────────────────────────
    def open(self) -> tuple[str, float] | None:
        """Load (or rebuild) the vector index; a rebuild is recorded as an event."""
        self.item_layer.ensure_model_recorded()
        rebuilt = self.item_layer.open()
        if rebuilt is not None:
            self._emit_now(
                "memory.index_rebuilt",
                {
                    "reason": rebuilt[0],
                    "item_count": len(self.item_layer.index),
                    "rebuild_time_ms": round(rebuilt[1], 3),
                },
            )
        return rebuilt

    def close(self) -> None:
        self.item_layer.save_index()

    def bind_turn(self, session_id: str, turn_id: int) -> None:
        """Memory events from now on belong to this session and turn."""
        self.session_id = session_id
        self.turn_id = turn_id

    # ── events ────────────────────────────────────────────────────────────
    def _emit(self, kind: str, payload: Mapping[str, Any]) -> None:
        if self._events is not None:
            self._events.append(self.session_id, self.turn_id, kind, payload)

    def _emit_now(self, kind: str, payload: Mapping[str, Any]) -> None:
        with self._db.transaction():
            self._emit(kind, payload)

    @contextlib.contextmanager
    def _mutation(self, *, index: bool = True) -> Iterator[sqlite3.Connection]:
        """A write transaction whose side effects outside SQLite follow its rollback.

        If the block fails (a refused event, a constraint...), SQLite rolls back; the
        category files written inside are put back and, if the block may have changed the
        vector index (``index``), the in-memory index, which may hold vectors of rolled-back
        rows, is dropped (reloaded or rebuilt on next use).
        """
        try:
            with self._db.transaction() as conn, self.category_layer.files_follow():
                yield conn
        except BaseException:
            if index:
                self.item_layer.discard_index()
            raise

    def _ensure_category(self, conn: sqlite3.Connection, name: str) -> None:
        """Create a category the first time an item is filed under it, with its event."""
        if self.category_layer.get_by_name(name) is not None:
            return
        cat = self.category_layer.ensure(conn, name)
        if cat is not None:
            self._emit(
                "memory.category_created",
                {"category_id": cat.category_id, "name": cat.name, "description": cat.description},
            )

    # ── embeddings with the seed's retry policy ───────────────────────────
    def embed(self, texts: Sequence[str]) -> Vectors:
        r = self.retry
        for attempt in range(r.embedding_max_retries + 1):
            try:
                return self.embedder.embed(texts)
            except EmbeddingError:
                if attempt >= r.embedding_max_retries:
                    raise
                self._sleep(min(r.embedding_backoff_max, r.embedding_backoff_base * 2**attempt))
        raise AssertionError("unreachable")

    # ── Layer 1 ───────────────────────────────────────────────────────────
    def store_resource(
        self, content: str, resource_type: str, metadata: dict[str, Any] | None = None
    ) -> Resource:
        meta = validate_resource_input(content, resource_type, metadata)
        with self._db.transaction() as conn:
            resource = self.resource_layer.insert(conn, content, resource_type, meta)
            self._emit(
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
        resource = self.resource_layer.get(resource_id)
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
            mode or self.config.extract_mode,
            rules=self.rules,
            llm=self.llm_extractor,
            category_hint=category_hint,
        )
        drafts = with_records(turns, drafts)
        outcome = self.store_drafts(resource_id, drafts, started=start)
        self.last_warnings = warnings
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
            vectors = self.embed([d.content for d in drafts])
        to_consolidate: list[str] = []
        with self._mutation() as conn:
            resource_id = resource_of()
            if (
                conn.execute(
                    "SELECT 1 FROM memory_resources WHERE resource_id = ?", (resource_id,)
                ).fetchone()
                is None
            ):
                raise ResourceNotFoundError(resource_id)
            for name in sorted({d.category for d in drafts if d.category}):
                self._ensure_category(conn, name)
            outcome = self.item_layer.store_drafts(conn, drafts, resource_id, vectors)
            counts: dict[str, int] = {}
            for item in outcome.stored:
                if item.category:
                    counts[item.category] = counts.get(item.category, 0) + 1
            for name, n in counts.items():
                pending = self.category_layer.bump_pending(conn, name, n)
                if pending >= self.config.consolidation_interval:
                    to_consolidate.append(name)
            for old in outcome.invalidated:
                self._emit("memory.item_updated", {"item_id": old, "change": "invalidated"})
            for item in outcome.reinforced:
                self._emit("memory.item_updated", {"item_id": item.item_id, "change": "reinforced"})
            all_items = [*outcome.stored, *outcome.reinforced]
            self._emit(
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
            touched |= self._categories_of(outcome.invalidated)
        if self._deferred is not None:  # a batch ingest renders each category once, at the end
            self._deferred[0].update(touched)
            self._deferred[1].update(to_consolidate)
            return outcome
        self._update_categories(touched, set(to_consolidate))
        return outcome

    def _update_categories(self, touched: set[str], to_consolidate: set[str]) -> None:
        for name in sorted(touched):
            if self.config.auto_consolidate and name in to_consolidate:
                try:
                    self.consolidate_category(name)
                    continue
                except ConsolidationError as exc:
                    self.last_warnings.append(str(exc))
            self.refresh_category(name)

    def _categories_of(self, item_ids: Sequence[str]) -> set[str]:
        if not item_ids:
            return set()
        marks = ",".join("?" * len(item_ids))
        rows = self._db.connection.execute(
            f"SELECT DISTINCT category FROM memory_items WHERE item_id IN ({marks})"
            " AND category IS NOT NULL",
            list(item_ids),
        ).fetchall()
        return {str(r[0]) for r in rows}

    def refresh_category(self, name: str) -> str:
        """Re-render a category's markdown from its items without a model call (no event).

        Keeps the last model-written summary; the model runs on consolidation only.
        """
        return self._render_category(name, summary=None, use_model=False, emit=False)

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
            self.delete_resource(resource.resource_id)
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
                mode or self.config.extract_mode,
                rules=self.rules,
                llm=self.llm_extractor,
                category_hint=category_hint,
            )
            plans.append((meta, content, with_records(turns, drafts), warnings))
        texts = [d.content for p in plans if not isinstance(p, Resource) for d in p[2]]
        vectors = self.embed(texts) if texts else None
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
            self._update_categories(touched, consolidate)
            self.item_layer.save_index()
        return results

    def _same_conversation(self, content: str, turns: list[dict[str, Any]]) -> Resource | None:
        digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
        rows = self._db.connection.execute(
            "SELECT resource_id FROM memory_resources WHERE content_hash = ?"
            " AND resource_type = 'conversation'",
            (digest,),
        ).fetchall()
        ids = [t["id"] for t in turns]
        for (rid,) in rows:
            resource = self.resource_layer.get(str(rid))
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
        vectors = self.embed([draft.content])
        outcome = self._store_drafts(
            lambda: self.store_resource(content, "feedback", {"via": "remember"}).resource_id,
            [draft],
            vectors=vectors,
        )
        items = [*outcome.stored, *outcome.reinforced]
        return items[0]

    def get_item(self, item_id: str) -> MemoryItem | None:
        return self.item_layer.get(item_id)

    def update_item(
        self,
        item_id: str,
        *,
        content: str | None = None,
        category: str | None = None,
        importance: str | None = None,
    ) -> MemoryItem:
        """The user corrects an item: text (re-embedded), category or importance."""
        if self.item_layer.get(item_id) is None:
            raise MemoryInputError(f"no memory item {item_id!r}")
        fields: dict[str, Any] = {}
        if category is not None:
            fields["category"] = check_category_name(category)
        if importance is not None:
            if importance not in IMPORTANCE_LEVELS:
                raise MemoryInputError("importance must be low, normal or high")
            fields["importance"] = importance
        vector = None
        if content is not None:
            if not content.strip() or len(content) > 2000:
                raise MemoryInputError("item content must be 1-2,000 characters")
            vector = self.embed([content])[0]
        with self._mutation() as conn:
            if category is not None:
                self._ensure_category(conn, category)
            self.item_layer.set_fields(conn, item_id, **fields)
            if content is not None and vector is not None:
                self.item_layer.update_content(conn, item_id, content.strip(), vector)
            self._emit("memory.item_updated", {"item_id": item_id, "change": "edited"})
        item = self.item_layer.get(item_id)
        assert item is not None
        return item

    def invalidate_item(self, item_id: str, by: str | None = None) -> bool:
        with self._mutation() as conn:
            done = self.item_layer.invalidate(conn, item_id, by)
            if done:
                self._emit("memory.item_updated", {"item_id": item_id, "change": "invalidated"})
        return done

    def forget_item(self, item_id: str) -> bool:
        """Delete an item for good (row, FTS entry, vector); the event keeps only its id."""
        cats = self._categories_of([item_id])
        with self._mutation() as conn:
            gone = self.item_layer.delete_rows(conn, "item_id = ?", (item_id,))
            for iid in gone:
                self._emit("memory.item_deleted", {"item_id": iid})
        self.item_layer.save_index()
        for name in sorted(cats):
            self.refresh_category(name)  # the page must stop citing the forgotten item
        return bool(gone)

    def delete_resource(self, resource_id: str, cascade: bool = True) -> bool:
        with self._mutation() as conn:
            exists = conn.execute(
                "SELECT 1 FROM memory_resources WHERE resource_id = ?", (resource_id,)
            ).fetchone()
            if exists is None:
                return False
            cats = [
                str(r[0])
                for r in conn.execute(
                    "SELECT DISTINCT category FROM memory_items WHERE source_resource_id = ?"
                    " AND category IS NOT NULL",
                    (resource_id,),
                ).fetchall()
            ]
            if cascade:
                gone = self.item_layer.delete_rows(conn, "source_resource_id = ?", (resource_id,))
            else:
                n = conn.execute(
                    "SELECT COUNT(*) FROM memory_items WHERE source_resource_id = ?",
                    (resource_id,),
                ).fetchone()[0]
                if n:
                    raise MemoryInputError(
                        f"resource {resource_id} still has {n} items (each must name its source)",
                        recovery_suggestions=["Delete with cascade=True, or forget the items"],
                    )
                gone = []
            self.resource_layer.delete(conn, resource_id)
            for iid in gone:
                self._emit("memory.item_deleted", {"item_id": iid})
            self._emit("memory.resource_deleted", {"resource_id": resource_id, "item_ids": gone})
        self.item_layer.save_index()
        for name in cats:
            with contextlib.suppress(CategoryNotFoundError):
                self.refresh_category(name)
        return True

    # ── retrieval ─────────────────────────────────────────────────────────
    def retrieve(
        self,
        query: str,
        mode: RetrievalMode | str = RetrievalMode.HYBRID,
        k: int = 5,
        category_filter: str | None = None,
    ) -> RetrievalResult:
        check_query(query, k)
        try:
            mode = RetrievalMode(mode)
        except ValueError:
            raise MemoryInputError(f"mode must be rag, llm or hybrid, got {mode!r}") from None
        if category_filter is not None:
            check_category_name(category_filter)
            if self.category_layer.get_by_name(category_filter) is None:
                raise CategoryNotFoundError(category_filter, self.category_layer.names())
        if mode is RetrievalMode.RAG:
            result = self.rag.retrieve(query, k, category_filter)
        elif mode is RetrievalMode.LLM:
            if self.llm_retriever is None:
                raise MemoryInputError(
                    "LLM retrieval needs a model and none is configured",
                    recovery_suggestions=["Use mode rag or hybrid", "Install a model tier"],
                )
            result = self.llm_retriever.retrieve(query, k, category_filter)
        else:
            result = self.hybrid.retrieve(query, k, category_filter=category_filter)
        return result

    def log_retrieval(self, query: str, mode: str, result: RetrievalResult) -> None:
        """RETRIEVAL_PERFORMED (debug): the query is stored only as its sha256."""
        self._emit_now(
            "memory.retrieval_performed",
            {
                "query_hash": hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest(),
                "mode": mode,
                "result_count": len(result.items),
                "search_time_ms": round(result.search_time_ms, 3),
                "escalated": result.escalated,
            },
        )

    # ── Layer 3 ───────────────────────────────────────────────────────────
    def create_category(self, name: str, description: str) -> MemoryCategory:
        with self._mutation(index=False) as conn:
            cat = self.category_layer.insert(conn, name, description)
            self._emit(
                "memory.category_created",
                {"category_id": cat.category_id, "name": cat.name, "description": cat.description},
            )
        return cat

    def list_categories(self) -> list[MemoryCategory]:
        return self.category_layer.list_all()

    def get_category_content(self, category_name: str) -> str:
        return self.category_layer.require(category_name).markdown_content

    def consolidate_category(
        self, category_name: str, force: bool = False, *, use_model: bool = True
    ) -> str:
        """Items -> markdown. On a model failure the previous content is kept and raised."""
        del force  # consolidation is cheap to repeat; the interval lives in store_drafts
        return self._render_category(category_name, summary=None, use_model=use_model, emit=True)

    def _render_category(
        self, category_name: str, *, summary: str | None, use_model: bool, emit: bool
    ) -> str:
        category = self.category_layer.require(category_name)
        start = time.perf_counter()
        items = self.item_layer.get_by_category(category_name)
        summary_key = f"category_summary:{category_name}"
        if use_model:
            summary = self.consolidator.summary(category, items)
        else:
            row = self._db.connection.execute(
                "SELECT value FROM memory_meta WHERE key = ?", (summary_key,)
            ).fetchone()
            summary = None if row is None else str(row[0])
        res_ids = sorted({i.source_resource_id for i in items})
        types: dict[str, str] = {}
        if res_ids:
            marks = ",".join("?" * len(res_ids))
            for rid, rtype in self._db.connection.execute(
                f"SELECT resource_id, resource_type FROM memory_resources"
                f" WHERE resource_id IN ({marks})",
                res_ids,
            ).fetchall():
                types[str(rid)] = str(rtype)
        content = self.consolidator.render(category, items, types, self._clock(), summary)
        with self._mutation(index=False) as conn:
            self.category_layer.update_content(conn, category_name, content, consolidated=emit)
            if use_model and summary is not None:
                conn.execute(
                    "INSERT INTO memory_meta (key, value) VALUES (?, ?)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (summary_key, summary),
                )
            if emit:
                self._emit(
                    "memory.category_consolidated",
                    {
                        "category_id": category.category_id,
                        "name": category_name,
                        "item_count": len(items),
                        "content_length": len(content),
                        "consolidation_time_ms": round((time.perf_counter() - start) * 1000, 3),
                    },
                )
        return content

    # ── index, stats, health, export ──────────────────────────────────────
    def rebuild_index(self) -> int:
        reason, ms = self.item_layer.rebuild_index("requested")
        n = len(self.item_layer.index)
        self._emit_now(
            "memory.index_rebuilt",
            {"reason": reason, "item_count": n, "rebuild_time_ms": round(ms, 3)},
        )
        return n

    def get_stats(self) -> MemoryStats:
        conn = self._db.connection
        by_type = self.resource_layer.count_by_type()
        by_cat = self.item_layer.count_by_category()
        last_ex = conn.execute("SELECT MAX(created_at) FROM memory_items").fetchone()[0]
        storage = 0
        for path in (self.storage_dir, self.category_layer.folder):
            if path.is_dir():
                storage += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        db_file = conn.execute("PRAGMA database_list").fetchone()[2]
        if db_file and os.path.exists(db_file):
            storage += os.path.getsize(db_file)
        return MemoryStats(
            total_resources=sum(by_type.values()),
            total_items=self.item_layer.count(),  # facts and turn records
            total_categories=len(self.category_layer.names()),
            vector_index_size=len(self.item_layer.index),
            storage_bytes=storage,
            resources_by_type=by_type,
            items_by_category=by_cat,
            last_extraction_at=parse_dt(last_ex),
            last_consolidation_at=parse_dt(self.category_layer.last_consolidated()),
        )

    @property
    def is_healthy(self) -> bool:
        """Storage writable, index loaded and in sync, embedder answering."""
        try:
            if not os.access(self.storage_dir, os.W_OK):
                return False
            if not self.item_layer.index_loaded:
                return False
            if len(self.item_layer.index) != self.item_layer.count():
                return False
            # a fresh text each time, so the embedder's cache cannot answer for a dead model
            self.embedder.embed([f"health check {time.monotonic_ns()}"])
        except Exception:
            return False
        return True

    def export(self, folder: Path) -> dict[str, int]:
        """Everything the user's memory holds, as JSON lines + the category markdown."""
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        conn = self._db.connection
        counts: dict[str, int] = {}
        with (folder / "resources.jsonl").open("w", encoding="utf-8") as fh:
            n = 0
            for row in conn.execute(
                "SELECT resource_id, resource_type, content, metadata, created_at"
                " FROM memory_resources ORDER BY id"
            ):
                fh.write(
                    json.dumps(
                        {
                            "resource_id": row[0],
                            "resource_type": row[1],
                            "content": row[2],
                            "metadata": json.loads(row[3]),
                            "created_at": row[4],
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
                n += 1
            counts["resources"] = n
        with (folder / "items.jsonl").open("w", encoding="utf-8") as fh:
            n = 0
            for row in conn.execute("SELECT item_id FROM memory_items ORDER BY id").fetchall():
                item = self.item_layer.get(str(row[0]))
                if item is not None:
                    fh.write(item.model_dump_json(exclude={"embedding"}) + "\n")
                    n += 1
            counts["items"] = n
        cat_dir = folder / "categories"
        cat_dir.mkdir(exist_ok=True)
        cats = self.list_categories()
        for cat in cats:
            (cat_dir / f"{cat.name}.md").write_text(cat.markdown_content, encoding="utf-8")
        counts["categories"] = len(cats)
        return counts

    def export_index_snapshot(self, dest: Path) -> None:
        self.item_layer.save_index()
        shutil.copy2(self.item_layer.index_path, dest)

    def now_iso(self) -> str:
        return iso(self._clock()) or ""


@dataclass
class _Extraction:
    resource: Resource
    outcome: StoreOutcome
    warnings: list[str]

    @property
    def stored_and_reinforced(self) -> list[MemoryItem]:
        return _facts([*self.outcome.stored, *self.outcome.reinforced])


class _RetryingEmbedder:
    """The manager's embedder seen through its retry policy (for the retrievers)."""

    def __init__(self, manager: MemoryManager) -> None:
        self._m = manager

    @property
    def dimension(self) -> int:
        return self._m.embedder.dimension

    @property
    def model_id(self) -> str:
        return self._m.embedder.model_id

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._m.embed(texts)

    def embed_one(self, text: str) -> Vectors:
        return self._m.embed([text])
