"""packaging/linux/build_deb.py on a fake bundle: the package's fields, its layout and
owners, and that what it installs runs (unpacked with `dpkg -x` into a temporary root)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.packaging.conftest import FAKE_SAYS, FAKE_VERSION, LINUX, run_script

pytestmark = pytest.mark.skipif(
    shutil.which("dpkg-deb") is None, reason="needs dpkg-deb (a Debian system)"
)


def build(bundle: Path, out: Path, *args: str) -> Path:
    done = run_script(LINUX / "build_deb.py", "--bundle", str(bundle), "--out", str(out), *args)
    assert done.returncode == 0, done.stderr
    debs = list(out.glob("*.deb"))
    assert len(debs) == 1, debs
    assert str(debs[0]) in done.stdout  # it says where it put it
    return debs[0]


def field(deb: Path, name: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_package_says_what_it_is_and_needs(fake_bundle: Path, tmp_path: Path) -> None:
    deb = build(fake_bundle, tmp_path / "out")
    assert deb.name == f"rilai_{FAKE_VERSION}_amd64.deb"
    assert field(deb, "Package") == "rilai"
    assert field(deb, "Version") == FAKE_VERSION
    assert field(deb, "Architecture") == "amd64"
    assert field(deb, "Priority") == "optional"
    assert field(deb, "Section") == "utils"
    assert "<" in field(deb, "Maintainer")
    assert field(deb, "Description").startswith("local-first AI companion")
    # the fake bundle's one ELF links libc only: Depends is measured, with glibc's floor
    assert re.fullmatch(r"libc6 \(>= 2\.\d+\)", field(deb, "Depends"))
    installed = int(field(deb, "Installed-Size"))
    bundle_kib = sum(p.stat().st_size for p in fake_bundle.rglob("*") if p.is_file()) // 1024
    assert bundle_kib <= installed < bundle_kib + 200


def test_the_layout_and_owners(fake_bundle: Path, tmp_path: Path) -> None:
    deb = build(fake_bundle, tmp_path / "out")
    listing = subprocess.run(
        ["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    entries = {line.split()[5]: line.split() for line in listing}
    assert all(parts[1] == "root/root" for parts in entries.values())
    assert entries["./opt/rilai/rilai"][0] == "-rwxr-xr-x"
    assert entries["./usr/bin/rilai"][0].startswith("l")
    assert " ".join(entries["./usr/bin/rilai"][5:]) == "./usr/bin/rilai -> /opt/rilai/rilai"
    for path in (
        "./usr/share/applications/rilai.desktop",
        "./usr/share/icons/hicolor/48x48/apps/rilai.png",
        "./usr/share/icons/hicolor/256x256/apps/rilai.png",
        "./usr/share/icons/hicolor/scalable/apps/rilai.svg",
        "./usr/share/doc/rilai/copyright",
        "./usr/share/doc/rilai/changelog.gz",
        "./opt/rilai/licenses/llama.cpp-MIT.txt",
        "./opt/rilai/_internal/models/tiny.gguf",
        "./opt/rilai/BUILD.json",
    ):
        assert entries[path][0] == "-rw-r--r--", path
    assert entries["./opt/rilai/_internal/true-helper"][0] == "-rwxr-xr-x"  # a program
    assert not any(p.startswith("./DEBIAN") for p in entries)
    control = subprocess.run(
        ["dpkg-deb", "--ctrl-tarfile", str(deb)], capture_output=True, check=True
    ).stdout
    assert b"md5sums" in control


def test_dpkg_x_gives_a_rilai_that_runs(fake_bundle: Path, tmp_path: Path) -> None:
    deb = build(fake_bundle, tmp_path / "out")
    root = tmp_path / "root"
    subprocess.run(["dpkg", "-x", str(deb), str(root)], check=True)
    link = root / "usr" / "bin" / "rilai"
    assert os.readlink(link) == "/opt/rilai/rilai"
    target = root / os.readlink(link).lstrip("/")  # inside the temporary root
    done = subprocess.run([str(target), "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"{FAKE_SAYS} --version"
    assert (root / "opt/rilai/_internal/models/tiny.gguf").read_bytes() == (
        fake_bundle / "_internal/models/tiny.gguf"
    ).read_bytes()
    copyright_text = (root / "usr/share/doc/rilai/copyright").read_text()
    assert copyright_text.startswith("Format: https://www.debian.org/doc/packaging-manuals/")
    assert "/opt/rilai/licenses/" in copyright_text


def test_gzip_compression_and_a_name_suffix(fake_bundle: Path, tmp_path: Path) -> None:
    deb = build(fake_bundle, tmp_path / "out", "--compression", "gzip", "--suffix=-nomodels")
    assert deb.name == f"rilai_{FAKE_VERSION}_amd64-nomodels.deb"
    members = subprocess.run(
        ["ar", "t", str(deb)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert members == ["debian-binary", "control.tar.gz", "data.tar.gz"]


def test_the_bundle_itself_is_not_changed(fake_bundle: Path, tmp_path: Path) -> None:
    """Staging hard-links the bundle's files: a mode made right must not reach the bundle."""
    lib = fake_bundle / "_internal" / "libfake.so.1"
    lib.write_bytes(b"\x7fELF not really")
    lib.chmod(0o755)  # PyInstaller leaves libraries executable; the package makes them 0644
    build(fake_bundle, tmp_path / "out")
    assert lib.stat().st_mode & 0o777 == 0o755


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils")
def test_the_desktop_entry_is_valid() -> None:
    done = subprocess.run(
        ["desktop-file-validate", str(LINUX / "rilai.desktop")], capture_output=True, text=True
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
    text = (LINUX / "rilai.desktop").read_text()
    # the window's WM_CLASS is ("rilai", "Rilai"): Qt's xcb takes the class from the app name
    assert "StartupWMClass=Rilai" in text
    assert "Exec=rilai\n" in text and "Icon=rilai\n" in text
