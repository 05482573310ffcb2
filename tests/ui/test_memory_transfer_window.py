"""Memory ▸ Export memory… / Import memory… on the real Engine (scripted LLM, hashed
embedder), through the window's own dialogs (``QFileDialog.getExistingDirectory`` answered
by monkeypatch): an export taken in one data folder and imported into a fresh one gives
back the same entries, with a summary the person can read and the memory browser showing
them; a damaged or foreign export, or a non-empty memory, is a clear message and imports
nothing (docs/memory-export.md, docs/ui.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from rilai_desktop.ui.app import DesktopApp
from rilai_desktop.ui.memory_browser.dock import MemoryDock
from rilai_desktop.ui.memory_browser.transfer import MemoryTransfer, export_target
from tests.fake_engine import open_fake_engine

FACTS = ("My sister is called Ines.", "I love hiking in the mountains.")
Entries = set[tuple[str, str, str, bool]]


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def _open_app(qtbot: QtBot) -> DesktopApp:
    app = DesktopApp(open_fake_engine, tray_available=lambda: False, with_daemon=False)
    qtbot.addWidget(app.window)
    with qtbot.waitSignal(app.loader.loaded, timeout=30_000):
        app.start()
    qtbot.waitUntil(
        lambda: app.memory is not None and app.memory.bridge is not None, timeout=10_000
    )
    app.window.show()
    return app


@pytest.fixture
def desktop(qtbot: QtBot) -> Iterator[DesktopApp]:
    app = _open_app(qtbot)
    yield app
    app.window.close()


def _dock(app: DesktopApp) -> MemoryDock:
    assert app.memory is not None
    return app.memory


def _transfer(app: DesktopApp) -> MemoryTransfer:
    return _dock(app).transfer


def _learn(qtbot: QtBot, app: DesktopApp) -> None:
    bridge = app.window.bridge
    assert bridge is not None
    for text in FACTS:
        with qtbot.waitSignal(bridge.turn_done, timeout=60_000):
            assert bridge.send(text)
    memory = bridge.engine.memory
    fact = next(e for e in memory.entries("fact") if "Ines" in e.text)
    memory.set_pinned("fact", fact.entry_id, True)


def _entries(app: DesktopApp) -> Entries:
    """Every entry as the memory browser's facade reads it: kind, id, text, pinned."""
    bridge = app.window.bridge
    assert bridge is not None
    return {(e.kind, e.entry_id, e.text, e.pinned) for e in bridge.engine.memory.entries(limit=500)}


def _choose(monkeypatch: pytest.MonkeyPatch, folder: Path | str) -> list[str]:
    """The folder dialog answers ``folder``; returns the titles it was opened with."""
    asked: list[str] = []

    def answer(_parent: object, title: str, *_args: object, **_kw: object) -> str:
        asked.append(title)
        return str(folder)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(answer))
    return asked


def _message(qtbot: QtBot, transfer: MemoryTransfer, title: str) -> str:
    qtbot.waitUntil(
        lambda: transfer.message is not None and transfer.message.windowTitle() == title,
        timeout=60_000,
    )
    assert transfer.message is not None
    qtbot.waitUntil(transfer.message.isVisible, timeout=5_000)
    assert transfer.message.accessibleName() == title
    text = transfer.message.text()
    transfer.message.close()
    transfer.message = None  # the next wait is for the next box
    return text


def _export(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, app: DesktopApp, folder: Path) -> str:
    transfer = _transfer(app)
    asked = _choose(monkeypatch, folder)
    transfer.export_action.trigger()
    assert asked == ["Export memory to a folder"]
    return _message(qtbot, transfer, "Memory exported")


def _import(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, app: DesktopApp, folder: Path) -> None:
    asked = _choose(monkeypatch, folder)
    _transfer(app).import_action.trigger()
    assert asked == ["Import memory from an export folder"]


