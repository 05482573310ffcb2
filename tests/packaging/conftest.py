"""Packaging tests: a FAKE tiny bundle shaped like `packaging/build.py`'s dist/rilai/ (a shell
script for the executable, real icons, a real ELF so the Depends measurement has something
to read, licences, BUILD.json, a small "GGUF"), and the packaging scripts importable (they
are plain scripts under packaging/linux/, not a package: `packaging` is a PyPI name)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rilai_desktop.paths import REPO_ROOT

LINUX = REPO_ROOT / "packaging" / "linux"
# packaging/ (build.py's helpers: licences, llama_variants) and packaging/linux/
for _folder in (REPO_ROOT / "packaging", LINUX):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

FAKE_VERSION = "0.0.7"  # not pyproject's: shows BUILD.json is read
FAKE_SAYS = "fake rilai"


def run_script(script: Path, *args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    """A packaging script as `make package` runs it: the venv's python, from the repo."""
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        **kw,  # type: ignore[arg-type]
    )


def make_fake_bundle(root: Path, *, says: str = FAKE_SAYS) -> Path:
    icons = root / "_internal" / "resources" / "icons"
    icons.mkdir(parents=True)
    for name in ("rilai-48.png", "rilai-256.png", "rilai.svg"):
        shutil.copyfile(REPO_ROOT / "resources" / "icons" / name, icons / name)
    exe = root / "rilai"
    exe.write_text(f'#!/bin/sh\necho "{says} $*"\n')
    exe.chmod(0o755)
    # a real ELF that links libc only (what measure_depends reads)
    shutil.copyfile("/bin/true", root / "_internal" / "true-helper")
    os.chmod(root / "_internal" / "true-helper", 0o755)
    models = root / "_internal" / "models"
    models.mkdir()
    (models / "models.toml").write_text(
        '[tiers]\nsmall = "tiny"\n\n[models.tiny]\nfile = "tiny.gguf"\nsize = 65536\n'
    )
    (models / "tiny.gguf").write_bytes(os.urandom(65536))  # incompressible, as GGUFs are
    (root / "licenses").mkdir()
    (root / "licenses" / "llama.cpp-MIT.txt").write_text("MIT License\n")
    (root / "BUILD.json").write_text(
        json.dumps(
            {
                "version": FAKE_VERSION,
                "python": "3.11.7",
                "glibc": "2.36",
                "models": True,
                "arch": "x86_64",
            }
        )
    )
    return root


@pytest.fixture
def fake_bundle(tmp_path: Path) -> Path:
    return make_fake_bundle(tmp_path / "dist" / "rilai")
