"""Render Rilai's app icon (resources/icons/rilai.svg) to the PNG sizes desktops ask for:
resources/icons/rilai-{16,24,32,48,64,128,256,512}.png, then packs them into rilai.ico
(Windows) and rilai.icns (macOS) with tools/icon_containers.py. Run it after editing the SVG
and commit the PNGs, the .ico and the .icns with it:

    QT_QPA_PLATFORM=offscreen .venv/bin/python tools/render_icons.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from icon_containers import write_containers  # tools/ is sys.path[0] when run as a script
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(svg: Path = ICONS / "rilai.svg", out: Path = ICONS) -> list[Path]:
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"cannot read {svg}")
    written = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        path = out / f"rilai-{size}.png"
        if not image.save(str(path), "PNG"):
            raise SystemExit(f"cannot write {path}")
        written.append(path)
    return written


if __name__ == "__main__":
    app = QGuiApplication(sys.argv[:1])
    for path in render():
        print(path)
    for path in write_containers():
        print(path)
