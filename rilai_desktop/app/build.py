"""The composition root: the one place that picks the real adapters and wires them.

It builds the model router, memory, the fast sensors, the turn runner over them
(``build_engine_parts``, which ``engine.open_engine`` wraps) and the daemon
(``build_daemon``), over the core (``core.build_core``: paths, settings, the event log).
Everything else takes what it needs as arguments.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rilai_desktop.app.core import Core, build_core
from rilai_desktop.app.engine_parts import EngineParts
from rilai_desktop.config import Settings

if TYPE_CHECKING:
    from rilai_desktop.app.daemon_state import LogEventSink
    from rilai_desktop.contracts.clock import Clock
    from rilai_desktop.daemon.ports import Delivery, LiveState, NudgeRunner
    from rilai_desktop.daemon.service import Daemon
    from rilai_desktop.memory.embedding import EmbeddingService, HashEmbedder
    from rilai_desktop.memory.manager import MemoryManager, MemoryRetryConfig
    from rilai_desktop.turn.runner import TurnRunner
    from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import LLM
from rilai_desktop.llm.manifest import ModelEntry, load_manifest
from rilai_desktop.llm.router import ModelRouter
from rilai_desktop.paths import Paths
from rilai_desktop.turn.prompts import Prompts


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

    def factory(entry: ModelEntry, path: Path, slot: str) -> LLM:
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
    router_factory: Callable[[], ModelRouter] | None = None,
    auto_consolidate: bool = True,
    embedder: EmbeddingService | HashEmbedder | None = None,
    escalation_threshold: float | None = None,
    retry: MemoryRetryConfig | None = None,
) -> MemoryManager:
    """The real memory: MiniLM embeddings, FAISS under data_dir/memory, the shared db.
    ``embedder``: one already loaded for another memory, to share (default: a new one).
    ``escalation_threshold`` / ``retry``: the hybrid search's escalation point and the model
    retries (default: MemoryConfig's and MemoryRetryConfig's)."""
    from rilai_desktop.memory.embedding import EmbeddingService, HashEmbedder
    from rilai_desktop.memory.manager import MemoryConfig, MemoryManager

    paths, settings = core.paths, core.settings
    mem = settings.memory
    if embedder is not None:
        pass
    elif settings.embedding.backend == "hash":
        embedder = HashEmbedder(dimension=256)
    else:
        embedder = EmbeddingService(
            threads=settings.embedding.torch_threads,
            verified_stamp=paths.cache_dir / "embedding-verified.json",
        )
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


def build_sensors(embedder: Any | None) -> FastSensors:
    """The fast sensors, with the learned layer when ``embedder`` fits the shipped heads.

    ``embedder`` is memory's (MiniLM, loaded once and shared: its LRU cache also means the
    message is embedded once for sensing and recall). Without one, with the hash backend
    (another dimension) or without a heads file, the rules run alone.
    """
    from rilai_desktop.turn.sensors import FastSensors
    from rilai_desktop.turn.sensors.learned import LearnedLayer, load_default_heads

    if embedder is None:
        return FastSensors()
    heads = load_default_heads()
    if heads is None or getattr(embedder, "dimension", None) != heads.dimension:
        return FastSensors()

    def embed(text: str) -> Any:
        return embedder.embed([text])[0]

    return FastSensors(learned=LearnedLayer(embed, heads))


def build_engine_parts(core: Core, *, session_id: str | None = None) -> EngineParts:
    """The real turn: llama.cpp models through the router, MiniLM + FAISS memory.

    Model calls report to a relay that appends them to the running turn's events.
    Category consolidation (a model call) is left to maintenance, not to a turn's commit.
    """
    from rilai_desktop.app.memory_bridge import MemoryBridge
    from rilai_desktop.turn.factory import build_turn_runner
    from rilai_desktop.turn.model_events import ModelEventRelay

    relay = ModelEventRelay()
    router = build_router(core.paths, core.settings, relay)
    memory = build_memory(core, router=router, auto_consolidate=False)
    memory.embed(["warm-up"])  # load the embedding model now, not inside the first turn
    runner = build_turn_runner(
        events=core.event_log,
        models=router,
        memory=MemoryBridge(memory),
        prompts=Prompts(core.paths.prompts_dir),
        relay=relay,
        session_id=session_id,
        agent_workers=core.settings.llm.agent_workers,
        sensors=build_sensors(memory.embedder),
    )
    return EngineParts(core, router, memory, runner)


class FreshConversations:
    """Engine parts for one conversation each, sharing one set of loaded models (router,
    MiniLM) but each starting from an empty data folder of their own under ``root``: a new
    event log, session, memory and stance per conversation (`rilai eval replies`).
    ``open()`` gives one; ``release(parts)`` closes its data (never the shared models);
    ``close()`` unloads the models."""

    def __init__(self, paths: Paths, settings: Settings, root: Path) -> None:
        from rilai_desktop.turn.model_events import ModelEventRelay

        self.paths, self.settings, self.root = paths, settings, root
        self.prompts = Prompts(paths.prompts_dir)  # one reader, shared by every conversation
        self.relay = ModelEventRelay()
        self.router = build_router(paths, settings, self.relay)
        self._embedder: Any = None  # the first conversation's, then shared
        self._opened = 0

    def open(self) -> EngineParts:
        from rilai_desktop.app.memory_bridge import MemoryBridge
        from rilai_desktop.turn.factory import build_turn_runner

        self._opened += 1
        home = self.root / f"conversation-{self._opened:03d}"
        paths = self.paths.scratch(home)
        core = build_core(paths, self.settings)
        memory = build_memory(
            core, router=self.router, auto_consolidate=False, embedder=self._embedder
        )
        if self._embedder is None:
            memory.embed(["warm-up"])  # load MiniLM once, outside the first turn
            self._embedder = memory.embedder
        runner = build_turn_runner(
            events=core.event_log,
            models=self.router,
            memory=MemoryBridge(memory),
            prompts=self.prompts,
            relay=self.relay,
            agent_workers=self.settings.llm.agent_workers,
        )
        return EngineParts(core, self.router, memory, runner)

    def release(self, parts: EngineParts) -> None:
        parts.runner.wait_warm()
        if parts.memory is not None:
            parts.memory.close()
        parts.core.close()

    def close(self) -> None:
        self.router.close()


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
