"""`rilai clear current|sessions|all`: delete on the user's explicit request, after asking."""

from __future__ import annotations

import shutil
import sys
from argparse import Namespace

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json
from rilai_desktop.errors import RilaiError

KEEP_ON_CLEAR_ALL = {"models"}


def _confirm(question: str, assume_yes: bool) -> bool:
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        raise RilaiError(
            "Refusing to delete without confirmation (no terminal to ask on)",
            recovery_suggestions=["Add --yes to confirm"],
        )
    answer = input(f"{question} [y/N] ").strip().lower()
    return answer in {"y", "yes"}


def run(args: Namespace, ctx: Context) -> int:
    what = args.what
    log = ctx.event_log()
    result: dict[str, object] = {"cleared": what}
    if what == "current":
        session = log.latest_session_id()
        if session is None:
            result["deleted_events"] = 0
        else:
            if not _confirm(f"Delete the current session {session}?", args.yes):
                print("Nothing deleted.")
                return 1
            result["session_id"] = session
            result["deleted_events"] = log.delete_session(session)
    elif what == "sessions":
        sessions = log.session_ids()
        if not _confirm(f"Delete all {len(sessions)} session(s) and their events?", args.yes):
            print("Nothing deleted.")
            return 1
        result["deleted_events"] = log.delete_all()
        result["sessions"] = len(sessions)
    else:  # all
        data_dir = ctx.paths.data_dir
        if not _confirm(
            f"Delete everything Rilai stored in {data_dir} (models are kept)?", args.yes
        ):
            print("Nothing deleted.")
            return 1
        ctx.close()
        removed = []
        for entry in sorted(data_dir.iterdir()) if data_dir.exists() else []:
            if entry.name in KEEP_ON_CLEAR_ALL:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
            removed.append(entry.name)
        result["removed"] = removed
    if ctx.json:
        emit_json(result)
    else:
        print(", ".join(f"{k}: {v}" for k, v in result.items()))
    return 0
