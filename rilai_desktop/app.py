"""The composition root: the one place that picks real adapters and wires them.

Today it builds the event log, the model router and memory; the turn runner, daemon and
window join it as their issues land. Everything else takes what it needs as arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rilai_desktop.config import Settings

if TYPE_CHECKING:
    from rilai_desktop.memory.manager import MemoryManager
    from rilai_desktop.turn.runner import TurnRunner
from rilai_desktop.contracts import EventKind
from rilai_desktop.llm.manifest import ModelEntry, load_manifest
from rilai_desktop.llm.port import LLM
from rilai_desktop.llm.router import ModelRouter
from rilai_desktop.paths import Paths, ensure_private_dir
from rilai_desktop.store import EventLog


@dataclass
class Core:
    paths: Paths
    settings: Settings
    event_log: EventLog

    def close(self) -> None:
        self.event_log.close()


def build_core(paths: Paths, settings: Settings) -> Core:
    """Create the data directory (0700) and open the event log in it."""
    ensure_private_dir(paths.data_dir)
    return Core(paths=paths, settings=settings, event_log=EventLog(paths.db_path))


def build_router(
    paths: Paths,
    settings: Settings,
    on_event: Callable[[EventKind, dict[str, Any]], None] | None = None,
) -> ModelRouter:
    """The real model router: the manifest (+ the user's overlay) and llama.cpp models."""
    from rilai_desktop.llm.llama_cpp_adapter import LlamaCppModel, LlamaOptions

    manifest = load_manifest(paths.manifest_file, paths.user_manifest_file)
    llm = settings.llm
    options = LlamaOptions(
        n_ctx=llm.n_ctx,
        n_threads=llm.threads,
        n_gpu_layers=llm.gpu_layers,
        template_fallback=llm.chat_template_fallback,
    )

    def factory(entry: ModelEntry, path: Path) -> LLM:
        return LlamaCppModel(
            path, model_id=entry.id, options=options, expected_size=entry.size, on_event=on_event
        )

    return ModelRouter(
        manifest,
        paths.models_dir,
        llm_settings=llm,
        roles=settings.roles,
        factory=factory,
        on_event=on_event,
    )


class LazyRoleModel:
    """A model for a role, resolved through the router on first use (not at start-up).

    Memory holds one of these per role; a RAG search never touches llama.cpp, and the GGUF
    is only loaded when extraction, consolidation or an escalated retrieval needs it.
    """

    def __init__(self, router_factory: Callable[[], ModelRouter], role: str) -> None:
        self._router_factory = router_factory
        self.role = role
        self._model: LLM | None = None

    def _get(self) -> LLM:
        if self._model is None:
            self._model = self._router_factory().for_role(self.role)
        return self._model

    @property
    def model_id(self) -> str:
        return self._get().model_id

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        return self._get().complete(messages, **kwargs)


def build_memory(
    core: Core,
    *,
    with_models: bool = True,
    on_event: Callable[[EventKind, dict[str, Any]], None] | None = None,
    router: ModelRouter | None = None,
    auto_consolidate: bool = True,
) -> MemoryManager:
    """The real memory: MiniLM embeddings, FAISS under data_dir/memory, the shared db."""
    from rilai_desktop.memory.embedding import EmbeddingService, FakeEmbedder
    from rilai_desktop.memory.manager import MemoryConfig, MemoryManager

    paths, settings = core.paths, core.settings
    mem = settings.memory
    embedder: EmbeddingService | FakeEmbedder
    if settings.embedding.backend == "hash":
        embedder = FakeEmbedder(dimension=256)
    else:
        embedder = EmbeddingService(
            threads=settings.embedding.torch_threads,
            verified_stamp=paths.cache_dir / "embedding-verified.json",
        )
    storage = paths.data_dir / "memory"
    routers: list[ModelRouter] = [] if router is None else [router]

    def router_factory() -> ModelRouter:
        if not routers:
            routers.append(build_router(paths, settings, on_event))
        return routers[0]

    def role(name: str) -> LazyRoleModel | None:
        return LazyRoleModel(router_factory, name) if with_models else None

    manager = MemoryManager(
        core.event_log,
        embedder,
        storage_dir=storage,
        categories_dir=paths.categories_dir,
        journal_dir=paths.data_dir / "agents",
        events=core.event_log,
        config=MemoryConfig(
            storage_dir=storage,
            consolidation_interval=mem.consolidation_interval,
            exact_index_max=mem.exact_index_max,
            dedupe_similarity=mem.dedupe_similarity,
            llm_candidates=mem.llm_candidates,
            extract_mode=mem.extract,
            auto_consolidate=auto_consolidate,
        ),
        extraction_model=role("extraction"),
        consolidation_model=role("consolidation"),
        retrieval_model=role("extraction"),
    )
    manager.open()
    return manager


@dataclass
class Companion:
    """Everything a conversation needs: the log, the models, memory and the turn runner."""

    core: Core
    router: ModelRouter
    memory: MemoryManager | None
    runner: TurnRunner

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()
        self.router.close()


def build_companion(core: Core, *, session_id: str | None = None) -> Companion:
    """The real turn: llama.cpp models through the router, MiniLM + FAISS memory.

    Model calls report to a relay that appends them to the running turn's events.
    Category consolidation (a model call) is left to maintenance, not to a turn's commit.
    """
    from rilai_desktop.turn.factory import build_turn_runner
    from rilai_desktop.turn.model_events import ModelEventRelay
    from rilai_desktop.turn_memory import MemoryBridge

    relay = ModelEventRelay()
    router = build_router(core.paths, core.settings, relay)
    memory = build_memory(core, router=router, auto_consolidate=False)
    memory.embed(["warm-up"])  # load the embedding model now, not inside the first turn
    runner = build_turn_runner(
        events=core.event_log,
        models=router,
        memory=MemoryBridge(memory),
        prompts_dir=core.paths.prompts_dir,
        relay=relay,
        session_id=session_id,
    )
    return Companion(core, router, memory, runner)
