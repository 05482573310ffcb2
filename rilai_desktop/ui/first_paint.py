"""`python -m rilai_desktop.ui.first_paint rilai|bare`: open a window and exit at its first
paint, then print the process's resident memory as JSON (for `rilai bench ui`).

``quit_at_first_paint`` does the same for the real `rilai window` (its hidden
``--exit-after-first-paint``, which packaging/report.py times in the frozen bundle and in a
source checkout): one JSON line, ``{"first_paint_s": …, "rss_mb": …}``, then the app quits.

``rilai`` is the desktop app's window as `rilai window` builds it before any model is loaded
(theme, inspector, check-ins dock; the Engine is never opened); ``bare`` is a plain
``QMainWindow`` started the same way. The caller times the whole process.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget


def _rss_kb() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def process_age_s() -> float | None:
    """Seconds since this process was created, from the kernel's start time: a frozen app's
    bootloader and the interpreter's start count too (10 ms steps); None without /proc."""
    try:
        stat = Path("/proc/self/stat").read_text()
        start_ticks = int(stat[stat.rindex(")") + 2 :].split()[19])  # field 22, starttime
        boot_now = time.clock_gettime(time.CLOCK_BOOTTIME)
        return boot_now - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class _FirstPaint(QObject):
    def __init__(self, app: QApplication, *, report: bool = False) -> None:
        super().__init__()
        self.app = app
        self.report = report

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            if self.report:
                self.report = False
                age = process_age_s()
                line = {
                    "first_paint_s": None if age is None else round(age, 3),
                    "rss_mb": round(_rss_kb() / 1024, 1),
                }
                print(json.dumps(line), flush=True)
            self.app.quit()
        return False


def quit_at_first_paint(app: QApplication, window: QWidget) -> QObject:
    """At ``window``'s first paint, print the first-paint JSON line and quit ``app``
    (`rilai window --exit-after-first-paint`). Keep the returned watcher alive."""
    watcher = _FirstPaint(app, report=True)
    window.installEventFilter(watcher)
    return watcher


def main(kind: str) -> int:
    app = QApplication([sys.argv[0]])
    window: QWidget
    keep: object = None
    if kind == "rilai":
        from rilai_desktop.ui.app import DesktopApp
        from rilai_desktop.ui.theme import apply_theme

        apply_theme(app, "light")

        def never() -> object:
            raise RuntimeError("not opened in this measurement")

        desktop = DesktopApp(never, tray_available=lambda: False, with_daemon=False)  # type: ignore[arg-type]
        window, keep = desktop.window, desktop
    elif kind == "bare":
        window = QMainWindow()
    else:
        print("usage: python -m rilai_desktop.ui.first_paint rilai|bare", file=sys.stderr)
        return 2
    watcher = _FirstPaint(app)
    window.installEventFilter(watcher)
    window.resize(900, 700)
    window.show()
    app.exec()
    print(json.dumps({"kind": kind, "rss_kb": _rss_kb(), "kept": keep is not None}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else ""))
