"""`rilai shell`: chat in the terminal. Slash commands show what happened inside.

/help · /status · /stance · /why (the last turn: sensors, agents, claims, consensus,
council decision, critics) · /memory · /reset (a new conversation; memory stays) · /quit.
Works on a pipe as well as a terminal (one message per line).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from rilai_desktop.commands import turn_view
from rilai_desktop.commands._context import Context
from rilai_desktop.commands.chat_cmd import stream_printer

HELP = """commands:
  /help     this list
  /status   session, turns, models, memory
  /stance   Rilai's current stance and modulators
  /why      what happened inside the last turn
  /memory   what was recalled and kept last turn, memory totals
  /reset    start a new conversation (memory stays)
  /quit     leave (Ctrl-D works too)
anything else is a message to Rilai."""


def run(args: argparse.Namespace, ctx: Context) -> int:
    return repl(ctx, sys.stdin, sys.stdout)


def repl(ctx: Context, stdin: TextIO, stdout: TextIO) -> int:
    interactive = stdin.isatty()
    say: Callable[[str], None] = lambda text: print(text, file=stdout, flush=True)  # noqa: E731
    say("Rilai — local companion. Loading models… (/help for commands)")
    companion = ctx.companion()
    runner = companion.runner
    say(
        f"ready. session {runner.session_id[:8]},"
        f" {len(runner.session.history) // 2} earlier exchanges."
    )
    while True:
        if interactive:
            stdout.write("you> ")
            stdout.flush()
        line = stdin.readline()
        if not line:
            break
        text = line.rstrip("\n")
        command = text.strip().lower()
        if command in ("/quit", "/exit", "/q"):
            break
        if command == "/help":
            say(HELP)
        elif command == "/status":
            say(_status(ctx))
        elif command == "/stance":
            s = runner.session
            say(turn_view.stance(s.stance.to_dict(), s.modulators.to_dict()))
        elif command == "/why":
            last = runner.last_result
            say(turn_view.why(last) if last else "no turn yet in this shell")
        elif command == "/memory":
            stats = companion.memory.get_stats().model_dump() if companion.memory else None
            say(turn_view.memory_summary(runner.last_result, stats))
        elif command == "/reset":
            sid = runner.reset()
            say(f"new conversation ({sid[:8]}); what Rilai remembers about you stays.")
        elif command.startswith("/"):
            say(f"unknown command {command!r}; /help lists them")
        else:
            on_update, shown = stream_printer(stdout)
            result = runner.run_turn(text, on_update)
            if shown[0]:
                stdout.write("\n")
            elif not result.reply:
                say("(Rilai stays quiet)")
            stdout.flush()
    say("bye.")
    return 0


def _status(ctx: Context) -> str:
    companion = ctx.companion()
    runner = companion.runner
    log = ctx.event_log()
    lines = [
        f"session {runner.session_id}",
        f"turns in this session: {log.last_turn_id(runner.session_id)}",
        f"models loaded: {', '.join(companion.router.loaded_models()) or 'none yet'}",
    ]
    if companion.memory is not None:
        st = companion.memory.get_stats()
        lines.append(f"memory: {st.total_items} items, {st.total_resources} resources")
    return "\n".join(lines)
