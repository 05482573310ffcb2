"""`rilai doctor`: one line per check, ok / skip / fail, and the fix for each failure.

Exits non-zero when any check fails. Qt is probed in a subprocess so this (headless)
process never imports PySide6.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
from argparse import Namespace
from collections.abc import Callable
from dataclasses import asdict, dataclass

from rilai_desktop.commands._context import Context
from rilai_desktop.commands.output import emit_json
from rilai_desktop.commands.status import configured_models
from rilai_desktop.errors import RilaiError
from rilai_desktop.paths import ensure_private_dir

SETUP_FIX = "Run `make run` (or `make test`) from the checkout: set-up installs it"


@dataclass
class Check:
    name: str
    status: str  # ok | skip | fail
    detail: str
    fix: str = ""


def check_python() -> Check:
    version = platform.python_version()
    if sys.version_info[:2] == (3, 11):
        return Check("python", "ok", version)
    return Check("python", "fail", version, "Use Python 3.11 (PYTHON=python3.11 make run)")


def check_torch() -> Check:
    try:
        import torch
    except Exception as exc:
        return Check("torch", "fail", f"import failed: {exc}", SETUP_FIX)
    version = str(torch.__version__)
    if not version.startswith("2.13.0"):
        return Check("torch", "fail", version, "Install exactly torch==2.13.0 (CPU build)")
    return Check("torch", "ok", f"{version}, {torch.get_num_threads()} thread(s)")


def check_llama_cpp() -> Check:
    try:
        import llama_cpp
    except Exception as exc:
        return Check("llama_cpp", "fail", f"import failed: {exc}", SETUP_FIX)
    return Check("llama_cpp", "ok", f"llama-cpp-python {llama_cpp.__version__}")


def check_faiss() -> Check:
    try:
        import faiss
        import numpy as np
    except Exception as exc:
        return Check("faiss", "fail", f"import failed: {exc}", SETUP_FIX)
    index = faiss.IndexFlatIP(8)
    vectors = np.eye(8, dtype="float32")
    index.add(vectors)
    _, ids = index.search(vectors[:1], 1)
    if int(ids[0][0]) != 0:
        return Check("faiss", "fail", "a flat index returned the wrong neighbour", SETUP_FIX)
    return Check("faiss", "ok", f"faiss {faiss.__version__}, flat search works")


QT_PROBE = (
    "from PySide6.QtWidgets import QApplication, QLabel;"
    "import PySide6; app = QApplication([]); w = QLabel('ok'); w.show(); app.processEvents();"
    "print(PySide6.__version__)"
)


def check_qt() -> Check:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        proc = subprocess.run(
            [sys.executable, "-c", QT_PROBE], env=env, capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        return Check("qt", "fail", "Qt offscreen probe timed out", SETUP_FIX)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return Check(
            "qt",
            "fail",
            f"Qt offscreen failed: {last}",
            "Install Qt's runtime libraries: `make test` installs them as root, or "
            "sudo apt-get install libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3",
        )
    return Check("qt", "ok", f"PySide6 {proc.stdout.strip()} (offscreen)")


def check_models(ctx: Context) -> Check:
    models = configured_models(ctx.paths.models_dir)
    if not models:
        return Check(
            "models",
            "skip",
            f"no model manifest in {ctx.paths.models_dir} yet "
            "(models/models.toml arrives with the Local models issue)",
        )
    missing = [m["tier"] for m in models if not m["present"]]
    if missing:
        return Check(
            "models",
            "fail",
            f"missing model file for tier(s): {', '.join(missing)}",
            "Run `rilai models install " + " ".join(missing) + "`",
        )
    return Check("models", "ok", ", ".join(f"{m['tier']}={m['model']}" for m in models))


def check_data_dir(ctx: Context) -> Check:
    data_dir = ctx.paths.data_dir
    try:
        ensure_private_dir(data_dir)
        with tempfile.NamedTemporaryFile(dir=data_dir, prefix=".doctor-", delete=True) as fh:
            fh.write(b"ok")
            fh.flush()
    except (RilaiError, OSError) as exc:
        fix = "; ".join(exc.hints) if isinstance(exc, RilaiError) else ""
        return Check(
            "data_dir",
            "fail",
            f"{data_dir}: {exc}",
            fix or f"chmod u+rwx {data_dir}, or set RILAI_HOME to a writable directory",
        )
    return Check("data_dir", "ok", f"{data_dir} is writable")


def check_database(ctx: Context) -> Check:
    try:
        result = ctx.event_log().integrity_check()
    except RilaiError as exc:
        return Check("database", "fail", str(exc), "; ".join(exc.hints))
    if result != "ok":
        return Check(
            "database",
            "fail",
            f"integrity_check: {result}",
            f"Copy {ctx.paths.db_path} aside and restore a backup; Rilai will not overwrite it",
        )
    return Check("database", "ok", f"integrity_check ok ({ctx.paths.db_path})")


def run(args: Namespace, ctx: Context) -> int:
    checks: list[Callable[[], Check]] = [
        check_python,
        check_torch,
        check_llama_cpp,
        check_faiss,
        check_qt,
        lambda: check_models(ctx),
        lambda: check_data_dir(ctx),
    ]
    results = [c() for c in checks]
    # the database check needs a writable data dir
    if results[-1].status == "ok":
        results.append(check_database(ctx))
    else:
        results.append(Check("database", "skip", "data directory is not usable"))
    failed = [r for r in results if r.status == "fail"]
    if ctx.json:
        emit_json({"ok": not failed, "checks": [asdict(r) for r in results]})
    else:
        for r in results:
            print(f"{r.status:<4}  {r.name:<10} {r.detail}")
            if r.fix:
                print(f"{'':<16} fix: {r.fix}")
        print("all checks passed" if not failed else f"{len(failed)} check(s) failed")
    return 1 if failed else 0
