"""`rilai self-test`'s checks on fakes: a passing run, a library that does not load, a
missing and a damaged model, --quick, a Qt that fails; each failure names its check and
its fix, and the checks that needed it are skipped with the reason. The real run is
tests/e2e/test_self_test_real.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from rilai_desktop.app.self_test import CheckResult, run_self_test
from rilai_desktop.app.self_test.qt import ProbeOutcome
from rilai_desktop.config import Settings, load_settings
from rilai_desktop.paths import Paths, resolve_paths
from tests.app.self_test_fakes import (
    LIBRARY_NAMES,
    MANIFEST,
    Recorder,
    broken,
    fake_seams,
    install_sparse_models,
    loads,
)
from tests.fake_engine import VOICE_REPLY

ORDER = [
    *(f"lib:{n}" for n in LIBRARY_NAMES),
    "model:small", "model:medium", "model:large",
    "embedder", "faiss", "sqlite_fts5", "qt", "turn",
]  # fmt: skip


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RILAI_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")  # the fake engine's memory
    return tmp_path / "models"


@pytest.fixture
def paths(models_dir: Path) -> Paths:
    return resolve_paths()


@pytest.fixture
def settings(paths: Paths) -> Settings:
    return load_settings(paths.settings_file).settings


def by_name(checks: list[CheckResult]) -> dict[str, CheckResult]:
    return {c.name: c for c in checks}


def test_every_check_passes_in_order_and_the_persons_data_is_not_touched(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    hashes = install_sparse_models(models_dir)
    seen = Recorder()
    heard: list[str] = []
    report = run_self_test(
        paths, settings, seams=fake_seams(hashes, seen), on_check=lambda c: heard.append(c.name)
    )
    assert [c.name for c in report.checks] == ORDER == heard
    assert all(c.status == "ok" for c in report.checks), report.checks
    assert report.ok and report.exit_code == 0 and not report.frozen
    # each file hashed in full once (no cache), each answered a 5-token prompt, fallback off
    assert sorted(seen.hashed) == sorted(hashes)
    assert [(m.model_id, [r.max_tokens for r in m.requests]) for m in seen.models] == [
        (MANIFEST.tiers[t], [5]) for t in ("small", "medium", "large")
    ]
    assert [s.llm.fallback for s in seen.routers] == [False]
    assert not (models_dir / ".verified.json").exists()  # nothing written beside the models
    checks = by_name(report.checks)
    assert "sha256 ok" in checks["model:large"].detail
    assert "answered" in checks["model:small"].detail
    assert VOICE_REPLY[:40] in checks["turn"].detail
    assert "related" in checks["embedder"].detail
    # the turn ran in a scratch folder: the person's data folder was never created
    assert not paths.data_dir.exists()
    assert report.install["models"] == str(models_dir)
    assert report.install["prompts"] == str(paths.prompts_dir)


def test_a_library_that_does_not_load_names_its_fix_and_what_it_stops(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    hashes = install_sparse_models(models_dir)
    libs = [loads(n) for n in LIBRARY_NAMES]
    libs[0] = broken("llama_cpp", ImportError("libllama.so: cannot open shared object file"))
    seen = Recorder()
    report = run_self_test(paths, settings, seams=fake_seams(hashes, seen, libraries=libs))
    checks = by_name(report.checks)
    failed = checks["lib:llama_cpp"]
    assert failed.status == "fail"
    assert failed.detail == "ImportError: libllama.so: cannot open shared object file"
    assert "make run" in failed.fix
    # the files still verify; their answers and the turn need llama.cpp
    for tier in ("small", "medium", "large"):
        check = checks[f"model:{tier}"]
        assert check.status == "skip" and "sha256 ok" in check.detail, check
        assert check.detail.endswith("the answer needs lib:llama_cpp")
    assert checks["turn"].status == "skip"
    assert checks["turn"].detail.startswith("needs model:small, model:medium, model:large")
    assert checks["embedder"].status == checks["qt"].status == "ok"
    assert not seen.routers  # no model was loaded
    assert [c.name for c in report.failed] == ["lib:llama_cpp"]
    assert not report.ok and report.exit_code == 1


def test_a_frozen_bundle_names_the_reinstall(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    hashes = install_sparse_models(models_dir)
    libs = [loads(n) for n in LIBRARY_NAMES]
    libs[1] = broken("faiss", ImportError("No module named 'faiss._swigfaiss'"))
    report = run_self_test(
        paths, settings, frozen=True, seams=fake_seams(hashes, Recorder(), libraries=libs)
    )
    checks = by_name(report.checks)
    assert checks["lib:faiss"].status == "fail"
    assert "reinstall it from the release package" in checks["lib:faiss"].fix
    assert checks["faiss"].status == "skip" and checks["faiss"].detail == "needs lib:faiss"
    assert checks["turn"].detail == "needs faiss"
    assert report.frozen and report.as_dict()["frozen"] is True


def test_a_missing_model_fails_with_the_install_command(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    hashes = install_sparse_models(models_dir, ("small", "medium"))
    report = run_self_test(paths, settings, seams=fake_seams(hashes, Recorder()))
    checks = by_name(report.checks)
    large = checks["model:large"]
    assert large.status == "fail"
    assert "not installed" in large.detail and MANIFEST.tiers["large"] in large.detail
    assert large.fix == "rilai models install large"
    assert checks["model:small"].status == checks["model:medium"].status == "ok"
    assert checks["turn"].status == "skip" and checks["turn"].detail == "needs model:large"
    assert report.exit_code == 1


def test_a_frozen_bundle_without_models_says_so(paths: Paths, settings: Settings) -> None:
    report = run_self_test(paths, settings, frozen=True, seams=fake_seams({}, Recorder()))
    checks = by_name(report.checks)
    for tier in ("small", "medium", "large"):
        fix = checks[f"model:{tier}"].fix
        assert fix.startswith("this build ships no models: install the release with models")
        assert f"--tier {tier}" in fix


def test_a_damaged_model_fails_its_sha256_and_is_never_loaded(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    hashes = install_sparse_models(models_dir)
    medium = MANIFEST.for_tier("medium")
    hashes[medium.file] = "0" * 64
    seen = Recorder()
    report = run_self_test(paths, settings, seams=fake_seams(hashes, seen))
    check = by_name(report.checks)["model:medium"]
    assert check.status == "fail"
    assert "does not match the manifest" in check.detail and "000000000000" in check.detail
    assert check.fix == f"delete {models_dir / medium.file} and run `rilai models install medium`"
    assert medium.id not in [m.model_id for m in seen.models]
    assert by_name(report.checks)["turn"].status == "skip"


def test_quick_verifies_but_loads_no_model_and_runs_no_turn(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    hashes = install_sparse_models(models_dir)
    seen = Recorder()
    report = run_self_test(paths, settings, quick=True, seams=fake_seams(hashes, seen))
    checks = by_name(report.checks)
    assert checks["model:small"].status == "ok" and "--quick" in checks["model:small"].detail
    assert checks["turn"].status == "skip" and checks["turn"].detail == "--quick"
    assert not seen.routers and sorted(seen.hashed) == sorted(hashes)
    assert report.ok and report.exit_code == 0


def test_qt_that_cannot_start_is_a_failure_with_the_system_libraries_fix(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    hashes = install_sparse_models(models_dir)

    def no_plugin(kind: str) -> ProbeOutcome:
        if kind == "qt-libs":
            return ProbeOutcome(True, {"pyside6": "6.x", "qt": "6.x", "libraries": "/qt"})
        return ProbeOutcome(False, error='Could not load the Qt platform plugin "offscreen"')

    report = run_self_test(
        paths, settings, seams=fake_seams(hashes, Recorder(), qt_probe=no_plugin)
    )
    qt = by_name(report.checks)["qt"]
    assert qt.status == "fail" and "offscreen" in qt.detail
    assert "apt-get install" in qt.fix and "libxkbcommon" in qt.fix
    assert by_name(report.checks)["turn"].status == "ok"  # the turn does not need Qt
    assert report.exit_code == 1


def test_an_embedder_with_the_wrong_dimension_fails(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    from rilai_desktop.memory.embedding import HashEmbedder

    hashes = install_sparse_models(models_dir)
    seams = fake_seams(hashes, Recorder(), embedder=lambda s: HashEmbedder(dimension=256))
    report = run_self_test(paths, settings, seams=seams)
    check = by_name(report.checks)["embedder"]
    assert check.status == "fail" and "256 dimensions, expected 384" in check.detail
    assert check.fix
    assert by_name(report.checks)["turn"].detail == "needs embedder"


def test_an_unexpected_error_in_a_check_is_its_failure_not_a_crash(
    paths: Paths, settings: Settings, models_dir: Path
) -> None:
    hashes = install_sparse_models(models_dir)

    def explodes(settings: Settings) -> object:
        raise RuntimeError("torch segfaulted politely")

    seams = fake_seams(hashes, Recorder(), embedder=explodes)  # type: ignore[arg-type]
    report = run_self_test(paths, settings, seams=seams)
    check = by_name(report.checks)["embedder"]
    assert check.status == "fail"
    assert check.detail == "RuntimeError: torch segfaulted politely" and check.fix
    assert check.seconds >= 0


def test_the_report_as_json(paths: Paths, settings: Settings, models_dir: Path) -> None:
    hashes = install_sparse_models(models_dir)
    data = run_self_test(
        paths, settings, quick=True, seams=fake_seams(hashes, Recorder())
    ).as_dict()
    assert set(data) == {"ok", "frozen", "install", "seconds", "checks"}
    assert data["ok"] is True and data["frozen"] is False
    assert {"prompts", "models", "manifest", "data", "config", "executable"} <= set(data["install"])
    for check in data["checks"]:
        assert set(check) == {"name", "status", "detail", "fix", "seconds"}
        assert check["status"] in {"ok", "fail", "skip"}
        assert isinstance(check["seconds"], float)
