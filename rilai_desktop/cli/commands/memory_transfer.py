"""`rilai memory export FOLDER` and `rilai memory import FOLDER [--merge]`.

Both go through ``MemoryManager.export_all`` / ``import_all`` (memory/transfer/), the same
code the window's facade runs (Memory ▸ Export memory… / Import memory…), and say what
they did with the reports' own ``lines()``, the words the window shows; the format is
documented in docs/memory-export.md. Import embeds with the installed embedder but needs
no language model.
"""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json


def _print(lines: list[str]) -> None:
    print(lines[0])
    for line in lines[1:]:
        print(f"  {line}")


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
        _print(report.lines())
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
        _print(report.lines())
    return 0
