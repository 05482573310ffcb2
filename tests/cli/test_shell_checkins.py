"""`rilai shell` on start shows what waited for it (issue 31): a check-in lowered by quiet
hours to "shown on next open", once, and the day's digest; both logged seen (NUDGE_SEEN),
so the next start — or the window — does not show them again."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from rilai_desktop.app.checkins import DIGEST_TITLE, CheckIns
from rilai_desktop.cli.commands import shell_cmd
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import FakeClock
from rilai_desktop.daemon.delivery import RecordingDelivery
from tests.checkin_fakes import (
    digest_nudge,
    local_time,
    nudge_engine,
    quiet_hours_nudge,
    strained_message,
)
from tests.cli_runner import Run
from tests.fake_engine import fake_engine_over


@pytest.fixture
def ctx(monkeypatch: pytest.MonkeyPatch) -> Iterator[Context]:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    context = Context.create({}, json=False, debug=False)
    context._engine = fake_engine_over(context.core())
    yield context
    context.close()


def _shell(ctx: Context, clock: FakeClock) -> str:
    stdout = io.StringIO()
    assert shell_cmd.repl(ctx, io.StringIO(""), stdout, daemon=False, clock=clock) == 0
    return stdout.getvalue()


def test_the_shell_shows_a_pending_check_in_once(ctx: Context) -> None:
    log = ctx.engine().parts.core.event_log
    nudge = quiet_hours_nudge(log, local_time(0, "22:40"), None)
    evening = digest_nudge(log, local_time(0, "21:00"), None, "Visa form")
    clock = FakeClock(local_time(1, "07:50"))

    first = _shell(ctx, clock)
    lines = first.splitlines()
    assert f"Rilai (check-in): {nudge.suggestion}" in lines
    assert DIGEST_TITLE + ":" in lines
    assert f"  yesterday 21:00 · {evening.suggestion}" in lines
    assert lines.index(f"Rilai (check-in): {nudge.suggestion}") < lines.index("bye.")
    # it joins the conversation: the next reply answers it
    assert [m["content"] for m in ctx.engine().session.history if m.get("nudge")] == [
        nudge.suggestion
    ]
    (seen,) = log.events(kind=EventKind.NUDGE_SEEN)
    assert seen.payload["client"] == "shell"
    assert seen.payload["digest_day"] == local_time(1, "07:50").date().isoformat()

    clock.advance(600)
    second = _shell(ctx, clock)
    assert nudge.suggestion not in second and DIGEST_TITLE not in second
    assert len(log.events(kind=EventKind.NUDGE_SEEN)) == 1


def test_rilai_nudges_list_no_longer_counts_a_shown_check_in_as_waiting(
    ctx: Context, run: Run
) -> None:
    engine = ctx.engine()
    log = engine.parts.core.event_log
    now = datetime.now(UTC)  # `rilai nudges list` reads the real clock
    strained_message(log, now - timedelta(hours=1))
    failing = RecordingDelivery(ok=False)  # an L3 that could not be delivered waits too
    (nudge,) = nudge_engine(log, now, None, delivery=failing).run(now)
    waiting = run("nudges", "list", "--json").json()["pending"]
    assert [n["suggestion"] for n in waiting] == [nudge.suggestion]

    checkins = CheckIns(engine, "shell")
    assert checkins.mark_seen(checkins.open()) is not None
    assert run("nudges", "list", "--json").json()["pending"] == []
