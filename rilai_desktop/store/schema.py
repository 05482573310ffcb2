"""Numbered schema migrations: ``migrations/NNNN_name.sql``, recorded in ``schema_version``.

Each migration runs in its own transaction together with the row that records it, so a
crash mid-migration leaves the previous version intact. A database whose version is newer
than the newest migration we ship is refused before anything is written.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from rilai_desktop.errors import SchemaTooNewError

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available_migrations() -> list[Migration]:
    folder = resources.files("rilai_desktop.store") / "migrations"
    found: list[Migration] = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    for expected, migration in enumerate(found, start=1):
        if migration.version != expected:
            raise RuntimeError(f"migration numbering has a gap before {migration.name}")
    return found


LATEST_VERSION = len(available_migrations())


def current_version(conn: sqlite3.Connection) -> int:
    row = conn.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'"
    ).fetchone()
    if row is None:
        return 0
    value = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
    return int(value or 0)


def check_not_newer(conn: sqlite3.Connection, db_label: str) -> int:
    version = current_version(conn)
    if version > LATEST_VERSION:
        raise SchemaTooNewError(
            f"{db_label} has schema version {version}; this Rilai knows up to {LATEST_VERSION}",
            context={"db_version": version, "supported": LATEST_VERSION},
        )
    return version


def migrate(
    conn: sqlite3.Connection,
    target: int | None = None,
    *,
    migrations: Sequence[Migration] | None = None,
) -> list[int]:
    """Apply pending migrations up to ``target`` (default: latest). Returns versions applied.

    ``migrations``: the numbered list to apply (default: the shipped ones).
    """
    steps = available_migrations() if migrations is None else list(migrations)
    target = (steps[-1].version if steps else 0) if target is None else target
    version = current_version(conn)
    applied: list[int] = []
    if version == 0:
        with conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                " applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')))"
            )
    for migration in steps:
        if migration.version <= version or migration.version > target:
            continue
        # executescript commits implicitly, so wrap the script in an explicit transaction
        script = (
            "BEGIN IMMEDIATE;\n"
            + migration.sql
            + f"\nINSERT INTO schema_version (version, name) VALUES ({migration.version}, "
            + f"'{migration.name}');\nCOMMIT;"
        )
        try:
            conn.executescript(script)
        except sqlite3.Error:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        applied.append(migration.version)
    return applied
