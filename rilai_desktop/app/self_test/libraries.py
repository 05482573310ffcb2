"""Step 1: every native library Rilai needs loads in this process (Qt: in a child).

Each loader imports its library, makes one call into its shared objects (so a library
that imports but cannot find its ``.so`` fails here, not in the middle of a turn) and
returns a one-line detail; a loader that raises is a failure of ``lib:<name>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rilai_desktop.app.self_test.qt import QT_LIBS_FIX, QtProbe
from rilai_desktop.app.self_test.report import CheckResult, ok, timed
from rilai_desktop.config import Settings

Loader = Callable[[], str]


@dataclass(frozen=True)
class Library:
    name: str  # the check is lib:<name>
    load: Loader
    fix: str = ""  # "" : reinstall (what that means depends on the installation)


def load_llama_cpp() -> str:
    import llama_cpp
    import llama_cpp.llama_cpp as native

    lib = getattr(native, "_lib", None)
    path = str(getattr(lib, "_name", "") or "?")
    native.llama_backend_init()  # a call into libllama and libggml
    info = native.llama_print_system_info().decode("utf-8", "replace")
    features = [
        f.split("=")[0].split(":")[-1].strip() for f in info.split("|") if f.strip().endswith("= 1")
    ]
    return (
        f"llama-cpp-python {llama_cpp.__version__}, {Path(path).name} at {Path(path).parent}"
        f" ({', '.join(features) or 'no CPU features reported'})"
    )


def load_faiss() -> str:
    import faiss

    options = str(faiss.get_compile_options()).strip()
    native = getattr(getattr(faiss, "_swigfaiss", None), "__file__", "") or "?"
    return f"faiss {faiss.__version__}, {Path(native).name} ({options})"


def torch_loader(threads: int) -> Loader:
    """torch with the threads the app gives it (``embedding.torch_threads``)."""

    def load() -> str:
        import torch

        torch.set_num_threads(threads)
        x = torch.ones(4, 4) @ torch.ones(4, 4)  # one call into libtorch
        if float(x.sum()) != 64.0:
            raise RuntimeError("a 4×4 matrix product came out wrong")
        return f"torch {torch.__version__}, {torch.get_num_threads()} thread(s)"

    return load


def load_sentence_transformers() -> str:
    from rilai_desktop.memory.embedding import offline_environment

    offline_environment()  # as the embedder does: no hub, no progress bars
    import sentence_transformers
    import transformers

    return (
        f"sentence-transformers {sentence_transformers.__version__}, "
        f"transformers {transformers.__version__}"
    )


def onnx_loader(threads: int) -> Loader:
    """onnxruntime and tokenizers, what the "onnx" embedding backend runs on (no torch)."""

    def load() -> str:
        import tokenizers

        from rilai_desktop.memory.embedding_onnx import import_onnxruntime

        onnxruntime = import_onnxruntime()

        providers = onnxruntime.get_available_providers()
        if "CPUExecutionProvider" not in providers:
            raise RuntimeError(f"onnxruntime has no CPU provider ({providers})")
        return (
            f"onnxruntime {onnxruntime.__version__} ({threads} thread(s)), "
            f"tokenizers {tokenizers.__version__}"
        )

    return load


def embedder_libraries(settings: Settings) -> list[str]:
    """The ``lib:*`` checks the embedder check needs, for ``embedding.backend``."""
    if settings.embedding.backend == "onnx":
        return ["lib:onnxruntime"]
    return ["lib:torch", "lib:sentence_transformers"]


def load_sqlite3() -> str:
    import _sqlite3
    import sqlite3

    db = sqlite3.connect(":memory:")
    try:
        (version,) = db.execute("SELECT sqlite_version()").fetchone()
    finally:
        db.close()
    native = getattr(_sqlite3, "__file__", None) or "built in"
    return f"SQLite {version}, {Path(native).name}"


def qt_loader(probe: QtProbe) -> Loader:
    """PySide6's QtCore, QtGui and QtWidgets, imported in a child process."""

    def load() -> str:
        outcome = probe("qt-libs")
        if not outcome.ok:
            raise ImportError(outcome.error)
        d = outcome.data
        return f"PySide6 {d.get('pyside6')}, Qt {d.get('qt')} at {d.get('libraries')}"

    return load


def default_libraries(settings: Settings, probe: QtProbe) -> list[Library]:
    return [
        Library("llama_cpp", load_llama_cpp),
        Library("faiss", load_faiss),
        *(
            [Library("onnxruntime", onnx_loader(settings.embedding.torch_threads))]
            if settings.embedding.backend == "onnx"
            else [
                Library("torch", torch_loader(settings.embedding.torch_threads)),
                Library("sentence_transformers", load_sentence_transformers),
            ]
        ),
        Library("sqlite3", load_sqlite3),
        Library("pyside6", qt_loader(probe), QT_LIBS_FIX),
    ]


def check_library(lib: Library, reinstall_fix: str) -> CheckResult:
    name = f"lib:{lib.name}"
    return timed(name, lambda: ok(name, lib.load()), fix=lib.fix or reinstall_fix)
