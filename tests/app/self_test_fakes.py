"""Fakes for `rilai self-test`'s seams: libraries that load, a Qt probe that answers, the
shipped manifest's files as sparse files of the right size whose "hash" a dict says, a
router of scripted models, the hashed embedder at 384 dimensions and the fake engine."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rilai_desktop.app.self_test import Seams
from rilai_desktop.app.self_test.libraries import Library
from rilai_desktop.app.self_test.qt import ProbeOutcome
from rilai_desktop.config import Settings
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.llm.manifest import TIERS, ModelEntry, load_manifest
from rilai_desktop.llm.router import ModelRouter
from rilai_desktop.memory.embedding import HashEmbedder
from rilai_desktop.memory.ports import Embedder
from rilai_desktop.paths import REPO_ROOT, Paths
from tests.fake_engine import fake_engine_over

LIBRARY_NAMES = ("llama_cpp", "faiss", "torch", "sentence_transformers", "sqlite3", "pyside6")
MANIFEST = load_manifest(REPO_ROOT / "models" / "models.toml")


def loads(name: str) -> Library:
    return Library(name, lambda: f"{name} (fake)")


def broken(name: str, error: Exception) -> Library:
    def load() -> str:
        raise error

    return Library(name, load)


def qt_answers(kind: str) -> ProbeOutcome:
    if kind == "qt-libs":
        return ProbeOutcome(True, {"ok": True, "pyside6": "6.x", "qt": "6.x", "libraries": "/qt"})
    return ProbeOutcome(
        True,
        {"ok": True, "platform": "offscreen", "plugins": "/qt/plugins", "pixmap": [240, 40]},
    )


def install_sparse_models(models_dir: Path, tiers: tuple[str, ...] = TIERS) -> dict[str, str]:
    """Each tier's manifest file, as a sparse file of the manifest's size; returns the
    "hashes" (file name -> sha256) a fake ``hash_file`` hands back: the manifest's own."""
    models_dir.mkdir(parents=True, exist_ok=True)
    hashes: dict[str, str] = {}
    for tier in tiers:
        entry: ModelEntry = MANIFEST.for_tier(tier)
        with (models_dir / entry.file).open("wb") as fh:
            fh.truncate(entry.size or 0)
        hashes[entry.file] = entry.sha256 or ""
    return hashes


@dataclass
class Recorder:
    """What the fakes were asked for."""

    routers: list[Settings] = field(default_factory=list)
    models: list[ScriptedLLM] = field(default_factory=list)  # each loaded model
    hashed: list[str] = field(default_factory=list)


def fake_seams(
    hashes: dict[str, str],
    recorder: Recorder,
    *,
    libraries: list[Library] | None = None,
    qt_probe: Callable[[str], ProbeOutcome] = qt_answers,
    embedder: Callable[[Settings], Embedder] | None = None,
) -> Seams:
    def hash_file(path: Path) -> str:
        recorder.hashed.append(path.name)
        return hashes[path.name]

    def make_router(paths: Paths, settings: Settings) -> ModelRouter:
        recorder.routers.append(settings)

        def factory(entry: ModelEntry, path: Path, slot: str) -> ScriptedLLM:
            model = ScriptedLLM(default="Hello there, how are you today?", model_id=entry.id)
            recorder.models.append(model)
            return model

        manifest = load_manifest(paths.manifest_file, paths.user_manifest_file)
        return ModelRouter(
            manifest,
            paths.models_dir,
            llm_settings=settings.llm,
            roles=settings.roles,
            factory=factory,  # type: ignore[arg-type]
        )

    return Seams(
        libraries=libraries if libraries is not None else [loads(n) for n in LIBRARY_NAMES],
        qt_probe=qt_probe,
        hash_file=hash_file,
        make_router=make_router,
        make_embedder=embedder or (lambda settings: HashEmbedder(dimension=384)),
        open_engine=fake_engine_over,
    )