def test_export_then_import_through_the_window_round_trips(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    first = _open_app(qtbot)
    _learn(qtbot, first)
    before = _entries(first)
    kinds = {e[0] for e in before}
    assert {"fact", "item"} <= kinds and any(e[3] for e in before), before
    folder = tmp_path / "my-export"
    said = _export(qtbot, monkeypatch, first, folder)
    assert said.startswith("Exported ") and str(folder) in said
    assert "memory.md says it in prose" in said
    exported = json.loads((folder / "rilai-memory.json").read_text(encoding="utf-8"))
    assert len(exported["user_facts"]) == sum(1 for e in before if e[0] == "fact")
    assert _dock(first).panel.note.text().startswith("Exported ")
    first.window.close()

    monkeypatch.setenv("RILAI_HOME", str(tmp_path / "fresh-home"))
    fresh = _open_app(qtbot)
    try:
        assert _entries(fresh) == set()
        dock = _dock(fresh)
        dock.toggleViewAction().trigger()  # the browser is open: it shows what came in
        qtbot.waitUntil(dock.isVisible, timeout=5_000)
        _import(qtbot, monkeypatch, fresh, folder)
        said = _message(qtbot, _transfer(fresh), "Memory imported")
        facts = len(exported["user_facts"])
        assert said.startswith("Imported ") and f"{facts} user facts" in said
        assert f"{len(exported['items'])} items" in said and "skipped" not in said
        assert _entries(fresh) == before  # the same entries, ids, texts and pins
        qtbot.waitUntil(
            lambda: (
                {e.text for e in dock.panel.entry_tabs["fact"].model.entries}
                == {e[2] for e in before if e[0] == "fact"}
            ),
            timeout=10_000,
        )
        bridge = fresh.window.bridge
        assert bridge is not None
        assert len(bridge.engine.parts.core.event_log.events(kind="memory.imported")) == 1

        # again, into the memory it now holds: refused, the person is asked, merge skips all
        questions: list[str] = []
        transfer = _transfer(fresh)
        transfer.ask_merge = lambda held: questions.append(held) is None  # says "Merge"
        _import(qtbot, monkeypatch, fresh, folder)
        said = _message(qtbot, transfer, "Memory imported")
        assert questions and "user facts" in questions[0]
        assert said.startswith("Imported nothing") and "already there, skipped:" in said
        assert _entries(fresh) == before
    finally:
        fresh.window.close()


def test_declining_the_merge_imports_nothing(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, desktop: DesktopApp
) -> None:
    _learn(qtbot, desktop)
    folder = tmp_path / "export"
    _export(qtbot, monkeypatch, desktop, folder)
    before = _entries(desktop)
    transfer = _transfer(desktop)
    transfer.ask_merge = lambda _held: False  # "Cancel"
    _import(qtbot, monkeypatch, desktop, folder)
    note = _dock(desktop).panel.note
    qtbot.waitUntil(lambda: note.text().startswith("Nothing was imported"), timeout=60_000)
    assert transfer.export_action.isEnabled() and transfer.import_action.isEnabled()
    assert _entries(desktop) == before


def _truncate(folder: Path) -> None:
    path = folder / "rilai-memory.json"
    path.write_text(path.read_text(encoding="utf-8")[:-40], encoding="utf-8")


def _newer(folder: Path) -> None:
    path = folder / "rilai-memory.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"version": 1', '"version": 2'))


def _foreign(folder: Path) -> None:
    (folder / "rilai-memory.json").write_text('{"format": "something-else", "version": 1}')


def _no_export(folder: Path) -> None:
    (folder / "rilai-memory.json").unlink()


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (_truncate, "is not valid JSON (line"),
        (_newer, "written by a newer Rilai"),
        (_foreign, "is not a Rilai memory export"),
        (_no_export, "has no rilai-memory.json"),
    ],
)
def test_a_bad_export_shows_why_and_imports_nothing(
    qtbot: QtBot,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    damage: object,
    says: str,
) -> None:
    first = _open_app(qtbot)
    _learn(qtbot, first)
    folder = tmp_path / "export"
    _export(qtbot, monkeypatch, first, folder)
    first.window.close()
    assert callable(damage)
    damage(folder)

    monkeypatch.setenv("RILAI_HOME", str(tmp_path / "fresh-home"))
    fresh = _open_app(qtbot)
    try:
        _import(qtbot, monkeypatch, fresh, folder)
        said = _message(qtbot, _transfer(fresh), "Memory not imported")
        assert says in said and "nothing was imported" in said
        assert "What to do:" in said and "[RIL-" not in said
        assert _dock(fresh).panel.note.text() == said.split("\n")[0]
        assert _entries(fresh) == set()
        bridge = fresh.window.bridge
        assert bridge is not None
        assert bridge.engine.parts.core.event_log.events(kind="memory.imported") == []
        transfer = _transfer(fresh)
        assert transfer.import_action.isEnabled()  # the person can try another folder
    finally:
        fresh.window.close()


