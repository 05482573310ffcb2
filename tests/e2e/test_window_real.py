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
from typing import Any

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
        "RILAI_SHOT_SIZES": "1280x800,1024x768",
    }
    env.pop("QT_QPA_PLATFORM", None)  # the window runs on the X server, not offscreen
    done = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1920x1200x24",
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
    check_sizes(summary, ["1280x800", "1024x768"], scale=1)


def check_sizes(summary: dict[str, Any], sizes: list[str], *, scale: int) -> None:
    """Issue 31: at each size, with the docks open, the conversation wraps (no sideways
    scroll) and keeps a readable width; the PNG has the size times the scale."""
    assert [s["size"] for s in summary["sizes"]] == sizes
    for shot in summary["sizes"]:
        width, height = (int(n) for n in shot["size"].split("x"))
        assert shot["window"] == [width, height]
        assert shot["horizontal_scroll_max"] == 0 and not shot["horizontal_scroll_visible"]
        assert shot["conversation_width"] >= 360, shot
        assert shot["png_pixels"] == [width * scale, height * scale], shot
        assert Path(shot["png"]).stat().st_size > 10_000


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs xvfb-run")
def test_the_window_at_scale_factor_two(real_models: Path, tmp_path: Path) -> None:
    """QT_SCALE_FACTOR=2 (a HiDPI screen): one reply, the window grabbed at twice the pixels,
    text and icons drawn at that resolution, not scaled up from a small picture."""
    out = tmp_path / "shots"
    env = {
        **os.environ,
        "RILAI_HOME": str(tmp_path / "home"),
        "RILAI_MODELS_DIR": str(real_models),
        "RILAI_SHOT_SIZES": "1280x800",
        "QT_SCALE_FACTOR": "2",
    }
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 2600x1700x24",
            sys.executable,
            str(REPO_ROOT / "tools" / "window_screenshot.py"),
            str(out),
            "hi, I'm Dana. I just moved to Lisbon for a new job.",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["turns"][0]["reply"].strip()
    check_sizes(summary, ["1280x800"], scale=2)
    assert summary["sizes"][0]["device_pixel_ratio"] == 2
