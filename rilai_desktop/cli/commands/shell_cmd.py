"""`rilai shell`: chat in the terminal. Slash commands show what happened inside.

/help · /status · /stance · /why (the last turn: sensors, agents, claims, consensus,
council decision, critics) · /memory · /reset (a new conversation; memory stays) · /quit.
Works on a pipe as well as a terminal (one message per line). Ctrl-C while Rilai answers
stops that reply (the turn is logged as cancelled) and keeps the shell open.

The shell is one client of the Engine (``app/engine.py``): each message is ``send(text)``.

The daemon runs in-process while the shell is open (docs/daemon.md): its decay acts on
this shell's live stance (never during a turn), and a nudge that reaches the inline level
is printed between prompts — at once when the shell is waiting for you, after the reply
when a turn is running — and joins the conversation, so answering it is a normal turn.
If another process already runs the daemon, the shell says so and goes on without it.

On start the shell shows what waited for it (``app/checkins.py``): the check-ins lowered
to "shown on next open" (quiet hours, or not delivered), each once, and on the first open
of the day the daily digest; then it logs them seen (NUDGE_SEEN), so neither the shell
nor the window shows them again.
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from rilai_desktop.app.slash_commands import help_lines
from rilai_desktop.cli.commands import turn_view
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.chat_cmd import ReplyPrinter
from rilai_desktop.errors import RilaiError
from rilai_desktop.turn.runner import TurnCancelled

if TYPE_CHECKING:
    from rilai_desktop.app.engine import Engine
    from rilai_desktop.contracts.clock import Clock
    from rilai_desktop.daemon.ports import Nudge
    from rilai_desktop.turn.runner import TurnRunner

log = logging.getLogger(__name__)
PROMPT = "you> "

HELP = "\n".join(
    [
        "commands:",
        *help_lines("shell"),
        "  (Ctrl-D leaves too)",
        "anything else is a message to Rilai.",
    ]
)


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

    def show_now(self, nudge: Nudge) -> None:
        """Print ``nudge`` now (the caller knows no turn runs: the shell is starting)."""
        with self._lock:
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


def start_daemon(engine: Engine, delivery: ShellNudges, say: Callable[[str], None]) -> bool:
    """The daemon over this shell's engine, started; False (and a line saying why) when it
    cannot run here (another process runs it, or its store cannot be opened)."""
    try:
        engine.start_daemon(delivery)
    except RilaiError as exc:
        say(f"(daemon not started here: {exc.message})")
        return False
    except Exception as exc:  # the shell is still useful without its daemon
        log.exception("the daemon did not start")
        say(f"(daemon not started: {type(exc).__name__}: {exc})")
        return False
    return True


def show_checkins(
    engine: Engine, nudges: ShellNudges, say: Callable[[str], None], clock: Clock | None = None
) -> int:
    """What waited for the next open, and the day's first digest, printed once and logged
    seen; how many check-ins were shown. A failure is logged and the shell goes on."""
    from rilai_desktop.app.checkins import DIGEST_TITLE, CheckIns, when_words
    from rilai_desktop.daemon.delivery import printable

    checkins = CheckIns(engine, "shell", clock=clock)
    try:
        opened = checkins.open()
        for nudge in opened.pending:
            nudges.show_now(nudge)
        if opened.digest:
            say(DIGEST_TITLE + ":")
            for nudge in opened.digest:
                say(f"  {when_words(nudge.at, opened.at)} · {printable(nudge.suggestion)}")
        checkins.mark_seen(opened)
    except Exception:  # the shell is still useful without them: they wait for the next open
        log.exception("the check-ins that waited could not be shown")
        return 0
    return len(opened.pending) + len(opened.digest)


def run(args: argparse.Namespace, ctx: Context) -> int:
    return repl(ctx, sys.stdin, sys.stdout)


def repl(
    ctx: Context,
    stdin: TextIO,
    stdout: TextIO,
    *,
    daemon: bool = True,
    clock: Clock | None = None,
) -> int:
    """The shell over ``ctx``'s engine; ``clock`` is what the check-ins on start read
    (tests: a FakeClock; default the system's)."""
    interactive = stdin.isatty()
    say: Callable[[str], None] = lambda text: print(text, file=stdout, flush=True)  # noqa: E731
    say("Rilai — local companion. Loading models… (/help for commands)")
    engine = ctx.engine()
    say(
        f"ready. session {engine.session_id[:8]},"
        f" {len(engine.session.history) // 2} earlier exchanges."
    )
    nudges = ShellNudges(engine.runner, stdout, interactive=interactive)
    show_checkins(engine, nudges, say, clock)
    if daemon:
        start_daemon(engine, nudges, say)
    try:
        return _loop(engine, stdin, stdout, say, nudges)
    finally:
        engine.stop_daemon()
        nudges.flush()
        say("bye.")


def _loop(
    engine: Engine,
    stdin: TextIO,
    stdout: TextIO,
    say: Callable[[str], None],
    nudges: ShellNudges,
) -> int:
    interactive = stdin.isatty()
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
            say(_status(engine))
        elif command == "/stance":
            s = engine.session
            say(turn_view.stance(s.stance.to_dict(), s.modulators.to_dict()))
        elif command == "/why":
            last = engine.last_result
            say(turn_view.why(last) if last else "no turn yet in this shell")
        elif command == "/memory":
            stats = engine.memory.stats().model_dump() if engine.memory.available else None
            say(turn_view.memory_summary(engine.last_result, stats))
        elif command == "/reset":
            sid = engine.reset()
            say(f"new conversation ({sid[:8]}); what Rilai remembers about you stays.")
        elif command.startswith("/"):
            say(f"unknown command {command!r}; /help lists them")
        else:
            printer = ReplyPrinter(stdout)
            handle = engine.send(text, printer.on_update)
            try:
                result = handle.result()
            except KeyboardInterrupt:  # Ctrl-C stops this reply, not the shell
                handle.cancel()
                handle.wait()
                say("\n(stopped)")
                continue
            except TurnCancelled:
                say("\n(stopped)")
                continue
            if not printer.finish(result.reply):
                say("(Rilai stays quiet)")
            stdout.flush()
    return 0


def _status(engine: Engine) -> str:
    lines = [
        f"session {engine.session_id}",
        f"turns in this session: {engine.turns_in_session()}",
        f"models loaded: {', '.join(engine.loaded_models()) or 'none yet'}",
    ]
    if engine.memory.available:
        st = engine.memory.stats()
        lines.append(f"memory: {st.total_items} items, {st.total_resources} resources")
    return "\n".join(lines)
