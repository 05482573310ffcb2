"""The ModelRouter with a ScriptedLLM factory: lazy, one model per file, falling back."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.config import LLMSettings, RoleSettings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import LLM
from rilai_desktop.contracts.payloads import PAYLOAD_MODELS
from rilai_desktop.llm.errors import (
    ManifestError,
    ModelError,
    ModelFileCorruptError,
    ModelFileMissingError,
)
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.llm.manifest import Manifest, ModelEntry, ModelSource
from rilai_desktop.llm.router import ROLES, ModelRouter

HI = [{"role": "user", "content": "hi"}]
FILES = {"small": "s.gguf", "medium": "m.gguf", "large": "l.gguf"}


def entry(model_id: str, file: str) -> ModelEntry:
    return ModelEntry(
        id=model_id,
        name=model_id.title(),
        file=file,
        sha256=None,
        size=None,
        licence="MIT",
        context_length=None,
        source=ModelSource("package_file", packages=("pkg==1",), parts=(f"pkg/{file}",)),
    )


def manifest(**tiers: str) -> Manifest:
    """Three models, ``<tier>-model`` in ``<t>.gguf``; ``tiers`` reassigns tier → model."""
    models = {f"{t}-model": entry(f"{t}-model", f) for t, f in FILES.items()}
    assignment = {t: f"{t}-model" for t in FILES} | tiers
    return Manifest(tiers=assignment, models=models)


class Factory:
    """Records what it was asked to load; refuses a missing file like the real one does."""

    def __init__(self, delay: float = 0.0) -> None:
        self.calls: list[tuple[str, Path]] = []
        self.broken: set[str] = set()  # model ids whose (present) file will not load
        self.delay = delay
        self._lock = threading.Lock()

    def __call__(self, e: ModelEntry, path: Path, slot: str = "") -> LLM:
        with self._lock:
            self.calls.append((e.id, path))
        time.sleep(self.delay)
        if not path.is_file():
            raise ModelFileMissingError(f"Model file not found: {path}", context={"path": path})
        if e.id in self.broken:
            raise ModelFileCorruptError(f"llama.cpp cannot read {path}: truncated or damaged?")
        return ScriptedLLM(default=f"hello from {e.id}", model_id=e.id)


Events = list[tuple[EventKind, dict[str, Any]]]


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    path = tmp_path / "models"
    path.mkdir()
    return path


@pytest.fixture
def factory() -> Factory:
    return Factory()


@pytest.fixture
def events() -> Events:
    return []


@pytest.fixture
def make_router(models_dir: Path, factory: Factory, events: Events) -> Callable[..., ModelRouter]:
    def make(
        *present: str,
        m: Manifest | None = None,
        llm: LLMSettings | None = None,
        roles: RoleSettings | None = None,
    ) -> ModelRouter:
        for tier in present:
            (models_dir / FILES[tier]).write_bytes(b"GGUF")
        return ModelRouter(
            m or manifest(),
            models_dir,
            llm_settings=llm or LLMSettings(),
            roles=roles or RoleSettings(),
            factory=factory,
            on_event=lambda kind, payload: events.append((kind, payload)),
        )

    return make


def path_of(models_dir: Path, tier: str) -> Path:
    return (models_dir / FILES[tier]).resolve()


def test_loading_is_lazy(make_router: Callable[..., ModelRouter], factory: Factory) -> None:
    router = make_router("small", "medium", "large")
    assert factory.calls == []
    assert router.tier_for_role("voice") == "large"  # resolving a role loads nothing
    assert factory.calls == [] and router.loaded_models() == []
    model = router.for_tier("small")
    assert isinstance(model, ScriptedLLM) and isinstance(model, LLM)
    assert model.model_id == "small-model"
    assert [c[0] for c in factory.calls] == ["small-model"]  # only what was asked for


def test_factory_gets_the_entry_and_the_resolved_path(
    make_router: Callable[..., ModelRouter], factory: Factory, models_dir: Path
) -> None:
    router = make_router("large")
    router.for_tier("large")
    assert factory.calls == [("large-model", path_of(models_dir, "large"))]
    assert router.loaded_models() == [str(path_of(models_dir, "large"))]
    assert router.resolved == {"large": "large"}


def test_one_instance_per_file(
    make_router: Callable[..., ModelRouter], factory: Factory, models_dir: Path
) -> None:
    router = make_router("medium", m=manifest(large="medium-model"))
    medium = router.for_tier("medium")
    assert router.for_tier("large") is medium  # two tiers, one file: one model
    assert router.for_tier("medium") is medium  # and asking again reuses it
    assert factory.calls == [("medium-model", path_of(models_dir, "medium"))]


def test_two_models_sharing_a_file_share_one_instance(
    make_router: Callable[..., ModelRouter], factory: Factory
) -> None:
    m = manifest()
    m.models["alias"] = entry("alias", FILES["small"])  # another id, the same file
    m.tiers["medium"] = "alias"
    router = make_router("small", m=m)
    assert router.for_tier("medium") is router.for_tier("small")
    assert len(factory.calls) == 1


def test_roles_map_to_tiers_from_settings(
    make_router: Callable[..., ModelRouter], factory: Factory
) -> None:
    roles = RoleSettings(agents="large", voice="small", council="small")
    router = make_router("small", "medium", "large", roles=roles)
    assert router.for_role("agents").model_id == "large-model"
    assert router.for_role("voice").model_id == "small-model"
    assert router.for_role("council").model_id == "small-model"
    assert router.for_role("extraction").model_id == "medium-model"  # default: medium
    assert router.for_role("consolidation") is router.for_role("extraction")
    assert {c[0] for c in factory.calls} == {"small-model", "medium-model", "large-model"}
    # the voice has a context of its own (its long prompt stays cached between turns)
    assert router.for_role("council") is not router.for_role("voice")
    assert router.for_role("voice") is router.for_role("voice")
    assert len(factory.calls) == 4
    assert len(router.loaded_models()) == 3  # files, not contexts
    # agents run on replicas: each its own context of the same file
    assert router.for_role("agents", 1) is not router.for_role("agents")
    assert router.for_role("agents", 1).model_id == "large-model"
    assert router.for_role("agents", 1) is router.for_role("agents", 1)
    with pytest.raises(ModelError):
        router.for_role("voice", 1)


def test_default_roles(make_router: Callable[..., ModelRouter]) -> None:
    router = make_router()
    assert {r: router.tier_for_role(r) for r in ROLES} == {
        "agents": "small",
        "council": "medium",
        "voice": "large",
        "escalation": "large",
        "extraction": "medium",
        "consolidation": "medium",
        "safety_check": "medium",
        "reader": "large",
    }


def test_unknown_role(make_router: Callable[..., ModelRouter], factory: Factory) -> None:
    router = make_router("small")
    with pytest.raises(ModelError) as info:
        router.for_role("poet")
    assert info.value.code == "RIL-020"
    assert "'poet'" in info.value.message and "agents" in info.value.message
    assert factory.calls == []


def test_unknown_tier_is_a_manifest_error(make_router: Callable[..., ModelRouter]) -> None:
    with pytest.raises(ManifestError, match="huge"):
        make_router("small").for_tier("huge")


def test_the_loaded_model_answers(make_router: Callable[..., ModelRouter]) -> None:
    model = make_router("small").for_role("agents")
    assert model.complete(HI).text == "hello from small-model"  # type: ignore[union-attr]


def _check_fallback_event(
    kind: EventKind, payload: dict[str, Any], requested: str, failed: str, code: str
) -> None:
    assert kind == EventKind.ERROR
    PAYLOAD_MODELS[EventKind.ERROR].model_validate(payload)  # a valid ERROR event payload
    assert payload["requested_tier"] == requested
    assert payload["failed_tier"] == failed
    assert payload["code"] == code
    assert f"model tier {failed} unavailable, falling back" in payload["error"]
    assert payload["traceback"] is None


def test_large_falls_back_to_medium(
    make_router: Callable[..., ModelRouter], factory: Factory, events: Events, models_dir: Path
) -> None:
    router = make_router("small", "medium")
    model = router.for_tier("large")
    assert model.model_id == "medium-model"
    assert router.resolved == {"large": "medium"}
    assert [c[0] for c in factory.calls] == ["large-model", "medium-model"]
    assert len(events) == 1
    kind, payload = events[0]
    _check_fallback_event(kind, payload, "large", "large", "RIL-021")
    assert str(path_of(models_dir, "large")) in payload["error"]
    # the role asking for large gets the same fallback, and medium is shared
    assert router.for_role("escalation") is model is router.for_tier("medium")


def test_large_falls_back_to_small(make_router: Callable[..., ModelRouter], events: Events) -> None:
    router = make_router("small")
    assert router.for_tier("large").model_id == "small-model"
    assert router.resolved == {"large": "small"}
    assert [(p["requested_tier"], p["failed_tier"]) for _, p in events] == [
        ("large", "large"),
        ("large", "medium"),
    ]


def test_medium_falls_back_to_small(
    make_router: Callable[..., ModelRouter], events: Events
) -> None:
    router = make_router("small", "large")
    assert router.for_role("council").model_id == "small-model"
    assert [(p["requested_tier"], p["failed_tier"]) for _, p in events] == [("medium", "medium")]


def test_never_falls_back_upwards(
    make_router: Callable[..., ModelRouter], factory: Factory, events: Events
) -> None:
    router = make_router("medium", "large")
    with pytest.raises(ModelFileMissingError):
        router.for_tier("small")
    assert [c[0] for c in factory.calls] == ["small-model"]
    assert events == []  # nothing left to fall back to: no "falling back" event


def test_no_fallback_when_disabled(
    make_router: Callable[..., ModelRouter], factory: Factory, events: Events
) -> None:
    router = make_router("small", "medium", llm=LLMSettings(fallback=False))
    with pytest.raises(ModelFileMissingError) as info:
        router.for_tier("large")
    assert info.value.code == "RIL-021"
    assert "large" in info.value.message
    assert [c[0] for c in factory.calls] == ["large-model"]
    assert events == []
    assert router.resolved == {}


def test_all_tiers_missing(
    make_router: Callable[..., ModelRouter], factory: Factory, events: Events, models_dir: Path
) -> None:
    router = make_router()
    with pytest.raises(ModelFileMissingError) as info:
        router.for_role("escalation")
    err = info.value
    assert err.code == "RIL-021"
    assert "No usable model for the large tier" in err.message
    for tier in ("large", "medium", "small"):  # every problem is named
        assert f"{tier}: Model file not found: {path_of(models_dir, tier)}" in err.message
    assert any("rilai models install" in h for h in err.hints)
    assert any(h.endswith("rilai models install large medium small") for h in err.hints)
    assert [c[0] for c in factory.calls] == ["large-model", "medium-model", "small-model"]
    assert [p["failed_tier"] for _, p in events] == ["large", "medium"]
    assert router.loaded_models() == []


def test_a_corrupt_file_also_falls_back(
    make_router: Callable[..., ModelRouter], factory: Factory, events: Events
) -> None:
    factory.broken.add("large-model")
    router = make_router("small", "medium", "large")
    assert router.for_tier("large").model_id == "medium-model"
    assert len(events) == 1
    _check_fallback_event(*events[0], requested="large", failed="large", code="RIL-022")
    assert "truncated or damaged" in events[0][1]["error"]


def test_a_failed_load_is_retried_once_the_file_appears(
    make_router: Callable[..., ModelRouter], factory: Factory, models_dir: Path
) -> None:
    router = make_router(llm=LLMSettings(fallback=False))
    with pytest.raises(ModelFileMissingError):
        router.for_tier("small")
    (models_dir / FILES["small"]).write_bytes(b"GGUF")  # `rilai models install small`
    assert router.for_tier("small").model_id == "small-model"
    assert len(factory.calls) == 2


def test_without_an_event_sink(models_dir: Path, factory: Factory) -> None:
    (models_dir / FILES["small"]).write_bytes(b"GGUF")
    router = ModelRouter(
        manifest(),
        models_dir,
        llm_settings=LLMSettings(),
        roles=RoleSettings(),
        factory=factory,
    )
    assert router.for_tier("large").model_id == "small-model"


def test_concurrent_requests_load_once(models_dir: Path) -> None:
    slow = Factory(delay=0.05)
    (models_dir / FILES["medium"]).write_bytes(b"GGUF")
    router = ModelRouter(
        manifest(),
        models_dir,
        llm_settings=LLMSettings(),
        roles=RoleSettings(),
        factory=slow,
    )
    start = threading.Barrier(8)
    got: list[LLM] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            start.wait(timeout=5)
            got.append(router.for_tier("medium"))
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert errors == []
    assert len(got) == 8 and all(m is got[0] for m in got)
    assert slow.calls == [("medium-model", path_of(models_dir, "medium"))]


def test_close_closes_each_model_once(models_dir: Path) -> None:
    closed: list[str] = []

    class Closable(ScriptedLLM):
        def close(self) -> None:
            closed.append(self.model_id)

    (models_dir / FILES["small"]).write_bytes(b"GGUF")
    (models_dir / FILES["medium"]).write_bytes(b"GGUF")
    router = ModelRouter(
        manifest(large="medium-model"),
        models_dir,
        llm_settings=LLMSettings(),
        roles=RoleSettings(),
        factory=lambda e, p, s: Closable(model_id=e.id),
    )
    router.for_tier("small")
    router.for_tier("medium")
    router.for_tier("large")
    router.close()
    assert sorted(closed) == ["medium-model", "small-model"]
    assert router.loaded_models() == []
