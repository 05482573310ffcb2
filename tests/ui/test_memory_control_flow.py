"""Issue 20's "done when", driven through the memory browser's own controls on the real
Engine (scripted LLM, hashed embeddings): a row is selected in the table view and a button
clicked; the edit, "Forget everything…" and delete-confirmation dialogs are answered as a
person would (typed into, then their button clicked) while their ``exec()`` runs.

Then what the engine does is checked where it matters: what the next turn recalls
(``memory.used``, the voice's prompt), what every retrieval mode returns, the memory tables,
and the bytes on disk."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDialog,
    QLineEdit,
    QPlainTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from rilai_desktop.app.engine import Engine
from rilai_desktop.contracts import EventKind
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.turn.result import TurnResult
from rilai_desktop.ui.app import DesktopApp
from rilai_desktop.ui.memory_browser.dialogs import CONFIRM_WORD
from rilai_desktop.ui.memory_browser.dock import MemoryDock
from rilai_desktop.ui.memory_browser.entry_tab import EntryTab
from tests.fake_engine import open_fake_engine

# the "llm" re-rank (and the hybrid's escalation) picks the first candidate
PICK_FIRST = {"picks": [{"n": 1, "relevance": "high"}]}
SISTER = "My sister Maya lives in Lisbon."
CORRECTED = "My sister Maya lives in Porto."
MODES = ("rag", "llm", "hybrid")
MEMORY_TABLES = (
    "memory_items",
    "memory_user_facts",
    "memory_episodes",
    "memory_goals",
    "contexts",
    "memory_resources",
)


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    monkeypatch.setenv("RILAI_MEMORY__EXTRACT", "rules")  # memory has a model: the re-rank's


@pytest.fixture
def desktop(qtbot: QtBot) -> Iterator[DesktopApp]:
    def engine() -> Engine:
        return open_fake_engine(retrieval=ScriptedLLM(default=PICK_FIRST))

    app = DesktopApp(engine, tray_available=lambda: False, with_daemon=False)
    qtbot.addWidget(app.window)
    with qtbot.waitSignal(app.loader.loaded, timeout=30_000):
        app.start()
    qtbot.waitUntil(
        lambda: app.memory is not None and app.memory.bridge is not None, timeout=10_000
    )
    app.window.show()
    yield app
    app.window.close()


# ── the person's side ────────────────────────────────────────────────────────
def _engine(app: DesktopApp) -> Engine:
    bridge = app.window.bridge
    assert bridge is not None
    return bridge.engine


def _say(qtbot: QtBot, app: DesktopApp, text: str) -> TurnResult:
    bridge = app.window.bridge
    assert bridge is not None
    with qtbot.waitSignal(bridge.turn_done, timeout=60_000) as done:
        assert bridge.send(text)
    result = done.args[0]
    assert isinstance(result, TurnResult)
    return result


def _open(qtbot: QtBot, app: DesktopApp) -> MemoryDock:
    dock = app.memory
    assert dock is not None
    if not dock.isVisible():
        dock.toggleViewAction().trigger()
    qtbot.waitUntil(dock.isVisible, timeout=5_000)
    return dock


def _tab(dock: MemoryDock, kind: str) -> EntryTab:
    tab = dock.panel.entry_tabs[kind]
    index = dock.panel.tabs.indexOf(tab)
    dock.panel.tabs.setCurrentIndex(index)
    return tab


def _shown(tab: EntryTab) -> list[str]:
    """The texts the table view shows, top to bottom."""
    return [tab.proxy.index(r, 0).data() for r in range(tab.proxy.rowCount())]


def _click_rows(qtbot: QtBot, tab: EntryTab, texts: Callable[[str], bool]) -> list[Any]:
    """Click each row whose text passes ``texts`` (Ctrl+click after the first), as a person
    selects in the table; returns the entries selected."""
    rows = [r for r, t in enumerate(_shown(tab)) if texts(t)]
    assert rows, _shown(tab)
    for n, row in enumerate(rows):
        _click_row(qtbot, tab, row, add=bool(n))
    chosen = tab.selected()
    assert len(chosen) == len(rows)
    return chosen


def _click_row(qtbot: QtBot, tab: EntryTab, row: int, *, add: bool = False) -> None:
    index = tab.proxy.index(row, 0)
    tab.table.scrollTo(index)
    modifier = Qt.KeyboardModifier.ControlModifier if add else Qt.KeyboardModifier.NoModifier
    qtbot.mouseClick(
        tab.table.viewport(),
        Qt.MouseButton.LeftButton,
        modifier,
        tab.table.visualRect(index).center(),
    )


def _click_entry(qtbot: QtBot, tab: EntryTab, entry_id: str) -> None:
    """Click the row of that entry (it alone is then selected)."""
    row = next(
        r
        for r in range(tab.proxy.rowCount())
        if tab.model.entry(tab.proxy.mapToSource(tab.proxy.index(r, 0)).row()).entry_id == entry_id
    )
    _click_row(qtbot, tab, row)
    assert tab.current().entry_id == entry_id


def _when_modal(fill: Callable[[QWidget], None]) -> None:
    """Answer the next modal dialog once its ``exec()`` shows it. A failed answer closes
    the dialog (so ``exec()`` returns and the test can report it) and raises there."""

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, poll)
            return
        try:
            fill(dialog)
        except BaseException:
            if isinstance(dialog, QDialog):
                dialog.reject()
            raise

    QTimer.singleShot(0, poll)


def _press(qtbot: QtBot, dialog: QWidget, label: str) -> None:
    (button,) = [
        b for b in dialog.findChildren(QAbstractButton) if b.text().replace("&", "") == label
    ]
    assert button.isEnabled(), label
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _act(qtbot: QtBot, dock: MemoryDock, button: QAbstractButton, name: str) -> None:
    """Click a control and wait for the engine's write ``name`` to be done."""
    bridge = dock.bridge
    assert bridge is not None
    with qtbot.waitSignal(
        bridge.memory_changed,
        timeout=20_000,
        check_params_cb=lambda n, *_r: n == name,
    ):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def _delete_selected(qtbot: QtBot, dock: MemoryDock, tab: EntryTab) -> None:
    name = "delete" if len(tab.selected()) == 1 else "delete_many"
    _when_modal(lambda box: _press(qtbot, box, "Yes"))
    _act(qtbot, dock, tab.delete_button, name)


