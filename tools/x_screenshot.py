"""Grab a whole X screen from outside any app, with Qt from this venv.

    .venv/bin/python tools/x_screenshot.py DISPLAY OUT.png

Opens a QGuiApplication on DISPLAY (the xcb platform, whatever QT_QPA_PLATFORM says), saves
``primaryScreen().grabWindow(0)`` (the root window: everything shown) as OUT.png and prints
one JSON line: {"path", "width", "height", "distinct_colours"} — the last counted on a grid
of samples, so a caller can tell a blank screen (1) from a window (many). Used by
tests/e2e/test_package_real.py to see the frozen app's window: the frozen app cannot be
asked to photograph itself, and the venv has no Pillow.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def distinct_colours(image: object, step: int = 8) -> int:
    """How many different colours a grid of every ``step``-th pixel holds."""
    width, height = image.width(), image.height()  # type: ignore[attr-defined]
    seen = {
        image.pixel(x, y)  # type: ignore[attr-defined]
        for y in range(0, height, step)
        for x in range(0, width, step)
    }
    return len(seen)


def grab(display: str, out: Path) -> dict[str, object]:
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    os.environ["DISPLAY"] = display
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication([sys.argv[0]])
    screen = app.primaryScreen()
    pixmap = screen.grabWindow(0)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not pixmap.save(str(out), "PNG"):
        raise SystemExit(f"x_screenshot: could not write {out}")
    image = pixmap.toImage()
    return {
        "path": str(out),
        "width": image.width(),
        "height": image.height(),
        "distinct_colours": distinct_colours(image),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(grab(argv[0], Path(argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
