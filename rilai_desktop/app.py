"""The composition root: the one place that picks real adapters and wires them.

Today it builds the event log; the model router, memory, turn runner, daemon and window
join it as their issues land. Everything else takes what it needs as arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from rilai_desktop.config import Settings
from rilai_desktop.paths import Paths, ensure_private_dir
from rilai_desktop.store import EventLog


@dataclass
class Core:
    paths: Paths
    settings: Settings
    event_log: EventLog

    def close(self) -> None:
        self.event_log.close()


def build_core(paths: Paths, settings: Settings) -> Core:
    """Create the data directory (0700) and open the event log in it."""
    ensure_private_dir(paths.data_dir)
    return Core(paths=paths, settings=settings, event_log=EventLog(paths.db_path))
