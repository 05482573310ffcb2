"""Drives the window for tools/orca_check.sh: the real window on the scripted fakes (a
fresh RILAI_HOME, the hashed embedder), a message typed with xdotool (real X key events,
as a person types them), the reply, then a check-in shown in the conversation the way the
app shows one (``DesktopApp._show_inline``)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path


def main() -> int:
    os.environ["RILAI_HOME"] = tempfile.mkdtemp(prefix="rilai-orca-")
    os.environ["RILAI_EMBEDDING__BACKEND"] = "hash"
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from PySide6.QtWidgets import QApplication

    from rilai_desktop.daemon.ports import Nudge
    from rilai_desktop.ui.app import DesktopApp
    from rilai_desktop.ui.theme import apply_theme
    from tests.fake_engine import open_fake_engine

    app = QApplication([])
    apply_theme(app, "light")
    reply = "That sounds like a full day. How are you feeling about it now?"
    desktop = DesktopApp(
        lambda: open_fake_engine(reply), tray_available=lambda: False, with_daemon=False
    )
    desktop.start()

    def pump(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)

    window = desktop.window
    start = time.monotonic()
    while window.bridge is None and time.monotonic() - start < 30:
        pump(0.1)
    window.resize(1100, 750)
    window.show()
    pump(3)
    found = subprocess.run(
        ["xdotool", "search", "--name", "Rilai"], capture_output=True, text=True
    ).stdout.split()
    for wid in found:
        subprocess.run(["xdotool", "windowfocus", wid], check=False)
    window.input.setFocus()
    pump(1)
    print("typing", flush=True)
    subprocess.Popen(["xdotool", "type", "--delay", "40", "I had a long day at work"])
    pump(3)
    subprocess.Popen(["xdotool", "key", "Return"])
    pump(1)
    while window.bridge is not None and window.bridge.busy and time.monotonic() - start < 60:
        pump(0.1)
    pump(4)
    print("reply done", flush=True)
    desktop._show_inline(
        Nudge(
            condition="open_thread",
            reason="orca check",
            suggestion="Just checking in: how did the report go?",
            level=3,
            context={},
            at=datetime.now(UTC),
        )
    )
    pump(4)
    print("check-in shown", flush=True)
    desktop.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
