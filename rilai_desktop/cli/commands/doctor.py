"""`rilai doctor`: one line per check, ok / skip / fail, and the fix for each failure.

Exits non-zero when any check fails. Qt is probed in a subprocess so this (headless)
process never imports PySide6.
"""

from __future__ import annotations

import platform
import sys
import tempfile
import time
from argparse import Namespace
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.doctor_repair import REPAIR_FIX, repair_database
from rilai_desktop.cli.commands.output import emit_json, human_bytes
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
    """The "minilm" embedding backend's library (the default "onnx" one needs no torch)."""
    try:
        import torch
    except Exception as exc:
        return Check("embedding", "fail", f"torch import failed: {exc}", SETUP_FIX)
    version = str(torch.__version__)
    if not version.startswith("2.13.0"):
        return Check(
            "embedding", "fail", f"torch {version}", "Install exactly torch==2.13.0 (CPU build)"
        )
    return Check("embedding", "ok", f"minilm on torch {version}")


def check_onnx_embedding(model_dir: Path | None = None) -> Check:
    """The "onnx" embedding backend: onnxruntime imports and the exported model's files are
    whole (each of its recorded size and sha256); nothing is loaded."""
    from rilai_desktop.errors import EmbeddingError
    from rilai_desktop.memory.embedding_onnx import OnnxEmbedder, import_onnxruntime

    try:
        onnxruntime = import_onnxruntime()
    except Exception as exc:
        return Check("embedding", "fail", f"onnxruntime import failed: {exc}", SETUP_FIX)
    embedder = OnnxEmbedder(model_dir)
    try:
        manifest = embedder.verify()
    except EmbeddingError as exc:
        return Check("embedding", "fail", exc.message, "; ".join(exc.recovery_suggestions))
    return Check(
        "embedding",
        "ok",
        f"{manifest.get('model_id')} on onnxruntime {onnxruntime.__version__}, "
        f"files whole ({embedder.model_dir})",
    )


def check_embedding(backend: str) -> Check:
    """What ``embedding.backend`` runs on: onnxruntime and the ONNX export, or torch."""
    if backend == "onnx":
        return check_onnx_embedding()
    if backend == "minilm":
        return check_torch()
    return Check("embedding", "skip", f"backend {backend}: no model")


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


def check_qt() -> Check:
    """Qt's offscreen platform renders a widget, in a child process (the self-test's probe:
    ``rilai self-test --probe qt``, which also works inside the frozen bundle)."""
    from rilai_desktop.app.self_test.qt import QT_LIBS_FIX, run_qt_probe

    outcome = run_qt_probe("qt")
    if not outcome.ok:
        return Check("qt", "fail", f"Qt offscreen failed: {outcome.error}", QT_LIBS_FIX)
    d = outcome.data
    return Check("qt", "ok", f"PySide6 {d.get('pyside6')} ({d.get('platform')})")


def check_models(ctx: Context, *, smoke: bool) -> list[Check]:
    """Each tier: file, size, sha256, and a 5-token smoke generation with its time."""
    from rilai_desktop.llm.errors import ModelError
    from rilai_desktop.llm.installer import verify
    from rilai_desktop.llm.manifest import TIERS, load_manifest

    try:
        manifest = load_manifest(ctx.paths.manifest_file, ctx.paths.user_manifest_file)
    except ModelError as exc:
        return [Check("models", "fail", exc.message, "; ".join(exc.hints))]
    checks: list[Check] = []
    for tier in TIERS:
        name = f"model:{tier}"
        try:
            entry = manifest.for_tier(tier)
        except ModelError as exc:
            checks.append(Check(name, "fail", exc.message, "; ".join(exc.hints)))
            continue
        if entry.source.kind == "endpoint":
            checks.append(endpoint_check(name, entry.id, entry.source.url or ""))
            continue
        v = verify(entry, ctx.paths.models_dir)
        if not v.exists:
            # the large tier is optional (1.1 GB): `make run` installs it, tests do not
            status = "skip" if tier == "large" else "fail"
            checks.append(
                Check(
                    name,
                    status,
                    f"{entry.id} not installed ({v.path})",
                    f"rilai models install {tier}",
                )
            )
            continue
        if not v.ok:
            checks.append(
                Check(
                    name,
                    "fail",
                    f"{v.path}: size ok={v.size_ok}, sha256 ok={v.sha_ok}",
                    f"delete it and run `rilai models install {tier}`",
                )
            )
            continue
        detail = f"{v.path.name}, {human_bytes(v.size or 0)}, sha256 ok"
        if smoke:
            try:
                detail += f", 5-token smoke {smoke_ms(ctx, entry.id, v.path):.0f} ms"
            except ModelError as exc:
                checks.append(
                    Check(
                        name, "fail", f"{detail}; smoke failed: {exc.message}", "; ".join(exc.hints)
                    )
                )
                continue
        checks.append(Check(name, "ok", detail))
    return checks


