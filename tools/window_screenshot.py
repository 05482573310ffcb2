"""Screenshots of the real desktop window: the real models, a fresh RILAI_HOME, messages
typed into the input as a person would, the window grabbed once each reply is in.

    xvfb-run -a .venv/bin/python tools/window_screenshot.py OUT_DIR "message" ["message" ...]

Writes OUT_DIR/window-1.png … (one per reply) and OUT_DIR/summary.json (each reply, the
inspector's agent rows per turn, whether a system tray was there). Environment:
RILAI_THEME (light/dark), RILAI_SHOT_INSPECTOR=1 (inspector open), RILAI_SHOT_TRAY=1 (start
`trayer`, a tray host, in the X session first), RILAI_SHOT_MEMORY=1 (after the replies, the
Memory dock open on its "About you" tab: OUT_DIR/memory.png), RILAI_SHOT_WHY=1 (the last
reply's "Why?" panel: OUT_DIR/why.png), RILAI_SHOT_SIZES=1280x800,1024x768 (the window at
each size with the Conversations and Inspector docks open: OUT_DIR/size-WxH.png, with
-scale2 under QT_SCALE_FACTOR=2, and the conversation's sideways scroll in summary.json).
Used for the README's screenshots and docs/screenshots/ (`make screenshots`), to look at
what the window shows, and by tests/e2e/test_window_real.py.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    out, messages = Path(argv[0]), argv[1:]
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("RILAI_HOME", tempfile.mkdtemp(prefix="rilai-shot-"))
    os.environ.setdefault("QT_QPA_PLATFORM", "xcb")

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine
    from rilai_desktop.config import load_settings
    from rilai_desktop.paths import resolve_paths
    from rilai_desktop.ui.app import DesktopApp
    from rilai_desktop.ui.theme import apply_theme

    tray_host = None
    if os.environ.get("RILAI_SHOT_TRAY"):
        import subprocess

        tray_host = subprocess.Popen(
            ["trayer", "--edge", "top", "--align", "right", "--height", "24"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1.0)  # the tray host claims the selection before the app asks for it
    app = QApplication([sys.argv[0]])
    apply_theme(app, os.environ.get("RILAI_THEME", "light"))
    paths = resolve_paths()
    desktop = DesktopApp(
        lambda: open_engine(build_core(paths, load_settings(paths.settings_file).settings))
    )
    window = desktop.window
    window.resize(1280, 800)
    if os.environ.get("RILAI_SHOT_INSPECTOR"):
        desktop.open_inspector()
    failed: list[str] = []
    desktop.loader.failed.connect(failed.append)
    desktop.start()

    def wait(condition, seconds: float) -> bool:  # type: ignore[no-untyped-def]
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            if condition():
                return True
            time.sleep(0.02)
        return False

    if not wait(lambda: window.bridge is not None or bool(failed), 180) or failed:
        print(f"the engine did not open: {' '.join(failed)}", file=sys.stderr)
        return 1
    turns: list[dict[str, object]] = []
    for n, message in enumerate(messages, 1):
        window.input.setPlainText(message)
        QTest.keyClick(window.input, Qt.Key.Key_Return)
        wait(lambda: window.bridge is not None and not window.bridge.busy, 300)
        wait(lambda: False, 0.5)
        path = out / f"window-{n}.png"
        window.grab().save(str(path))
        print(path)
        last = window.view.rows[-1] if window.view.rows else None
        turns.append(
            {
                "message": message,
                "reply": last.text if last is not None and last.role == "assistant" else "",
                "inspector_turn": desktop.inspector.turn_id if desktop.inspector else None,
                "inspector_agents": len(desktop.inspector.agents.rows())
                if desktop.inspector
                else 0,
                "screenshot": str(path),
            }
        )
    sizes = [
        shoot_size(desktop, wait, out, size)
        for size in filter(None, os.environ.get("RILAI_SHOT_SIZES", "").split(","))
    ]
    memory_shot = None
    if os.environ.get("RILAI_SHOT_MEMORY"):
        memory_shot = str(shoot_memory(desktop, wait, out / "memory.png"))
        print(memory_shot)
    why_shot = None
    if os.environ.get("RILAI_SHOT_WHY"):
        why_shot = str(shoot_why(window, wait, out / "why.png"))
        print(why_shot)
    summary = {
        "turns": turns,
        "memory_screenshot": memory_shot,
        "why_screenshot": why_shot,
        "sizes": sizes,
        "tray_available": desktop.tray is not None,
        "platform": QApplication.platformName(),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False))
    desktop.quit()  # with a tray, closing the window would only hide it
    if tray_host is not None:
        tray_host.terminate()
    return 0


def shoot_size(desktop, wait, out: Path, size: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The window at ``size`` ("1280x800", in device-independent pixels) with the
    Conversations and Inspector docks open: OUT/size-1280x800[-scale2].png, and whether the
    conversation could scroll sideways."""
    width, height = (int(n) for n in size.lower().split("x"))
    window = desktop.window
    window.resize(width, height)
    desktop.open_inspector()
    desktop.conversations.show()
    wait(lambda: False, 1.0)  # the docks fit on the next passes of the event loop
    view = window.view
    scale = os.environ.get("QT_SCALE_FACTOR", "1")
    suffix = "" if scale in ("", "1") else f"-scale{scale}"
    path = out / f"size-{width}x{height}{suffix}.png"
    shot = window.grab()
    shot.save(str(path))
    print(path)
    return {
        "size": size,
        "scale": scale,
        "png": str(path),
        "png_pixels": [shot.width(), shot.height()],
        "device_pixel_ratio": shot.devicePixelRatio(),
        "window": [window.width(), window.height()],
        "conversation_width": view.viewport().width(),
        "horizontal_scroll_max": view.horizontalScrollBar().maximum(),
        "horizontal_scroll_visible": view.horizontalScrollBar().isVisible(),
    }


def shoot_memory(desktop, wait, path: Path) -> Path:  # type: ignore[no-untyped-def]
    """The Memory dock open on "About you", once what the turns taught is in it."""
    wait(lambda: desktop.memory is not None, 30)
    dock = desktop.memory
    dock.toggleViewAction().trigger()
    dock.panel.tabs.setCurrentIndex(0)
    from PySide6.QtCore import Qt

    desktop.window.resizeDocks([dock], [680], Qt.Orientation.Horizontal)
    facts = dock.panel.entry_tabs["fact"]
    wait(lambda: facts.model.rowCount() > 0, 30)
    wait(lambda: False, 0.5)
    desktop.window.grab().save(str(path))
    return path


def shoot_why(window, wait, path: Path) -> Path:  # type: ignore[no-untyped-def]
    """The last reply's "Why?" panel, once its explanation has arrived from the log."""
    reply = window.view.last_row("assistant")
    window.explain(reply.turn_id)
    panel = window.why_panel
    wait(lambda: panel is not None and panel.explanation is not None, 30)
    panel.resize(720, 760)
    wait(lambda: False, 0.5)
    panel.grab().save(str(path))
    return path


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
