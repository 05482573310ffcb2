"""`rilai chat "message"`: one turn on the real models, streamed; `--json` for programs.

The turn continues the latest session (its conversation is rebuilt from the event log),
so consecutive `rilai chat` calls are one conversation; `--new-session` starts over.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json
from rilai_desktop.turn.runner import Update
from rilai_desktop.turn.state import VoiceDelta


def stream_printer(out: TextIO | None = None) -> tuple[Callable[[Update], None], list[bool]]:
    """An on_update that prints reply pieces as they stream (and a note on rewrites)."""
    shown = [False]
    stream = out or sys.stdout

    def on_update(update: Update) -> None:
        if isinstance(update, VoiceDelta):
            if update.reset:
                if shown[0]:
                    stream.write("\n  (the critics asked for a rewrite)\n")
                return
            if not shown[0]:
                stream.write("Rilai: ")
            shown[0] = True
            stream.write(update.text)
            stream.flush()

    return on_update, shown


def run(args: argparse.Namespace, ctx: Context) -> int:
    engine = ctx.engine()
    engine.runner.warm_next_voice = False  # one turn, then the process exits: no warm-up
    if args.new_session:
        engine.reset()
    if ctx.json:
        result = engine.send(args.message).result()
        emit_json(result.as_dict())
        return 0
    on_update, shown = stream_printer()
    result = engine.send(args.message, on_update).result()
    if shown[0]:
        sys.stdout.write("\n")
    elif not result.reply:
        print("(Rilai stays quiet this turn)")
    intent = result.state.decision.speech_act.intent if result.state.decision else "-"
    print(
        f"  [turn {result.turn_id} · intent {intent} · {len(result.agents)} agents ·"
        f" {result.total_ms / 1000:.1f} s · `rilai shell` then /why for the details]"
    )
    return 0