def check_endpoints(ctx: Context) -> Check:
    """Every address the app may reach beyond this computer: the tiers' servers the person
    added (docs/api.md). None by default; the local API listens on 127.0.0.1 only."""
    from rilai_desktop.llm.errors import ModelError
    from rilai_desktop.llm.manifest import TIERS, load_manifest

    try:
        manifest = load_manifest(ctx.paths.manifest_file, ctx.paths.user_manifest_file)
    except ModelError as exc:
        return Check("endpoints", "fail", exc.message, "; ".join(exc.hints))
    reached = [
        f"{tier} → {entry.source.url}"
        for tier in TIERS
        if tier in manifest.tiers and (entry := manifest.for_tier(tier)).source.kind == "endpoint"
    ]
    if not reached:
        return Check("endpoints", "ok", "none: no model call leaves this computer")
    return Check("endpoints", "ok", "the app may reach: " + "; ".join(reached))


def check_network(ctx: Context) -> Check:
    """What the running or last session (window, shell, chat, serve) tried to reach beyond
    this computer: its network audit record (rilai_desktop/network_audit.py)."""
    from rilai_desktop.network_audit import describe, last_session

    ok, detail = describe(last_session(ctx.paths.data_dir))
    if ok:
        return Check("network", "ok", detail)
    fix = "nothing in Rilai should connect anywhere but your model endpoints: please report it"
    return Check("network", "fail", detail, fix)


def endpoint_check(name: str, model_id: str, url: str) -> Check:
    """A tier on another machine: does its server answer ``GET {url}/models`` (3 s)?"""
    import httpx

    try:
        answer = httpx.get(f"{url.rstrip('/')}/models", timeout=3.0)
        answer.raise_for_status()
    except httpx.HTTPError as exc:
        return Check(name, "warn", f"{model_id} at {url} does not answer ({exc})",
                     "turns fall back to the local model until it does")  # fmt: skip
    return Check(
        name, "ok", f"{model_id}: the server at {url} answers (this tier leaves the computer)"
    )


def smoke_ms(ctx: Context, model_id: str, path: Path) -> float:
    from rilai_desktop.llm.llama_cpp_adapter import LlamaCppModel, LlamaOptions

    s = ctx.loaded.settings.llm
    model = LlamaCppModel(
        path,
        model_id=model_id,
        options=LlamaOptions(
            n_ctx=512,
            n_threads=s.threads,
            n_gpu_layers=s.gpu_layers,
            template_fallback=s.chat_template_fallback,
        ),
    )
    try:
        t0 = time.perf_counter()
        model.complete([{"role": "user", "content": "Say hi."}], max_tokens=5, temperature=0.0)
        return (time.perf_counter() - t0) * 1000
    finally:
        model.close()


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
            REPAIR_FIX + f"; Rilai never overwrites {ctx.paths.db_path} on its own",
        )
    return Check("database", "ok", f"integrity_check ok ({ctx.paths.db_path})")


LIBRARY_CHECKS: tuple[Callable[[], Check], ...] = (
    check_llama_cpp,
    check_faiss,
    check_qt,
)


def run(
    args: Namespace, ctx: Context, *, libraries: Sequence[Callable[[], Check]] | None = None
) -> int:
    """``libraries``: the checks of the heavy libraries (the embedding backend's, llama.cpp,
    faiss, Qt; a test hands in stubs, the slow test runs the real ones)."""
    if libraries is None:
        backend = ctx.loaded.settings.embedding.backend
        libraries = [lambda: check_embedding(backend), *LIBRARY_CHECKS]
    results = [check_python(), *(c() for c in libraries)]
    results += check_models(ctx, smoke=not getattr(args, "no_smoke", False))
    results.append(check_endpoints(ctx))
    results.append(check_network(ctx))
    results.append(check_data_dir(ctx))
    # the database check needs a writable data dir
    if results[-1].status == "ok":
        if getattr(args, "repair", False):  # before anything opens the database
            results.append(Check("repair", *repair_database(ctx)))
        results.append(check_database(ctx))
    else:
        results.append(Check("database", "skip", "data directory is not usable"))
    failed = [r for r in results if r.status == "fail"]
    if ctx.json:
        emit_json({"ok": not failed, "checks": [asdict(r) for r in results]})
    else:
        for r in results:
            print(f"{r.status:<4}  {r.name:<12} {r.detail}")
            if r.fix:
                print(f"{'':<18} fix: {r.fix}")
        print("all checks passed" if not failed else f"{len(failed)} check(s) failed")
    return 1 if failed else 0
