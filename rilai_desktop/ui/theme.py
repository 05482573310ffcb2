"""The light and dark themes: a style sheet each in ``resources/style/``; "system" follows
the platform's colour scheme (Qt 6.5+ ``styleHints().colorScheme()``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from rilai_desktop.ui.resources import RESOURCES_DIR

STYLE_DIR = RESOURCES_DIR / "style"


def resolve(theme: str) -> str:
    """light or dark, for a setting of light, dark or system."""
    if theme in ("light", "dark"):
        return theme
    scheme = QGuiApplication.styleHints().colorScheme()
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"


def apply_theme(app: QApplication, theme: str = "system") -> str:
    """Apply the theme's style sheet; a missing file leaves Qt's own style (and says which
    theme was asked for). Returns the theme applied."""
    name = resolve(theme)
    path = STYLE_DIR / f"{name}.qss"
    try:
        app.setStyleSheet(path.read_text(encoding="utf-8"))
    except OSError:
        app.setStyleSheet("")
    return name
