"""`rilai self-test --json` on the real installation: the `rilai` console script of this
checkout's environment, the real libraries, the three real models and one real turn, with
RILAI_HOME in a temporary folder. Every check passes, and nothing is written to the
person's folders (the home stays empty; the models' hash cache is not rewritten).

PYTHONPATH points at this checkout so the console script runs this tree's code (an
editable install may point at another checkout of the same repository).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rilai_desktop.paths import REPO_ROOT
from tests.conftest import REAL_MODELS_DIR

pytestmark = pytest.mark.e2e

# the default embedding backend, "onnx": onnxruntime in place of torch and
# sentence-transformers (issue 31)
CHECKS = [
    "lib:llama_cpp", "lib:faiss", "lib:onnxruntime", "lib:sqlite3",
    "lib:pyside6", "model:small", "model:medium", "model:large", "embedder", "faiss",
    "sqlite_fts5", "qt", "turn",
]  # fmt: skip


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def test_self_test_passes_on_the_real_models_and_leaves_no_trace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    cache = REAL_MODELS_DIR / ".verified.json"
    cache_before = cache.stat().st_mtime_ns if cache.exists() else None
    env = {k: v for k, v in os.environ.items() if not k.startswith("RILAI_")}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env.update(
        RILAI_HOME=str(home),
        RILAI_MODELS_DIR=str(REAL_MODELS_DIR),
        PYTHONPATH=str(REPO_ROOT),
    )
    rilai = Path(sys.executable).parent / "rilai"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(rilai), "self-test", "--json"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    took = time.perf_counter() - t0
    data = json.loads(proc.stdout)  # the report and nothing else on stdout
    print(f"\n  self-test took {took:.1f} s (checks {data['seconds']:.1f} s):")
    for check in data["checks"]:
        status, name, seconds = check["status"], check["name"], check["seconds"]
        print(f"    {status:<4} {name:<26} {seconds:6.2f} s  {check['detail']}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert data["ok"] is True and data["frozen"] is False
    assert [c["name"] for c in data["checks"]] == CHECKS
    assert all(c["status"] == "ok" for c in data["checks"]), data["checks"]
    assert data["install"]["package"] == str(REPO_ROOT / "rilai_desktop")
    assert data["install"]["models"] == str(REAL_MODELS_DIR.resolve())
    turn = next(c for c in data["checks"] if c["name"] == "turn")
    assert turn["detail"].startswith(("'", '"')) and " in " in turn["detail"]
    assert _tree(home) == []  # the turn ran in a scratch folder: no data, cache or config here
    after = cache.stat().st_mtime_ns if cache.exists() else None
    assert after == cache_before  # the hashes were computed, not remembered
