"""The evaluations run the product (issue 27): one composition path for every turn.

`rilai eval replies` opens a companion per conversation (``build.FreshConversations``) and
the app opens an Engine (``engine.open_engine``). Both must be the turn the app runs: the
same sensors (with the learned layer), memory, agents, council, voice and critics, on the
same model tiers. They are compared here structurally: every object reachable from the
turn runner, walked generically (its class, its attributes, the functions it holds and
what their closures hold), so a part the app's builder adds later that the eval does not
get — or the reverse — fails this test without anyone updating a list of parts.
"""

from __future__ import annotations

import enum
import hashlib
import threading
import types
from collections import deque
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any

import numpy as np
import pytest

from rilai_desktop.app.build import (
    FreshConversations,
    SharedModels,
    build_memory,
    build_safety_check,
    build_sensors,
    open_shared_models,
)
from rilai_desktop.app.core import build_core
from rilai_desktop.app.engine import Engine, EngineParts, open_engine
from rilai_desktop.app.memory_bridge import MemoryBridge
from rilai_desktop.config import Settings, load_settings
from rilai_desktop.contracts.llm import LLM
from rilai_desktop.llm.fake import ScriptedLLM, agent_answer
from rilai_desktop.llm.manifest import ModelEntry
from rilai_desktop.llm.router import ROLES
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.paths import Paths, resolve_paths
from rilai_desktop.store import EventLog
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.sensors.learned import load_default_heads
from rilai_desktop.turn.session import SessionState

HEADS = load_default_heads()
# the shipped heads' dimension (MiniLM's): a hashed embedder of it carries the learned layer
DIMENSION = HEADS.dimension if HEADS is not None else 384
# State of one conversation, not configuration: its event log (a file of its own, and the
# Engine's listeners on it) and its session (a new id).
PER_CONVERSATION = (EventLog, SessionState)
_ATOMS = (bool, int, float, complex, bytes, type(None))


def _reply(request: Any) -> Any:
    """Any role's answer: an agent's label, the council's decision, the voice's text, and
    for any other schema its first choices."""
    schema = request.schema or {}
    props = schema.get("properties", {})
    if "label" in props:
        return agent_answer()(request)
    if "intent" in props:
        return {"intent": "observe", "tone": "warm"}
    if schema:
        return {name: _first(spec) for name, spec in props.items()}
    return "That sounds like a long day. How are you feeling about it now?"


def _first(spec: Mapping[str, Any]) -> Any:
    if "enum" in spec:
        return spec["enum"][0]
    return {"boolean": True, "integer": 0, "number": 0.0, "array": [], "object": {}}.get(
        str(spec.get("type")), ""
    )


def scripted(entry: ModelEntry, path: Path, slot: str) -> LLM:
    """The router's model factory in tests: a ScriptedLLM per (file, slot), named as the
    tier's model, in place of llama.cpp."""
    return ScriptedLLM(default=_reply, model_id=entry.id)


def shared(paths: Paths, settings: Settings) -> SharedModels:
    """The real router and prompts over scripted models and an embedder the heads fit."""
    return open_shared_models(
        paths, settings, factory=scripted, embedder=HashEmbedder(dimension=DIMENSION)
    )


