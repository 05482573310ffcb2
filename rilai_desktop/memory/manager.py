"""MemoryManager: the one entry point to the three layers (seed 003's API, synchronous).

The seed's API is async; ours is synchronous because every caller already runs it off the
UI thread (the app's one database worker, the CLI, the daemon). Each mutation runs in one
write transaction on the shared connection together with its ``memory.*`` event, so the
event log and the memory tables never disagree. Embeddings are computed before the
transaction opens, so the write lock is never held while torch runs.

The manager is a facade: it builds the layers and the collaborators of
``memory/operations/`` (core, ingest, edits, pages, search, upkeep) and hands each call to
the one responsible. Its settings are in ``memory/settings.py``.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rilai_desktop.contracts.clock import SYSTEM_CLOCK, Clock
from rilai_desktop.contracts.ports import EventSink
from rilai_desktop.errors import StorageError
from rilai_desktop.memory.categories import CategoryLayer
from rilai_desktop.memory.consolidation import MemoryConsolidator
from rilai_desktop.memory.context_store import ContextItem, ContextStore
from rilai_desktop.memory.controls import MemoryControls
from rilai_desktop.memory.entries import EntryKind
from rilai_desktop.memory.extraction import LLMExtractor, RuleExtractor
from rilai_desktop.memory.items import ItemLayer, StoreOutcome
from rilai_desktop.memory.journal import Journal
from rilai_desktop.memory.knowledge_bases import KnowledgeBases
from rilai_desktop.memory.layers import ShortTermMemory
from rilai_desktop.memory.operations.core import MemoryCore, RetryingEmbedder
from rilai_desktop.memory.operations.edits import MemoryEdits
from rilai_desktop.memory.operations.entry_changes import EntryChanges
from rilai_desktop.memory.operations.forget_all import forget_everything
from rilai_desktop.memory.operations.ingest import IngestResult, MemoryIngest
from rilai_desktop.memory.operations.pages import CategoryPages
from rilai_desktop.memory.operations.retention import ResourceRetention
from rilai_desktop.memory.operations.search import MemorySearch
from rilai_desktop.memory.operations.turn_journal import TurnJournal
from rilai_desktop.memory.operations.upkeep import MemoryUpkeep
from rilai_desktop.memory.ports import Database, Embedder, TextModel, Vectors
from rilai_desktop.memory.relationship import RelationshipMemory
from rilai_desktop.memory.resources import ResourceLayer
from rilai_desktop.memory.retrieval import (
    ConfidenceScorer,
    ConfidenceWeights,
    FusionWeights,
    HybridRetriever,
    LLMRetriever,
    RAGRetriever,
)
from rilai_desktop.memory.settings import ExtractMode, MemoryConfig, MemoryRetryConfig
from rilai_desktop.memory.types import (
    ItemDraft,
    MemoryCategory,
    MemoryItem,
    MemoryStats,
    Resource,
    RetrievalMode,
    RetrievalResult,
    Turn,
)

if TYPE_CHECKING:
    from rilai_desktop.memory.transfer import ExportReport, ImportReport

__all__ = [
    "ExtractMode",
    "IngestResult",
    "MemoryConfig",
    "MemoryManager",
    "MemoryRetryConfig",
]


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
        clock: Clock = SYSTEM_CLOCK,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.config = config or MemoryConfig(storage_dir=storage_dir)
        self.retry = retry or MemoryRetryConfig()
        self.storage_dir = storage_dir
        self.embedder = embedder
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
        self._core = MemoryCore(
            db,
            embedder,
            events=events,
            config=self.config,
            retry=self.retry,
            resource_layer=self.resource_layer,
            item_layer=self.item_layer,
            category_layer=self.category_layer,
            clock=clock,
            sleep=sleep,
        )
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
        # the person's controls over each entry (issue 20), read wherever recall ranks
        self.controls = MemoryControls(db, clock=clock)
        self.rag = RAGRetriever(
            self.item_layer,
            RetryingEmbedder(self._core),
            weights=fusion,
            clock=clock,
            controls=self.controls,
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
        self._pages = CategoryPages(self._core, self.consolidator)
        self._edits = MemoryEdits(self._core, self._pages)
        self._ingest = MemoryIngest(
            self._core, self._pages, self._edits, self.rules, self.llm_extractor
        )
        self._search = MemorySearch(self._core, self.rag, self.llm_retriever, self.hybrid)
        self._upkeep = MemoryUpkeep(self._core, storage_dir)
        self._retention = ResourceRetention(self._core, self._edits)
        # beside the three layers, in the same database: seed 000's relationship memory,
        # seed 004's knowledge bases and short-term layers, seed 002's context store and
        # (files) the journal
        self.relationship = RelationshipMemory(db, embedder, clock=clock)
        self.relationship.controls = self.controls
        self.entries = EntryChanges(
            self._core, self._pages, self.relationship, self.controls, clock
        )
        self.knowledge_bases = KnowledgeBases(db, embedder, clock=clock)
        self.short_term = ShortTermMemory()
        self.contexts = ContextStore(db, clock=clock)
        self.journal = Journal(journal_dir or storage_dir / "agents", clock=clock)
        self.turn_journal = TurnJournal(self.contexts, self.journal, clock.now)

    # ── lifecycle and events ──────────────────────────────────────────────
    def open(self) -> tuple[str, float] | None:
        """Load (or rebuild) the vector index; a rebuild is recorded as an event."""
        return self._upkeep.open()

    def close(self) -> None:
        self._upkeep.close()

    def bind_turn(self, session_id: str, turn_id: int) -> None:
        """Memory events from now on belong to this session and turn."""
        self._core.bind_turn(session_id, turn_id)

    @property
    def session_id(self) -> str:
        return self._core.session_id

    @property
    def turn_id(self) -> int:
        return self._core.turn_id

    @property
    def last_warnings(self) -> list[str]:
        """Warnings of the last extraction (and of the category updates after it)."""
        return self._core.last_warnings

    def embed(self, texts: Sequence[str]) -> Vectors:
        """The embedder behind the seed's retry policy."""
        return self._core.embed(texts)

    def now_iso(self) -> str:
        return self._core.now_iso()

    # ── Layer 1 ───────────────────────────────────────────────────────────
    def store_resource(
        self, content: str, resource_type: str, metadata: dict[str, Any] | None = None
    ) -> Resource:
        return self._ingest.store_resource(content, resource_type, metadata)

    def get_resource(self, resource_id: str) -> Resource:
        return self._ingest.get_resource(resource_id)

    def delete_resource(self, resource_id: str, cascade: bool = True) -> bool:
        return self._edits.delete_resource(resource_id, cascade)

    def apply_resource_retention(self, now: datetime, retention_days: int) -> int:
        """Remove the raw text of conversations stored more than ``retention_days`` before
        ``now`` (memory/operations/retention.py); how many resources lost their text."""
        return self._retention.apply(now, retention_days)

    # ── Layer 2 ───────────────────────────────────────────────────────────
    def extract_and_store(
        self,
        resource_id: str,
        category_hint: str | None = None,
        *,
        mode: ExtractMode | None = None,
    ) -> list[MemoryItem]:
        """Extract items from a resource and store them; returns the new and reinforced items."""
        return self._ingest.extract_and_store(resource_id, category_hint, mode=mode)

    def store_drafts(
        self,
        resource_id: str,
        drafts: Sequence[ItemDraft],
        *,
        started: float | None = None,
        vectors: Vectors | None = None,
    ) -> StoreOutcome:
        """Embed (outside the lock), then store drafts, their categories and the event."""
        return self._ingest.store_drafts(resource_id, drafts, started=started, vectors=vectors)

    def ingest_turns(
        self,
        turns: Sequence[Turn],
        *,
        metadata: dict[str, Any] | None = None,
        mode: ExtractMode | None = None,
        category_hint: str | None = None,
    ) -> IngestResult:
        """Store a conversation (its turns in the metadata) and extract items from it."""
        return self._ingest.ingest_turns(
            turns, metadata=metadata, mode=mode, category_hint=category_hint
        )

    def ingest_sessions(
        self,
        sessions: Sequence[tuple[Sequence[Turn], dict[str, Any]]],
        *,
        mode: ExtractMode | None = None,
        category_hint: str | None = None,
    ) -> list[IngestResult]:
        """Ingest many conversations (a transcript file): one embedding pass for all."""
        return self._ingest.ingest_sessions(sessions, mode=mode, category_hint=category_hint)

    def remember(
        self,
        content: str,
        category: str | None = None,
        importance: str = "normal",
        *,
        source_turn_ids: Sequence[str] = (),
    ) -> MemoryItem:
        """Store one fact as told (the `remember` tool): a feedback resource + one item."""
        return self._ingest.remember(content, category, importance, source_turn_ids=source_turn_ids)

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
        return self._edits.update_item(
            item_id, content=content, category=category, importance=importance
        )

    def invalidate_item(self, item_id: str, by: str | None = None) -> bool:
        return self._edits.invalidate_item(item_id, by)

    def forget_item(self, item_id: str) -> bool:
        """Delete an item for good (row, FTS entry, vector); the event keeps only its id."""
        return self._edits.forget_item(item_id)

    # ── retrieval ─────────────────────────────────────────────────────────
    def retrieve(
        self,
        query: str,
        mode: RetrievalMode | str = RetrievalMode.HYBRID,
        k: int = 5,
        category_filter: str | None = None,
    ) -> RetrievalResult:
        return self._search.retrieve(query, mode, k, category_filter)

    def log_retrieval(self, query: str, mode: str, result: RetrievalResult) -> None:
        """RETRIEVAL_PERFORMED (debug): the query is stored only as its sha256."""
        self._search.log_retrieval(query, mode, result)

    # ── Layer 3 ───────────────────────────────────────────────────────────
    def create_category(self, name: str, description: str) -> MemoryCategory:
        return self._pages.create_category(name, description)

    def list_categories(self) -> list[MemoryCategory]:
        return self._pages.list_categories()

    def get_category_content(self, category_name: str) -> str:
        return self._pages.get_category_content(category_name)

    def consolidate_category(
        self, category_name: str, force: bool = False, *, use_model: bool = True
    ) -> str:
        """Items -> markdown. On a model failure the previous content is kept and raised."""
        return self._pages.consolidate_category(category_name, force, use_model=use_model)

    def record_turn(
        self,
        session_id: str,
        turn_id: int,
        *,
        started_at: datetime,
        duration_ms: float,
        artefacts: Mapping[str, Any],
        error: str | None = None,
    ) -> ContextItem:
        """A turn's artefacts to the context store (expiring) and its entry to the day's
        journal (seed 002)."""
        return self.turn_journal.record_turn(
            session_id,
            turn_id,
            started_at=started_at,
            duration_ms=duration_ms,
            artefacts=artefacts,
            error=error,
        )

    def promote_category(self, category_name: str) -> bool:
        """A consolidated page's first insight promoted to long-term.md."""
        return self.turn_journal.promote_page(
            category_name, self.get_category_content(category_name)
        )

    def pending_categories(self, min_new_items: int) -> list[str]:
        """Categories with at least ``min_new_items`` new items since their consolidation."""
        return self.category_layer.pending(min_new_items)

    def refresh_category(self, name: str) -> str:
        """Re-render a category's markdown from its items without a model call (no event)."""
        return self._pages.refresh_category(name)

    # ── index, stats, health, export ──────────────────────────────────────
    def rebuild_index(self) -> int:
        return self._upkeep.rebuild_index()

    def get_stats(self) -> MemoryStats:
        return self._upkeep.get_stats()

    @property
    def is_healthy(self) -> bool:
        """Storage writable, index loaded and in sync, embedder answering."""
        return self._upkeep.is_healthy()

    def export(self, folder: Path) -> dict[str, int]:
        """Everything the user's memory holds, as JSON lines + the category markdown."""
        return self._upkeep.export(folder)

    def export_all(self, folder: Path, *, app_version: str) -> ExportReport:
        """Every entry not paused, in the versioned format of docs/memory-export.md."""
        from rilai_desktop.memory.transfer import export_memory

        return export_memory(self._core, self.consolidator, folder, app_version=app_version)

    def import_all(self, folder: Path, *, merge: bool = False) -> ImportReport:
        """An export folder into this memory, all or nothing (refused into a non-empty
        memory unless ``merge``, which skips what is already there)."""
        from rilai_desktop.memory.transfer import import_memory

        return import_memory(
            self._core, self.relationship, self.knowledge_bases, folder, merge=merge
        )

    def export_index_snapshot(self, dest: Path) -> None:
        self._upkeep.export_index_snapshot(dest)

    def snapshot_index(self, dest: Path) -> Path | None:
        """The saved index (and its sidecar) copied to the file ``dest``; None if empty."""
        return self._upkeep.snapshot_index(dest)

    # ── the person's controls (issue 20; memory/operations/entry_changes.py) ──
    @property
    def connection(self) -> sqlite3.Connection:
        """The shared connection (reads on the engine's worker)."""
        return self._core.db.connection

    def edit_entry(self, kind: EntryKind, entry_id: str, text: str) -> list[tuple[EntryKind, str]]:
        """The correction is what is recalled from now on (re-embedded; FTS5, FAISS follow),
        in this entry and every item or fact that held the same words; returns those."""
        return self.entries.edit(kind, entry_id, text)

    def delete_entry(self, kind: EntryKind, entry_id: str) -> bool:
        return self.entries.delete(kind, entry_id)

    def set_entry_paused(self, kind: EntryKind, entry_id: str, paused: bool) -> None:
        self.entries.set_paused(kind, entry_id, paused)

    def set_entry_pinned(self, kind: EntryKind, entry_id: str, pinned: bool) -> None:
        self.entries.set_pinned(kind, entry_id, pinned)

    def forget_everything(self) -> dict[str, int]:
        """Memory, its files, the index and the log's conversations, gone from disk
        (memory/operations/forget_all.py); the knowledge bases are kept."""
        counts = forget_everything(self._core, journal_dir=self.journal.root)
        self.relationship.invalidate_cache()
        self.item_layer.forget_speakers()
        return counts

    def rebuild_controls(self, events: Any) -> dict[str, int]:
        """memory_controls replayed from the log, then the FAISS index rebuilt from the
        tables (paused items left out); the paused/pinned counts."""
        counts = self.controls.rebuild_from_log(events)
        self.item_layer.rebuild_index("controls rebuilt")
        self.relationship.invalidate_cache()
        return counts

    # ── expiry beside the layers ──────────────────────────────────────────
    def delete_expired_contexts(self, now: datetime) -> int:
        """Context items whose expiry is at or before ``now`` deleted; how many."""
        return self.contexts.delete_expired(now)

    def cleanup_old_daily(self, retention_days: int) -> int:
        """Every agent's daily journal files older than ``retention_days`` deleted."""
        return self.journal.cleanup_all_daily(retention_days)
