"""Drive the real `rilai window` as a person would, from outside the process: xdotool
types into the window on an X server, the answers are read back from Rilai's database.

    xvfb-run -a .venv/bin/python tools/xdotool_drive.py OUT_DIR "message" ["message" ...]

Starts `trayer` (a tray host) and `rilai window` (RILAI_HOME, RILAI_MODELS_DIR from the
environment), waits for the window's title to say it is ready ("Rilai"), then for each
message: activates the window, types it, presses Return and waits for the turn's
TURN_COMPLETED in the log. Then starts a second `rilai window` (it must hand over to the
first and exit), counts Rilai's windows, presses Ctrl+Q and waits for the app to exit.
Writes OUT_DIR/summary.json. Used by tests/e2e/test_window_xdotool_real.py.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path


def _xdotool(*args: str, timeout: float = 30) -> str:
    done = subprocess.run(
        ["xdotool", *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    return done.stdout.strip()


def _focus(wid: str) -> None:
    """Keyboard focus to the window (no window manager runs under Xvfb, so no
    `windowactivate`: typing goes through XTEST to the focused window, as a person's keys do)."""
    _xdotool("windowraise", wid)
    _xdotool("windowfocus", "--sync", wid, timeout=10)
    time.sleep(0.3)


def _windows(title: str) -> list[str]:
    return [w for w in _xdotool("search", "--onlyvisible", "--name", title).split() if w]


def _wait(condition, seconds: float, step: float = 0.25):  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = condition()
        if found:
            return found
        time.sleep(step)
    return None


def _completed(db: Path) -> list[tuple[int, str]]:
    """(turn id, reply) of every completed turn, from the log (read-only)."""
    if not db.exists():
        return []
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
            rows = conn.execute(
                "SELECT turn_id, json_extract(payload, '$.response') FROM events "
                "WHERE kind = 'turn_completed' ORDER BY id"
            ).fetchall()
    except sqlite3.Error:
        return []
    return [(int(t), str(r or "")) for t, r in rows]


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, messages = Path(argv[0]), argv[1:]
    out.mkdir(parents=True, exist_ok=True)
    home = Path(os.environ["RILAI_HOME"])
    db = home / "data" / "rilai.db"
    rilai = [sys.executable, "-m", "rilai_desktop"]
    env = {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}
    summary: dict[str, object] = {"turns": []}
    tray = subprocess.Popen(
        ["trayer", "--edge", "top", "--align", "right", "--height", "24"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)
    log = (out / "window.log").open("w")
    app = subprocess.Popen([*rilai, "window"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        started = time.monotonic()
        window = _wait(lambda: _windows("^Rilai$"), 240)
        summary["ready_s"] = round(time.monotonic() - started, 1)
        if not window:
            summary["error"] = "the window never said it was ready"
            return 1
        wid = window[0]
        for n, message in enumerate(messages, 1):
            _focus(wid)
            _xdotool("type", "--delay", "15", message, timeout=120)
            _xdotool("key", "Return")
            done = _wait(lambda n=n: len(_completed(db)) >= n and _completed(db), 300)
            reply = done[n - 1][1] if done else ""
            summary["turns"].append({"message": message, "reply": reply})  # type: ignore[union-attr]
        second = subprocess.run(
            [*rilai, "window"], env=env, capture_output=True, text=True, timeout=60
        )
        summary["second_instance"] = {
            "exit": second.returncode,
            "said": (second.stderr or second.stdout).strip()[-300:],
        }
        summary["windows"] = len(_windows("^Rilai$"))
        _focus(wid)
        _xdotool("key", "ctrl+q")
        try:
            summary["quit_exit"] = app.wait(timeout=60)
        except subprocess.TimeoutExpired:
            summary["quit_exit"] = None
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            summary["open_turns"] = conn.execute(
                "SELECT COUNT(*) FROM (SELECT session_id, turn_id FROM events WHERE turn_id > 0"
                " GROUP BY session_id, turn_id HAVING SUM(kind IN ('turn_completed',"
                " 'turn_aborted')) = 0)"
            ).fetchone()[0]
        return 0
    finally:
        if app.poll() is None:
            app.kill()
        tray.terminate()
        log.close()
        (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
