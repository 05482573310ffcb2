"""`rilai config show|path|set KEY VALUE`."""

from __future__ import annotations

from argparse import Namespace

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.config import flatten, set_in_file


def run(args: Namespace, ctx: Context) -> int:
    if args.action == "path":
        path = str(ctx.paths.settings_file)
        if ctx.json:
            emit_json({"settings_file": path, "exists": ctx.paths.settings_file.exists()})
        else:
            print(path)
        return 0
    if args.action == "set":
        value = set_in_file(ctx.paths.settings_file, args.key, args.value)
        if ctx.json:
            emit_json({"key": args.key, "value": value, "file": str(ctx.paths.settings_file)})
        else:
            print(f"{args.key} = {value!r}  (saved to {ctx.paths.settings_file})")
        return 0
    flat = flatten(ctx.loaded.settings.model_dump(mode="json"))
    sources = ctx.loaded.sources
    if ctx.json:
        emit_json({k: {"value": v, "source": sources.get(k, "default")} for k, v in flat.items()})
    else:
        print(
            table(
                [(k, v, sources.get(k, "default")) for k, v in flat.items()],
                ["setting", "value", "source"],
            )
        )
    return 0
