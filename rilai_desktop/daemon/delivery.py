"""Delivery: how a nudge that reaches L3 (inline) or L4 (notification) is shown.

Delivery is a port (``ports.Delivery``): the desktop window's tray implements it in its
own issue. Here:

- :class:`ConsoleDelivery` prints one short framed line (``rilai daemon run``, headless);
- :class:`NotifySendDelivery` sends L4 through ``notify-send`` where it exists and shows
  L3 (inline) — or anything ``notify-send`` could not deliver — on the console;
- :class:`RecordingDelivery` records what it was given (tests, the simulator).

The text is the person's own goal titles inside our templates, so every delivery strips
control characters (a title must not be able to move the cursor or recolour a terminal),
and notify-send's body, which understands a little markup, gets it escaped.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TextIO

from rilai_desktop.daemon.ports import Delivery, Nudge

NOTIFY_TIMEOUT_S: Final = 5.0
APP_NAME: Final = "Rilai"


def printable(text: str) -> str:
    """``text`` with control/format characters dropped and whitespace runs as one space."""
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf", "Cs")
    )
    return " ".join(kept.split())


class ConsoleDelivery:
    """Prints ``── Rilai · L3 ─ <suggestion>`` to a stream (stdout by default)."""

    name = "console"

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    def deliver(self, nudge: Nudge) -> bool:
        stream = self._stream if self._stream is not None else sys.stdout
        try:
            stream.write(f"── {APP_NAME} · L{nudge.level} ─ {printable(nudge.suggestion)}\n")
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: not delivered
            return False
        return True


Runner = Callable[..., Any]


class NotifySendDelivery:
    """A desktop notification through ``notify-send`` for L4; the console otherwise.

    ``which`` and ``run`` are injectable (tests pass small fakes): ``which("notify-send")``
    finds the binary, ``run(argv, timeout=..., check=False, capture_output=True)`` runs it.
    """

    name = "notify-send"

    def __init__(
        self,
        fallback: Delivery | None = None,
        *,
        which: Callable[[str], str | None] = shutil.which,
        run: Runner = subprocess.run,
    ) -> None:
        self.fallback: Delivery = fallback if fallback is not None else ConsoleDelivery()
        self._which = which
        self._run = run

    def argv(self, binary: str, nudge: Nudge) -> list[str]:
        body = html.escape(printable(nudge.suggestion), quote=False)
        return [binary, f"--app-name={APP_NAME}", "--urgency=normal", APP_NAME, body]

    def deliver(self, nudge: Nudge) -> bool:
        if nudge.level >= 4:
            binary = self._which("notify-send")
            if binary and self._notify(self.argv(binary, nudge)):
                return True
        return self.fallback.deliver(nudge)

    def _notify(self, argv: Sequence[str]) -> bool:
        try:
            done = self._run(list(argv), timeout=NOTIFY_TIMEOUT_S, check=False, capture_output=True)
        except (OSError, subprocess.SubprocessError):
            return False
        return getattr(done, "returncode", 1) == 0


@dataclass
class RecordingDelivery:
    """A fake: records every nudge; ``ok=False`` makes every delivery fail."""

    ok: bool = True
    name: str = "recording"
    delivered: list[Nudge] = field(default_factory=list)
    attempts: int = 0

    def deliver(self, nudge: Nudge) -> bool:
        self.attempts += 1
        if self.ok:
            self.delivered.append(nudge)
        return self.ok


def default_delivery(stream: TextIO | None = None) -> Delivery:
    """notify-send where it exists (L4), the console for the rest."""
    return NotifySendDelivery(ConsoleDelivery(stream))
