"""`rilai doctor --repair`: the one place a damaged database is ever moved (store/repair.py).

Plain `rilai doctor` only names the fix; with ``--repair`` the damaged file is moved aside
and the newest good backup that maintenance made (``data/backups/rilai-<stamp>.db``) is
restored. The result is one doctor line saying what was done and what the backup lacks.
"""

from __future__ import annotations

from pathlib import Path

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.daemon.maintenance import BACKUPS_DIRNAME, DB_BACKUP, rotation_key
from rilai_desktop.errors import RilaiError
from rilai_desktop.store.repair import repair

REPAIR_FIX = (
    "Run `rilai doctor --repair`: it moves the damaged file aside (never deletes it) and "
    "restores the last good backup"
)


def database_backups(data_dir: Path) -> list[Path]:
    """Maintenance's database backups, newest first."""
    folder = data_dir / BACKUPS_DIRNAME
    if not folder.is_dir():
        return []
    found = [
        (key, entry)
        for entry in folder.iterdir()
        if (key := rotation_key(DB_BACKUP, entry.name)) is not None and entry.is_file()
    ]
    return [entry for _, entry in sorted(found, reverse=True)]


def repair_database(ctx: Context) -> tuple[str, str, str]:
    """(status, detail, fix) of the repair, for doctor's "repair" line."""
    db = ctx.paths.db_path
    try:
        outcome = repair(db, database_backups(ctx.paths.data_dir))
    except RilaiError as exc:
        return "fail", exc.message, "; ".join(exc.hints)
    no_backup = outcome.damage is not None and outcome.restored_from is None
    return ("warn" if no_backup else "ok"), outcome.summary(), ""
