"""`rilai shell`: chat in the terminal. Slash commands show what happened inside.

/help · /status · /stance · /why (the last turn: sensors, agents, claims, consensus,
council decision, critics) · /memory · /reset (a new conversation; memory stays) · /quit.
Works on a pipe as well as a terminal (one message per line).

The daemon runs in-process while the shell is open (docs/daemon.md): its decay acts on
this shell's live stance (never during a turn), and a nudge that reaches the inline level
is printed between prompts — at once when the shell is waiting for you, after the reply
when a turn is running — and joins the conversation, so answering it is a normal turn.
If another process already runs the daemon, the shell says so and goes on without it.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from rilai_desktop.cli.commands import turn_view
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.chat_cmd import stream_printer
from rilai_desktop.errors import RilaiError

if TYPE_CHECKING:
    from rilai_desktop.daemon.ports import Nudge
    from rilai_desktop.daemon.scheduler import DaemonScheduler
    from rilai_desktop.daemon.service import Daemon
    from rilai_desktop.turn.runner import TurnRunner

log = logging.getLogger(__name__)
PROMPT = "you> "

HELP = """commands:
  /help     this list
  /status   session, turns, models, memory
  /stance   Rilai's current stance and modulators
  /why      what happened inside the last turn
  /memory   what was recalled and kept last turn, memory totals
  /reset    start a new conversation (memory stays)
  /quit     leave (Ctrl-D works too)
anything else is a message to Rilai."""


class ShellNudges:
    """The shell's nudge Delivery: prints an inline nudge when it is safe to.

    Safe means the shell is waiting at its prompt and no turn runs: then the nudge is
    printed at once (on a terminal, the prompt is written again after it). Otherwise it
    waits, and ``flush()`` prints it before the next prompt (or before "bye."), so a
    delivered nudge is always shown and never lands inside a streaming reply. Shown
    nudges join the session's history as assistant messages.
    """

    name = "shell"

    def __init__(self, runner: TurnRunner, out: TextIO, *, interactive: bool) -> None:
        self.runner, self.out, self.interactive = runner, out, interactive
        self._lock = threading.Lock()
        self._waiting = False  # the main thread is blocked on input
        self._pending: list[Nudge] = []

    def deliver(self, nudge: Nudge) -> bool:
        with self._lock:
            if self._waiting and not self.runner.running:
                self._show(nudge, reprompt=self.interactive)
            else:
                self._pending.append(nudge)
        return True

    def waiting(self, value: bool) -> None:
        """The main thread is (True) or is no longer (False) blocked on input."""
        with self._lock:
            self._waiting = value

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
            for nudge in pending:
                self._show(nudge, reprompt=False)

    def _show(self, nudge: Nudge, *, reprompt: bool) -> None:
        from rilai_desktop.daemon.delivery import printable

        text = printable(nudge.suggestion)
        lead = "\n" if reprompt else ""
        try:
            self.out.write(f"{lead}Rilai (check-in): {text}\n" + (PROMPT if reprompt else ""))
            self.out.flush()
        except (OSError, ValueError):  # the terminal went away: nothing to show it on
            return
        self.runner.session.add_nudge(text)


def start_daemon(
    ctx: Context, runner: TurnRunner, delivery: ShellNudges, say: Callable[[str], None]
) -> tuple[Daemon, DaemonScheduler] | None:
    """The daemon over this shell's runner, started; None (and a line saying why) when it
    cannot run here (another process runs it, or its store cannot be opened)."""
    from rilai_desktop.app.build import build_daemon
    from rilai_desktop.daemon.scheduler import STORE_FILENAME, DaemonScheduler

    companion = ctx.companion()
    memory = companion.memory
    core = ctx.core()
    daemon = build_daemon(
        core,
        runner=runner,
        delivery=delivery,
        memory=(lambda: memory) if memory is not None else None,
    )
    scheduler = DaemonScheduler(daemon, ctx.paths.data_dir / STORE_FILENAME)
    try:
        scheduler.start()
    except RilaiError as exc:
        daemon.close()
        say(f"(daemon not started here: {exc.message})")
        return None
    except Exception as exc:  # the shell is still useful without its daemon
        log.exception("the daemon did not start")
        daemon.close()
        say(f"(daemon not started: {type(exc).__name__}: {exc})")
        return None
    return daemon, scheduler


def run(args: argparse.Namespace, ctx: Context) -> int:
    return repl(ctx, sys.stdin, sys.stdout)


def repl(ctx: Context, stdin: TextIO, stdout: TextIO, *, daemon: bool = True) -> int:
    interactive = stdin.isatty()
    say: Callable[[str], None] = lambda text: print(text, file=stdout, flush=True)  # noqa: E731
    say("Rilai — local companion. Loading models… (/help for commands)")
    companion = ctx.companion()
    runner = companion.runner
    say(
        f"ready. session {runner.session_id[:8]},"
        f" {len(runner.session.history) // 2} earlier exchanges."
    )
    nudges = ShellNudges(runner, stdout, interactive=interactive)
    running = start_daemon(ctx, runner, nudges, say) if daemon else None
    try:
        return _loop(ctx, stdin, stdout, say, nudges)
    finally:
        if running is not None:
            running[1].shutdown()
            running[0].close()
        nudges.flush()
        say("bye.")


def _loop(
    ctx: Context,
    stdin: TextIO,
    stdout: TextIO,
    say: Callable[[str], None],
    nudges: ShellNudges,
) -> int:
    interactive = stdin.isatty()
    companion = ctx.companion()
    runner = companion.runner
    while True:
        nudges.flush()
        if interactive:
            stdout.write(PROMPT)
            stdout.flush()
        nudges.waiting(True)
        try:
            line = stdin.readline()
        finally:
            nudges.waiting(False)
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
