"""An Engine on the fakes for client tests (window, CLI): ScriptedLLMs for every role, the
real event log and memory (the hashed embedder, FAISS) under the test's RILAI_HOME."""

from __future__ import annotations

from typing import Any

from rilai_desktop.app.build import build_memory
from rilai_desktop.app.core import Core, build_core
from rilai_desktop.app.engine import Engine, EngineParts
from rilai_desktop.app.memory_bridge import MemoryBridge
from rilai_desktop.config import load_settings
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM, agent_answer
from rilai_desktop.paths import resolve_paths
from rilai_desktop.turn.factory import build_turn_runner
from tests.turn.conftest import PROMPTS

VOICE_REPLY = "That sounds like a full day. How are you feeling about it now?"


class FakeModels(RoleModels):
    """The scripted role models, as the engine holds a router."""

    closed = False

    def loaded_models(self) -> list[str]:
        return ["scripted-voice"]

    def close(self) -> None:
        self.closed = True


def open_fake_engine(voice: Any = VOICE_REPLY, retrieval: ScriptedLLM | None = None) -> Engine:
    """Needs RILAI_EMBEDDING__BACKEND=hash (set it with monkeypatch before calling).

    ``retrieval``: memory's model role (the "llm" re-rank and the hybrid's escalation) —
    memory then has models, so set RILAI_MEMORY__EXTRACT=rules to keep turns' extraction
    on the rules; without it memory has no model (rag and hybrid without escalation)."""
    paths = resolve_paths()
    core = build_core(paths, load_settings(paths.settings_file).settings)
    return fake_engine_over(core, voice, retrieval)


def fake_engine_over(
    core: Core, voice: Any = VOICE_REPLY, retrieval: ScriptedLLM | None = None
) -> Engine:
    """``open_fake_engine`` over a core of the caller's (e.g. a scratch data folder)."""
    voice_llm = voice if isinstance(voice, ScriptedLLM) else ScriptedLLM(default=voice)
    roles: dict[str, Any] = {
        "agents": ScriptedLLM(default=agent_answer()),
        "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
    }
    if retrieval is not None:
        roles["extraction"] = retrieval
    models = FakeModels(voice_llm, roles)
    memory = build_memory(
        core,
        with_models=retrieval is not None,
        router=models,  # type: ignore[arg-type]
        auto_consolidate=False,
    )
    runner = build_turn_runner(
        events=core.event_log,
        models=models,
        memory=MemoryBridge(memory),
        prompts=PROMPTS,
        use_judge=False,
    )
    return Engine(EngineParts(core, models, memory, runner))
