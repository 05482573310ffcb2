"""Issue 29 in the window: the settings dialog's local-API switch and port, and the switch
that serves the API while it is on and says so in the status strip."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.api.server import free_port
from rilai_desktop.api.token import load_or_create_token
from rilai_desktop.ui.api_switch import ApiSwitch
from rilai_desktop.ui.main_window import MainWindow
from rilai_desktop.ui.settings_dialog import SettingsDialog
from tests.fake_engine import open_fake_engine


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def test_the_dialog_turns_the_api_on_and_sets_its_port(qtbot: QtBot) -> None:
    engine = open_fake_engine()
    try:
        dialog = SettingsDialog(engine.settings, engine.parts.core.paths.data_dir)
        qtbot.addWidget(dialog)
        assert not dialog.api_on.isChecked() and dialog.api_port.value() == 8765  # off
        dialog.api_on.setChecked(True)
        dialog.api_port.setValue(9123)
        assert dialog.changes()["api.enabled"] == "true"
        dialog.save()
        saved = engine.settings.saved().settings.api
        assert saved.enabled is True and saved.port == 9123
    finally:
        engine.close()


def test_the_switch_serves_the_api_and_the_strip_says_so(qtbot: QtBot) -> None:
    engine = open_fake_engine()
    window = MainWindow()
    qtbot.addWidget(window)
    switch = ApiSwitch()
    switch.state.connect(window.status.api)
    config_dir = engine.parts.core.paths.config_dir
    port = free_port()
    try:
        switch.apply(engine, True, port, config_dir)
        assert window.status.api_label.text() == f"API on 127.0.0.1:{port}"
        token = load_or_create_token(config_dir)
        answer = httpx.get(
            f"http://127.0.0.1:{port}/v1/models",
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert answer.status_code == 200
        switch.apply(engine, False, port, config_dir)
        assert window.status.api_label.text() == "" and switch.server is None
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2)
    finally:
        switch.stop()
        engine.close()


def test_a_port_in_use_is_said_in_one_line(qtbot: QtBot) -> None:
    import socket

    engine = open_fake_engine()
    window = MainWindow()
    qtbot.addWidget(window)
    switch = ApiSwitch()
    switch.state.connect(window.status.api)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        try:
            switch.apply(engine, True, port, engine.parts.core.paths.config_dir)
            text = window.status.api_label.text()
            assert text.startswith(f"API off: port {port} could not be opened"), text
            assert switch.server is None
        finally:
            switch.stop()
            engine.close()


def test_a_remote_tier_that_went_down_is_said_in_one_line(qtbot: QtBot) -> None:
    """The ERROR event of llm/remote.py's fallback, at the end of the turn: one line."""
    from types import SimpleNamespace

    window = MainWindow()
    qtbot.addWidget(window)
    error = (
        "the large tier's server at http://10.0.0.2:8080/v1 did not answer (refused);"
        " answered locally with qwen2.5-coder-1.5b-instruct-q4_k_m"
    )
    window._on_update(SimpleNamespace(kind="error", payload={"error": error}))
    window._say_missing_models()
    notes = [r.text for r in window.view.rows if r.role == "system"]
    assert notes == [
        "The large tier's server at http://10.0.0.2:8080/v1 did not answer, so this reply"
        " came from the model on this computer."
    ]


def test_the_settings_rows_show_a_remote_tier_and_its_health(tmp_path: Path) -> None:
    from rilai_desktop.app.model_files import ModelFiles
    from rilai_desktop.llm.manifest import ModelEntry, ModelSource, update_overlay
    from rilai_desktop.paths import resolve_paths
    from rilai_desktop.ui.model_tiers import describe

    paths = resolve_paths()
    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    entry = ModelEntry("big", "big", "", None, None, "remote", None,
                       ModelSource("endpoint", url=url, model="m"))  # fmt: skip
    update_overlay(paths.user_manifest_file, add=entry, tiers={"large": "big"})
    files = ModelFiles(paths)
    row = next(r for r in files.rows() if r.tier == "large")
    assert describe(row) == f"big · remote: {url}"
    checked = files.verify("large")
    assert checked.state == f"remote: {url} · not answering (turns fall back to this computer)"


def test_a_server_is_chosen_for_a_tier_in_the_settings(qtbot: QtBot) -> None:
    from rilai_desktop.app.model_files import ModelFiles
    from rilai_desktop.llm.manifest import load_manifest
    from rilai_desktop.paths import resolve_paths
    from rilai_desktop.ui.model_tiers import ModelTiers

    paths = resolve_paths()
    answers = iter([("ftp://nope", "m"), ("http://10.0.0.2:8080/v1", "qwen-7b")])
    tiers = ModelTiers(ModelFiles(paths), ask_server=lambda _parent, _tier: next(answers))
    qtbot.addWidget(tiers)
    said: list[str] = []
    tiers.problem.connect(said.append)
    tiers.server_buttons["large"].click()  # a bad URL: said, nothing chosen
    assert said == ["large tier: 'ftp://nope' is not an http(s) URL"] and not tiers.servers
    tiers.server_buttons["large"].click()
    assert "remote: http://10.0.0.2:8080/v1 (chosen" in tiers.labels["large"].text()
    tiers.save()
    entry = load_manifest(paths.manifest_file, paths.user_manifest_file).for_tier("large")
    assert entry.source.kind == "endpoint" and entry.source.model == "qwen-7b"
    assert tiers.labels["large"].text() == "remote-large · remote: http://10.0.0.2:8080/v1"
