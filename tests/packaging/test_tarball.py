"""packaging/linux/build_tarball.py and install.sh on a fake bundle: the archive's shape,
and a per-user install with HOME in a temporary folder — it installs, the installed
command runs, a second run upgrades in place, --uninstall removes exactly what it put."""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.packaging.conftest import FAKE_SAYS, FAKE_VERSION, LINUX, make_fake_bundle, run_script

TOP = f"rilai-{FAKE_VERSION}"


def build(bundle: Path, out: Path, *args: str) -> Path:
    done = run_script(LINUX / "build_tarball.py", "--bundle", str(bundle), "--out", str(out), *args)
    assert done.returncode == 0, done.stderr
    return next(out.glob("*.tar.gz"))


def unpack(tarball: Path, where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-xzf", str(tarball), "-C", str(where)], check=True)
    return where / TOP


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def install(folder: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    return subprocess.run(
        [str(folder / "install.sh"), *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_the_archive_holds_one_folder_with_the_bundle_and_install_sh(
    fake_bundle: Path, tmp_path: Path
) -> None:
    tarball = build(fake_bundle, tmp_path / "out")
    assert tarball.name == f"rilai-{FAKE_VERSION}-linux-x86_64.tar.gz"
    with tarfile.open(tarball) as tar:
        members = {m.name: m for m in tar.getmembers()}
        gguf = tar.extractfile(f"{TOP}/_internal/models/tiny.gguf")
        assert gguf is not None
        assert gguf.read() == (fake_bundle / "_internal/models/tiny.gguf").read_bytes()
    assert all(name == TOP or name.startswith(TOP + "/") for name in members)
    assert all(m.uid == 0 and m.gid == 0 for m in members.values())
    assert members[f"{TOP}/install.sh"].mode == 0o755
    assert members[f"{TOP}/rilai"].mode == 0o755
    assert members[f"{TOP}/rilai.desktop"].mode == 0o644
    assert members[f"{TOP}/licenses/llama.cpp-MIT.txt"].mode == 0o644
    assert {f"{TOP}/{p}" for p in tree(fake_bundle)} <= set(members)


def test_install_upgrade_uninstall_in_a_home(fake_bundle: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".local/share/applications").mkdir(parents=True)
    (home / ".local/share/applications/other.desktop").write_text("[Desktop Entry]\n")
    before = tree(home)
    folder = unpack(build(fake_bundle, tmp_path / "out"), tmp_path / "unpacked")

    done = install(folder, home)
    assert done.returncode == 0, done.stderr
    app = home / ".local/opt/rilai"
    command = home / ".local/bin/rilai"
    assert os.readlink(command) == str(app / "rilai")
    ran = subprocess.run([str(command), "hello"], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == f"{FAKE_SAYS} hello"
    entry = (home / ".local/share/applications/rilai.desktop").read_text()
    assert f"Exec={app}/rilai\n" in entry and "Icon=rilai\n" in entry
    for icon in ("48x48/apps/rilai.png", "256x256/apps/rilai.png", "scalable/apps/rilai.svg"):
        assert (home / ".local/share/icons/hicolor" / icon).is_file(), icon
    assert "installed" in done.stdout and str(app) in done.stdout
    assert "NOT on your PATH" in done.stdout  # PATH above lacks ~/.local/bin
    if shutil.which("desktop-file-validate"):
        valid = subprocess.run(
            ["desktop-file-validate", str(home / ".local/share/applications/rilai.desktop")],
            capture_output=True,
            text=True,
        )
        assert valid.returncode == 0 and not valid.stdout.strip(), valid.stdout

    # a newer tarball upgrades in place
    newer = make_fake_bundle(tmp_path / "newer" / "rilai", says="newer rilai")
    folder2 = unpack(build(newer, tmp_path / "out2"), tmp_path / "unpacked2")
    done = install(folder2, home)
    assert done.returncode == 0, done.stderr
    assert "upgraded" in done.stdout
    ran = subprocess.run([str(command)], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == "newer rilai"
    assert sorted(p.name for p in (home / ".local/opt").iterdir()) == ["rilai"]  # no leftovers

    # uninstall from the installed copy: exactly what it put goes, the rest stays
    (home / ".local/share/rilai").mkdir(parents=True)
    (home / ".local/share/rilai/rilai.db").write_text("the person's data")
    done = install(app, home, "--uninstall")
    assert done.returncode == 0, done.stderr
    assert "kept" in done.stdout and str(home / ".local/share/rilai") in done.stdout
    assert tree(home) == before | {".local/share/rilai", ".local/share/rilai/rilai.db"}


def test_prefix_puts_everything_under_it(fake_bundle: Path, tmp_path: Path) -> None:
    folder = unpack(build(fake_bundle, tmp_path / "out"), tmp_path / "unpacked")
    prefix = tmp_path / "prefix"
    home = tmp_path / "home"
    home.mkdir()
    done = install(folder, home, "--prefix", str(prefix))
    assert done.returncode == 0, done.stderr
    assert os.readlink(prefix / "bin/rilai") == str(prefix / "opt/rilai/rilai")
    entry = (prefix / "share/applications/rilai.desktop").read_text()
    assert f"Icon={prefix}/share/icons/hicolor/256x256/apps/rilai.png" in entry
    assert not any(home.iterdir())  # nothing in the home
    done = install(prefix / "opt/rilai", home, "--uninstall", "--prefix", str(prefix))
    assert done.returncode == 0, done.stderr
    assert not any(prefix.iterdir())


def test_refuses_another_persons_home_as_root(fake_bundle: Path, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the refusal is for root")
    folder = unpack(build(fake_bundle, tmp_path / "out"), tmp_path / "unpacked")
    home = tmp_path / "someone"
    home.mkdir()
    os.chown(home, 65534, 65534)  # sudo keeping a person's HOME
    done = install(folder, home)
    assert done.returncode == 1
    assert "--prefix /usr/local" in done.stderr
    assert not any(home.iterdir())


def test_unknown_options_and_a_missing_install_are_said(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = install(LINUX, home, "--frobnicate")
    assert done.returncode == 2 and "unknown option" in done.stderr
    done = install(LINUX, home, "--uninstall")
    assert done.returncode == 1 and "no Rilai installed" in done.stderr


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="needs shellcheck")
def test_install_sh_is_shellcheck_clean() -> None:
    done = subprocess.run(
        ["shellcheck", "-s", "sh", str(LINUX / "install.sh")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout
