"""The Engine most app tests drive: the real one, on the scripted fake LLM and the hashed
embedder, in the test's own RILAI_HOME."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rilai_desktop.app.engine import Engine
from tests.fake_engine import open_fake_engine


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> Iterator[Engine]:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    opened = open_fake_engine()
    yield opened
    opened.close()
