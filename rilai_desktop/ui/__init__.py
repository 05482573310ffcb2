"""PySide6 only: the main window, chat, inspector, tray. The only package that imports Qt.

Empty until the desktop window issue lands.
"""