def shape(obj: Any, homes: tuple[str, ...]) -> Any:
    """``obj`` as plain data: its class and, recursively, everything it holds (functions by
    name and closure, arrays by digest). A data folder's path reads ``<home>``; an object
    met again reads as where it was first met, so what is shared is compared too."""
    seen: dict[int, str] = {}

    def walk(o: Any, at: str) -> Any:
        if isinstance(o, str):
            for home in homes:
                o = o.replace(home, "<home>")
            return o
        if isinstance(o, _ATOMS):
            return o
        if isinstance(o, PurePath):
            return ("path", walk(str(o), at))
        if isinstance(o, enum.Enum):
            return repr(o)
        if isinstance(o, type):
            return ("class", o.__module__, o.__qualname__)
        kind = f"{type(o).__module__}.{type(o).__qualname__}"
        if id(o) in seen:
            return ("same object as", seen[id(o)], kind)
        seen[id(o)] = at
        if isinstance(o, types.MethodType):
            return ("method", o.__func__.__qualname__, walk(o.__self__, f"{at}.__self__"))
        if isinstance(o, types.FunctionType):
            cells = [c.cell_contents for c in o.__closure__ or ()]
            held = [walk(c, f"{at}<{i}>") for i, c in enumerate(cells)]
            return ("function", o.__module__, o.__qualname__, held)
        if isinstance(o, types.BuiltinFunctionType | types.ModuleType):
            return (kind, getattr(o, "__qualname__", getattr(o, "__name__", "")))
        if isinstance(o, np.ndarray):
            return (kind, o.shape, str(o.dtype), hashlib.sha256(o.tobytes()).hexdigest())
        if isinstance(o, PER_CONVERSATION):
            return kind
        if isinstance(o, Paths):  # a scratch folder's: compare where things are, not how
            names = [n for n in dir(o) if not n.startswith("_") and not n.endswith("_override")]
            values = {n: getattr(o, n) for n in names if not callable(getattr(o, n))}
            return (kind, {n: walk(v, f"{at}.{n}") for n, v in values.items()})
        if isinstance(o, Mapping):
            items = [(walk(k, f"{at}{{}}"), v) for k, v in o.items()]
            return (kind, [(k, walk(v, f"{at}[{k!r}]")) for k, v in items])
        if isinstance(o, list | tuple | deque):
            return (kind, [walk(v, f"{at}[{i}]") for i, v in enumerate(o)])
        if isinstance(o, set | frozenset):
            return (kind, sorted((walk(v, f"{at}{{}}") for v in o), key=repr))
        if isinstance(o, threading.Thread):  # a warm-up thread: started or not is timing
            return kind
        attrs: dict[str, Any] = {}
        for cls in type(o).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if isinstance(slot, str) and hasattr(o, slot) and slot != "__weakref__":
                    attrs[slot] = getattr(o, slot)
        attrs.update(getattr(o, "__dict__", {}))
        return (kind, {k: walk(attrs[k], f"{at}.{k}") for k in sorted(attrs)})

    return walk(obj, "")


