"""Start on login writes and removes a freedesktop autostart entry under XDG_CONFIG_HOME."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rilai_desktop.app import autostart


def test_the_entry_lives_under_xdg_config_home(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    assert autostart.autostart_file(env) == tmp_path / "cfg" / "autostart" / "rilai.desktop"
    assert autostart.autostart_file({}) == Path.home() / ".config" / "autostart" / "rilai.desktop"
    # a relative XDG_CONFIG_HOME is invalid per the spec: ignored
    assert autostart.autostart_file({"XDG_CONFIG_HOME": "rel"}).parent.parent == (
        Path.home() / ".config"
    )


def test_enable_writes_an_entry_that_runs_this_interpreter_and_disable_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    path = tmp_path / "autostart" / "rilai.desktop"
    assert not autostart.is_enabled()
    assert autostart.enable() == path
    assert autostart.is_enabled()
    text = path.read_text(encoding="utf-8")
    assert text.startswith("[Desktop Entry]\n")
    assert "Type=Application" in text and "Name=Rilai" in text
    exec_line = next(line for line in text.splitlines() if line.startswith("Exec="))
    assert exec_line.endswith(" -m rilai_desktop window")
    assert sys.executable in exec_line
    assert list(path.parent.iterdir()) == [path]  # no temp file left
    autostart.disable()
    assert not path.exists() and not autostart.is_enabled()
    autostart.disable()  # nothing to remove: no error


def test_an_interpreter_path_with_spaces_is_quoted() -> None:
    assert autostart.exec_line("/opt/my apps/python") == (
        '"/opt/my apps/python" -m rilai_desktop window'
    )


def test_the_installed_bundle_starts_itself_not_a_python_module() -> None:
    assert autostart.exec_line("/opt/rilai/rilai", frozen=True) == "/opt/rilai/rilai window"
    assert autostart.exec_line("/opt/rilai/rilai", frozen=False).endswith("-m rilai_desktop window")
