"""PySide6 only: the main window, chat, inspector, tray. The only package that imports Qt.

Empty until the desktop window issue lands.
"""

from rilai_desktop.ui.none_guard import guard_singletons

guard_singletons()  # before any window: see none_guard.py (PySide6 builds that leak refs)
