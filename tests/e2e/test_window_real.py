"""Issue 19 end to end: the real window under Xvfb with a tray host (`trayer`), on the real
models — two messages typed into the input, both replies in the view, the inspector filled
with the turn's agents, a screenshot written (tools/window_screenshot.py does the driving,
in its own process: the test process runs Qt offscreen)."""

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
    shutil.which("xvfb-run") is None or shutil.which("trayer") is None,
    reason="needs xvfb-run and trayer (make test installs them)",
)
def test_two_messages_in_the_real_window_with_a_tray(real_models: Path, tmp_path: Path) -> None:
    out = tmp_path / "shots"
    env = {
        **os.environ,
        "RILAI_HOME": str(tmp_path / "home"),
        "RILAI_MODELS_DIR": str(real_models),
        "RILAI_SHOT_TRAY": "1",
        "RILAI_SHOT_INSPECTOR": "1",
    }
    env.pop("QT_QPA_PLATFORM", None)  # the window runs on the X server, not offscreen
    done = subprocess.run(
        [
            "xvfb-run",
            "-a",
            sys.executable,
            str(REPO_ROOT / "tools" / "window_screenshot.py"),
            str(out),
            "hi, I'm Dana. I just moved to Lisbon for a new job.",
            "honestly it's been lonely. evenings are hard.",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    print("\n" + "\n".join(f"  reply: {t['reply']!r}" for t in summary["turns"]))
    assert summary["platform"] == "xcb" and summary["tray_available"] is True
    assert [t["inspector_turn"] for t in summary["turns"]] == [1, 2]
    for turn in summary["turns"]:
        assert turn["reply"].strip()
        assert turn["inspector_agents"] >= 6
        assert Path(turn["screenshot"]).stat().st_size > 10_000
