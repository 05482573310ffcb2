"""The Inspector dock: what the engine did for one turn, section by section, drawn from
that turn's events (``dock.Inspector``)."""

from rilai_desktop.ui.inspector.dock import TOGGLE_SHORTCUT, Inspector

__all__ = ["TOGGLE_SHORTCUT", "Inspector"]
