"""What the Linux packagers read from a built bundle (dist/rilai/): its version and
architecture (BUILD.json, written by packaging/build.py; else pyproject.toml's version and
this machine's), its icons, and sizes counted the way dpkg counts them. Standard library
only: packaging scripts run from the venv but import nothing of it.
"""

from __future__ import annotations

import json
import os
import platform
import re
import stat
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
LINUX_DIR = Path(__file__).resolve().parent
ICONS_IN_BUNDLE = Path("_internal") / "resources" / "icons"
ICON_NAME = re.compile(r"^rilai-(\d+)\.png$")
# uname -m → Debian architecture
DEB_ARCH = {"x86_64": "amd64", "aarch64": "arm64", "armv7l": "armhf", "i686": "i386"}


@dataclass(frozen=True)
class Bundle:
    root: Path
    version: str
    machine: str  # uname -m style: x86_64, aarch64 (the tarball's name)
    deb_arch: str  # Debian style: amd64, arm64 (the .deb's name and control file)
    models: bool | None  # whether the GGUFs are inside (None: BUILD.json does not say)
    build: dict[str, object]  # BUILD.json as written, {} when absent

    @property
    def executable(self) -> Path:
        return self.root / "rilai"


def pyproject_version() -> str:
    data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    return str(data["project"]["version"])


def _dpkg_arch() -> str:
    try:
        done = subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=False
        )
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def read_bundle(root: Path) -> Bundle:
    """The facts of the bundle at ``root``; a clear SystemExit when it is not one."""
    root = root.resolve()
    if not (root / "rilai").is_file():
        raise SystemExit(
            f"{root} is not a Rilai bundle (no rilai executable): build it with "
            "`python packaging/build.py` (or `make package`)"
        )
    facts_file = root / "BUILD.json"
    build: dict[str, object] = json.loads(facts_file.read_text()) if facts_file.is_file() else {}
    version = str(build.get("version") or pyproject_version())
    machine = str(build.get("arch") or platform.machine())
    deb_arch = DEB_ARCH.get(machine) or _dpkg_arch() or machine
    models = build.get("models")
    return Bundle(
        root=root,
        version=version,
        machine=machine,
        deb_arch=deb_arch,
        models=bool(models) if isinstance(models, bool) else None,
        build=build,
    )


def icons(root: Path) -> list[tuple[str, Path]]:
    """(hicolor size folder, file) for each icon the bundle carries: "48x48" for
    rilai-48.png, "scalable" for rilai.svg; sorted by size."""
    folder = root / ICONS_IN_BUNDLE
    found: list[tuple[int, str, Path]] = []
    if folder.is_dir():
        for path in folder.iterdir():
            match = ICON_NAME.match(path.name)
            if match:
                size = int(match.group(1))
                found.append((size, f"{size}x{size}", path))
            elif path.name == "rilai.svg":
                found.append((1 << 30, "scalable", path))
    return [(name, path) for _size, name, path in sorted(found)]


def install_mode(path: Path) -> int:
    """0755 for programs (an ELF executable or a script that was executable), 0644 for
    everything else: shared libraries and licence texts need no execute bit."""
    if not stat.S_IMODE(path.stat().st_mode) & 0o100 or ".so" in path.name:
        return 0o644
    with path.open("rb") as handle:
        head = handle.read(4)
    return 0o755 if head[:2] == b"#!" or head == b"\x7fELF" else 0o644


def installed_kib(root: Path) -> int:
    """Installed-Size as dpkg-gencontrol counts it: each file's size rounded up to KiB,
    plus one for each directory and symlink."""
    total = 0
    for dirpath, dirs, files in os.walk(root):
        total += 1
        for name in files:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                total += 1
            else:
                total += (os.path.getsize(path) + 1023) // 1024
        total += sum(1 for d in dirs if os.path.islink(os.path.join(dirpath, d)))
    return total


def du_bytes(root: Path, skip_suffix: str | None = None) -> int:
    """Apparent size of every file under ``root`` (symlinks not followed); files ending in
    ``skip_suffix`` (".gguf": a bundle's size without its models) are left out."""
    total = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if skip_suffix and name.endswith(skip_suffix):
                continue
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                total += os.path.getsize(path)
    return total
