"""`rilai memory list|show KIND ID|edit|delete|pause|pin|forget-all|paused`: the person's
controls over every memory entry, as in the window's memory browser (issue 20;
docs/memory.md). Kinds: item, fact, episode, goal. Every change is an event in the log.
"""

from __future__ import annotations

import sys
from argparse import Namespace
from typing import TYPE_CHECKING, Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.memory_checks import clip
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.errors import RilaiError

if TYPE_CHECKING:
    from rilai_desktop.memory.entries import MemoryEntry
    from rilai_desktop.memory.manager import MemoryManager

FORGET_ALL_WORDS = "forget everything"


def _manager(ctx: Context) -> MemoryManager:
    return ctx.memory(with_models=False)


def _entry(manager: MemoryManager, kind: str, entry_id: str) -> MemoryEntry:
    from rilai_desktop.memory.controls import check_kind
    from rilai_desktop.memory.entries import get_entry
    from rilai_desktop.memory.operations.entry_changes import unknown_entry

    found = get_entry(manager.connection, check_kind(kind), entry_id)
    if found is None:
        raise unknown_entry(kind, entry_id)
    return found


def _print_entry(ctx: Context, entry: MemoryEntry, **extra: Any) -> None:
    data = {**entry.as_json(), **extra}
    if ctx.json:
        emit_json(data)
        return
    width = max(len(k) for k in data)
    for key, value in data.items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else value
        print(f"{key:<{width}}  {'-' if shown is None or shown == '' else shown}")


def list_cmd(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.memory.controls import check_kind
    from rilai_desktop.memory.entries import list_entries

    kind = None if args.kind is None else check_kind(args.kind)
    entries = list_entries(_manager(ctx).connection, kind, query=args.query or "", limit=args.limit)
    if ctx.json:
        emit_json([e.as_json() for e in entries])
    elif not entries:
        print("Memory holds nothing" + (" that matches." if args.query else " yet."))
    else:
        rows = [
            (
                e.kind,
                e.entry_id,
                ("paused " if e.paused else "") + ("pinned" if e.pinned else "") or "-",
                clip(e.text, 70),
            )
            for e in entries
        ]
        print(table(rows, ["kind", "id", "controls", "text"]))
    return 0


def show_entry(args: Namespace, ctx: Context) -> int:
    kind, entry_id = args.ref
    _print_entry(ctx, _entry(_manager(ctx), kind, entry_id))
    return 0


def edit(args: Namespace, ctx: Context) -> int:
    manager = _manager(ctx)
    manager.edit_entry(args.kind, args.entry_id, args.text)
    _print_entry(ctx, _entry(manager, args.kind, args.entry_id), changed="edited")
    return 0


def delete(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.cli.commands.clear import _confirm

    kind, entry_id = args.ref
    manager = _manager(ctx)
    entry = _entry(manager, kind, entry_id)
    if not _confirm(f"Delete {kind} {entry_id}: {clip(entry.text, 80)!r}?", args.yes):
        print("Nothing deleted.")
        return 1
    manager.delete_entry(entry.kind, entry_id)
    data = {"deleted": entry_id, "kind": kind, "text": entry.text}
    if ctx.json:
        emit_json(data)
    else:
        print(f"Deleted {kind} {entry_id}: {clip(entry.text)}")
    return 0


def pause(args: Namespace, ctx: Context) -> int:
    manager = _manager(ctx)
    manager.set_entry_paused(args.kind, args.entry_id, not args.off)
    _print_entry(ctx, _entry(manager, args.kind, args.entry_id))
    return 0


def pin(args: Namespace, ctx: Context) -> int:
    manager = _manager(ctx)
    manager.set_entry_pinned(args.kind, args.entry_id, not args.off)
    _print_entry(ctx, _entry(manager, args.kind, args.entry_id))
    return 0


def forget_all(args: Namespace, ctx: Context) -> int:
    if not args.yes_forget_everything:
        if not sys.stdin.isatty():
            raise RilaiError(
                "Refusing to forget everything without confirmation (no terminal to ask on)",
                recovery_suggestions=["Add --yes-forget-everything to confirm"],
            )
        print(
            "This deletes everything Rilai remembers AND the conversations it came from"
            " (the knowledge bases are kept). It cannot be undone."
        )
        typed = input(f"Type '{FORGET_ALL_WORDS}' to go on: ").strip().lower()
        if typed != FORGET_ALL_WORDS:
            print("Nothing forgotten.")
            return 1
    counts = _manager(ctx).forget_everything()
    if ctx.json:
        emit_json({"forgotten": counts, "kept": ["knowledge bases"]})
    else:
        total = sum(counts.values())
        print(f"Forgot everything: {total} rows and files removed; the knowledge bases are kept.")
    return 0


def paused(args: Namespace, ctx: Context) -> int:
    """The global "memory paused" switch: the setting memory.paused + memory.switched."""
    from rilai_desktop.config import set_in_file

    manager = _manager(ctx)
    if args.state is not None:
        on = args.state == "on"
        set_in_file(ctx.paths.settings_file, "memory.paused", "true" if on else "false")
        manager.controls.recording_paused = on
        manager.entries.log_switch(on)
    state = manager.controls.recording_paused
    if ctx.json:
        emit_json({"memory_paused": state})
    else:
        print("memory paused" if state else "memory on")
    return 0


HANDLERS = {
    "list": list_cmd,
    "edit": edit,
    "delete": delete,
    "pause": pause,
    "pin": pin,
    "forget-all": forget_all,
    "paused": paused,
}
