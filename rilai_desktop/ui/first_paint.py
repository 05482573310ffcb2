"""`python -m rilai_desktop.ui.first_paint rilai|bare`: open a window and exit at its first
paint, then print the process's resident memory as JSON (for `rilai bench ui`).

``rilai`` is the desktop app's window as `rilai window` builds it before any model is loaded
(theme, inspector, check-ins dock; the Engine is never opened); ``bare`` is a plain
``QMainWindow`` started the same way. The caller times the whole process.
"""

from __future__ import annotations

import json
import sys
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


class _FirstPaint(QObject):
    def __init__(self, app: QApplication) -> None:
        super().__init__()
        self.app = app

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.app.quit()
        return False


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
