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
    dialog = _dialog(qtbot, engine)  # with the model rows
    dialog.show()
    unnamed = [
        type(w).__name__
        for w in dialog.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible() and not w.accessibleName()
    ]
    assert unnamed == []
    engine.close()


def _dialog(qtbot: QtBot, engine: Any) -> SettingsDialog:
    dialog = SettingsDialog(
        engine.settings, engine.parts.core.paths.data_dir, models=engine.model_files
    )
    qtbot.addWidget(dialog)
    return dialog


def test_model_tier_rows_show_file_size_and_state(qtbot: QtBot) -> None:
    engine = open_fake_engine()
    paths = engine.parts.core.paths
    paths.models_dir.mkdir(parents=True, exist_ok=True)
    (paths.models_dir / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF" + b"\0" * 2044)
    dialog = _dialog(qtbot, engine)
    assert dialog.tiers is not None
    small = dialog.tiers.labels["small"].text()
    assert small.startswith("SmolLM2-135M-Instruct.Q4_1.gguf · 2.0 KB · ")
    assert small.endswith("does not match the manifest")  # not the shipped size
    assert dialog.tiers.labels["large"].text().endswith("· — · missing")
    engine.close()


def test_a_non_gguf_file_is_refused_with_a_message_and_nothing_is_written(
    qtbot: QtBot, tmp_path: Path
) -> None:
    engine = open_fake_engine()
    dialog = _dialog(qtbot, engine)
    assert dialog.tiers is not None
    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    assert not dialog.tiers.choose("small", text)
    assert "small tier" in dialog.error.text() and "not a GGUF file" in dialog.error.text()
    dialog.save()
    assert not engine.parts.core.paths.user_manifest_file.exists()
    engine.close()


def test_a_chosen_gguf_persists_and_a_restart_shows_it(qtbot: QtBot, tmp_path: Path) -> None:
    engine = open_fake_engine()
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + b"\1" * 1020)
    chosen: list[str] = []

    def pick(_parent: object, tier: str) -> str:
        chosen.append(tier)
        return str(gguf)

    dialog = _dialog(qtbot, engine)
    assert dialog.tiers is not None
    dialog.tiers._choose_file = pick  # the file dialog, as the person answers it
    dialog.tiers.buttons["medium"].click()
    assert chosen == ["medium"]
    assert "tiny.gguf · 1.0 KB · custom file" in dialog.tiers.labels["medium"].text()
    dialog.save()
    assert dialog.result() == SettingsDialog.DialogCode.Accepted
    engine.close()
    again = open_fake_engine()  # a restart: the model overlay says the same
    reopened = _dialog(qtbot, again)
    assert reopened.tiers is not None
    label = reopened.tiers.labels["medium"]
    assert label.text() == "tiny.gguf · 1.0 KB · custom file (not verified)"
    assert label.toolTip() == str(gguf)
    reopened.tiers.verify()  # hashed on a background thread
    qtbot.waitUntil(lambda: "sha256" in label.text(), timeout=10_000)
    assert reopened.tiers.verify_button.isEnabled()
    again.close()


def test_start_on_login_writes_and_removes_the_autostart_entry(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    entry = tmp_path / "xdg" / "autostart" / "rilai.desktop"
    engine = open_fake_engine()
    dialog = _dialog(qtbot, engine)
    assert not dialog.start_on_login.isChecked()
    dialog.start_on_login.setChecked(True)
    dialog.close_to_tray.setChecked(False)
    dialog.quiet_mode.setChecked(True)
    dialog.save()
    assert entry.is_file() and "rilai_desktop window" in entry.read_text()
    saved = engine.settings.saved().settings.ui
    assert saved.close_to_tray is False and saved.quiet_mode is True
    reopened = _dialog(qtbot, engine)
    assert reopened.start_on_login.isChecked() and reopened.quiet_mode.isChecked()
    assert not reopened.close_to_tray.isChecked()
    reopened.start_on_login.setChecked(False)
    reopened.save()
    assert not entry.exists()
    engine.close()
