"""Where Rilai keeps things: RILAI_HOME overrides everything; private dirs or a clear error."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop import paths as paths_module
from rilai_desktop.errors import DataDirError, RilaiError
from rilai_desktop.paths import (
    DB_FILENAME,
    REPO_ROOT,
    Paths,
    ensure_private_dir,
    is_dev_checkout,
    resolve_paths,
)


def test_rilai_home_overrides_every_location(rilai_home: Path) -> None:
    paths = resolve_paths()
    root = rilai_home.resolve()
    assert paths.home_override == root
    assert paths.data_dir == root / "data"
    assert paths.config_dir == root / "config"
    assert paths.cache_dir == root / "cache"
    assert paths.log_dir == root / "logs"
    assert paths.db_path == root / "data" / DB_FILENAME
    assert paths.settings_file == root / "config" / "settings.toml"
    assert paths.categories_dir == root / "data" / "categories"
    # even in a dev checkout, RILAI_HOME wins over the repo's models/
    assert paths.models_dir == root / "data" / "models"


def test_as_dict_names_every_location(rilai_home: Path) -> None:
    paths = resolve_paths()
    as_dict = paths.as_dict()
    assert set(as_dict) == {
        "data_dir",
        "config_dir",
        "cache_dir",
        "log_dir",
        "db_path",
        "settings_file",
        "models_dir",
    }
    root = str(rilai_home.resolve())
    assert all(value.startswith(root) for value in as_dict.values()), as_dict


def test_explicit_env_mapping_is_used_instead_of_os_environ(tmp_path: Path) -> None:
    other = tmp_path / "elsewhere"
    paths = resolve_paths({"RILAI_HOME": str(other)})
    assert paths.data_dir == other.resolve() / "data"
    assert paths.db_path == other.resolve() / "data" / DB_FILENAME


def test_rilai_home_is_expanded_and_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    relative = resolve_paths({"RILAI_HOME": "rel-home"})
    assert relative.data_dir == (tmp_path / "rel-home").resolve() / "data"
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    tilde = resolve_paths({"RILAI_HOME": "~/portable"})
    assert tilde.config_dir == (tmp_path / "user" / "portable").resolve() / "config"


def test_blank_rilai_home_falls_back_to_platform_dirs(tmp_path: Path) -> None:
    paths = resolve_paths({"RILAI_HOME": "   "})
    assert paths.home_override is None
    for location in (paths.data_dir, paths.config_dir, paths.cache_dir, paths.log_dir):
        assert location.is_absolute()
        assert "rilai" in location.as_posix()
        assert not location.is_relative_to(tmp_path)


def test_models_dir_without_rilai_home() -> None:
    paths = resolve_paths({})
    if is_dev_checkout():
        assert paths.models_dir == REPO_ROOT / "models"
    else:  # an installed copy keeps models in the data dir
        assert paths.models_dir == paths.data_dir / "models"


def test_paths_is_immutable(rilai_home: Path) -> None:
    paths = resolve_paths()
    with pytest.raises(AttributeError):
        paths.data_dir = Path("/nowhere")  # type: ignore[misc]
    assert isinstance(paths, Paths)


# ── ensure_private_dir ───────────────────────────────────────────────────────


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_ensure_private_dir_creates_owner_only_dirs(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "data"
    assert ensure_private_dir(target) == target
    assert target.is_dir()
    assert _mode(target) == 0o700


def test_ensure_private_dir_is_idempotent(tmp_path: Path) -> None:
    target = tmp_path / "data"
    ensure_private_dir(target)
    (target / "keep.txt").write_text("x")
    ensure_private_dir(target)
    assert (target / "keep.txt").read_text() == "x"
    assert _mode(target) == 0o700


def test_ensure_private_dir_tightens_a_loose_dir_we_own(tmp_path: Path) -> None:
    target = tmp_path / "loose"
    target.mkdir()
    target.chmod(0o755)
    ensure_private_dir(target)
    assert _mode(target) == 0o700


def _assert_data_dir_error(exc: DataDirError, path: Path) -> None:
    assert exc.code == "RIL-002"
    assert isinstance(exc, RilaiError)
    assert str(path) in exc.message
    assert exc.context["path"] == str(path)
    assert exc.recovery_suggestions, "a DataDirError must tell the person what to do"
    assert all(isinstance(h, str) and h for h in exc.hints)
    assert any("RILAI_HOME" in h for h in exc.hints)


@pytest.fixture
def read_only_dir(tmp_path: Path) -> Iterator[Path]:
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o500)
    try:
        if os.access(parent, os.W_OK):
            pytest.skip("running as root: chmod 0o500 does not stop us writing")
        yield parent
    finally:
        parent.chmod(0o700)


def test_ensure_private_dir_read_only_parent(read_only_dir: Path) -> None:
    target = read_only_dir / "data"
    with pytest.raises(DataDirError) as info:
        ensure_private_dir(target)
    _assert_data_dir_error(info.value, target)
    assert not target.exists()


def test_ensure_private_dir_existing_read_only_dir(read_only_dir: Path) -> None:
    with pytest.raises(DataDirError) as info:
        ensure_private_dir(read_only_dir)
    _assert_data_dir_error(info.value, read_only_dir)
    assert "not writable" in info.value.message
    assert _mode(read_only_dir) == 0o500, "never loosen permissions"


def test_ensure_private_dir_unwritable_dir_simulated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The access check itself, exercised even as root (where chmod cannot deny us)."""
    target = tmp_path / "data"
    target.mkdir(mode=0o755)
    target.chmod(0o755)
    real_access = os.access

    def deny_target(path: object, mode: int, **kwargs: object) -> bool:
        if Path(str(path)) == target and mode & os.W_OK:
            return False
        return real_access(path, mode, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "access", deny_target)
    with pytest.raises(DataDirError) as info:
        ensure_private_dir(target)
    _assert_data_dir_error(info.value, target)
    assert "not writable" in info.value.message
    assert _mode(target) == 0o755, "a directory we cannot write is not chmod-ed"


