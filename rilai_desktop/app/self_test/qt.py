"""Qt, probed in a child process: this process stays Qt-free (the import contracts).

The child is the same program run again with a hidden subcommand, ``self-test --probe
KIND``: from a source checkout ``python -m rilai_desktop``; in the frozen bundle
``sys.executable`` is Rilai itself (there is no ``python -c``), so it is re-run as is, with
PYINSTALLER_RESET_ENVIRONMENT=1 so its bootloader starts as a new instance. The child
(``ui/qt_probe.py``) prints one JSON object as its last line of output; Qt's own warnings
go to stderr. Kinds: ``qt-libs`` (import QtCore, QtGui, QtWidgets) and ``qt`` (the
offscreen platform plugin renders a small widget).

``run_qt_probe`` takes the subprocess runner as a keyword (``run``), so a test hands in
its own instead of starting Qt.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

PROBES = ("qt-libs", "qt")
Run = Callable[..., subprocess.CompletedProcess[str]]
QtProbe = Callable[[str], "ProbeOutcome"]
QT_LIBS_FIX = (
    "Install Qt's system libraries: sudo apt-get install libgl1 libegl1 libxkbcommon0 "
    "libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 (`make test` installs them in a checkout)"
)


@dataclass(frozen=True)
class ProbeOutcome:
    """``data``: what the child reported (its JSON); ``error``: why there is none, or
    what the child said went wrong."""

    ok: bool
    data: Mapping[str, Any] = field(default_factory=dict)
    error: str = ""


def is_frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def probe_command(
    kind: str, *, frozen: bool | None = None, executable: str | None = None
) -> list[str]:
    """How to run this same program's hidden ``self-test --probe KIND``."""
    if kind not in PROBES:
        raise ValueError(f"unknown probe {kind!r}; probes are {', '.join(PROBES)}")
    frozen = is_frozen() if frozen is None else frozen
    exe = executable or sys.executable
    if frozen:
        return [exe, "self-test", "--probe", kind]
    return [exe, "-m", "rilai_desktop", "self-test", "--probe", kind]


def probe_env(*, frozen: bool | None = None) -> dict[str, str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    if is_frozen() if frozen is None else frozen:
        env["PYINSTALLER_RESET_ENVIRONMENT"] = "1"
    return env


def parse_probe_output(stdout: str) -> dict[str, Any] | None:
    """The child's report: the last line of its output that is a JSON object."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def run_qt_probe(
    kind: str, *, run: Run = subprocess.run, timeout: float = 60.0, frozen: bool | None = None
) -> ProbeOutcome:
    cmd = probe_command(kind, frozen=frozen)
    try:
        proc = run(
            cmd,
            env=probe_env(frozen=frozen),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return ProbeOutcome(False, error=f"the Qt probe did not finish in {timeout:.0f} s")
    except OSError as exc:
        return ProbeOutcome(False, error=f"could not start {cmd[0]}: {exc}")
    data = parse_probe_output(proc.stdout or "")
    if proc.returncode == 0 and data is not None and data.get("ok") is True:
        return ProbeOutcome(True, data)
    if data is not None and data.get("error"):
        return ProbeOutcome(False, data, str(data["error"]))
    return ProbeOutcome(False, data or {}, f"exit {proc.returncode}: {stderr_tail(proc.stderr)}")


def stderr_tail(stderr: str | None, lines: int = 3, limit: int = 400) -> str:
    """The child's last words (Qt says which plugin it could not load, then aborts)."""
    tail = [ln.strip() for ln in (stderr or "").strip().splitlines() if ln.strip()][-lines:]
    text = " | ".join(tail) or "no output"
    return text if len(text) <= limit else "…" + text[-limit:]
