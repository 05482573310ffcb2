"""A model file deleted while the window runs, on the real small model and llama.cpp: the
window names the file and its fix, the message is logged, and once the file is back the
next message gets a real reply (every tier points at a copy of the small GGUF)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from rilai_desktop.contracts import EventKind
from tests.e2e.conftest import MANIFEST, model_path

pytestmark = pytest.mark.e2e


def test_a_deleted_model_file_is_named_and_the_window_goes_on(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rilai_home: Path
) -> None:
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine
    from rilai_desktop.config import load_settings
    from rilai_desktop.paths import resolve_paths
    from rilai_desktop.ui.bridge import EngineBridge
    from rilai_desktop.ui.main_window import MainWindow

    small = model_path("small")
    models = tmp_path / "models"
    models.mkdir()
    copy = models / small.name
    shutil.copyfile(small, copy)
    monkeypatch.setenv("RILAI_MODELS_DIR", str(models))
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")  # the models are the point here
    paths = resolve_paths()
    small_id = MANIFEST.tiers["small"]
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    paths.user_manifest_file.write_text(f'[tiers]\nmedium = "{small_id}"\nlarge = "{small_id}"\n')
    engine = open_engine(build_core(paths, load_settings(paths.settings_file).settings))
    win = MainWindow(EngineBridge(engine))
    qtbot.addWidget(win)
    win.show()
    assert win.bridge is not None
    copy.unlink()  # the window is up, no model is loaded yet

    win.input.setPlainText("Hello, are you there?")
    with qtbot.waitSignal(win.bridge.turn_done, timeout=120_000):
        qtbot.keyClick(win.input, Qt.Key.Key_Return)
    texts = [r.text for r in win.view.rows]
    assert texts[0] == "Hello, are you there?"
    note = texts[-1]
    assert f"A model file is missing: {copy}" in note and "rilai models install" in note
    log = engine.parts.core.event_log
    assert [e.payload["user_input"] for e in log.events(kind=EventKind.TURN_STARTED)] == [
        "Hello, are you there?"
    ]

    shutil.copyfile(small, copy)  # put back
    win.input.setPlainText("Tell me one nice thing about mornings.")
    with qtbot.waitSignal(win.bridge.turn_done, timeout=300_000):
        qtbot.keyClick(win.input, Qt.Key.Key_Return)
    print(f"\n  reply: {win.view.rows[-1].text!r}")
    spoken = [e.payload["model"] for e in log.events(kind=EventKind.VOICE_RENDERED)]
    assert small_id in spoken  # the real model spoke (its reply may still be replaced)
    assert str(copy.resolve()) in engine.parts.models.loaded_models()
    assert not any("missing" in r.text for r in win.view.rows[len(texts) :])
    win.close()
