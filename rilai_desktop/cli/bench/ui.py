"""`rilai bench ui`: the window beside a bare PySide6 QMainWindow, in one run.

- **start_ratio**: a cold process to the window's first paint (``ui.first_paint rilai``:
  the app's window as `rilai window` builds it, before any model loads) over the same for a
  bare ``QMainWindow`` (``ui.first_paint bare``), medians of alternating runs. Bar ≤ 1.5.
  Both processes run with a bytecode cache (a temporary ``PYTHONPYCACHEPREFIX``, filled by
  the uncounted warm-up runs), as an installed app and a source checkout have: where
  ``PYTHONDONTWRITEBYTECODE`` is set (this machine sets it), every start would otherwise
  compile Rilai's modules again, a cost no installed copy pays. ``start.no_bytecode`` has
  the same medians without the cache, for comparison.
- **idle_rss_mb**: the window process's resident memory at that first paint.
- **max_stall_ms**: the longest gap of a 5 ms timer on the GUI thread while real turns run
  (the real models, a fresh data folder). Bar < 100 ms.

Qt runs offscreen where there is no display.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from argparse import Namespace
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json

MESSAGES = (
    "hi, I'm Dana. I just moved to Lisbon for a new job and I don't know anyone here yet.",
    "honestly it's been lonely. work is fine but evenings are hard.",
)
START_RATIO_MAX = 1.5
STALL_MAX_MS = 100.0


def _env(pycache: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env["QT_QPA_PLATFORM"] = "offscreen"
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def _first_paint(kind: str, pycache: Path | None) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "rilai_desktop.ui.first_paint", kind],
        env=_env(pycache),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seconds = time.perf_counter() - started
    line = next((x for x in done.stdout.splitlines() if x.startswith("{")), "{}")
    return seconds, json.loads(line)


def _medians(repeats: int, pycache: Path | None) -> dict[str, Any]:
    ours: list[float] = []
    bare: list[float] = []
    rss: list[int] = []
    # warm the file cache (and fill the bytecode cache): not counted
    _first_paint("bare", pycache), _first_paint("rilai", pycache)
    for _ in range(repeats):
        seconds, info = _first_paint("rilai", pycache)
        ours.append(seconds)
        rss.append(int(info.get("rss_kb", 0)))
        bare.append(_first_paint("bare", pycache)[0])
    return {
        "rilai_s": round(statistics.median(ours), 3),
        "bare_s": round(statistics.median(bare), 3),
        "start_ratio": round(statistics.median(ours) / statistics.median(bare), 2),
        "idle_rss_mb": round(statistics.median(rss) / 1024, 1),
        "runs": repeats,
    }


def measure_start(repeats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="rilai-bench-pyc-") as pycache:
        start = _medians(repeats, Path(pycache))
    start["bytecode_cache"] = True
    without = _medians(max(3, repeats // 3), None)
    start["no_bytecode"] = {k: without[k] for k in ("rilai_s", "bare_s", "start_ratio", "runs")}
    return start


def run(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import Engine, open_engine

    repeats = max(3, int(getattr(args, "repeats", 3) or 3) * 3)
    start = measure_start(repeats)
    with tempfile.TemporaryDirectory(prefix="rilai-bench-ui-") as tmp:
        bench_paths = ctx.paths.scratch(Path(tmp))

        def opened() -> Engine:
            return open_engine(build_core(bench_paths, ctx.loaded.settings))

        if "QT_QPA_PLATFORM" not in os.environ and "DISPLAY" not in os.environ:
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from rilai_desktop.ui.stall import measure_stall

        stall = measure_stall(opened, MESSAGES)
    bars = {
        "start_ratio": {"value": start["start_ratio"], "max": START_RATIO_MAX},
        "max_stall_ms": {"value": stall["max_stall_ms"], "max_exclusive": STALL_MAX_MS},
    }
    bars["start_ratio"]["passed"] = start["start_ratio"] <= START_RATIO_MAX
    bars["max_stall_ms"]["passed"] = stall["max_stall_ms"] < STALL_MAX_MS
    report = {
        "start": start,
        "start_ratio": start["start_ratio"],
        "idle_rss_mb": start["idle_rss_mb"],
        "stall": stall,
        "max_stall_ms": stall["max_stall_ms"],
        "bars": {**bars, "passed": all(b["passed"] for b in bars.values())},
    }
    if ctx.json:
        emit_json(report)
    else:
        print(
            f"rilai bench ui — first paint {start['rilai_s']:.3f} s vs bare QMainWindow "
            f"{start['bare_s']:.3f} s: ratio {start['start_ratio']} (bar ≤ {START_RATIO_MAX});"
            f" idle RSS {start['idle_rss_mb']} MB; longest GUI stall during {len(MESSAGES)}"
            f" real turns {stall['max_stall_ms']} ms (bar < {STALL_MAX_MS:.0f}), p99 gap "
            f"{stall['p99_gap_ms']} ms"
        )
        print("bars: " + ("pass" if report["bars"]["passed"] else "FAIL"))
    return 0 if report["bars"]["passed"] else 1
