"""`rilai memory export FOLDER` and `rilai memory import FOLDER [--merge]`.

Both go through ``MemoryManager.export_all`` / ``import_all`` (memory/transfer/), the same
code the window's facade runs; the format is documented in docs/memory-export.md. Import
embeds with the installed embedder but needs no language model.
"""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items() if n) or "nothing"


def export(args: Namespace, ctx: Context) -> int:
    from rilai_desktop import __version__

    folder = Path(args.dir)
    report = ctx.memory(with_models=False).export_all(folder, app_version=__version__)
    if ctx.json:
        emit_json(
            {
                "dir": str(folder),
                "counts": report.counts,
                "paused_left_out": report.paused_left_out,
                "files": [str(p) for p in report.files],
            }
        )
    else:
        print(f"Exported {_counts(report.counts)} to {folder}")
        if report.paused_left_out:
            print(f"  {report.paused_left_out} paused entr(ies) left out")
        print(f"  {folder / 'memory.md'} says it in prose")
    return 0


def import_(args: Namespace, ctx: Context) -> int:
    folder = Path(args.dir)
    report = ctx.memory(with_models=False).import_all(folder, merge=args.merge)
    if ctx.json:
        emit_json(
            {
                "dir": str(folder),
                "merge": report.merge,
                "counts": report.counts,
                "skipped": report.skipped,
            }
        )
    else:
        print(f"Imported {_counts(report.counts)} from {folder}")
        if report.skipped:
            print(f"  already there, skipped: {_counts(report.skipped)}")
    return 0
