"""Build Rilai's one-folder bundle: ``python packaging/build.py [--no-models] [--dist DIR]``.

Runs PyInstaller on ``packaging/rilai.spec`` (with or without the three default GGUFs),
then writes beside the executable:

- ``licenses/``: the licence of everything the bundle carries (see ``licences.py``);
- ``BUILD.json``: version, Python, platform, the glibc it was built on, whether the models
  are inside and which (id, file, sha256, licence).

The GGUFs are read from ``RILAI_MODELS_DIR`` (default ``models/``), where
``rilai models install all`` put them, sha256-verified. Runs on Linux, Windows and macOS
(the release workflow calls it on each); only the stdlib and PyInstaller are needed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import llama_variants
from licences import write_licences

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "rilai.spec"


def _version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def _models(models_dir: Path) -> list[dict[str, str]]:
    manifest = tomllib.loads((ROOT / "models" / "models.toml").read_text())
    out = []
    for tier, model_id in manifest["tiers"].items():
        entry = manifest["models"][model_id]
        out.append(
            {
                "tier": tier,
                "id": model_id,
                "name": entry["name"],
                "file": entry["file"],
                "sha256": entry["sha256"],
                "licence": entry["licence"],
                "path": str(models_dir / entry["file"]),
            }
        )
    return out


def _check_models(models: list[dict[str, str]]) -> None:
    """Refuse to bundle a GGUF that is missing or not the verified one (size + sha via the
    installer's cache, the same check `rilai models verify` makes)."""
    missing = [m["path"] for m in models if not Path(m["path"]).is_file()]
    if missing:
        raise SystemExit(
            "build: the default models are not installed: "
            + ", ".join(missing)
            + "\n  run `rilai models install all` first (make package does), "
            "or build without models: make package MODELS=0"
        )


def run_pyinstaller(
    dist: Path, work: Path, *, models: bool, models_dir: Path, llama_libs: str = ""
) -> None:
    env = dict(os.environ)
    env["RILAI_LLAMA_LIBS"] = llama_libs
    env["RILAI_BUNDLE_MODELS"] = "1" if models else "0"
    env["RILAI_MODELS_DIR"] = str(models_dir)
    cmd = [
        sys.executable,
        "-m",
        "PyInstaller",
        "--noconfirm",
        "--log-level",
        "WARN",
        "--distpath",
        str(dist),
        "--workpath",
        str(work),
        str(SPEC),
    ]
    print("build: " + " ".join(cmd[2:]), flush=True)
    subprocess.run(cmd, env=env, check=True)


def build_facts(
    bundle: Path, *, models: bool, model_rows: list[dict[str, str]]
) -> dict[str, object]:
    libc, libc_version = platform.libc_ver()
    return {
        "name": "rilai",
        "version": _version(),
        "python": platform.python_version(),
        "system": platform.system(),
        "arch": platform.machine(),
        "built_on_libc": f"{libc} {libc_version}".strip(),
        "models": models,
        "model_files": [
            {k: m[k] for k in ("tier", "id", "name", "file", "sha256", "licence")}
            for m in model_rows
        ]
        if models
        else [],
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "bundle": bundle.name,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-models", action="store_true", help="leave the GGUFs out")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder")
    parser.add_argument("--work", type=Path, default=None, help="PyInstaller's work folder")
    args = parser.parse_args(argv)
    models = not args.no_models
    models_dir = Path(os.environ.get("RILAI_MODELS_DIR") or ROOT / "models").resolve()
    model_rows = _models(models_dir)
    if models:
        _check_models(model_rows)
    dist = args.dist.resolve()
    work = (
        args.work or ROOT / "build" / ("pyinstaller" if models else "pyinstaller-nomodels")
    ).resolve()
    started = time.perf_counter()
    levels: dict[str, Path] = {}
    if platform.system() == "Linux" and platform.machine() in ("x86_64", "AMD64"):
        # portable llama.cpp builds, not the checkout's -march=native one (llama_variants.py)
        levels = llama_variants.prepare(work)
    run_pyinstaller(
        dist,
        work,
        models=models,
        models_dir=models_dir,
        llama_libs=llama_variants.env_value(levels),
    )
    bundle = dist / "rilai"
    frozen_modules = json.loads((work / "rilai" / "frozen-modules.json").read_text())
    binaries = json.loads((work / "rilai" / "frozen-binaries.json").read_text())
    shutil.rmtree(bundle / "licenses", ignore_errors=True)
    index = write_licences(
        bundle / "licenses",
        frozen_modules=frozen_modules,
        bundle=bundle,
        models=[m for m in model_rows if models],
        binaries=binaries,
    )
    facts = build_facts(bundle, models=models, model_rows=model_rows)
    facts["llama_cpp_levels"] = sorted(levels) or ["as built in the venv"]
    (bundle / "BUILD.json").write_text(json.dumps(facts, indent=1) + "\n")
    print(
        f"build: {bundle} in {time.perf_counter() - started:.0f} s; "
        f"models {'inside' if models else 'left out'}; {len(index)} licence entries",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
