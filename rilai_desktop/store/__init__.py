"""SQLite storage: the append-only event log, its projections and the schema (``schema.py``
applies the numbered ``migrations/NNNN_name.sql``).

``file_upkeep.py`` keeps the file healthy (optimize, WAL checkpoint, online backups);
``EventLog.optimize()`` and ``EventLog.backup()`` are its doors.
"""

from rilai_desktop.store.db import connect, integrity_check
from rilai_desktop.store.event_log import EventDraft, EventLog, coerce_kind
from rilai_desktop.store.schema import LATEST_VERSION, current_version, migrate

__all__ = [
    "LATEST_VERSION",
    "EventDraft",
    "EventLog",
    "coerce_kind",
    "connect",
    "current_version",
    "integrity_check",
    "migrate",
]
