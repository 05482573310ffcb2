"""Bad input the person did not choose: a model file deleted while the app runs, the
database held by another process. Each gets a clear line in the window, nothing is lost,
and the next message works once the cause is gone (the real Engine, scripted models)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from rilai_desktop.app.build import build_memory
from rilai_desktop.app.core import build_core
from rilai_desktop.app.engine import Engine, EngineParts
from rilai_desktop.app.memory_bridge import MemoryBridge
from rilai_desktop.config import load_settings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import LLM
from rilai_desktop.llm.fake import ScriptedLLM, agent_answer
from rilai_desktop.llm.gguf import check_file
from rilai_desktop.llm.manifest import ModelEntry, load_manifest
from rilai_desktop.llm.router import ModelRouter
from rilai_desktop.paths import resolve_paths
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.ui.bridge import EngineBridge
from rilai_desktop.ui.main_window import MainWindow
from tests.fake_engine import VOICE_REPLY, open_fake_engine
from tests.turn.conftest import PROMPTS


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def _say(qtbot: QtBot, win: MainWindow, text: str) -> None:
    win.input.setPlainText(text)
    qtbot.keyClick(win.input, Qt.Key.Key_Return)


def _window(qtbot: QtBot, engine: Engine) -> MainWindow:
    win = MainWindow(EngineBridge(engine))
    qtbot.addWidget(win)
    win.show()
    return win


def _engine_on_files(models_dir: Path) -> Engine:
    """The real ModelRouter over a manifest whose three tiers share ``tiny.gguf`` in
    ``models_dir``: loading checks the file as llama.cpp's loader does (``check_file``),
    then answers with the scripted models."""
    (models_dir / "models.toml").write_text(
        '[tiers]\nsmall = "tiny"\nmedium = "tiny"\nlarge = "tiny"\n'
        '[models.tiny]\nname = "Tiny"\nfile = "tiny.gguf"\nlicence = "test"\n'
        'source = { kind = "user_file" }\n'
    )
    scripted = {
        "agents": ScriptedLLM(default=agent_answer()),
        "voice": ScriptedLLM(default=VOICE_REPLY),
        "": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
    }

    def load(entry: ModelEntry, path: Path, slot: str) -> LLM:
        check_file(path)
        return scripted[slot.partition("#")[0]]

    paths = resolve_paths()
    settings = load_settings(paths.settings_file).settings
    core = build_core(paths, settings)
    router = ModelRouter(
        load_manifest(models_dir / "models.toml"),
        models_dir,
        llm_settings=settings.llm,
        roles=settings.roles,
        factory=load,
    )
    memory = build_memory(core, with_models=False, auto_consolidate=False)
    runner = build_turn_runner(
        events=core.event_log,
        models=router,
        memory=MemoryBridge(memory),
        prompts=PROMPTS,
        use_judge=False,
    )
    return Engine(EngineParts(core, router, memory, runner))


def test_a_model_file_deleted_while_the_app_runs_is_named_with_its_fix(
    qtbot: QtBot, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    gguf = models / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + bytes(64))
    win = _window(qtbot, _engine_on_files(models))
    gguf.unlink()  # after the window opened, before the models load (the first message)
    assert win.bridge is not None
    with qtbot.waitSignal(win.bridge.turn_done, timeout=30_000):
        _say(qtbot, win, "Are you still there?")
    texts = [(r.role, r.text) for r in win.view.rows]
    assert texts[0] == ("user", "Are you still there?")  # the message stays
    note = texts[-1][1]
    assert texts[-1][0] == "system" and f"A model file is missing: {gguf}" in note
    assert "rilai models install" in note and "kept" in note
    assert win.input.isEnabled() and win.send_button.text() == "Send"
    log = win.bridge.engine.parts.core.event_log
    (started,) = log.events(kind=EventKind.TURN_STARTED)
    assert started.payload["user_input"] == "Are you still there?"  # logged, not lost

    gguf.write_bytes(b"GGUF" + bytes(64))  # put back (`rilai models install`)
    _say(qtbot, win, "And now?")
    qtbot.waitUntil(lambda: win.view.rows[-1].final, timeout=30_000)
    assert win.view.rows[-1].text == VOICE_REPLY
    assert not any("missing" in r.text for r in win.view.rows[len(texts) :])
    win.close()


HOLD = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
"""


def test_the_database_held_by_another_process_keeps_the_message(qtbot: QtBot) -> None:
    engine = open_fake_engine()
    win = _window(qtbot, engine)
    db = engine.parts.core.paths.db_path
    other = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"
        _say(qtbot, win, "Something I do not want to type twice.")
        qtbot.waitUntil(lambda: win.stage_label.text() == "error", timeout=30_000)
        note = win.view.rows[-1].text
        assert note.startswith("Rilai's database is busy: another program holds it")
        assert str(db) in note and "kept" in note
        assert win.input.toPlainText() == "Something I do not want to type twice."
        assert win.input.isEnabled() and win.send_button.text() == "Send"
    finally:
        assert other.stdin is not None
        other.stdin.write("\n")
        other.stdin.close()
        other.wait(10)
        assert other.stdout is not None
        other.stdout.close()
    qtbot.keyClick(win.input, Qt.Key.Key_Return)  # the kept text, sent again
    qtbot.waitUntil(lambda: win.view.rows[-1].final, timeout=30_000)
    assert win.view.rows[-1].text == VOICE_REPLY
    (started,) = engine.parts.core.event_log.events(kind=EventKind.TURN_STARTED)
    assert started.payload["user_input"] == "Something I do not want to type twice."
    win.close()
