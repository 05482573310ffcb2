"""Delivery: console, notify-send (with fakes for `which` and `run`), and the recorder."""

from __future__ import annotations

import io
import subprocess
from dataclasses import dataclass, field
from typing import Any

from rilai_desktop.daemon.delivery import (
    ConsoleDelivery,
    NotifySendDelivery,
    RecordingDelivery,
    default_delivery,
    printable,
)
from rilai_desktop.daemon.ports import Delivery, Nudge
from tests.daemon.nudge_fakes import at


def nudge(level: int = 4, text: str = "“Report” is due soon. Anything I can help with?") -> Nudge:
    return Nudge("deadline:g:now", "due in 1 h", text, level, {}, at("10:00"))


@dataclass
class FakeRun:
    """Stands in for subprocess.run: records argv, returns a code or raises."""

    returncode: int = 0
    raises: BaseException | None = None
    calls: list[list[str]] = field(default_factory=list)

    def __call__(self, argv: list[str], **kwargs: Any) -> Any:
        self.calls.append(argv)
        assert kwargs["timeout"] > 0 and kwargs["check"] is False
        if self.raises is not None:
            raise self.raises
        return subprocess.CompletedProcess(argv, self.returncode)


def test_every_delivery_satisfies_the_port() -> None:
    for d in (ConsoleDelivery(io.StringIO()), NotifySendDelivery(), RecordingDelivery()):
        assert isinstance(d, Delivery)
    assert isinstance(default_delivery(io.StringIO()), NotifySendDelivery)


def test_console_prints_one_framed_line() -> None:
    out = io.StringIO()
    assert ConsoleDelivery(out).deliver(nudge(3))
    line = out.getvalue()
    assert line.count("\n") == 1
    assert line.startswith("── Rilai · L3 ─ ") and "“Report” is due soon" in line


def test_console_strips_terminal_control_characters() -> None:
    out = io.StringIO()
    ConsoleDelivery(out).deliver(nudge(3, "hi \x1b[2J\x1b]0;pwned\x07 there\nnext\u202e"))
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert text.count("\n") == 1


def test_console_on_a_closed_stream_is_not_delivered() -> None:
    out = io.StringIO()
    out.close()
    assert ConsoleDelivery(out).deliver(nudge(3)) is False


def test_notify_send_for_l4_with_markup_escaped() -> None:
    run = FakeRun()
    console = RecordingDelivery()
    d = NotifySendDelivery(console, which=lambda _n: "/usr/bin/notify-send", run=run)
    assert d.deliver(nudge(4, "<b>Report</b> & co"))
    (argv,) = run.calls
    assert argv[0] == "/usr/bin/notify-send" and "--app-name=Rilai" in argv
    assert argv[-1] == "&lt;b&gt;Report&lt;/b&gt; &amp; co"
    assert console.delivered == []


def test_l3_is_inline_never_a_notification() -> None:
    run = FakeRun()
    console = RecordingDelivery()
    d = NotifySendDelivery(console, which=lambda _n: "/usr/bin/notify-send", run=run)
    assert d.deliver(nudge(3))
    assert run.calls == [] and len(console.delivered) == 1


def test_falls_back_to_the_console_without_notify_send() -> None:
    console = RecordingDelivery()
    d = NotifySendDelivery(console, which=lambda _n: None, run=FakeRun())
    assert d.deliver(nudge(4)) and len(console.delivered) == 1


def test_falls_back_when_notify_send_fails() -> None:
    for run in (
        FakeRun(returncode=1),
        FakeRun(raises=OSError("no dbus")),
        FakeRun(raises=subprocess.TimeoutExpired("notify-send", 5)),
    ):
        console = RecordingDelivery()
        d = NotifySendDelivery(console, which=lambda _n: "/usr/bin/notify-send", run=run)
        assert d.deliver(nudge(4))
        assert len(run.calls) == 1 and len(console.delivered) == 1


def test_recording_delivery() -> None:
    ok, failing = RecordingDelivery(), RecordingDelivery(ok=False)
    assert ok.deliver(nudge()) and ok.delivered[0].level == 4
    assert not failing.deliver(nudge()) and failing.delivered == [] and failing.attempts == 1


def test_printable() -> None:
    assert printable("a\tb\n\nc\x00d\u200b") == "a b cd"