# ── what the engine recalls, holds and leaves on disk ──────────────────────────
def _used(engine: Engine, result: TurnResult) -> list[str]:
    """The memory texts that reached this turn's voice prompt (its ``memory.used``)."""
    events = engine.turn_events(result.session_id, result.turn_id)
    used = [e.payload for e in events if e.kind is EventKind.MEMORY_USED]
    return [entry["text"] for payload in used for entry in payload["entries"]]


def _recalled(engine: Engine, result: TurnResult) -> str:
    events = engine.turn_events(result.session_id, result.turn_id)
    (recall,) = [e.payload for e in events if e.kind is EventKind.MEMORY_RETRIEVED]
    return repr(recall)


def _on_worker(engine: Engine, fn: Callable[[], Any]) -> Any:
    """Memory (SQLite, FAISS) is the engine worker's: read it there, as the facade does."""
    return engine._worker.call(fn)


def _retrieved(engine: Engine, query: str, mode: str) -> list[str]:
    memory = engine.parts.memory
    assert memory is not None
    result = _on_worker(engine, lambda: memory.retrieve(query, mode, 10))
    return [i.content for i in result.items]


def _relationship(engine: Engine, query: str) -> str:
    """What a turn's relationship recall (facts, episodes, threads) returns for ``query``."""
    memory = engine.parts.memory
    assert memory is not None
    return repr(_on_worker(engine, lambda: memory.relationship.recall_for_workspace(query)))


def _counts(engine: Engine) -> dict[str, int]:
    memory = engine.parts.memory
    assert memory is not None

    def count() -> dict[str, int]:
        sql = "SELECT COUNT(*) FROM {}"
        return {
            t: int(memory.connection.execute(sql.format(t)).fetchone()[0]) for t in MEMORY_TABLES
        }

    result: dict[str, int] = _on_worker(engine, count)
    return result


