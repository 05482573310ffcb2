"""Settings (issue 19 item 5): check-ins, their budget and quiet hours, the theme, the model
threads, close-to-tray and quiet mode; the model file per tier (``model_tiers.py``: the
model overlay, as `rilai models use/add` write it; Install and Remove… act at once, not on
Save: ``model_actions.py``); start on login (a freedesktop autostart
entry, ``app/autostart.py``); the data folder shown read-only with "Open folder".

Everything is read from and written to the one settings file through the Engine's settings
facade (``engine.settings``: validated, written atomically; a bad value changes nothing
and is said in the dialog). The dialog's own writes are small file writes on the GUI
thread; it never touches SQLite, and the model rows' Install, Remove… and Verify files run
on threads of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QTime, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from rilai_desktop.app import autostart
from rilai_desktop.ui.model_tiers import ModelFilesPort, ModelTiers


class SettingsPort(Protocol):
    """What the dialog needs of ``engine.settings``."""

    def saved(self) -> Any: ...

    def set(self, key: str, value: str) -> Any: ...


def _hhmm(text: str) -> QTime:
    hours, minutes = (int(x) for x in text.split(":"))
    return QTime(hours, minutes)


class SettingsDialog(QDialog):
    def __init__(
        self,
        settings: SettingsPort,
        data_dir: Path,
        parent: QWidget | None = None,
        *,
        open_folder: Callable[[Path], object] | None = None,
        models: ModelFilesPort | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settings-dialog")
        self.setWindowTitle("Rilai settings")
        self.setAccessibleName("Rilai settings")
        self._settings = settings
        self._open_folder = open_folder or (
            lambda path: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
        )
        current = settings.saved().settings
        self.error = QLabel("")
        self.error.setObjectName("settings-error")
        self.error.setAccessibleName("Settings problem")
        self.error.setWordWrap(True)
        self.nudges_on = QCheckBox("Let Rilai check in on its own")
        self.nudges_on.setAccessibleName("Check-ins on or off")
        self.nudges_on.setChecked(current.nudges.enabled)
        self.per_hour = self._spin(current.nudges.per_hour, 0, 60, "Check-in budget per hour")
        self.per_day = self._spin(current.nudges.per_day, 0, 500, "Check-in budget per day")
        self.quiet_start = self._time(current.nudges.quiet_start, "Quiet hours begin")
        self.quiet_end = self._time(current.nudges.quiet_end, "Quiet hours end")
        self.theme = QComboBox()
        self.theme.setAccessibleName("Theme")
        self.theme.addItems(["system", "light", "dark"])
        self.theme.setCurrentText(current.ui.theme)
        self.threads = self._spin(current.llm.threads, 1, 64, "Model threads")
        self.close_to_tray = QCheckBox("Closing the window leaves Rilai in the tray")
        self.close_to_tray.setAccessibleName("Close to tray")
        self.close_to_tray.setChecked(current.ui.close_to_tray)
        self.quiet_mode = QCheckBox("Quiet mode: no notifications or sound")
        self.quiet_mode.setAccessibleName("Quiet mode")
        self.quiet_mode.setChecked(current.ui.quiet_mode)
        self.api_on = QCheckBox("Let programs on this computer talk to Rilai (local API)")
        self.api_on.setAccessibleName("Local API on or off")
        self.api_on.setChecked(current.api.enabled)
        self.api_port = self._spin(current.api.port, 1024, 65535, "Local API port")
        self.start_on_login = QCheckBox("Start Rilai when I log in")
        self.start_on_login.setAccessibleName("Start on login")
        self._started_on_login = autostart.is_enabled()
        self.start_on_login.setChecked(self._started_on_login)
        self.tiers: ModelTiers | None = None
        self.data_dir = data_dir
        folder = QLabel(str(data_dir))
        folder.setAccessibleName("Data folder")
        open_button = QPushButton("Open folder")
        open_button.setAccessibleName("Open the data folder")
        open_button.clicked.connect(lambda: self._open_folder(self.data_dir))
        folder_row = QHBoxLayout()
        folder_row.addWidget(folder, 1)
        folder_row.addWidget(open_button)
        form = QFormLayout()
        form.addRow(self.nudges_on)
        form.addRow("Budget per hour", self.per_hour)
        form.addRow("Budget per day", self.per_day)
        form.addRow("Quiet from", self.quiet_start)
        form.addRow("Quiet until", self.quiet_end)
        form.addRow("Theme", self.theme)
        form.addRow("Model threads", self.threads)
        if models is not None:
            self.tiers = ModelTiers(models, self)
            self.tiers.problem.connect(self.error.setText)
            self.finished.connect(self.tiers.model_actions.cancel)  # closed mid-install: stop it
            form.addRow("Model per tier", self.tiers)
        form.addRow(self.close_to_tray)
        form.addRow(self.quiet_mode)
        form.addRow(self.start_on_login)
        form.addRow(self.api_on)
        form.addRow("Local API port", self.api_port)
        form.addRow("Data folder", folder_row)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        for button in buttons.buttons():
            button.setAccessibleName(button.text().replace("&", ""))
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        if self.tiers is not None and self.tiers.pending_problem():
            self.error.setText(self.tiers.pending_problem())
        for box in self.findChildren(QWidget):  # the editors inside spin boxes and combos
            if isinstance(box, QLineEdit) and not box.accessibleName():
                owner = box.parentWidget()
                box.setAccessibleName(owner.accessibleName() if owner is not None else "")

    @staticmethod
    def _spin(value: int, low: int, high: int, name: str) -> QSpinBox:
        box = QSpinBox()
        box.setRange(low, high)
        box.setValue(value)
        box.setAccessibleName(name)
        return box

    @staticmethod
    def _time(value: str, name: str) -> QTimeEdit:
        edit = QTimeEdit(_hhmm(value))
        edit.setDisplayFormat("HH:mm")
        edit.setAccessibleName(name)
        return edit

    def changes(self) -> dict[str, str]:
        return {
            "nudges.enabled": "true" if self.nudges_on.isChecked() else "false",
            "nudges.per_hour": str(self.per_hour.value()),
            "nudges.per_day": str(self.per_day.value()),
            "nudges.quiet_start": self.quiet_start.time().toString("HH:mm"),
            "nudges.quiet_end": self.quiet_end.time().toString("HH:mm"),
            "ui.theme": self.theme.currentText(),
            "llm.threads": str(self.threads.value()),
            "ui.close_to_tray": "true" if self.close_to_tray.isChecked() else "false",
            "ui.quiet_mode": "true" if self.quiet_mode.isChecked() else "false",
            "api.enabled": "true" if self.api_on.isChecked() else "false",
            "api.port": str(self.api_port.value()),
        }

    def save(self) -> None:
        """Write each setting (each is validated); the first that is refused is said here
        and the dialog stays open."""
        for key, value in self.changes().items():
            try:
                self._settings.set(key, value)
            except Exception as exc:
                self.error.setText(f"{key}: {getattr(exc, 'message', exc)}")
                return
        try:
            if self.tiers is not None:
                self.tiers.save()
        except Exception as exc:
            self.error.setText(f"model file: {getattr(exc, 'message', None) or exc}")
            return
        try:  # only a change is written: an entry made by hand is left alone
            if self.start_on_login.isChecked() != self._started_on_login:
                autostart.set_enabled(self.start_on_login.isChecked())
                self._started_on_login = self.start_on_login.isChecked()
        except OSError as exc:
            self.error.setText(f"start on login: {exc.strerror or exc}")
            return
        self.accept()
