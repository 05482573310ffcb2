"""The settings dialog's "model per tier" rows: for small / medium / large, the GGUF file in
use, its size and its sha256 state (verified / not verified / missing / custom file), a
"Choose file…" button per tier, "Install" and "Remove…" per tier (``model_actions.py``:
the first-run install for any tier, and removing a file the app installed), and "Verify
files".

It talks to ``engine.model_files`` (``app/model_files.py``): the rows come from the
installer's hash cache (no file is read); "Verify files" hashes on a background thread,
never on the GUI thread; a chosen file is checked at once (it must exist and start with
the GGUF magic bytes; a refused one is said) and written to the model overlay on Save.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QWidget,
)

from rilai_desktop.ui.model_actions import (
    Confirm,
    ModelActions,
    ModelActionsPort,
    ask_to_confirm,
    human_size,
)

__all__ = ["ModelFilesPort", "ModelTiers", "describe", "human_size"]


class ModelFilesPort(ModelActionsPort, Protocol):
    """What the rows need of ``engine.model_files`` (install and remove: ModelActionsPort)."""

    def rows(self) -> list[Any]: ...

    def verify(self, tier: str) -> Any: ...

    def check(self, path: Path) -> None: ...

    def use_file(self, tier: str, path: Path) -> Any: ...

    def use_endpoint(self, tier: str, url: str, model: str) -> Any: ...


def describe(row: Any) -> str:
    """``qwen….gguf · 1.0 GB · verified``; a tier on another machine: ``big · remote: URL``."""
    if str(row.state).startswith("remote"):
        return f"{row.model_id} · {row.state}"
    return f"{Path(row.path).name} · {human_size(row.size)} · {row.state}"


ChooseFile = Callable[[QWidget, str], str]
# (url, model) of an OpenAI-compatible server for a tier, or None when the person cancels
AskServer = Callable[[QWidget, str], "tuple[str, str] | None"]


def _ask_for_server(parent: QWidget, tier: str) -> tuple[str, str] | None:
    url, ok = QInputDialog.getText(
        parent,
        f"A server for the {tier} tier",
        "The server's OpenAI-compatible URL (its replies leave this computer):",
        text="http://192.168.1.20:8080/v1",
    )
    if not ok or not url.strip():
        return None
    model, ok = QInputDialog.getText(parent, f"A server for the {tier} tier", "Model name:")
    return (url.strip(), model.strip()) if ok else None


def _ask_for_file(parent: QWidget, tier: str) -> str:
    path, _ = QFileDialog.getOpenFileName(
        parent, f"A GGUF model for the {tier} tier", "", "GGUF models (*.gguf);;All files (*)"
    )
    return path


class ModelTiers(QWidget):
    """The rows; ``problem`` says a refused file or a failed check (the dialog shows it)."""

    problem = Signal(str)
    _verified = Signal(object)  # a TierModel, from the verifying thread

    def __init__(
        self,
        models: ModelFilesPort,
        parent: QWidget | None = None,
        *,
        choose_file: ChooseFile = _ask_for_file,
        ask_server: AskServer = _ask_for_server,
        confirm: Confirm = ask_to_confirm,
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Model per tier")
        self._models = models
        self._choose_file = choose_file
        self._ask_server = ask_server
        self.chosen: dict[str, Path] = {}  # written on Save
        self.servers: dict[str, tuple[str, str]] = {}  # tier -> (url, model), written on Save
        self.server_buttons: dict[str, QPushButton] = {}
        self.labels: dict[str, QLabel] = {}
        self.buttons: dict[str, QPushButton] = {}
        self.model_actions = ModelActions(models, self, confirm=confirm)  # Install, Remove…
        self.model_actions.problem.connect(self.problem)
        self.model_actions.changed.connect(self._show_rows)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        try:
            rows = models.rows()
        except Exception as exc:  # a broken manifest: said, the rest of the dialog works
            rows = []
            self._say_later = f"models: {getattr(exc, 'message', None) or exc}"
        else:
            self._say_later = ""
        for i, row in enumerate(rows):
            tier = str(row.tier)
            name = QLabel(tier)
            label = QLabel(describe(row))
            label.setAccessibleName(f"The {tier} tier's model file")
            label.setToolTip(str(row.path))
            label.setWordWrap(True)
            button = QPushButton("Choose file…")
            button.setAccessibleName(f"Choose a GGUF file for the {tier} tier")
            button.clicked.connect(lambda _=False, t=tier: self._ask(t))
            server = QPushButton("Use a server…")
            server.setAccessibleName(f"Use a server on another machine for the {tier} tier")
            server.clicked.connect(lambda _=False, t=tier: self._ask_for_server(t))
            grid.addWidget(name, i, 0)
            grid.addWidget(label, i, 1)
            grid.addWidget(button, i, 2)
            grid.addWidget(server, i, 3)
            for column, action in enumerate(self.model_actions.buttons_for(row), start=4):
                grid.addWidget(action, i, column)
            self.labels[tier], self.buttons[tier] = label, button
            self.server_buttons[tier] = server
        self.verify_button = QPushButton("Verify files")
        self.verify_button.setAccessibleName("Verify the model files' sha256")
        self.verify_button.clicked.connect(self.verify)
        grid.addWidget(self.verify_button, len(rows), 2)
        grid.addWidget(self.model_actions, len(rows) + 1, 0, 1, 6)
        self._verified.connect(self._show_verified)

    def pending_problem(self) -> str:
        """A problem met while building (said once the dialog can show it)."""
        return self._say_later

    def _ask(self, tier: str) -> None:
        path = self._choose_file(self, tier)
        if path:
            self.choose(tier, Path(path))

    def _ask_for_server(self, tier: str) -> None:
        answer = self._ask_server(self, tier)
        if answer is not None:
            self.choose_server(tier, *answer)

    def choose_server(self, tier: str, url: str, model: str) -> bool:
        """Take a server for ``tier`` if its URL is http(s); else say why."""
        from urllib.parse import urlparse

        parsed = urlparse(url.strip())
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            self.problem.emit(f"{tier} tier: {url!r} is not an http(s) URL")
            return False
        self.servers[tier] = (url.strip(), model)
        self.chosen.pop(tier, None)
        self.labels[tier].setText(f"remote: {url.strip()} (chosen: used from the next start)")
        return True

    def choose(self, tier: str, path: Path) -> bool:
        """Take ``path`` for ``tier`` if it is a GGUF file (4 bytes read); else say why."""
        try:
            self._models.check(path)
        except Exception as exc:
            self.problem.emit(f"{tier} tier: {getattr(exc, 'message', None) or exc}")
            return False
        self.chosen[tier] = path
        self.servers.pop(tier, None)
        size = path.stat().st_size
        self.labels[tier].setText(
            f"{path.name} · {human_size(size)} · custom file (chosen: used from the next start)"
        )
        self.labels[tier].setToolTip(str(path))
        return True

    def save(self) -> None:
        """Write the chosen files to the model overlay; raises what refused one."""
        for tier, path in list(self.chosen.items()):
            row = self._models.use_file(tier, path)
            del self.chosen[tier]
            self.labels[tier].setText(describe(row))
        for tier, (url, model) in list(self.servers.items()):
            row = self._models.use_endpoint(tier, url, model)
            del self.servers[tier]
            self.labels[tier].setText(describe(row))

    def verify(self) -> None:
        """Hash each tier's file on a background thread; the rows update as each is done."""
        self.verify_button.setEnabled(False)
        tiers = list(self.labels)
        for tier in tiers:
            self.labels[tier].setText(self.labels[tier].text().rsplit(" · ", 1)[0] + " · checking…")

        def run() -> None:
            for tier in tiers:
                try:
                    self._verified.emit(self._models.verify(tier))
                except Exception as exc:
                    self.problem.emit(f"{tier} tier: {getattr(exc, 'message', None) or exc}")
            self._verified.emit(None)

        threading.Thread(target=run, name="rilai-ui-verify", daemon=True).start()

    def _show_rows(self, rows: list[Any]) -> None:
        """The rows after an install or a removal (a chosen file or server stays said)."""
        for row in rows:
            if row.tier in self.labels and row.tier not in {*self.chosen, *self.servers}:
                self.labels[row.tier].setText(describe(row))
                self.labels[row.tier].setToolTip(str(row.path))

    def _show_verified(self, row: Any) -> None:
        if row is None:
            self.verify_button.setEnabled(True)
            return
        if row.tier in self.labels and row.tier not in self.chosen and row.tier not in self.servers:
            self.labels[row.tier].setText(describe(row))
            self.model_actions.show_row(row)  # a verified file needs no Install
