"""The settings dialog writes the one settings file through the Engine; a restart reads
the same; a refused value is said in the dialog and nothing else is lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTime
from pytestqt.qtbot import QtBot

from rilai_desktop.errors import ConfigError
from rilai_desktop.ui.settings_dialog import SettingsDialog
from tests.fake_engine import open_fake_engine


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def test_settings_persist_across_a_restart(qtbot: QtBot) -> None:
    engine = open_fake_engine()
    opened: list[Path] = []
    dialog = SettingsDialog(
        engine.settings, engine.parts.core.paths.data_dir, open_folder=opened.append
    )
    qtbot.addWidget(dialog)
    dialog.nudges_on.setChecked(False)
    dialog.per_hour.setValue(1)
    dialog.quiet_start.setTime(QTime(21, 30))
    dialog.theme.setCurrentText("dark")
    dialog.save()
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    engine.close()
    again = open_fake_engine()  # a restart reads the same file
    saved = again.settings.saved().settings
    assert saved.nudges.enabled is False and saved.nudges.per_hour == 1
    assert saved.nudges.quiet_start == "21:30" and saved.ui.theme == "dark"
    reopened = SettingsDialog(again.settings, again.parts.core.paths.data_dir)
    qtbot.addWidget(reopened)
    assert not reopened.nudges_on.isChecked() and reopened.theme.currentText() == "dark"
    again.close()


class Refusing:
    def __init__(self, real: Any) -> None:
        self.real = real

    def saved(self) -> Any:
        return self.real.saved()

    def set(self, key: str, value: str) -> Any:
        raise ConfigError(f"Invalid value for {key}: refused in this test")


def test_a_refused_value_is_said_and_the_dialog_stays_open(qtbot: QtBot) -> None:
    engine = open_fake_engine()
    dialog = SettingsDialog(Refusing(engine.settings), engine.parts.core.paths.data_dir)
    qtbot.addWidget(dialog)
    dialog.save()
    assert "refused in this test" in dialog.error.text()
    assert dialog.result() != SettingsDialog.DialogCode.Accepted
    engine.close()


def test_every_control_of_the_dialog_has_an_accessible_name(qtbot: QtBot) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QWidget

    engine = open_fake_engine()
    dialog = SettingsDialog(engine.settings, engine.parts.core.paths.data_dir)
    qtbot.addWidget(dialog)
    dialog.show()
    unnamed = [
        type(w).__name__
        for w in dialog.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible() and not w.accessibleName()
    ]
    assert unnamed == []
    engine.close()
