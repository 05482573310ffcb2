"""What every command needs: paths and settings resolved once, the event log on demand,
and the Engine (or memory alone) built by the composition root when a command asks.

``Builders`` is the seam: the real ones come from ``app.build``; tests hand in fakes
(``Context(..., builders=Builders(engine_parts=..., memory=..., router=...))``) instead
of patching our functions.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rilai_desktop.app.core import Core, build_core
from rilai_desktop.config import LoadedSettings, Settings, load_settings
from rilai_desktop.paths import Paths, resolve_paths
from rilai_desktop.store import EventLog

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine
    from rilai_desktop.app.engine_parts import EngineParts
    from rilai_desktop.llm.router import ModelRouter
    from rilai_desktop.memory.manager import MemoryManager


def _real_parts(core: Core) -> EngineParts:
    from rilai_desktop.app.build import build_engine_parts

    return build_engine_parts(core)


def _real_router(paths: Paths, settings: Settings) -> ModelRouter:
    from rilai_desktop.app.build import build_router

    return build_router(paths, settings)


def _real_memory(core: Core, with_models: bool, router: Callable[[], ModelRouter]) -> MemoryManager:
    from rilai_desktop.app.build import build_memory

    return build_memory(core, with_models=with_models, router_factory=router)


def _real_window(ctx: Context) -> int:
    from rilai_desktop.cli.commands.window_cmd import open_window

    return open_window(ctx)


@dataclass(frozen=True)
class Builders:
    """How a command's engine, memory, model router and window are built (real by
    default)."""

    engine_parts: Callable[[Core], EngineParts] = _real_parts
    memory: Callable[[Core, bool, Callable[[], ModelRouter]], MemoryManager] = _real_memory
    router: Callable[[Paths, Settings], ModelRouter] = _real_router
    window: Callable[[Context], int] = _real_window


@dataclass
class Context:
    paths: Paths
    loaded: LoadedSettings
    json: bool = False
    debug: bool = False
    builders: Builders = field(default_factory=Builders)
    _core: Core | None = field(default=None, repr=False)
    _memory: MemoryManager | None = field(default=None, repr=False)
    _engine: Engine | None = field(default=None, repr=False)

    @classmethod
    def create(
        cls,
        cli_overrides: dict[str, Any],
        *,
        json: bool,
        debug: bool,
        builders: Builders | None = None,
    ) -> Context:
        paths = resolve_paths()
        loaded = load_settings(paths.settings_file, os.environ, cli_overrides)
        return cls(
            paths=paths, loaded=loaded, json=json, debug=debug, builders=builders or Builders()
        )

    def event_log(self) -> EventLog:
        return self.core().event_log

    def core(self) -> Core:
        """The paths, settings and event log (opens the log if needed)."""
        if self._core is None:
            self._core = build_core(self.paths, self.loaded.settings)
        return self._core

    def router(self) -> ModelRouter:
        """A model router over the installed models (nothing is loaded until asked)."""
        return self.builders.router(self.paths, self.loaded.settings)

    def memory(self, *, with_models: bool = True) -> MemoryManager:
        """The memory manager (embedder + index opened, models resolved lazily)."""
        if self._memory is None:
            self._memory = self.builders.memory(self.core(), with_models, self.router)
        return self._memory

    def engine(self) -> Engine:
        """The Engine on the real models and memory (loads them: seconds)."""
        if self._engine is None:
            from rilai_desktop.app.engine import Engine

            self._engine = Engine(self.builders.engine_parts(self.core()))
        return self._engine

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()
            self._memory = None
        if self._engine is not None:
            self._engine.close()  # closes the log too
            self._engine = None
            self._core = None
        if self._core is not None:
            self._core.close()
            self._core = None
