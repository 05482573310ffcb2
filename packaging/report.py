"""What `make package` built, in figures: sizes, the glibc it needs, and how fast it starts.

    python packaging/report.py [--json] [--dist dist] [--runs 5] [--no-first-paint]
                               [--write dist/report.json]

- **sizes**: the bundle with models (``DIST/rilai``), without models (``DIST/nomodels/rilai``,
  which `make package MODELS=0` builds; else the same bundle less its ``*.gguf``, marked
  ``computed``), each .deb and .tar.gz found, and the installed size (the .deb's
  Installed-Size).
- **glibc and Depends**: measured from the bundle's ELF files (linux/measure_depends.py).
- **first paint**: a cold process (a fresh temporary RILAI_HOME, no RILAI_MODELS_DIR) to the
  window's first paint under Xvfb (started here on a free display when DISPLAY is unset), for
  the bundled app (``DIST/rilai/rilai window --exit-after-first-paint``) and for this source
  checkout (``python -m rilai_desktop window --exit-after-first-paint``), alternating, one
  uncounted warm-up each (the file cache), medians of ``--runs``. Two clocks: the app's own
  (``first_paint_s``: from the kernel's start time of the process, so a frozen app's
  bootloader counts) and this script's (``process_s``: launch to exit, which adds the exit).
  The source runs get a bytecode cache (a temporary PYTHONPYCACHEPREFIX, filled by the
  warm-up), as an installed checkout has: the bundle carries its bytecode too.

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent / "linux"))

from bundle_facts import du_bytes, read_bundle
from measure_depends import measure

REPO_ROOT = Path(__file__).resolve().parent.parent
FIRST_PAINT_ARGS = ("window", "--exit-after-first-paint")


def _file(path: Path | None) -> dict[str, Any] | None:
    if path is None or not path.is_file():
        return None
    return {"path": str(path), "bytes": path.stat().st_size}


def _one(folder: Path, pattern: str) -> Path | None:
    found = sorted(folder.glob(pattern)) if folder.is_dir() else []
    return found[-1] if found else None


def _installed_bytes(deb: Path | None) -> int | None:
    if deb is None or shutil.which("dpkg-deb") is None:
        return None
    done = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Installed-Size"], capture_output=True, text=True
    )
    return int(done.stdout.strip()) * 1024 if done.returncode == 0 else None


def _models_inside(root: Path) -> bool:
    facts = read_bundle(root)
    return facts.models if facts.models is not None else any(root.rglob("*.gguf"))


def _default_models_bytes(root: Path) -> int | None:
    """The GGUFs a bundle with models would carry (the tiers' models in its manifest)."""
    try:
        manifest = tomllib.loads((root / "_internal" / "models" / "models.toml").read_text())
        return sum(int(manifest["models"][m]["size"]) for m in set(manifest["tiers"].values()))
    except (OSError, KeyError, ValueError, TypeError, tomllib.TOMLDecodeError):
        return None


def sizes(dist: Path, bundle: Path, nomodels: Path) -> dict[str, Any]:
    """Every size the report gives, in bytes (the bundles by their files' apparent size).
    A bundle flavour not built is computed from the other: less its GGUFs, or plus the
    default models' sizes from its manifest."""
    out: dict[str, Any] = {}
    found: dict[bool, dict[str, Any]] = {}
    for root in (bundle, nomodels):
        if (root / "rilai").is_file():
            entry = {"path": str(root), "bytes": du_bytes(root), "computed": False}
            found.setdefault(_models_inside(root), entry)
    with_models, without = found.get(True), found.get(False)
    if with_models and not without:
        less = du_bytes(Path(with_models["path"]), skip_suffix=".gguf")
        without = {"path": None, "bytes": less, "computed": True}
    if without and not with_models:
        models = _default_models_bytes(Path(without["path"]))
        if models is not None:
            with_models = {"path": None, "bytes": without["bytes"] + models, "computed": True}
    out["bundle_with_models"] = with_models
    out["bundle_without_models"] = without
    artefacts = {
        "deb": _one(dist, "rilai_*.deb"),
        "tarball": _one(dist, "rilai-*-linux-*.tar.gz"),
        "deb_nomodels": _one(nomodels.parent, "rilai_*-nomodels.deb"),
        "tarball_nomodels": _one(nomodels.parent, "rilai-*-nomodels.tar.gz"),
    }
    if artefacts["deb"] is not None and artefacts["deb"].name.endswith("-nomodels.deb"):
        artefacts["deb"] = None
    if artefacts["tarball"] is not None and "-nomodels" in artefacts["tarball"].name:
        artefacts["tarball"] = None
    for key, path in artefacts.items():
        out[key] = _file(path)
    deb = artefacts["deb"] or artefacts["deb_nomodels"]
    installed = _installed_bytes(deb)
    out["installed"] = {
        "bytes": installed,
        "from": f"Installed-Size of {deb.name}" if installed and deb else None,
    }
    return out


# ── first paint ────────────────────────────────────────────────────────────────


def _free_display() -> int:
    for n in range(90, 200):
        if not Path(f"/tmp/.X{n}-lock").exists() and not Path(f"/tmp/.X11-unix/X{n}").exists():
            return n
    raise RuntimeError("no free X display number between :90 and :199")


@contextmanager
def x_display() -> Iterator[str]:
    """DISPLAY if set; else an Xvfb started on a free display (killed afterwards)."""
    if os.environ.get("DISPLAY"):
        yield os.environ["DISPLAY"]
        return
    if shutil.which("Xvfb") is None:
        raise RuntimeError("no DISPLAY and no Xvfb (apt-get install xvfb)")
    n = _free_display()
    server = subprocess.Popen(
        ["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        socket = Path(f"/tmp/.X11-unix/X{n}")
        end = time.monotonic() + 20
        while not socket.exists():
            if server.poll() is not None or time.monotonic() > end:
                raise RuntimeError(f"Xvfb :{n} did not start")
            time.sleep(0.05)
        yield f":{n}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def _clean_env(display: str, home: Path, pycache: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RILAI_")}
    env.pop("QT_QPA_PLATFORM", None)
    env.update(DISPLAY=display, RILAI_HOME=str(home))
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def first_paint_once(
    command: list[str], display: str, *, cwd: Path | None = None, pycache: Path | None = None
) -> dict[str, Any]:
    """One cold start to first paint: {"first_paint_s", "rss_mb", "process_s"}; raises
    RuntimeError with the app's last words when it printed no first-paint line."""
    with tempfile.TemporaryDirectory(prefix="rilai-report-home-") as home:
        started = time.perf_counter()
        done = subprocess.run(
            [*command, *FIRST_PAINT_ARGS],
            env=_clean_env(display, Path(home), pycache),
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=180,
        )
        process_s = time.perf_counter() - started
    line = next((x for x in done.stdout.splitlines() if x.startswith('{"first_paint_s"')), None)
    if line is None:
        said = (done.stderr or done.stdout).strip()[-600:]
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {said}")
    return {**json.loads(line), "process_s": round(process_s, 3)}


def _median(runs: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def first_paint(bundle: Path, runs: int) -> dict[str, Any]:
    """The bundled app beside this source checkout, medians of alternating cold runs."""
    contenders: dict[str, tuple[list[str], Path | None]] = {
        "bundle": ([str(bundle / "rilai")], None),
        "source": ([sys.executable, "-m", "rilai_desktop"], REPO_ROOT),
    }
    results: dict[str, Any] = {"runs": runs, "errors": {}}
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in contenders}
    with x_display() as display, tempfile.TemporaryDirectory(prefix="rilai-pyc-") as pyc:
        results["display"] = display
        live = dict(contenders)
        for name, (command, cwd) in contenders.items():  # warm-up, not counted
            try:
                first_paint_once(command, display, cwd=cwd, pycache=Path(pyc) if cwd else None)
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                results["errors"][name] = str(exc)
                live.pop(name)
        for _ in range(runs):
            for name, (command, cwd) in live.items():
                try:
                    samples[name].append(
                        first_paint_once(
                            command, display, cwd=cwd, pycache=Path(pyc) if cwd else None
                        )
                    )
                except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
                    results["errors"][name] = str(exc)
    for name, got in samples.items():
        results[name] = (
            {key: _median(got, key) for key in ("first_paint_s", "process_s", "rss_mb")}
            if got
            else None
        )
    b, s = results.get("bundle"), results.get("source")
    if b and s and b["first_paint_s"] and s["first_paint_s"]:
        results["bundle_over_source"] = round(b["first_paint_s"] / s["first_paint_s"], 2)
    if not results["errors"]:
        del results["errors"]
    return results


# ── the report ─────────────────────────────────────────────────────────────────


def report(
    dist: Path,
    *,
    bundle: Path | None = None,
    nomodels: Path | None = None,
    measured: Path | None = None,
    runs: int = 5,
    with_first_paint: bool = True,
) -> dict[str, Any]:
    bundle = bundle or dist / "rilai"
    nomodels = nomodels or dist / "nomodels" / "rilai"
    measured_bundle = measured or (bundle if (bundle / "rilai").is_file() else nomodels)
    if not (measured_bundle / "rilai").is_file():
        raise SystemExit(f"report: no bundle at {bundle} or {nomodels}: run `make package`")
    facts = read_bundle(measured_bundle)
    depends = measure(measured_bundle)
    out: dict[str, Any] = {
        "version": facts.version,
        "arch": facts.machine,
        "sizes": sizes(dist, bundle, nomodels),
        "glibc": depends.glibc,
        "glibc_from": depends.glibc_from,
        "depends": depends.depends,
    }
    if with_first_paint:
        out["first_paint"] = first_paint(measured_bundle, runs)
        out["first_paint"]["bundle_path"] = str(measured_bundle)
    else:
        out["first_paint"] = {"skipped": "--no-first-paint"}
    return out


def _mb(n: int | None) -> str:
    return "—" if n is None else f"{n / 1e6:,.0f} MB"


def summary(r: dict[str, Any]) -> str:
    s = r["sizes"]
    lines = [f"Rilai {r['version']} ({r['arch']}), needs glibc ≥ {r['glibc']}"]
    for key, label in (("bundle_with_models", "with"), ("bundle_without_models", "without")):
        got = s.get(key)
        if got:
            how = "  (computed)" if got["computed"] else f"  {got['path']}"
            lines.append(f"  {'bundle ' + label + ' models:':22} {_mb(got['bytes'])}{how}")
    for key in ("deb", "tarball", "deb_nomodels", "tarball_nomodels"):
        if s.get(key):
            lines.append(f"  {key + ':':22} {_mb(s[key]['bytes'])}  {Path(s[key]['path']).name}")
    lines.append(f"  installed:             {_mb(s['installed']['bytes'])}")
    fp = r["first_paint"]
    if "skipped" in fp:
        lines.append(f"  first paint: skipped ({fp['skipped']})")
    else:
        for name in ("bundle", "source"):
            got = fp.get(name)
            if got:
                lines.append(
                    f"  first paint, {name}: {got['first_paint_s']} s (process {got['process_s']}"
                    f" s, RSS {got['rss_mb']} MB), median of {fp['runs']} under Xvfb"
                )
            else:
                lines.append(f"  first paint, {name}: failed — {fp.get('errors', {}).get(name)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=Path("dist"))
    parser.add_argument("--bundle", type=Path, help="the bundle (default DIST/rilai)")
    parser.add_argument("--nomodels-bundle", type=Path, help="default DIST/nomodels/rilai")
    parser.add_argument(
        "--measure",
        type=Path,
        metavar="BUNDLE",
        help="the bundle whose glibc, Depends and first paint are measured "
        "(default DIST/rilai, else DIST/nomodels/rilai)",
    )
    parser.add_argument("--runs", type=int, default=5, help="cold starts each (default 5)")
    parser.add_argument("--no-first-paint", action="store_true", help="sizes only")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--write", type=Path, metavar="FILE", help="also write the JSON here")
    args = parser.parse_args(argv)
    r = report(
        args.dist,
        bundle=args.bundle,
        nomodels=args.nomodels_bundle,
        measured=args.measure,
        runs=max(1, args.runs),
        with_first_paint=not args.no_first_paint,
    )
    text = json.dumps(r, indent=1, ensure_ascii=False)
    if args.write:
        args.write.parent.mkdir(parents=True, exist_ok=True)
        args.write.write_text(text + "\n")
    print(text if args.json else summary(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
