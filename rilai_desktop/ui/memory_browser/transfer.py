"""Memory ▸ Export memory… (Ctrl+Shift+E) and Import memory… (Ctrl+Shift+I): the CLI's
``rilai memory export`` / ``import`` from the window, in the same format
(docs/memory-export.md).

A folder is chosen with ``QFileDialog.getExistingDirectory``; the work is the facade's
``engine.memory.export(folder)`` / ``import_(folder, merge=...)``, run by
``EngineBridge.memory_action`` off the GUI thread on the engine's worker, so import is the
importer's own: validated first, then one transaction. What came in (or why nothing did)
is shown in a message box the person can read and copy; the memory browser reads again.

Nothing is lost on the way: an export into a folder that holds other things goes into a
new ``rilai-memory-<date>`` folder inside it (the writer would otherwise tidy
``categories/*.md``), replacing an earlier export is asked first, and an import the
importer refuses because memory is not empty offers a merge (what is already there is
skipped) instead.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from rilai_desktop.errors import MemoryNotEmptyError, RilaiError

if TYPE_CHECKING:
    from rilai_desktop.ui.bridge import EngineBridge

EXPORT_SHORTCUT = "Ctrl+Shift+E"
IMPORT_SHORTCUT = "Ctrl+Shift+I"
EXPORT_FILE = "rilai-memory.json"  # what marks a folder as an export (transfer/schema.py)
NAMES = ("export", "import_")


def export_target(chosen: Path, today: date) -> tuple[Path, bool]:
    """Where an export into ``chosen`` is written, and whether it replaces an earlier
    export there: the folder itself when it is new, empty or an earlier export; else a new
    ``rilai-memory-<date>`` folder inside it (``-2``, ``-3``… when taken)."""
    if not chosen.exists() or (chosen.is_dir() and not any(chosen.iterdir())):
        return chosen, False
    if (chosen / EXPORT_FILE).is_file():
        return chosen, True
    base = chosen / f"rilai-memory-{today.isoformat()}"
    target, n = base, 2
    while target.exists():
        target, n = base.with_name(f"{base.name}-{n}"), n + 1
    return target, False


def _held(error: MemoryNotEmptyError) -> str:
    held = {k: v for k, v in error.context.items() if k != "path" and isinstance(v, int) and v}
    return ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in held.items()) or "entries"


def error_text(error: BaseException) -> str:
    """The error's message and what to do, without the code prefix."""
    if not isinstance(error, RilaiError):
        return f"{type(error).__name__}: {error}"
    text = error.message[:1].upper() + error.message[1:]
    hints = [h for h in error.recovery_suggestions if "--merge" not in h]
    if hints:
        text += "\n\nWhat to do: " + "; ".join(hints) + "."
    return text


def _ask(parent: QWidget, title: str, text: str, yes: str, no: str) -> bool:
    box = QMessageBox(QMessageBox.Icon.Question, title, text, parent=parent)
    box.setAccessibleName(title)
    ok = box.addButton(yes, QMessageBox.ButtonRole.AcceptRole)
    cancel = box.addButton(no, QMessageBox.ButtonRole.RejectRole)
    ok.setAccessibleName(yes)
    cancel.setAccessibleName(no)
    box.setDefaultButton(cancel)
    box.exec()
    return box.clickedButton() is ok


