"""`rilai serve [--host H] [--port P] [--show-token]`: the local API (docs/api.md).

Off unless started: this command serves it in the foreground on 127.0.0.1 (another
``--host`` is the person's explicit choice, and is said), every request authenticated with
the bearer token in the config dir (``--show-token`` prints it and exits).
"""

from __future__ import annotations

import sys
from argparse import Namespace

from rilai_desktop.api.token import load_or_create_token, token_path
from rilai_desktop.cli.commands._context import Context


def run(args: Namespace, ctx: Context) -> int:
    token = load_or_create_token(ctx.paths.config_dir)
    if getattr(args, "show_token", False):
        print(token)
        return 0
    from rilai_desktop.api.server import LOOPBACK, ApiServer

    engine = ctx.engine()
    server = ApiServer(engine, token, host=args.host, port=args.port)
    if args.host != LOOPBACK:
        print(
            f"Serving on {args.host}: other machines on your network can reach it (with the"
            " token). Use the default 127.0.0.1 to keep it on this computer.",
            file=sys.stderr,
        )
    print(f"Rilai's API on {server.url} (token: rilai serve --show-token, file "
          f"{token_path(ctx.paths.config_dir)}); Ctrl+C stops it.", file=sys.stderr)  # fmt: skip
    server.serve()
    return 0