def test_an_export_never_overwrites_what_a_folder_holds(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, desktop: DesktopApp
) -> None:
    _learn(qtbot, desktop)
    documents = tmp_path / "Documents"
    (documents / "categories").mkdir(parents=True)
    mine = documents / "categories" / "recipes.md"
    mine.write_text("my own notes")
    said = _export(qtbot, monkeypatch, desktop, documents)
    (written,) = [p for p in documents.iterdir() if p.name.startswith("rilai-memory-")]
    assert (written / "rilai-memory.json").is_file() and str(written) in said
    assert mine.read_text() == "my own notes"
    assert not (documents / "rilai-memory.json").exists()
    # an earlier export in the chosen folder is replaced only when the person says so
    asked: list[Path] = []
    transfer = _transfer(desktop)
    transfer.confirm_replace = lambda folder: asked.append(folder) is not None  # "Keep it"
    stamp = (written / "rilai-memory.json").stat().st_mtime_ns
    _choose(monkeypatch, written)
    transfer.export_action.trigger()
    assert asked == [written] and transfer.export_action.isEnabled()
    assert (written / "rilai-memory.json").stat().st_mtime_ns == stamp


def test_export_target_picks_a_new_folder_beside_other_things(tmp_path: Path) -> None:
    from datetime import date

    day = date(2026, 11, 28)
    assert export_target(tmp_path / "new", day) == (tmp_path / "new", False)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x.txt").write_text("x")
    (tmp_path / "taken" / "rilai-memory-2026-11-28").mkdir()
    assert export_target(tmp_path / "taken", day) == (
        tmp_path / "taken" / "rilai-memory-2026-11-28-2",
        False,
    )
    (tmp_path / "earlier").mkdir()
    (tmp_path / "earlier" / "rilai-memory.json").write_text("{}")
    assert export_target(tmp_path / "earlier", day) == (tmp_path / "earlier", True)


def test_the_memory_menu_is_keyboard_reachable_and_named(desktop: DesktopApp) -> None:
    window = desktop.window
    menus = {a.text(): a.menu() for a in window.menuBar().actions() if a.menu() is not None}
    assert list(menus) == ["&Conversation", "&View", "&Memory", "&Help"]
    transfer = _transfer(desktop)
    memory_menu = menus["&Memory"]
    assert memory_menu is not None
    assert [a.text() for a in memory_menu.actions()] == [
        "Memory",
        "&Export memory…",
        "&Import memory…",
    ]
    assert transfer.export_action.shortcut().toString() == "Ctrl+Shift+E"
    assert transfer.import_action.shortcut().toString() == "Ctrl+Shift+I"
    assert {transfer.export_action, transfer.import_action} <= set(window.actions())
    buttons = _dock(desktop).transfer_buttons
    assert [b.accessibleName() for b in buttons] == ["Export memory", "Import memory"]
    assert all(b.focusPolicy() & Qt.FocusPolicy.TabFocus for b in buttons)


def test_the_message_box_is_readable_and_copyable(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, desktop: DesktopApp
) -> None:
    _learn(qtbot, desktop)
    transfer = _transfer(desktop)
    _choose(monkeypatch, tmp_path / "export")
    transfer.export_action.trigger()
    qtbot.waitUntil(lambda: transfer.message is not None, timeout=60_000)
    box = transfer.message
    assert box is not None
    assert box.icon() == QMessageBox.Icon.Information
    assert box.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    assert box.windowModality() == Qt.WindowModality.WindowModal  # open(): it never blocks