def test_ensure_private_dir_parent_is_a_file(tmp_path: Path) -> None:
    """Fails even for root: nothing can be created beneath a regular file."""
    blocker = tmp_path / "blocker"
    blocker.write_bytes(b"i am a file")
    target = blocker / "data"
    with pytest.raises(DataDirError) as info:
        ensure_private_dir(target)
    _assert_data_dir_error(info.value, target)
    assert blocker.read_bytes() == b"i am a file"


def test_ensure_private_dir_path_is_a_file(tmp_path: Path) -> None:
    target = tmp_path / "data"
    target.write_bytes(b"not a dir")
    with pytest.raises(DataDirError) as info:
        ensure_private_dir(target)
    _assert_data_dir_error(info.value, target)
    assert target.read_bytes() == b"not a dir"


def test_data_dir_error_is_json_serialisable(tmp_path: Path) -> None:
    import json

    blocker = tmp_path / "f"
    blocker.write_text("")
    with pytest.raises(DataDirError) as info:
        ensure_private_dir(blocker / "x")
    data = json.loads(json.dumps(info.value.to_dict()))
    assert data["code"] == "RIL-002"
    assert data["name"] == "DataDirError"


def test_scratch_paths_keep_settings_cache_and_models_but_not_data(tmp_path: Path) -> None:
    from rilai_desktop.paths import resolve_paths

    paths = resolve_paths()
    scratch = paths.scratch(tmp_path / "bench")
    assert scratch.data_dir == tmp_path / "bench" / "data"
    assert scratch.log_dir == tmp_path / "bench" / "logs"
    assert scratch.db_path.parent == scratch.data_dir
    assert (scratch.config_dir, scratch.cache_dir) == (paths.config_dir, paths.cache_dir)
    assert scratch.models_dir == paths.models_dir  # the installed models, not data/models


def _frozen_paths(meipass: Path, home: Path) -> dict[str, str]:
    """``resolve_paths()`` as the PyInstaller bundle sees it: ``sys.frozen`` and
    ``sys._MEIPASS`` set before Rilai is imported (as the bootloader does)."""
    code = (
        "import json, sys\n"
        f"sys.frozen = True; sys._MEIPASS = {str(meipass)!r}\n"
        "from rilai_desktop import paths\n"
        "p = paths.resolve_paths()\n"
        "print(json.dumps({'root': str(paths.REPO_ROOT), 'models': str(p.models_dir),\n"
        "  'prompts': str(p.prompts_dir), 'manifest': str(p.manifest_file),\n"
        "  'dev': paths.is_dev_checkout()}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "RILAI_MODELS_DIR"}
    env["RILAI_HOME"] = str(home)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout))


def test_a_frozen_bundle_reads_its_files_from_its_own_folder(tmp_path: Path) -> None:
    bundle = tmp_path / "_internal"
    (bundle / "models").mkdir(parents=True)
    (bundle / "models" / "models.toml").write_text("")
    got = _frozen_paths(bundle, tmp_path / "home")
    assert got["root"] == str(bundle.resolve())
    assert got["prompts"] == str(bundle.resolve() / "prompts")
    assert got["manifest"] == str(bundle.resolve() / "models" / "models.toml")
    assert got["dev"] is False
    # no GGUF shipped: models are assembled into the person's data folder
    assert got["models"] == str((tmp_path / "home" / "data" / "models").resolve())


def test_a_frozen_bundle_that_ships_models_uses_them_in_place(tmp_path: Path) -> None:
    bundle = tmp_path / "_internal"
    (bundle / "models").mkdir(parents=True)
    (bundle / "models" / "tiny.gguf").write_bytes(b"GGUF")
    got = _frozen_paths(bundle, tmp_path / "home")
    assert got["models"] == str(bundle.resolve() / "models")
    assert paths_module.bundle_ships_models(bundle) is True
    assert paths_module.bundle_ships_models(tmp_path / "nowhere") is False
