"""`rilai chat "message"`: one turn on the real models, streamed on a terminal, the kept
reply printed (ReplyPrinter); `--json` for programs.

The turn continues the latest session (its conversation is rebuilt from the event log),
so consecutive `rilai chat` calls are one conversation; `--new-session` starts over.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import TextIO

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json
from rilai_desktop.turn.runner import Update
from rilai_desktop.turn.state import VoiceDelta


class ReplyPrinter:
    """Prints a turn's reply in a terminal: the reply that was **kept**, as the window shows.

    On a terminal (``live``) the pieces stream as they come; when the kept reply differs
    from what streamed (the critics trimmed a help-desk closing, or a rewrite came after a
    reset), :meth:`finish` erases the streamed attempt (ANSI: cursor up, clear to the end of
    the screen) and prints the kept reply in its place. Not a terminal (a pipe, a file, a
    test): nothing streams, and :meth:`finish` prints the kept reply once, so what a program
    reads is exactly what was kept.
    """

    PREFIX = "Rilai: "

    def __init__(self, out: TextIO | None = None, *, live: bool | None = None) -> None:
        self.out = out or sys.stdout
        if live is None:
            isatty = getattr(self.out, "isatty", None)
            live = bool(isatty()) if callable(isatty) else False
        self.live = live
        self.attempt = ""  # what the terminal shows of the current attempt
        self.shown = False  # anything streamed at all

    def on_update(self, update: Update) -> None:
        if not self.live or not isinstance(update, VoiceDelta):
            return
        if update.reset:
            if self.shown:
                self.out.write("\n  (the critics asked for a rewrite)\n")
            self.attempt = ""
            return
        if not self.attempt:
            self.out.write(self.PREFIX)
        self.attempt += update.text
        self.shown = True
        self.out.write(update.text)
        self.out.flush()

    def finish(self, reply: str) -> bool:
        """Leave the kept ``reply`` on screen; False when there is none (a quiet turn)."""
        kept = reply.strip()
        if self.attempt and self.attempt.strip() == kept:
            self.out.write("\n")
        else:
            if self.attempt:
                self._erase(self.PREFIX + self.attempt)
            elif self.shown:
                self.out.write("\n")  # after a rewrite note that nothing followed
            if kept:
                self.out.write(f"{self.PREFIX}{kept}\n")
        self.out.flush()
        return bool(kept)

    def _erase(self, shown: str) -> None:
        """Move to the first row ``shown`` took and clear from there down."""
        width = max(1, shutil.get_terminal_size().columns)
        rows = sum(max(1, -(-len(line) // width)) for line in shown.split("\n"))
        self.out.write("\r" + (f"\x1b[{rows - 1}A" if rows > 1 else "") + "\x1b[J")


def run(args: argparse.Namespace, ctx: Context) -> int:
    engine = ctx.engine()
    engine.runner.warm_next_voice = False  # one turn, then the process exits: no warm-up
    if args.new_session:
        engine.reset()
    if ctx.json:
        result = engine.send(args.message).result()
        emit_json(result.as_dict())
        return 0
    printer = ReplyPrinter()
    result = engine.send(args.message, printer.on_update).result()
    if not printer.finish(result.reply):
        print("(Rilai stays quiet this turn)")
    intent = result.state.decision.speech_act.intent if result.state.decision else "-"
    print(
        f"  [turn {result.turn_id} · intent {intent} · {len(result.agents)} agents ·"
        f" {result.total_ms / 1000:.1f} s · `rilai shell` then /why for the details]"
    )
    return 0
