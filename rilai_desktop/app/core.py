"""The core every part of the engine shares: the paths, the settings and the event log."""

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
