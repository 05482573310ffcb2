"""Shared test set-up: Qt offscreen, and every test gets its own RILAI_HOME."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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
