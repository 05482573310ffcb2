"""The desktop app most window tests drive: the real Engine on the scripted fake LLM and
the hashed embedder, no tray, no daemon; loaded, with the docks that come after the first
paint (inspector, memory) built."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.ui.app import DesktopApp
from tests.fake_engine import open_fake_engine


@pytest.fixture
def loaded_desktop(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, rilai_home: object
) -> Iterator[DesktopApp]:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    app = DesktopApp(open_fake_engine, tray_available=lambda: False, with_daemon=False)
    qtbot.addWidget(app.window)
    with qtbot.waitSignal(app.loader.loaded, timeout=30_000):
        app.start()
    qtbot.waitUntil(
        lambda: (
            app.inspector is not None and app.memory is not None and app.memory.bridge is not None
        ),
        timeout=10_000,
    )
    yield app
    app.window.close()
