"""Shared test set-up: Qt offscreen, and every test gets its own RILAI_HOME."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Set before anything could import Qt: tests never need a real display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Keep torch / llama.cpp / BLAS from fighting over the two cores during tests.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


from rilai_desktop.paths import REPO_ROOT

# the in-process `run` fixture for CLI tests
pytest_plugins = ["tests.cli_runner"]

# `make test` installs the small and medium models here (RILAI_MODELS_DIR, or the repo's
# models/); captured before the autouse fixture below clears every RILAI_* variable.
REAL_MODELS_DIR = Path(os.environ.get("RILAI_MODELS_DIR") or REPO_ROOT / "models")


# `make check` (issue 31: the fast inner loop) runs the tests that need no real model with
# -m "not e2e" and RILAI_CHECK=1; read here, before `rilai_home` clears every RILAI_*.
CHECK = os.environ.get("RILAI_CHECK") == "1"
E2E_DIR = Path(__file__).resolve().parent / "e2e"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The split cannot drift: a test that needs the real model files is ``e2e`` whether or
    not it says so — everything under tests/e2e/ and every test that asks for the
    ``real_models`` fixture. (A test that loads a GGUF some other way fails under
    ``make check``: see ``_no_real_model_in_check``.)"""
    for item in items:
        path = Path(str(item.path)).resolve()
        if E2E_DIR in path.parents or "real_models" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(autouse=True)
def _no_real_model_in_check(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``make check`` a test not marked e2e that opens an installed GGUF fails at once,
    naming the fix, instead of quietly making the fast loop slow."""
    if not CHECK or request.node.get_closest_marker("e2e") is not None:
        return
    from rilai_desktop.llm import llama_cpp_adapter

    real_init = llama_cpp_adapter.LlamaCppModel.__init__

    def guarded(self: Any, path: Path, *args: Any, **kwargs: Any) -> None:
        if REAL_MODELS_DIR.resolve() in Path(path).resolve().parents:
            raise AssertionError(
                f"{request.node.nodeid} opens the real model {path} but is not marked e2e: "
                "mark it @pytest.mark.e2e or take the real_models fixture"
            )
        real_init(self, path, *args, **kwargs)

    monkeypatch.setattr(llama_cpp_adapter.LlamaCppModel, "__init__", guarded)


@pytest.fixture
def real_models(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point RILAI_MODELS_DIR at the real, installed GGUF files (e2e tests)."""
    monkeypatch.setenv("RILAI_MODELS_DIR", str(REAL_MODELS_DIR))
    return REAL_MODELS_DIR


@pytest.fixture(autouse=True)
def rilai_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point every location at a fresh temporary RILAI_HOME; drop stray RILAI_* settings."""
    for name in list(os.environ):
        if name.startswith("RILAI_"):
            monkeypatch.delenv(name)
    home = tmp_path / "rilai-home"
    monkeypatch.setenv("RILAI_HOME", str(home))
    yield home
