"""`rilai window --exit-after-first-paint` (hidden from help): the real window, in its own
process, quits at its first paint and prints one JSON line — what packaging/report.py
times in the frozen bundle and in a source checkout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from rilai_desktop.paths import REPO_ROOT


def rilai(*argv: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(RILAI_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "rilai_desktop", *argv],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_window_quits_at_its_first_paint_and_says_when(rilai_home: Path) -> None:
    done = rilai("window", "--exit-after-first-paint", home=rilai_home)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [x for x in done.stdout.splitlines() if x.startswith("{")]
    assert len(lines) == 1, done.stdout
    report = json.loads(lines[0])
    assert set(report) == {"first_paint_s", "rss_mb"}
    assert 0 < report["first_paint_s"] < 60
    assert report["rss_mb"] > 20  # Python and Qt at least


def test_the_flag_is_not_in_the_help(rilai_home: Path) -> None:
    done = rilai("window", "--help", home=rilai_home)
    assert done.returncode == 0
    assert "first-paint" not in done.stdout


def test_process_age_counts_from_the_process_start() -> None:
    """A process that slept half a second before asking is at least that old."""
    code = (
        "import time; time.sleep(0.5); "
        "from rilai_desktop.ui.first_paint import process_age_s; print(process_age_s())"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    age = float(done.stdout.strip())
    assert 0.5 <= age < 30