def differences(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two shapes differ (the first few), for a readable failure."""
    if type(a) is not type(b):
        return [f"{where}: {a!r:.160} ≠ {b!r:.160}"]
    if isinstance(a, dict):
        out = [f"{where}.{k}: only on one side" for k in sorted(set(a) ^ set(b))]
        for k in sorted(set(a) & set(b)):
            out += differences(a[k], b[k], f"{where}.{k}")
        return out
    if isinstance(a, list | tuple):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items ≠ {len(b)} items: {a!r:.200} ≠ {b!r:.200}"]
        out = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            out += differences(x, y, f"{where}[{i}]")
        return out
    return [] if a == b else [f"{where}: {a!r:.160} ≠ {b!r:.160}"]


@pytest.fixture
def app_and_eval(tmp_path: Path) -> Any:
    """The app's Engine (``open_engine``) and an eval's first companion
    (``FreshConversations.open``), each on models of their own of the same settings."""
    paths = resolve_paths()
    settings = load_settings(paths.settings_file).settings
    engine = open_engine(build_core(paths, settings), shared=shared(paths, settings))
    fresh = FreshConversations(paths, settings, tmp_path / "eval", shared=shared(paths, settings))
    companion = fresh.open()
    homes = (
        str(paths.data_dir),
        str(paths.log_dir),
        str(companion.core.paths.data_dir),
        str(companion.core.paths.log_dir),
    )
    yield engine, companion, homes
    fresh.release(companion)
    fresh.close()
    engine.close()


def test_the_eval_builds_the_turn_the_app_runs(app_and_eval: Any) -> None:
    engine, companion, homes = app_and_eval
    app: EngineParts = engine.parts
    assert isinstance(companion, EngineParts)
    # everything the turn holds: sensors and their learned layer (heads, embedder), the
    # stages (agents, waves, deliberation, council, voice, critics), memory and its
    # configuration, the router with its tiers and roles, the prompts, the relay
    diff = differences(shape(app.runner, homes), shape(companion.runner, homes), "runner")
    assert not diff, "\n".join(diff[:20])
    assert not differences(shape(app.memory, homes), shape(companion.memory, homes))
    # the same tier for every role, and the same model files loaded while building
    app_router, eval_router = app.models, companion.models
    for role in ROLES:
        assert eval_router.tier_for_role(role) == app_router.tier_for_role(role)  # type: ignore[attr-defined]
    assert eval_router.resolved == app_router.resolved  # type: ignore[attr-defined]
    assert eval_router.loaded_models() == app_router.loaded_models()
    # the point of issue 27: the learned layer is there in both (the walk compared it)
    assert app.runner.sensors.learned is not None
    assert companion.runner.sensors.learned is not None
    assert type(companion.runner.sensors) is type(app.runner.sensors)


def test_the_eval_runner_senses_through_build_sensors(app_and_eval: Any) -> None:
    engine, companion, homes = app_and_eval
    assert companion.memory is not None
    expected = build_sensors(companion.memory.embedder)  # what the app's builder calls
    assert not differences(shape(expected, homes), shape(companion.runner.sensors, homes))
    assert not differences(
        shape(build_sensors(engine.parts.memory.embedder), homes),
        shape(engine.runner.sensors, homes),
    )
    text = "I feel so alone tonight, nobody would notice if I was gone"
    readings = companion.runner.sensors.read(text)
    assert readings == expected.read(text) == engine.runner.sensors.read(text)
    assert any("learned" in r.notes for r in readings.values())


def test_the_walk_catches_an_eval_built_on_its_own(app_and_eval: Any, tmp_path: Path) -> None:
    """The wiring `rilai eval replies` had before: its own runner, without the sensors the
    app passes (the rules alone). The comparison above must see that."""
    engine, _companion, homes = app_and_eval
    core = build_core(resolve_paths().scratch(tmp_path / "own"), engine.parts.core.settings)
    models = shared(core.paths, core.settings)
    memory = build_memory(
        core, router=models.router, auto_consolidate=False, embedder=models.embedder
    )
    own = build_turn_runner(
        events=core.event_log,
        models=models.router,
        memory=MemoryBridge(memory),
        prompts=models.prompts,
        relay=models.relay,
        agent_workers=core.settings.llm.agent_workers,
        safety_check=build_safety_check(models.router, core.settings),  # (issue 27's check)
        agents=core.settings.agents.enabled,
        readings=core.settings.agents.readings,  # (issue 28's reader)
    )
    homes = (*homes, str(core.paths.data_dir), str(core.paths.log_dir))
    try:
        diff = differences(shape(engine.runner, homes), shape(own, homes), "runner")
        # the only difference, and it is seen: the sensors (no learned layer)
        assert diff and all(d.startswith("runner[1].sensors") for d in diff), diff[:5]
        assert engine.runner.sensors.learned is not None and own.sensors.learned is None
    finally:
        memory.close()
        core.close()


def test_an_eval_turn_reads_the_sensors_the_app_reads(app_and_eval: Any) -> None:
    """One message through both: the same sensor readings and the same stages ran."""
    engine, companion, _homes = app_and_eval
    assert isinstance(engine, Engine)
    text = "I feel so alone tonight since the move"
    app_result = engine.send(text).result(timeout=120)
    eval_result = companion.runner.run_turn(text)
    app_d, eval_d = app_result.as_dict(), eval_result.as_dict()
    assert eval_d["sensors"] == app_d["sensors"]
    assert eval_result.state.stage_ms.keys() == app_result.state.stage_ms.keys()
    assert [c["critic"] for c in eval_d["critics"]] == [c["critic"] for c in app_d["critics"]]
    assert eval_result.voice_model == app_result.voice_model
