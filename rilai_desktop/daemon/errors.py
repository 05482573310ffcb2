"""The daemon's own errors (a code, a message, hints a person can act on)."""

from __future__ import annotations

from rilai_desktop.errors import RilaiError


class DaemonError(RilaiError):
    """The daemon cannot start or run: another one holds this data directory, or its
    scheduler store cannot be opened."""

    code = "RIL-069"
    name = "DaemonError"
    recovery_suggestions = [  # noqa: RUF012 - the RilaiError convention: class-level hints
        "rilai daemon status  # is another Rilai (shell, window, daemon run) already running?",
    ]
