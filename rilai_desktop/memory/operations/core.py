"""MemoryCore: what every memory operation shares.

The three layers, the binding of ``memory.*`` events to a session and turn, the write
transaction whose side effects outside SQLite follow its rollback (category files put back,
the in-memory vector index dropped), and embeddings behind the seed's retry policy. Each
mutation runs in one write transaction on the shared connection together with its event,
so the event log and the memory tables never disagree.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from rilai_desktop.contracts.clock import Clock
from rilai_desktop.contracts.ports import EventSink
from rilai_desktop.errors import EmbeddingError
from rilai_desktop.memory._sql import iso
from rilai_desktop.memory.categories import CategoryLayer
from rilai_desktop.memory.items import ItemLayer
from rilai_desktop.memory.ports import Database, Embedder, Vectors
from rilai_desktop.memory.resources import ResourceLayer
from rilai_desktop.memory.settings import MemoryConfig, MemoryRetryConfig


class MemoryCore:
    """The layers, the event binding, the write transaction and the retried embedder."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        events: EventSink | None,
        config: MemoryConfig,
        retry: MemoryRetryConfig,
        resource_layer: ResourceLayer,
        item_layer: ItemLayer,
        category_layer: CategoryLayer,
        clock: Clock,
        sleep: Callable[[float], None],
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.events = events
        self.config = config
        self.retry = retry
        self.resource_layer = resource_layer
        self.item_layer = item_layer
        self.category_layer = category_layer
        self.clock = clock
        self.sleep = sleep
        self.last_warnings: list[str] = []
        # the binding of memory events: the latest any thread made, and each thread's own
        self._shared_binding: tuple[str, int] = ("memory", 0)
        self._thread_binding = threading.local()

    # ── events ────────────────────────────────────────────────────────────
    def bind_turn(self, session_id: str, turn_id: int) -> None:
        """Memory events from now on belong to this session and turn — on this thread.

        Memory is written from more than one thread: turns and edits on the engine's
        worker, maintenance on the scheduler's pool (docs/architecture.md, "Threads and
        the database"). A binding is the calling thread's own, so maintenance binding its
        events to the daemon's turn 0 never relabels a turn committing meanwhile, nor the
        other way round. A thread that never bound sees the latest binding made anywhere.
        """
        self._thread_binding.value = (session_id, turn_id)
        self._shared_binding = (session_id, turn_id)

    def _binding(self) -> tuple[str, int]:
        found: tuple[str, int] | None = getattr(self._thread_binding, "value", None)
        return found if found is not None else self._shared_binding

    @property
    def session_id(self) -> str:
        return self._binding()[0]

    @property
    def turn_id(self) -> int:
        return self._binding()[1]

    def emit(self, kind: str, payload: Mapping[str, Any]) -> None:
        if self.events is not None:
            session_id, turn_id = self._binding()
            self.events.append(session_id, turn_id, kind, payload)

    def emit_now(self, kind: str, payload: Mapping[str, Any]) -> None:
        with self.db.transaction():
            self.emit(kind, payload)

    @contextlib.contextmanager
    def mutation(self, *, index: bool = True) -> Iterator[sqlite3.Connection]:
        """A write transaction whose side effects outside SQLite follow its rollback.

        If the block fails (a refused event, a constraint...), SQLite rolls back; the
        category files written inside are put back and, if the block may have changed the
        vector index (``index``), the in-memory index, which may hold vectors of rolled-back
        rows, is dropped (reloaded or rebuilt on next use).
        """
        try:
            with self.db.transaction() as conn, self.category_layer.files_follow():
                yield conn
        except BaseException:
            if index:
                self.item_layer.discard_index()
            raise

    def ensure_category(self, conn: sqlite3.Connection, name: str) -> None:
        """Create a category the first time an item is filed under it, with its event."""
        if self.category_layer.get_by_name(name) is not None:
            return
        cat = self.category_layer.ensure(conn, name)
        if cat is not None:
            self.emit(
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
                self.sleep(min(r.embedding_backoff_max, r.embedding_backoff_base * 2**attempt))
        raise AssertionError("unreachable")

    def now_iso(self) -> str:
        return iso(self.clock.now()) or ""


class RetryingEmbedder:
    """The core's embedder seen through its retry policy (for the retrievers)."""

    def __init__(self, core: MemoryCore) -> None:
        self._core = core

    @property
    def dimension(self) -> int:
        return self._core.embedder.dimension

    @property
    def model_id(self) -> str:
        return self._core.embedder.model_id

    def embed(self, texts: Sequence[str]) -> Vectors:
        return self._core.embed(texts)

    def embed_one(self, text: str) -> Vectors:
        return self._core.embed([text])
