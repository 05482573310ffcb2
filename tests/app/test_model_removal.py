"""Removing a tier's model from the window's side (``ModelFiles.removal/remove``): only a
file the app installed into its models folder is deleted — never the person's own file, a
symlink, anything outside the folder, a bundle's own models, or a model the engine has
loaded. Installed with the real installer over fake registry packages (tests/app/
test_models_setup.py's FakePip); no real GGUF is read."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rilai_desktop.app.model_files import MISSING, VERIFIED, ModelFiles
from rilai_desktop.llm.errors import InstallError
from rilai_desktop.llm.installer import CACHE_NAME
from rilai_desktop.paths import Paths, resolve_paths
from tests.app.test_models_setup import MEDIUM, SMALL, FakePip, write_manifest


@pytest.fixture
def paths(rilai_home: Path) -> Paths:
    return resolve_paths()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root


def files_over(paths: Paths, tmp_path: Path, site: Path, **kw: object) -> ModelFiles:
    manifest = write_manifest(tmp_path / "models.toml")
    return ModelFiles(paths, manifest_file=manifest, pip=FakePip(site), **kw)  # type: ignore[arg-type]


def test_removing_an_installed_model_frees_its_file_and_its_tiers_show_missing(
    paths: Paths, tmp_path: Path, site: Path
) -> None:
    ran: list[str] = []

    def exclusive(fn: Callable[[], object]) -> object:
        ran.append("between turns")  # the engine runs it on its worker, after the warm-up
        return fn()

    files = files_over(paths, tmp_path, site, exclusive=exclusive)
    files.install(["small", "medium"])
    assert {r.tier: r.state for r in files.rows()} == dict.fromkeys(
        ("small", "medium", "large"), VERIFIED
    )
    removal = files.removal("large")  # medium and large share the file
    assert removal.tiers == ("medium", "large") and removal.size == len(MEDIUM)
    assert removal.path == paths.models_dir / "mid.gguf"
    rows = {r.tier: r for r in files.remove("large")}
    assert ran == ["between turns"]
    assert not removal.path.exists()
    assert rows["medium"].state == rows["large"].state == MISSING and rows["large"].installable
    assert rows["small"].state == VERIFIED and (paths.models_dir / "tiny.gguf").is_file()
    cache = json.loads((paths.models_dir / CACHE_NAME).read_text())
    assert [k.split(":")[0] for k in cache] == ["tiny.gguf"]  # the record forgets it too
    files.install(["medium"])  # and Install brings it back, verified
    assert {r.tier: r.state for r in files.rows()}["large"] == VERIFIED


def test_a_loaded_model_is_refused_and_kept(paths: Paths, tmp_path: Path, site: Path) -> None:
    loaded: list[str] = []
    files = files_over(paths, tmp_path, site, loaded=lambda: loaded)
    files.install(["small"])
    tiny = paths.models_dir / "tiny.gguf"
    loaded.append(str(tiny.resolve()))  # the router's key: the resolved path
    with pytest.raises(InstallError, match="loaded by the running Rilai") as refused:
        files.remove("small")
    assert "rilai models remove tiny" in refused.value.recovery_suggestions[0]
    assert tiny.read_bytes() == SMALL


def test_the_persons_own_file_is_never_deleted(paths: Paths, tmp_path: Path, site: Path) -> None:
    own = tmp_path / "mine" / "own.gguf"
    own.parent.mkdir()
    own.write_bytes(b"GGUF" + b"\0" * 60)
    files = files_over(paths, tmp_path, site)
    files.use_file("medium", own)
    with pytest.raises(InstallError, match="your own file"):
        files.removal("medium")
    with pytest.raises(InstallError, match="your own file"):
        files.remove("medium")
    assert own.is_file()


def test_a_file_the_installer_has_no_record_of_is_left_alone(
    paths: Paths, tmp_path: Path, site: Path
) -> None:
    files = files_over(paths, tmp_path, site)
    paths.models_dir.mkdir(parents=True)
    copied = paths.models_dir / "tiny.gguf"  # the person put a file there by hand
    copied.write_bytes(b"GGUF" + b"x" * 100)
    with pytest.raises(InstallError, match=r"no record of installing tiny\.gguf"):
        files.remove("small")
    assert copied.is_file()


def test_a_symlink_or_a_path_outside_the_models_folder_is_refused(
    paths: Paths, tmp_path: Path, site: Path
) -> None:
    files = files_over(paths, tmp_path, site)
    files.install(["small"])
    outside = tmp_path / "elsewhere.gguf"
    outside.write_bytes(SMALL)
    tiny = paths.models_dir / "tiny.gguf"
    tiny.unlink()
    tiny.symlink_to(outside)  # same bytes, so even its sha256 would match
    with pytest.raises(InstallError, match="not a file in the models folder"):
        files.remove("small")
    assert outside.is_file() and tiny.is_symlink()

    sha = hashlib.sha256(SMALL).hexdigest()
    escaping = tmp_path / "escaping.toml"
    escaping.write_text(
        '[tiers]\nsmall = "out"\n[models.out]\nname = "Out"\nfile = "../elsewhere.gguf"\n'
        f'sha256 = "{sha}"\nsize = {len(SMALL)}\nlicence = "test"\n'
        'source = { kind = "package_file", packages = ["x==1"], parts = ["x/out.gguf"] }\n'
    )
    (paths.models_dir / ".." / "elsewhere.gguf").write_bytes(SMALL)
    beside = ModelFiles(paths, manifest_file=escaping)
    with pytest.raises(InstallError, match="not a file in the models folder"):
        beside.remove("small")
    assert (paths.models_dir.parent / "elsewhere.gguf").is_file()


def test_the_models_an_installed_bundle_carries_are_not_removed(
    paths: Paths, tmp_path: Path, site: Path
) -> None:
    files = files_over(paths, tmp_path, site)
    files.install(["small"])
    bundled = ModelFiles(paths, manifest_file=tmp_path / "models.toml", bundled=True)
    with pytest.raises(InstallError, match="came with the installed Rilai"):
        bundled.remove("small")
    assert (paths.models_dir / "tiny.gguf").is_file()
