"""What every command needs: paths and settings resolved once, the event log on demand."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rilai_desktop.app.build import Core, build_core
from rilai_desktop.config import LoadedSettings, load_settings
from rilai_desktop.paths import Paths, resolve_paths
from rilai_desktop.store import EventLog

if TYPE_CHECKING:
    from rilai_desktop.app.build import Companion
    from rilai_desktop.memory.manager import MemoryManager


@dataclass
class Context:
    paths: Paths
    loaded: LoadedSettings
    json: bool = False
    debug: bool = False
    _core: Core | None = field(default=None, repr=False)
    _memory: MemoryManager | None = field(default=None, repr=False)
    _companion: Companion | None = field(default=None, repr=False)

    @classmethod
    def create(cls, cli_overrides: dict[str, Any], *, json: bool, debug: bool) -> Context:
        paths = resolve_paths()
        loaded = load_settings(paths.settings_file, os.environ, cli_overrides)
        return cls(paths=paths, loaded=loaded, json=json, debug=debug)

    def event_log(self) -> EventLog:
        if self._core is None:
            self._core = build_core(self.paths, self.loaded.settings)
        return self._core.event_log

    def core(self) -> Core:
        """The paths, settings and event log (opens the log if needed)."""
        self.event_log()
        assert self._core is not None
        return self._core

    def memory(self, *, with_models: bool = True) -> MemoryManager:
        """The memory manager (embedder + index opened, models resolved lazily)."""
        if self._memory is None:
            from rilai_desktop.app.build import build_memory

            self.event_log()
            assert self._core is not None
            self._memory = build_memory(self._core, with_models=with_models)
        return self._memory

    def companion(self) -> Companion:
        """The whole turn on the real models and memory (loads them: seconds)."""
        if self._companion is None:
            from rilai_desktop.app.build import build_companion

            self.event_log()
            assert self._core is not None
            self._companion = build_companion(self._core)
        return self._companion

    def close(self) -> None:
        if self._companion is not None:
            self._companion.close()
            self._companion = None
        if self._memory is not None:
            self._memory.close()
            self._memory = None
        if self._core is not None:
            self._core.close()
            self._core = None
