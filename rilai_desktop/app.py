"""The composition root: the one place that picks real adapters and wires them.

Today it builds the event log and the model router; memory, turn runner, daemon and window
join it as their issues land. Everything else takes what it needs as arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rilai_desktop.config import Settings
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
