"""`rilai self-test --probe qt-libs|qt`: the child process the self-test (and `rilai
doctor`) start to find out whether Qt works here, so the checking process never loads Qt.

``qt-libs`` imports QtCore, QtGui and QtWidgets and says which Qt and where its libraries
are. ``qt`` starts a QApplication on the platform QT_QPA_PLATFORM names (the parent sets
``offscreen``), renders a small label into a pixmap, and reports the platform, the plugin
folder, the pixmap's size, how many colours it holds (one means nothing was drawn: no
usable font) and how many font families Qt found. The report is one JSON line on stdout.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def probe_libs() -> dict[str, Any]:
    import PySide6
    from PySide6 import QtCore, QtGui, QtWidgets

    return {
        "ok": True,
        "pyside6": PySide6.__version__,
        "qt": QtCore.qVersion(),
        "libraries": QtCore.QLibraryInfo.path(QtCore.QLibraryInfo.LibraryPath.LibrariesPath),
        "modules": [m.__name__ for m in (QtCore, QtGui, QtWidgets)],
    }


def probe_render() -> dict[str, Any]:
    from PySide6.QtCore import QLibraryInfo
    from PySide6.QtGui import QFontDatabase, QGuiApplication
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "rilai"])
    label = QLabel("Rilai self-test: the quick brown fox")
    label.setStyleSheet("QLabel { background: white; color: black; padding: 4px; }")
    label.resize(240, 40)
    pixmap = label.grab()
    image = pixmap.toImage()
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 2) for y in range(0, image.height(), 2)
    }
    label.deleteLater()
    app.processEvents()
    families = len(QFontDatabase.families())
    import PySide6

    report: dict[str, Any] = {
        "ok": not pixmap.isNull() and families > 0 and len(colours) > 1,
        "pyside6": PySide6.__version__,
        "platform": QGuiApplication.platformName(),
        "plugins": QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath),
        "pixmap": [pixmap.width(), pixmap.height()],
        "colours": len(colours),
        "font_families": families,
    }
    if pixmap.isNull():
        report["error"] = "the widget could not be rendered into a pixmap"
    elif families == 0 or len(colours) <= 1:
        report["error"] = f"no text was drawn ({families} font families found)"
    return report


PROBES = {"qt-libs": probe_libs, "qt": probe_render}


def main(kind: str) -> int:
    """Run one probe, print its JSON line; exit 0 when it passed."""
    try:
        report = PROBES[kind]()
    except Exception as exc:
        report = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return 0 if report.get("ok") else 1
