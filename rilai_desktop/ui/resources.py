"""Where the window's resources live (``resources/``: style sheets, icons) — the same
folder as ``paths.REPO_ROOT / "resources"``, found without importing ``paths`` (and
platformdirs) before the window's first paint; ``tests/ui/test_resources.py`` holds the two
together."""

from __future__ import annotations

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parents[2] / "resources"
