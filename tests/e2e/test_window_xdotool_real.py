"""The real `rilai window`, driven from outside its process as a person would (xdotool
types into it on Xvfb, with `trayer` as the tray host), on the real models: two messages
answered and logged, a second `rilai window` hands over to the first instead of opening a
second writer, Ctrl+Q quits cleanly with no turn left half-written
(tools/xdotool_drive.py does the driving)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rilai_desktop.paths import REPO_ROOT

pytestmark = pytest.mark.e2e


@pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in ("xvfb-run", "trayer", "xdotool")),
    reason="needs xvfb-run, trayer and xdotool (make test installs them)",
)
def test_a_person_types_into_the_real_window(real_models: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "RILAI_HOME": str(tmp_path / "home"), "RILAI_MODELS_DIR": str(real_models)}
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            sys.executable,
            str(REPO_ROOT / "tools" / "xdotool_drive.py"),
            str(out),
            "Hello! I'm typing this from outside the window.",
            "My favourite tea is genmaicha.",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    summary = json.loads((out / "summary.json").read_text())
    print("\n" + json.dumps(summary, indent=1, ensure_ascii=False))
    assert done.returncode == 0, (done.stderr[-2000:], (out / "window.log").read_text()[-2000:])
    assert [bool(t["reply"].strip()) for t in summary["turns"]] == [True, True]
    assert summary["second_instance"]["exit"] == 0
    assert "already running" in summary["second_instance"]["said"]
    assert summary["windows"] == 1  # the second one raised the first, opened nothing
    assert summary["quit_exit"] == 0 and summary["open_turns"] == 0
