"""The composition root: the one place that picks the real adapters and wires them.

It builds the model router, memory, the fast sensors, the turn runner over them
(``build_engine_parts``, which ``engine.open_engine`` wraps) and the daemon
(``build_daemon``), over the core (``core.build_core``: paths, settings, the event log).
Everything else takes what it needs as arguments.

``build_engine_parts`` is the one path a turn is built on: the app, `rilai chat`, the
benches and the evaluations (``FreshConversations``: a fresh data folder per conversation
over ``SharedModels``) all get their sensors, memory, agents, council, voice and critics
from it, so what an evaluation measures is what the app runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rilai_desktop.app.core import Core, build_core
from rilai_desktop.app.engine_parts import EngineParts
from rilai_desktop.app.sensing import bank_encoder as bank_encoder
from rilai_desktop.app.sensing import build_safety_check as build_safety_check
from rilai_desktop.app.sensing import build_sensors as build_sensors
from rilai_desktop.app.sensing import build_understanding as build_understanding
from rilai_desktop.config import Settings

if TYPE_CHECKING:
    from rilai_desktop.app.daemon_state import LogEventSink
    from rilai_desktop.contracts.clock import Clock
    from rilai_desktop.daemon.ports import Delivery, LiveState, NudgeRunner
    from rilai_desktop.daemon.service import Daemon
    from rilai_desktop.memory.manager import MemoryManager, MemoryRetryConfig
    from rilai_desktop.memory.ports import Embedder
    from rilai_desktop.turn.model_events import ModelEventRelay
    from rilai_desktop.turn.runner import TurnRunner
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import LLM
from rilai_desktop.llm.manifest import ModelEntry, load_manifest
from rilai_desktop.llm.router import ModelFactory, ModelRouter
from rilai_desktop.paths import Paths
from rilai_desktop.turn.prompts import Prompts


def build_router(
    paths: Paths,
    settings: Settings,
    on_event: Callable[[EventKind, dict[str, Any]], None] | None = None,
    *,
    factory: ModelFactory | None = None,
) -> ModelRouter:
    """The real model router: the manifest (+ the user's overlay) and llama.cpp models.
    ``factory``: what loads a tier's file (default llama.cpp; tests pass scripted models)."""
    manifest = load_manifest(paths.manifest_file, paths.user_manifest_file)
    return ModelRouter(
        manifest,
        paths.models_dir,
        llm_settings=settings.llm,
        roles=settings.roles,
        factory=factory or _llama_factory(settings, on_event),
        on_event=on_event,
    )


def _llama_factory(
    settings: Settings, on_event: Callable[[EventKind, dict[str, Any]], None] | None
) -> ModelFactory:
    """llama.cpp models with the threads of ``settings.llm`` per slot."""
    from rilai_desktop.llm.llama_cpp_adapter import LlamaCppModel, LlamaOptions

    llm = settings.llm
    options = LlamaOptions(
        n_ctx=llm.n_ctx,
        n_threads=llm.threads,
        n_gpu_layers=llm.gpu_layers,
        template_fallback=llm.chat_template_fallback,
    )

    def factory(entry: ModelEntry, path: Path, slot: str) -> LLM:
        if entry.source.kind == "endpoint" and entry.source.url:  # another machine's server
            from rilai_desktop.llm.remote import RemoteModel, read_key

            return RemoteModel(
                entry.source.url,
                model=entry.source.model or entry.id,
                model_id=entry.id,
                api_key=read_key(entry.source.api_key_file),
                on_event=on_event,
            )
        # Parallel agent contexts already fill the cores: one thread each, prompt included.
        # Everything else runs alone and processes its prompt on llm.batch_threads.
        # The voice speaks alone too: it decodes on llm.voice_threads.
        parallel = slot.startswith("agents#") and llm.agent_workers > 1
        batch = llm.threads if parallel else llm.batch_threads
        threads = llm.voice_threads if slot == "voice" else llm.threads
        return LlamaCppModel(
            path,
            model_id=entry.id,
            options=dataclasses.replace(options, n_threads=threads, n_threads_batch=batch),
            expected_size=entry.size,
            on_event=on_event,
        )

    return factory


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


def build_embedder(paths: Paths, settings: Settings) -> Embedder:
    """The embedder ``embedding.backend`` names, not loaded yet: "minilm" (torch), "onnx"
    (the same model and vectors on onnxruntime) or "hash" (no model)."""
    from rilai_desktop.memory.embedding import EmbeddingService, HashEmbedder

    backend = settings.embedding.backend
    stamp = paths.cache_dir / "embedding-verified.json"
    if backend == "hash":
        return HashEmbedder(dimension=256)
    if backend == "onnx":
        from rilai_desktop.memory.embedding_onnx import OnnxEmbedder

        return OnnxEmbedder(threads=settings.embedding.torch_threads, verified_stamp=stamp)
    return EmbeddingService(threads=settings.embedding.torch_threads, verified_stamp=stamp)


def build_memory(
    core: Core,
    *,
    with_models: bool = True,
    on_event: Callable[[EventKind, dict[str, Any]], None] | None = None,
    router: ModelRouter | None = None,
    router_factory: Callable[[], ModelRouter] | None = None,
    auto_consolidate: bool = True,
    embedder: Embedder | None = None,
    escalation_threshold: float | None = None,
    retry: MemoryRetryConfig | None = None,
) -> MemoryManager:
    """The real memory: MiniLM embeddings, FAISS under data_dir/memory, the shared db.
    ``embedder``: one already loaded for another memory, to share (default: a new one).
    ``escalation_threshold`` / ``retry``: the hybrid search's escalation point and the model
    retries (default: MemoryConfig's and MemoryRetryConfig's)."""
    from rilai_desktop.memory.manager import MemoryConfig, MemoryManager

    paths, settings = core.paths, core.settings
    mem = settings.memory
    if embedder is None:
        embedder = build_embedder(paths, settings)
    storage = paths.data_dir / "memory"
    routers: list[ModelRouter] = [] if router is None else [router]
    make_router = router_factory or (lambda: build_router(paths, settings, on_event))

    def shared_router() -> ModelRouter:
        if not routers:
            routers.append(make_router())
        return routers[0]

    def role(name: str) -> LazyRoleModel | None:
        return LazyRoleModel(shared_router, name) if with_models else None

    config = MemoryConfig(
        storage_dir=storage,
        consolidation_interval=mem.consolidation_interval,
        exact_index_max=mem.exact_index_max,
        dedupe_similarity=mem.dedupe_similarity,
        llm_candidates=mem.llm_candidates,
        extract_mode=mem.extract,
        auto_consolidate=auto_consolidate,
    )
    if escalation_threshold is not None:
        config = dataclasses.replace(config, escalation_threshold=escalation_threshold)
    manager = MemoryManager(
        core.event_log,
        embedder,
        storage_dir=storage,
        categories_dir=paths.categories_dir,
        journal_dir=paths.data_dir / "agents",
        events=core.event_log,
        config=config,
        retry=retry,
        extraction_model=role("extraction"),
        consolidation_model=role("consolidation"),
        retrieval_model=role("extraction"),
    )
    manager.controls.recording_paused = mem.paused  # the global "memory paused" switch
    manager.open()
    return manager


@dataclass
class SharedModels:
    """What the engines one process builds may share: the model router and the relay its
    models report to, the one prompts reader and the embedding model (None until the first
    memory loads it). ``open_shared_models`` builds the real ones; ``build_engine_parts``
    makes its own unless handed these (`rilai eval replies` hands one to every
    conversation, so the models load once)."""

    router: ModelRouter
    relay: ModelEventRelay
    prompts: Prompts
    embedder: Embedder | None = None


def open_shared_models(
    paths: Paths,
    settings: Settings,
    *,
    factory: ModelFactory | None = None,
    embedder: Embedder | None = None,
) -> SharedModels:
    """The router over the installed models (loaded lazily), its relay, the prompts reader.
    ``factory`` / ``embedder``: scripted models / a test embedder (default: the real ones)."""
    from rilai_desktop.turn.model_events import ModelEventRelay

    relay = ModelEventRelay()
    router = build_router(paths, settings, relay, factory=factory)
    return SharedModels(router, relay, Prompts(paths.prompts_dir), embedder)


def build_engine_parts(
    core: Core, *, session_id: str | None = None, shared: SharedModels | None = None
) -> EngineParts:
    """The real turn: llama.cpp models through the router, MiniLM + FAISS memory, the fast
    sensors with the learned layer (``build_sensors`` over memory's embedder), the agents,
    council, voice and critics (``turn.factory.build_turn_runner``).

    The one place a turn is assembled: the app and every command, bench and evaluation get
    theirs here. ``shared``: models already loaded for another engine (default: new ones).
    Model calls report to a relay that appends them to the running turn's events.
    Category consolidation (a model call) is left to maintenance, not to a turn's commit.
    """
    from rilai_desktop.app.memory_bridge import MemoryBridge
    from rilai_desktop.turn.factory import build_turn_runner

    if shared is None:
        shared = open_shared_models(core.paths, core.settings)
    memory = build_memory(
        core, router=shared.router, auto_consolidate=False, embedder=shared.embedder
    )
    if shared.embedder is None:
        memory.embed(["warm-up"])  # load the embedding model now, not inside the first turn
        shared.embedder = memory.embedder
    runner = build_turn_runner(
        events=core.event_log,
        models=shared.router,
        memory=MemoryBridge(memory),
        prompts=shared.prompts,
        relay=shared.relay,
        session_id=session_id,
        agent_workers=core.settings.llm.agent_workers,
        sensors=build_sensors(memory.embedder),
        safety_check=build_safety_check(shared.router, core.settings),
        agents=core.settings.agents.enabled,
        readings=core.settings.agents.readings,
    )
    return EngineParts(core, shared.router, memory, runner)


class FreshConversations:
    """Engine parts for one conversation each (``build_engine_parts``, as the app builds
    them), sharing one set of loaded models (router, MiniLM) but each starting from an
    empty data folder of their own under ``root``: a new event log, session, memory and
    stance per conversation (`rilai eval replies`).
    ``open()`` gives one; ``release(parts)`` closes its data (never the shared models);
    ``close()`` unloads the models. ``shared``: models of the caller's (default: the real
    ones)."""

    def __init__(
        self, paths: Paths, settings: Settings, root: Path, *, shared: SharedModels | None = None
    ) -> None:
        self.paths, self.settings, self.root = paths, settings, root
        self.shared = shared if shared is not None else open_shared_models(paths, settings)
        self._opened = 0

    @property
    def router(self) -> ModelRouter:
        return self.shared.router

    def open(self) -> EngineParts:
        self._opened += 1
        home = self.root / f"conversation-{self._opened:03d}"
        core = build_core(self.paths.scratch(home), self.settings)
        return build_engine_parts(core, shared=self.shared)

    def release(self, parts: EngineParts) -> None:
        parts.runner.wait_warm()
        if parts.memory is not None:
            parts.memory.close()
        parts.core.close()

    def close(self) -> None:
        self.shared.router.close()


class _LazyMaintenanceTasks:
    """MaintenanceTasks that open memory only when a pass needs it (a dry run never does).

    ``memory`` is a factory (the Engine hands its own manager; `rilai daemon` the
    Context's, which closes it). Without one, memory is built here on first use and
    closed with the daemon.
    """

    def __init__(
        self,
        core: Core,
        clock: Any,
        memory: Callable[[], MemoryManager] | None,
    ) -> None:
        self._core, self._clock, self._factory = core, clock, memory
        self._tasks: Any = None
        self._owned: MemoryManager | None = None

    def _get(self) -> Any:
        if self._tasks is None:
            from rilai_desktop.app.maintenance_tasks import StoreMaintenance

            if self._factory is not None:
                memory = self._factory()
            else:
                memory = self._owned = build_memory(self._core, auto_consolidate=False)
            self._tasks = StoreMaintenance(self._core.event_log, memory, clock=self._clock)
        return self._tasks

    def close(self) -> None:
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def delete_expired_contexts(self, now: Any) -> int:
        return int(self._get().delete_expired_contexts(now))

    def cleanup_old_daily(self, retention_days: int) -> int:
        return int(self._get().cleanup_old_daily(retention_days))

    def apply_resource_retention(self, now: Any, retention_days: int) -> int:
        return int(self._get().apply_resource_retention(now, retention_days))

    def consolidate_pending(self) -> list[str]:
        return list(self._get().consolidate_pending())

    def snapshot_index(self, dest: Path) -> Path | None:
        result = self._get().snapshot_index(dest)
        return None if result is None else Path(result)

    def optimize_database(self) -> None:
        self._get().optimize_database()

    def backup_database(self, dest_dir: Path, keep: int) -> Path:
        return Path(self._get().backup_database(dest_dir, keep))


def build_daemon(
    core: Core,
    *,
    runner: TurnRunner | None = None,
    delivery: Delivery | None = None,
    clock: Clock | None = None,
    with_maintenance: bool = True,
    memory: Callable[[], MemoryManager] | None = None,
) -> Daemon:
    """The daemon over the real log: tick + decay, the nudge engine, maintenance.

    With ``runner`` (the shell, the window) the live state is that runner's session and
    daemon events go to its session; headless (``rilai daemon run``) the state is a
    projection of the event log. ``delivery`` shows nudges (default: notify-send where
    present, else the console). Start it with ``daemon.jobs.DaemonScheduler``.
    """
    from rilai_desktop.app.daemon_state import LogEventSink, LogLiveState, RunnerLiveState
    from rilai_desktop.contracts.clock import SystemClock
    from rilai_desktop.daemon.maintenance import Maintenance
    from rilai_desktop.daemon.service import Daemon

    clock = clock or SystemClock()
    state: LiveState
    if runner is not None:
        live = runner
        sink = LogEventSink(core.event_log, clock=clock, session_id=lambda: live.session_id)
        state = RunnerLiveState(runner, clock=clock)
    else:
        sink = LogEventSink(core.event_log, clock=clock)
        state = LogLiveState(core.event_log, clock)
    nudges = _build_nudges(core, sink, state, clock, delivery)
    maintenance = None
    tasks = None
    if with_maintenance:
        tasks = _LazyMaintenanceTasks(core, clock, memory)
        maintenance = Maintenance(
            tasks, core.settings, core.paths.data_dir, clock, busy=state.turn_running
        )
    daemon = Daemon(
        clock, sink, state, core.settings, nudges, maintenance, session_id=sink.session_id
    )
    if tasks is not None:
        daemon.on_close(tasks.close)
    return daemon


def _build_nudges(
    core: Core, sink: LogEventSink, state: LiveState, clock: Clock, delivery: Delivery | None
) -> NudgeRunner:
    """The nudge engine over the log's facts and memory's open goals (no embedding model).

    Its settings are re-read from settings.toml at each run, so `rilai nudges settings
    --off` reaches a daemon that is already running (a bad file keeps the start-up ones).
    """
    from rilai_desktop.app.nudge_facts import LogFacts, goals_from_log
    from rilai_desktop.config import NudgeSettings, load_settings
    from rilai_desktop.daemon.delivery import default_delivery
    from rilai_desktop.daemon.nudges import NudgeControls, NudgeEngine
    from rilai_desktop.errors import RilaiError

    def settings() -> NudgeSettings:
        try:
            return load_settings(core.paths.settings_file).settings.nudges
        except RilaiError:
            return core.settings.nudges

    facts = LogFacts(
        core.event_log, goals_from_log(core.event_log), clock, turn_running=state.turn_running
    )
    return NudgeEngine(
        clock,
        sink,
        facts,
        settings,
        delivery if delivery is not None else default_delivery(),
        core.event_log,
        NudgeControls.in_data_dir(core.paths.data_dir),
        session_id=sink.session_id,
    )
