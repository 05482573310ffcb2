"""Portable llama.cpp libraries for the installers, one set per x86-64 CPU level.

The checkout's llama-cpp-python is built with ``-march=native`` for the machine it runs on.
An installer cannot ship that: built on an AVX-512 server it dies with SIGILL on a laptop
without AVX-512. ``make package`` ships instead (Linux x86-64):

- ``avx2``   (``llama_cpp/lib/``, the default): AVX2, FMA, F16C — x86-64 CPUs from 2013 on;
- ``avx512`` (``llama_cpp/lib-avx512/``): adds AVX-512 F/BW/DQ/CD/VL, VNNI and VBMI (Intel
  Ice Lake and later server/laptop parts, AMD Zen 4 and later). Prompt processing, which
  dominates a turn on 2 cores, ran 1.85x faster with AVX-512 on the build machine.

The frozen app picks the set at start-up from the CPU's flags
(``rilai_desktop/llm/cpu_level.py``, called by ``packaging/rilai_entry.py``) through
llama-cpp-python's own ``LLAMA_CPP_LIB_PATH``. The Python side of llama_cpp is the same
for every set (same version), only the shared libraries differ.

Each set is a wheel built once with ``pip wheel`` and kept in a wheelhouse outside the
checkout (``$RILAI_WHEELHOUSE`` or ``~/.cache/rilai/wheels/<level>/``): the first
``make package`` on a machine pays ~10 min per level on 2 cores, later ones reuse them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEVELS: dict[str, str] = {
    "avx2": "-DGGML_NATIVE=OFF",
    "avx512": "-DGGML_NATIVE=OFF -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON",
}
DEFAULT_LEVEL = "avx2"


def llama_spec() -> str:
    """``llama-cpp-python==X`` as pyproject.toml pins it."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for requirement in (r for group in extras.values() for r in group):
        if re.match(r"llama-cpp-python\s*==", requirement):
            return requirement.replace(" ", "")
    raise SystemExit("pyproject.toml pins no llama-cpp-python==X")


def wheelhouse() -> Path:
    base = os.environ.get("RILAI_WHEELHOUSE") or (
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rilai" / "wheels"
    )
    return Path(base)


def wheel_for(level: str, *, build: bool = True) -> Path:
    """The level's wheel, built first if the wheelhouse has none."""
    spec = llama_spec()
    version = spec.split("==", 1)[1]
    folder = wheelhouse() / level
    found = sorted(folder.glob(f"llama_cpp_python-{version}-*.whl"))
    if found or not build:
        if not found:
            raise SystemExit(f"no {level} wheel of {spec} in {folder}")
        return found[0]
    print(f"build: {spec} for {level} CPUs (once per machine: ~10 min on 2 cores)", flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["CMAKE_ARGS"] = f"{LEVELS[level]} {env.get('CMAKE_ARGS', '')}".strip()
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-cache-dir"]
    subprocess.run([*cmd, "-w", str(folder), spec], env=env, check=True)
    return wheel_for(level, build=False)


def extract_libs(wheel: Path, dest: Path) -> list[Path]:
    """The shared libraries under ``llama_cpp/lib/`` of ``wheel``, unpacked into ``dest``
    (symlinks inside a wheel are plain copies: every name is kept)."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    out = []
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith("llama_cpp/lib/") and not name.endswith("/"):
                target = dest / Path(name).name
                target.write_bytes(archive.read(name))
                target.chmod(0o755)
                out.append(target)
    if not any(p.name.startswith("libllama") for p in out):
        raise SystemExit(f"{wheel} holds no llama_cpp/lib/libllama*: not a llama-cpp-python wheel")
    return sorted(out)


def prepare(work: Path, levels: list[str] | None = None) -> dict[str, Path]:
    """level -> a folder of its libraries under ``work`` (for the spec: RILAI_LLAMA_LIBS)."""
    folders = {}
    for level in levels or list(LEVELS):
        folders[level] = work / "llama-libs" / level
        extract_libs(wheel_for(level), folders[level])
    return folders


def env_value(folders: dict[str, Path]) -> str:
    """``avx2=/path;avx512=/path``: how build.py hands the folders to the spec."""
    return ";".join(f"{level}={folder}" for level, folder in folders.items())


def parse_env_value(value: str) -> dict[str, Path]:
    out = {}
    for item in filter(None, value.split(";")):
        level, _, folder = item.partition("=")
        out[level] = Path(folder)
    return out