def _disk(engine: Engine) -> bytes:
    """The database file and its WAL as bytes, the category pages and the journal."""
    paths = engine.parts.core.paths
    files = [paths.db_path, paths.db_path.with_name(paths.db_path.name + "-wal")]
    files += sorted(paths.categories_dir.rglob("*")) + sorted(
        (paths.data_dir / "agents").rglob("*")
    )
    return b"".join(f.read_bytes() for f in files if f.is_file())


# ── the flows ────────────────────────────────────────────────────────────────
def test_a_fact_learned_in_a_turn_shows_and_an_edit_is_what_the_next_turn_recalls(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    engine = _engine(desktop)
    dock = _open(qtbot, desktop)
    _say(qtbot, desktop, SISTER)
    about = _tab(dock, "fact")
    qtbot.waitUntil(lambda: SISTER in _shown(about), timeout=10_000)
    (fact,) = _click_rows(qtbot, about, lambda t: t == SISTER)
    assert fact.source == f"conversation “{SISTER}”, turn 1"
    row = _shown(about).index(SISTER)
    assert about.proxy.index(row, 2).data() == fact.source  # "Where it came from"

    _correct(qtbot, dock, about, SISTER)
    assert SISTER not in _shown(about)
    assert engine.memory.entry("fact", fact.entry_id).text == CORRECTED  # type: ignore[union-attr]
    # the same sentence was also kept as items (a "biography" item, the turn's record of
    # what they said): one correction reaches every entry that held the same words
    items = _tab(dock, "item")
    qtbot.waitUntil(lambda: SISTER not in _shown(items), timeout=10_000)
    assert "biography" in _categories(items, CORRECTED)

    asked = _say(qtbot, desktop, "Where does my sister Maya live?")
    used = _used(engine, asked)
    assert any("Porto" in t for t in used), used
    assert not any("Lisbon" in t for t in used), used
    notes = asked.voice_prompt.split("Where does my sister")[0]  # the notes, not the message
    assert "Porto" in notes
    # the fact the person corrected is recalled corrected; "Lisbon" survives only in the
    # items that hold what they said (their own words, in the Items tab)
    assert "Lisbon" not in _relationship(engine, "where does my sister Maya live")
    for mode in MODES:
        got = _retrieved(engine, "where does my sister Maya live", mode)
        assert CORRECTED in got, (mode, got)


def _categories(tab: EntryTab, text: str) -> list[str | None]:
    return [e.category for e in tab.model.entries if e.text == text]


def _correct(
    qtbot: QtBot, dock: MemoryDock, tab: EntryTab, old: str, category: str | None = None
) -> None:
    """Select the row holding ``old`` (of ``category``), click Edit…, type the correction
    into the dialog and click Save."""
    (entry,) = [
        e
        for e in tab.model.entries
        if e.text == old and (category is None or e.category == category)
    ]
    _click_entry(qtbot, tab, entry.entry_id)

    def correct(dialog: QWidget) -> None:
        assert isinstance(dialog, QDialog)
        (editor,) = dialog.findChildren(QPlainTextEdit)
        assert editor.toPlainText() == old
        editor.selectAll()
        qtbot.keyClicks(editor, CORRECTED)
        _press(qtbot, dialog, "Save")

    _when_modal(correct)
    _act(qtbot, dock, tab.edit_button, "edit")
    qtbot.waitUntil(
        lambda: any(
            e.entry_id == entry.entry_id and e.text == CORRECTED for e in tab.model.entries
        ),
        timeout=10_000,
    )


def test_a_deleted_or_paused_fact_is_not_recalled_by_any_mode(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    engine = _engine(desktop)
    for text in (SISTER, "My brother Tomas plays the oboe.", "My cat Pimenta sleeps all day."):
        _say(qtbot, desktop, text)
    dock = _open(qtbot, desktop)
    about, items = _tab(dock, "fact"), dock.panel.entry_tabs["item"]
    qtbot.waitUntil(lambda: len(_shown(about)) == 3, timeout=10_000)
    for query in ("my sister Maya", "brother Tomas oboe"):
        for mode in MODES:
            assert _retrieved(engine, query, mode), (query, mode)
    # delete: Maya, in "About you" and in Items (both the fact drawn and what they said)
    _click_rows(qtbot, about, lambda t: "Maya" in t)
    _delete_selected(qtbot, dock, about)
    _tab(dock, "item")
    qtbot.waitUntil(lambda: SISTER not in _shown(about), timeout=10_000)
    _click_rows(qtbot, items, lambda t: "Maya" in t)
    _delete_selected(qtbot, dock, items)
    qtbot.waitUntil(lambda: not any("Maya" in t for t in _shown(items)), timeout=10_000)
    # pause: Tomas, one row at a time (Pause acts on the row selected)
    for tab in (about, items):
        _tab(dock, tab.model.entries[0].kind)
        for entry in [e for e in tab.model.entries if "Tomas" in e.text]:
            _click_entry(qtbot, tab, entry.entry_id)
            assert tab.pause_button.text() == "Pause"
            _act(qtbot, dock, tab.pause_button, "set_paused")
            qtbot.waitUntil(
                lambda tab=tab, entry=entry: _is_paused(tab, entry.entry_id), timeout=10_000
            )
    paused = [e for e in (*about.model.entries, *items.model.entries) if "Tomas" in e.text]
    assert paused and all(e.paused for e in paused)  # kept, shown, marked
    for query in ("my sister Maya", "Maya Lisbon", "brother Tomas oboe", "oboe"):
        for mode in MODES:
            got = _retrieved(engine, query, mode)
            assert not any("Maya" in t or "Tomas" in t for t in got), (query, mode, got)
        recalled = _relationship(engine, query)
        assert "Maya" not in recalled and "Tomas" not in recalled, query
    assert any("Pimenta" in t for t in _retrieved(engine, "my cat Pimenta", "hybrid"))
    asked = _say(qtbot, desktop, "Tell me about my sister Maya and my brother Tomas and the oboe.")
    for text in _used(engine, asked):
        assert "Maya" not in text and "Tomas" not in text, text
    recall = _recalled(engine, asked)
    assert "Lisbon" not in recall and "oboe" not in recall.replace("the oboe.", "")


def _is_paused(tab: EntryTab, entry_id: str) -> bool:
    return any(e.entry_id == entry_id and e.paused for e in tab.model.entries)


def test_the_memory_paused_switch_commits_and_recalls_nothing(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    engine = _engine(desktop)
    _say(qtbot, desktop, SISTER)
    dock = _open(qtbot, desktop)
    qtbot.waitUntil(lambda: SISTER in _shown(dock.panel.entry_tabs["fact"]), timeout=10_000)
    switch = dock.panel.paused_switch
    assert not switch.isChecked()
    before = _counts(engine)
    assert before["memory_items"] > 0 and before["memory_user_facts"] > 0
    _act(qtbot, dock, switch, "set_recording_paused")
    assert engine.memory.recording_paused
    # the switch shows the engine's state (a read already under way may show the old one
    # for a moment: the read the write starts settles it)
    qtbot.waitUntil(switch.isChecked, timeout=10_000)
    status = desktop.window.status.memory_label
    qtbot.waitUntil(lambda: status.text().startswith("memory paused"), timeout=10_000)
    asked = _say(qtbot, desktop, "Where does my sister Maya live? I also love hiking in Sintra.")
    assert _counts(engine) == before  # no items, facts, episodes, goals, turn records
    assert _used(engine, asked) == []
    assert "Lisbon" not in _recalled(engine, asked)  # (the conversation itself still says it)
    assert status.text().startswith("memory paused")
    # off again: recalled again
    _act(qtbot, dock, switch, "set_recording_paused")
    qtbot.waitUntil(lambda: "paused" not in status.text(), timeout=10_000)
    asked = _say(qtbot, desktop, "Where does my sister Maya live?")
    assert any("Lisbon" in t for t in _used(engine, asked))


def test_forget_everything_through_the_dialog_leaves_no_text_on_disk(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    engine = _engine(desktop)
    secrets = ("Zorblaxia", "kumquatberry", "Quillfeather")
    for text in (
        "I live in Zorblaxia with my partner.",
        "I love kumquatberry jam on toast.",
        "My sister is called Quillfeather.",
    ):
        _say(qtbot, desktop, text)
    memory = engine.parts.memory
    assert memory is not None
    _on_worker(engine, lambda: memory.remember("Quillfeather's birthday is in June", "people"))
    _on_worker(engine, lambda: memory.consolidate_category("people", force=True, use_model=False))
    disk = _disk(engine)
    assert all(s.encode() in disk for s in secrets)
    assert b"Quillfeather" in b"".join(
        p.read_bytes() for p in engine.parts.core.paths.categories_dir.rglob("*.md")
    )
    dock = _open(qtbot, desktop)
    qtbot.waitUntil(lambda: len(_shown(dock.panel.entry_tabs["fact"])) >= 3, timeout=10_000)

    def type_forget(dialog: QWidget) -> None:
        (word,) = dialog.findChildren(QLineEdit)
        (ok,) = [b for b in dialog.findChildren(QAbstractButton) if b.text() == "Forget everything"]
        qtbot.keyClicks(word, "forget")
        assert not ok.isEnabled()  # the word, exactly
        word.clear()
        qtbot.keyClicks(word, CONFIRM_WORD)
        _press(qtbot, dialog, "Forget everything")

    _when_modal(type_forget)
    _act(qtbot, dock, dock.panel.forget_button, "forget_everything")
    qtbot.waitUntil(
        lambda: all(not t.model.entries for t in dock.panel.entry_tabs.values()), timeout=10_000
    )
    disk = _disk(engine)
    for secret in secrets:
        assert secret.encode() not in disk, secret
        assert secret.encode("utf-16-le") not in disk, secret


def _tab_walk(top: QWidget) -> list[QWidget]:
    """The widgets Tab reaches in ``top``, in Qt's own focus chain (the order Tab follows;
    a dialog of its own need not hold the focus under the offscreen platform)."""
    seen: list[QWidget] = []
    w = top.nextInFocusChain()
    while w is not top and w not in seen and len(seen) < 100:
        if (
            w.focusPolicy() & Qt.FocusPolicy.TabFocus
            and w.isVisible()
            and w.isEnabled()
            and top.isAncestorOf(w)
        ):
            seen.append(w)
        w = w.nextInFocusChain()
    return seen


def test_the_dialogs_the_controls_open_name_every_control(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    """The dock's own Tab walk is in test_memory_browser.py; this walks the dialogs its
    buttons open: the edit dialog, the delete question and "Forget everything…"."""
    _say(qtbot, desktop, SISTER)
    dock = _open(qtbot, desktop)
    about = _tab(dock, "fact")
    qtbot.waitUntil(lambda: SISTER in _shown(about), timeout=10_000)
    _click_rows(qtbot, about, lambda t: t == SISTER)
    walked: dict[str, list[str]] = {}

    def walk_then(label: str) -> Callable[[QWidget], None]:
        def fill(dialog: QWidget) -> None:
            qtbot.waitUntil(dialog.isVisible, timeout=5_000)
            seen = _tab_walk(dialog)
            assert len(seen) >= 2, type(dialog).__name__
            assert dialog.accessibleName(), type(dialog).__name__
            walked[type(dialog).__name__] = [
                f"{type(w).__name__} {w.text() if hasattr(w, 'text') else ''}".strip()
                for w in seen
                if not w.accessibleName()
            ]
            _press(qtbot, dialog, label)

        return fill

    for button, label in (
        (about.edit_button, "Cancel"),
        (about.delete_button, "No"),
        (dock.panel.forget_button, "Cancel"),
    ):
        _when_modal(walk_then(label))
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None, timeout=5_000)
    assert set(walked) == {"EditDialog", "QMessageBox", "ForgetDialog"}
    assert walked == {"EditDialog": [], "QMessageBox": [], "ForgetDialog": []}
    assert SISTER in _shown(about)  # nothing was changed
