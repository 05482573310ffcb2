"""The Delivery port (daemon/ports.py, daemon/delivery.py): the console, notify-send (with
a stand-in binary, and the real one where it is installed) and the recording fake."""

from __future__ import annotations

import io
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from rilai_desktop.daemon.delivery import (
    ConsoleDelivery,
    NotifySendDelivery,
    RecordingDelivery,
)
from rilai_desktop.daemon.ports import Delivery, Nudge

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def nudge(level: int, suggestion: str = "Maybe a short walk?") -> Nudge:
    return Nudge("fatigue", "long sitting", suggestion, level, {}, AT)


@dataclass
class FakeRun:
    """``subprocess.run`` stand-in: records argv, answers ``returncode`` or raises."""

    returncode: int = 0
    raises: bool = False
    calls: list[list[str]] = field(default_factory=list)

    def __call__(self, argv: list[str], **kw: Any) -> Any:
        self.calls.append(argv)
        if self.raises:
            raise subprocess.TimeoutExpired(argv, kw.get("timeout", 0))
        return subprocess.CompletedProcess(argv, self.returncode)


@dataclass
class Impl:
    delivery: Delivery
    shown: Callable[[], str]  # what reached the person, as text


def _console() -> Impl:
    out = io.StringIO()
    return Impl(ConsoleDelivery(out), out.getvalue)


def _notify_send_standin() -> Impl:
    out, run = io.StringIO(), FakeRun()
    d = NotifySendDelivery(ConsoleDelivery(out), which=lambda _: "/usr/bin/notify-send", run=run)
    return Impl(d, lambda: out.getvalue() + "".join(" ".join(c) for c in run.calls))


def _notify_send_missing() -> Impl:
    out = io.StringIO()
    d = NotifySendDelivery(ConsoleDelivery(out), which=lambda _: None, run=FakeRun())
    return Impl(d, out.getvalue)


def _notify_send_real() -> Impl:
    if shutil.which("notify-send") is None:
        pytest.skip("notify-send is not installed here")
    out = io.StringIO()  # where there is no session bus it falls back to this console
    return Impl(NotifySendDelivery(ConsoleDelivery(out)), out.getvalue)


def _recording() -> Impl:
    rec = RecordingDelivery()
    return Impl(rec, lambda: "\n".join(n.suggestion for n in rec.delivered))


WORKING: dict[str, Callable[[], Impl]] = {
    "console": _console,
    "notify-send-standin": _notify_send_standin,
    "notify-send-missing": _notify_send_missing,
    "notify-send-real": _notify_send_real,
    "recording": _recording,
}


def _closed_console() -> Delivery:
    out = io.StringIO()
    out.close()
    return ConsoleDelivery(out)


BROKEN: dict[str, Callable[[], Delivery]] = {
    "console-closed": _closed_console,
    "notify-send-fails-then-console-closed": lambda: NotifySendDelivery(
        _closed_console(), which=lambda _: "/x/notify-send", run=FakeRun(returncode=1)
    ),
    "notify-send-times-out-then-console-closed": lambda: NotifySendDelivery(
        _closed_console(), which=lambda _: "/x/notify-send", run=FakeRun(raises=True)
    ),
    "recording-not-ok": lambda: RecordingDelivery(ok=False),
}


@pytest.fixture(params=list(WORKING))
def impl(request: pytest.FixtureRequest) -> Impl:
    return WORKING[request.param]()


def test_it_is_a_delivery_with_a_name(impl: Impl) -> None:
    """The engine records ``name`` in the nudge's context."""
    assert isinstance(impl.delivery, Delivery)
    assert isinstance(impl.delivery.name, str) and impl.delivery.name


@pytest.mark.parametrize("level", [3, 4])
def test_inline_and_notification_nudges_are_delivered(impl: Impl, level: int) -> None:
    assert impl.delivery.deliver(nudge(level)) is True
    assert "Maybe a short walk?" in impl.shown()


def test_the_same_nudge_may_be_delivered_again(impl: Impl) -> None:
    assert impl.delivery.deliver(nudge(3)) is True
    assert impl.delivery.deliver(nudge(3)) is True


@pytest.mark.parametrize("name", [n for n in WORKING if n != "recording"])
def test_a_channel_shows_no_control_characters(name: str) -> None:
    if name == "notify-send-real" and shutil.which("notify-send") is None:
        pytest.skip("notify-send is not installed here")
    impl = WORKING[name]()
    assert impl.delivery.deliver(nudge(4, "Finish \x1b[31mthe\x1b[0m report\x07")) is True
    shown = impl.shown()
    assert "\x1b" not in shown and "\x07" not in shown
    assert "Finish" in shown and "report" in shown


@pytest.mark.parametrize("name", list(BROKEN))
@pytest.mark.parametrize("level", [3, 4])
def test_a_failed_delivery_says_false_and_never_raises(name: str, level: int) -> None:
    delivery = BROKEN[name]()
    assert delivery.deliver(nudge(level)) is False
