"""Rilai Desktop: a local-first AI companion. The engine runs headless; ui/ is one client."""

__version__ = "0.1.0"
