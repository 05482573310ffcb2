"""The Qt probe `rilai self-test` and `rilai doctor` start in a child process: in-process
(offscreen, under pytest-qt), as the hidden `self-test --probe` command, and through the
app's runner, which builds the command a source checkout and a frozen bundle each need."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from rilai_desktop.app.self_test.qt import (
    parse_probe_output,
    probe_command,
    probe_env,
    run_qt_probe,
)
from rilai_desktop.ui import qt_probe


def test_the_render_probe_draws_a_widget_offscreen(qtbot: QtBot) -> None:
    report = qt_probe.probe_render()
    assert report["ok"] is True, report
    assert report["platform"] == "offscreen"
    assert report["pixmap"] == [240, 40]
    assert report["colours"] > 1 and report["font_families"] > 0  # text was drawn
    assert report["plugins"].endswith("plugins")


def test_the_libs_probe_names_qt_and_its_libraries(capsys: pytest.CaptureFixture[str]) -> None:
    assert qt_probe.main("qt-libs") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["qt"].startswith("6.")
    assert report["modules"] == ["PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets"]


def test_a_probe_that_raises_reports_its_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> dict[str, Any]:
        raise ImportError("libEGL.so.1: cannot open shared object file")

    monkeypatch.setitem(qt_probe.PROBES, "qt", broken)
    assert qt_probe.main("qt") == 1
    report = json.loads(capsys.readouterr().out)
    assert report == {
        "ok": False,
        "error": "ImportError: libEGL.so.1: cannot open shared object file",
    }


@pytest.mark.slow
def test_the_hidden_command_runs_the_probe_in_a_child_process() -> None:
    """What `rilai self-test` really starts from a checkout (a new interpreter, offscreen)."""
    outcome = run_qt_probe("qt", frozen=False)
    assert outcome.ok, outcome
    assert outcome.data["platform"] == "offscreen"
    libs = run_qt_probe("qt-libs", frozen=False)
    assert libs.ok and libs.data["pyside6"], libs


def test_the_command_for_a_checkout_and_for_the_frozen_bundle() -> None:
    assert probe_command("qt", frozen=False, executable="/venv/bin/python") == [
        "/venv/bin/python", "-m", "rilai_desktop", "self-test", "--probe", "qt",
    ]  # fmt: skip
    # in the bundle sys.executable is Rilai itself: no `-m`, no `-c`
    assert probe_command("qt-libs", frozen=True, executable="/opt/rilai/rilai") == [
        "/opt/rilai/rilai", "self-test", "--probe", "qt-libs",
    ]  # fmt: skip
    assert probe_env(frozen=True)["PYINSTALLER_RESET_ENVIRONMENT"] == "1"
    env = probe_env(frozen=False)
    assert env["QT_QPA_PLATFORM"] == "offscreen" and "PYINSTALLER_RESET_ENVIRONMENT" not in env
    with pytest.raises(ValueError):
        probe_command("vulkan", frozen=False)


def _completed(code: int, out: str, err: str = "") -> Any:
    def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert kwargs["env"]["QT_QPA_PLATFORM"] == "offscreen"
        return subprocess.CompletedProcess(cmd, code, out, err)

    return run


def test_the_runner_reads_the_childs_last_json_line_and_its_dying_words() -> None:
    ok = run_qt_probe(
        "qt", run=_completed(0, 'Qt says hi\n{"ok": true, "platform": "offscreen"}\n')
    )
    assert ok.ok and ok.data["platform"] == "offscreen"
    said = run_qt_probe("qt", run=_completed(1, '{"ok": false, "error": "no text was drawn"}'))
    assert not said.ok and said.error == "no text was drawn"
    aborted = run_qt_probe(
        "qt",
        run=_completed(
            -6,
            "",
            'qt.qpa.plugin: Could not load the Qt platform plugin "offscreen"\n'
            "This application failed to start because no Qt platform plugin could be"
            " initialized.\nAvailable platform plugins are: .\n",
        ),
    )
    assert not aborted.ok
    assert aborted.error.startswith(
        'exit -6: qt.qpa.plugin: Could not load the Qt platform plugin "offscreen"'
    )

    def hangs(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        raise subprocess.TimeoutExpired(cmd, kwargs["timeout"])

    assert run_qt_probe("qt", run=hangs, timeout=5).error == "the Qt probe did not finish in 5 s"
    assert parse_probe_output("no json here\n[1, 2]\n") is None


def test_python_m_self_test_probe_prints_one_json_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rilai_desktop", "self-test", "--probe", "qt-libs"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1])["ok"] is True