class MemoryTransfer(QObject):
    """The two actions, wired to the bridge by ``attach``. ``confirm_replace(folder)`` and
    ``ask_merge(what_memory_holds)`` are attributes so a test can answer them; ``message``
    is the last summary or error shown (a window-modal box that does not block)."""

    def __init__(self, parent: QWidget, note: Callable[[str], None]) -> None:
        super().__init__(parent)
        self._parent, self._note = parent, note
        self.bridge: EngineBridge | None = None
        self.export_action = QAction("&Export memory…", parent)
        self.export_action.setShortcut(QKeySequence(EXPORT_SHORTCUT))
        self.export_action.setToolTip(
            f"Save everything Rilai remembers to a folder ({EXPORT_SHORTCUT})"
        )
        self.export_action.triggered.connect(self.export)
        self.import_action = QAction("&Import memory…", parent)
        self.import_action.setShortcut(QKeySequence(IMPORT_SHORTCUT))
        self.import_action.setToolTip(f"Bring in a memory export folder ({IMPORT_SHORTCUT})")
        self.import_action.triggered.connect(self.import_)
        self.confirm_replace: Callable[[Path], bool] = lambda folder: _ask(
            parent,
            "Replace the earlier export?",
            f"{folder} holds an earlier memory export. Replace it with memory as it is now?",
            "Replace it",
            "Keep it",
        )
        self.ask_merge: Callable[[str], bool] = lambda held: _ask(
            parent,
            "Memory is not empty",
            f"Rilai's memory already holds {held}, so nothing was imported.\n\n"
            "Merge adds from the export only what is not already here (the same entries"
            " are skipped). To import into an empty memory instead, start Rilai with a"
            " fresh data folder (a new RILAI_HOME).",
            "Merge",
            "Cancel",
        )
        self.message: QMessageBox | None = None
        self._folder: Path | None = None  # the import running, for a merge after a refusal
        self._merge = False
        self._set_busy(True)  # until the Engine is there

    @property
    def actions(self) -> tuple[QAction, QAction]:
        return self.export_action, self.import_action

    def attach(self, bridge: EngineBridge) -> None:
        if self.bridge is not None:
            return
        self.bridge = bridge
        bridge.memory_changed.connect(self._done)
        bridge.memory_error.connect(self._failed)
        self._set_busy(False)

    def _set_busy(self, busy: bool) -> None:
        for action in self.actions:
            action.setEnabled(not busy)

    # ── asking ────────────────────────────────────────────────────────────
    def export(self) -> None:
        if self.bridge is None:
            return
        chosen = QFileDialog.getExistingDirectory(
            self._parent, "Export memory to a folder", str(Path.home())
        )
        if not chosen:
            return
        target, replaces = export_target(Path(chosen), date.today())
        if replaces and not self.confirm_replace(target):
            return
        self._run("Exporting memory…", "export", target)

    def import_(self) -> None:
        if self.bridge is None:
            return
        chosen = QFileDialog.getExistingDirectory(
            self._parent, "Import memory from an export folder", str(Path.home())
        )
        if chosen:
            self._import(Path(chosen), merge=False)

    def _import(self, folder: Path, *, merge: bool) -> None:
        self._folder, self._merge = folder, merge
        self._run(
            "Importing memory… (every entry is embedded again; this can take a while)",
            "import_",
            folder,
            merge=merge,
        )

    def _run(self, note: str, name: str, *args: Any, **kwargs: Any) -> None:
        assert self.bridge is not None
        self._set_busy(True)
        self._note(note)
        self.bridge.memory_action(name, *args, **kwargs)

    # ── answers (queued onto the GUI thread) ──────────────────────────────
    def _done(self, name: str, report: Any) -> None:
        if name not in NAMES:
            return
        self._set_busy(False)
        lines: list[str] = report.lines()
        self._note(lines[0])
        title = "Memory exported" if name == "export" else "Memory imported"
        self._show(QMessageBox.Icon.Information, title, "\n".join(lines))

    def _failed(self, name: str, error: object) -> None:
        if name not in NAMES:
            return
        self._set_busy(False)
        folder = self._folder
        if isinstance(error, MemoryNotEmptyError) and not self._merge and folder is not None:
            if self.ask_merge(_held(error)):
                self._import(folder, merge=True)
                return
            self._note("Nothing was imported: memory is as it was.")
            return
        assert isinstance(error, BaseException)
        text = error_text(error)
        self._note(text.split("\n")[0])
        title = "Memory not exported" if name == "export" else "Memory not imported"
        self._show(QMessageBox.Icon.Warning, title, text)

    def _show(self, icon: QMessageBox.Icon, title: str, text: str) -> None:
        if self.message is not None:
            self.message.close()
        box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, self._parent)
        box.setAccessibleName(title)
        box.setAccessibleDescription(text)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
        self.message = box
        box.open()
