"""The ModelRouter: role → tier → one loaded model per file, lazily, with fallback.

- Roles map to tiers through the settings (``[roles]``); tiers map to files through the
  manifest.
- A model is loaded the first time it is needed, and one instance serves every tier that
  points at the same file.
- When a tier's file is missing or will not load, and ``llm.fallback`` allows it, the router
  tries the next smaller tier (large → medium → small) and emits an ERROR event saying so.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rilai_desktop.config import LLMSettings, RoleSettings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import LLM
from rilai_desktop.llm.errors import ModelError, ModelFileMissingError
from rilai_desktop.llm.manifest import FALLBACK_ORDER, Manifest, ModelEntry

OnModelEvent = Callable[[EventKind, dict[str, Any]], None]
ModelFactory = Callable[[ModelEntry, Path, str], LLM]  # (entry, file, slot)
ROLES = (
    "agents",
    "council",
    "voice",
    "escalation",
    "extraction",
    "consolidation",
    "safety_check",
    "reader",
)
# Roles that get their own llama.cpp context even when they share a file with another
# role. The voice's prompt (static system + the whole conversation) is long and grows by
# one exchange per turn; with a context of its own that prefix stays in the KV cache from
# turn to turn instead of being evicted by the council's and the critics' short calls on
# the same medium model. The weights are mmapped, so the second context costs only its
# KV cache and compute buffers (about 60 MB for the 0.5B model at n_ctx 4096).
DEDICATED_ROLES = frozenset({"voice"})
# Roles whose calls run on several contexts at once (``for_role(role, replica)``), each in
# its own slot ``agents#0``, ``agents#1``, ...: the factory gives those single-threaded
# contexts, as two of them already fill the two cores.
PARALLEL_ROLES = frozenset({"agents"})


class ModelRouter:
    def __init__(
        self,
        manifest: Manifest,
        models_dir: Path,
        *,
        llm_settings: LLMSettings,
        roles: RoleSettings,
        factory: ModelFactory,
        on_event: OnModelEvent | None = None,
    ) -> None:
        self.manifest = manifest
        self.models_dir = models_dir
        self.llm_settings = llm_settings
        self.roles = roles
        self._factory = factory
        self._on_event = on_event
        self._loaded: dict[tuple[Path, str], LLM] = {}  # (file, slot) -> loaded model
        self._lock = threading.Lock()
        self.resolved: dict[str, str] = {}  # requested tier -> tier actually used

    def tier_for_role(self, role: str) -> str:
        if role not in ROLES:
            raise ModelError(f"Unknown role {role!r}; roles are {', '.join(ROLES)}")
        return str(getattr(self.roles, role))

    def for_role(self, role: str, replica: int = 0) -> LLM:
        """The role's model; ``replica`` > 0 is another llama.cpp context on the same file
        (the agents run on two at once, one per core: see ``turn/agents/stage.py``)."""
        slot = role if role in DEDICATED_ROLES else ""
        if role in PARALLEL_ROLES:
            slot = f"{role}#{replica}"
        elif replica:
            raise ModelError(f"The {role} role has no replicas; only {sorted(PARALLEL_ROLES)}")
        return self.for_tier(self.tier_for_role(role), slot=slot)

    def for_tier(self, tier: str, *, slot: str = "") -> LLM:
        order = FALLBACK_ORDER.get(tier, (tier,))
        if not self.llm_settings.fallback:
            order = (tier,)
        problems: list[str] = []
        for candidate in order:
            entry = self.manifest.for_tier(candidate)
            if entry.source.kind == "endpoint":  # a tier on another machine (llm/remote.py)
                return self._remote(tier, candidate, entry, slot)
            path = entry.path_in(self.models_dir).resolve()
            try:
                model = self._load(entry, path, slot)
            except ModelError as exc:
                problems.append(f"{candidate}: {exc.message}")
                if candidate != order[-1]:
                    self._emit_fallback(tier, candidate, exc)
                continue
            self.resolved[tier] = candidate
            return model
        raise ModelFileMissingError(
            f"No usable model for the {tier} tier: " + "; ".join(problems),
            recovery_suggestions=[
                "Install the models: rilai models install " + " ".join(order),
                "Check them: rilai models verify",
            ],
        )

    def _remote(self, tier: str, candidate: str, entry: ModelEntry, slot: str) -> LLM:
        """The endpoint's model, falling back call by call to this tier's shipped local
        model (then the smaller ones) with an ERROR event when the server fails."""
        from rilai_desktop.llm.remote import WithFallback

        remote = self._load(entry, Path(f"endpoint:{entry.id}"), slot)
        self.resolved[tier] = candidate

        def local() -> LLM:
            problems: list[str] = []
            for fallback in FALLBACK_ORDER.get(candidate, (candidate,)):
                shipped = self.manifest.models.get(self.manifest.base_tiers.get(fallback, ""))
                if shipped is None or shipped.source.kind == "endpoint":
                    continue
                try:
                    return self._load(shipped, shipped.path_in(self.models_dir).resolve(), slot)
                except ModelError as exc:
                    problems.append(f"{fallback}: {exc.message}")
            raise ModelFileMissingError(
                f"No local model to fall back to for the {tier} tier: " + "; ".join(problems)
            )

        return WithFallback(remote, local, tier=tier, on_event=self._on_event)

    def endpoints(self) -> dict[str, str]:
        """Every endpoint a tier may reach (tier -> URL): what `rilai doctor` lists."""
        out: dict[str, str] = {}
        for tier in self.manifest.tiers:
            entry = self.manifest.for_tier(tier)
            if entry.source.kind == "endpoint" and entry.source.url:
                out[tier] = entry.source.url
        return out

    def _load(self, entry: ModelEntry, path: Path, slot: str = "") -> LLM:
        with self._lock:
            model = self._loaded.get((path, slot))
            if model is None:
                model = self._factory(entry, path, slot)
                self._loaded[(path, slot)] = model
            return model

    def _emit_fallback(self, tier: str, failed: str, exc: ModelError) -> None:
        if self._on_event is not None:
            self._on_event(
                EventKind.ERROR,
                {
                    "error": f"model tier {failed} unavailable, falling back: {exc.message}",
                    "traceback": None,
                    "code": exc.code,
                    "requested_tier": tier,
                    "failed_tier": failed,
                },
            )

    def loaded_models(self) -> list[str]:
        return sorted({str(path) for path, _ in self._loaded})

    def close(self) -> None:
        with self._lock:
            for model in self._loaded.values():
                closer = getattr(model, "close", None)
                if callable(closer):
                    closer()
            self._loaded.clear()
