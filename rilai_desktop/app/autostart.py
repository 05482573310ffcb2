"""Start on login: a freedesktop autostart entry, ``$XDG_CONFIG_HOME/autostart/rilai.desktop``
(``~/.config/autostart`` when unset), that opens the window.

Qt-free, so the settings dialog, the CLI and tests share it. The entry runs the interpreter
Rilai runs under now (``python -m rilai_desktop window``: the same virtual environment),
which needs no ``rilai`` script on PATH. The Windows (a Startup-folder shortcut or an
``HKCU\\...\\Run`` value) and macOS (a LaunchAgents plist or ``SMAppService``) equivalents
are described in docs/ui.md; they are not written here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from rilai_desktop.paths import REPO_ROOT

ENTRY_NAME: Final = "rilai.desktop"
ICON: Final = REPO_ROOT / "resources" / "icons" / "rilai-256.png"


def autostart_file(env: Mapping[str, str] | None = None) -> Path:
    """Where the entry lives: ``$XDG_CONFIG_HOME/autostart/rilai.desktop``."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME", "").strip()
    config = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return config / "autostart" / ENTRY_NAME


def _quoted(arg: str) -> str:
    """An Exec argument as the Desktop Entry spec quotes it (only when it must be)."""
    if arg and not any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`%"):
        return arg
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in arg)
    return '"' + escaped.replace("%", "%%") + '"'


def exec_line(python: str | None = None, *, frozen: bool | None = None) -> str:
    """``python -m rilai_desktop window`` with the running interpreter; in the installed
    bundle (PyInstaller) ``sys.executable`` is Rilai itself: ``/opt/rilai/rilai window``."""
    if frozen is None:
        frozen = bool(getattr(sys, "frozen", False))
    args = (
        (python or sys.executable, "window")
        if frozen
        else (python or sys.executable, "-m", "rilai_desktop", "window")
    )
    return " ".join(_quoted(a) for a in args)


def entry_text(python: str | None = None) -> str:
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        "Name=Rilai",
        "Comment=Rilai, your local companion, starts with your session",
        f"Exec={exec_line(python)}",
        "Terminal=false",
        "X-GNOME-Autostart-enabled=true",
    ]
    if ICON.is_file():
        lines.insert(5, f"Icon={ICON}")
    return "\n".join(lines) + "\n"


def is_enabled(path: Path | None = None) -> bool:
    return (path or autostart_file()).is_file()


def enable(path: Path | None = None, python: str | None = None) -> Path:
    """Write the entry (atomically); returns where."""
    target = path or autostart_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(entry_text(python), encoding="utf-8")
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def disable(path: Path | None = None) -> None:
    """Remove the entry (nothing to do when there is none)."""
    (path or autostart_file()).unlink(missing_ok=True)


def set_enabled(on: bool, path: Path | None = None) -> None:
    if on:
        enable(path)
    else:
        disable(path)
