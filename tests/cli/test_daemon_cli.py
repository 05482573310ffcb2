"""`rilai daemon run|status|maintenance` and `rilai bench daemon`, in-process."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from rilai_desktop.app.core import build_core
from rilai_desktop.app.daemon_state import LogEventSink, LogLiveState
from rilai_desktop.app.engine import Engine, EngineParts
from rilai_desktop.cli.commands import shell_cmd
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.shell_cmd import ShellNudges
from rilai_desktop.config import Settings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import SystemClock
from rilai_desktop.daemon.jobs import (
    MAINTENANCE_JOB,
    STORE_FILENAME,
    TICK_JOB,
    DaemonScheduler,
    running_daemon_pid,
    stored_jobs,
)
from rilai_desktop.daemon.ports import Nudge
from rilai_desktop.daemon.service import Daemon
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM
from rilai_desktop.paths import resolve_paths
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from tests.cli_runner import Run
from tests.turn.conftest import AGENT_REPLY, PROMPTS, StubRouter

# a reply the critics keep as it is (tests/turn/conftest.py's VOICE_REPLY is replaced by
# a fallback for these messages, and the terminal prints what was kept)
VOICE_REPLY = "That sounds like a full day. How are you feeling about it now?"


def _seed_stress() -> None:
    core = build_core(resolve_paths(), Settings())
    try:
        core.event_log.append(
            "s1",
            1,
            EventKind.STANCE_UPDATED,
            {"delta": {}, "current": {"strain": 0.9}},
            ts_wall=datetime(2026, 1, 1, tzinfo=UTC),
        )
    finally:
        core.close()


def test_daemon_run_prints_json_lines_and_stops(run: Run) -> None:
    _seed_stress()
    result = run("daemon", "run", "--interval", "0.2", "--seconds", "1", "--json")
    assert result.code == 0, result
    lines = [json.loads(line) for line in result.out.splitlines()]
    kinds = [line.get("kind") for line in lines[:-1]]
    assert kinds[0] == "daemon_tick" and "modulators_decayed" in kinds
    assert all(line["turn_id"] == 0 and line["session_id"] == "s1" for line in lines[:-1])
    summary = lines[-1]["summary"]
    assert summary["stopped"] == "done" and summary["events"]["daemon_tick"] >= 2


def test_daemon_run_for_people_then_status(run: Run) -> None:
    _seed_stress()
    before = run("daemon", "status")
    assert before.code == 0 and "not running" in before.out and "no jobs" in before.out
    result = run("daemon", "run", "--interval", "0.3", "--seconds", "0.8")
    assert result.code == 0, result
    assert "a tick every 0.3 s" in result.out
    assert "  tick" in result.out and "decay over" in result.out and "strain 0.900→" in result.out
    assert "stopped (done)" in result.out
    status = run("daemon", "status")
    assert "rilai.daemon.tick" in status.out and "rilai.daemon.maintenance" in status.out
    assert "last tick:" in status.out and "never" not in status.out
    data = run("daemon", "status", "--json").json()
    assert data["running"] is False and data["last_tick"] is not None
    assert {job["id"] for job in data["jobs"]} == {"rilai.daemon.tick", "rilai.daemon.maintenance"}


def test_daemon_run_refuses_bad_intervals(run: Run) -> None:
    for flag, value in (("--interval", "0"), ("--interval", "nan"), ("--seconds", "-3")):
        result = run("daemon", "run", flag, value)
        assert result.code == 2 and "RIL-069" in result.err and flag in result.err


def test_a_second_daemon_on_the_same_data_is_refused(run: Run) -> None:
    core = build_core(resolve_paths(), Settings())
    clock = SystemClock()
    sink = LogEventSink(core.event_log)
    state = LogLiveState(core.event_log, clock)
    daemon = Daemon(clock, sink, state, Settings(), session_id=sink.session_id)
    scheduler = DaemonScheduler(daemon, core.paths.data_dir / STORE_FILENAME)
    scheduler.start()
    try:
        result = run("daemon", "run", "--seconds", "1")
        assert result.code == 2 and "already running" in result.err
        assert run("daemon", "status", "--json").json()["running"] is True
    finally:
        scheduler.shutdown()
        core.close()


def test_maintenance_dry_run_changes_nothing(run: Run) -> None:
    data = run("daemon", "maintenance", "--dry-run", "--json").json()
    assert data["dry_run"] is True
    assert {s["status"] for s in data["steps"].values()} == {"planned"}
    text = run("daemon", "maintenance", "--dry-run")
    assert text.code == 0 and "dry run" in text.out and "backup" in text.out


def test_maintenance_runs_a_pass(run: Run) -> None:
    result = run("--set", "embedding.backend=hash", "daemon", "maintenance", "--json")
    data = result.json()
    assert data["dry_run"] is False and "backup" in data["steps"]
    assert result.code == (0 if data["ok"] else 1)


def test_bench_daemon_passes_the_bar(run: Run) -> None:
    result = run("bench", "daemon", "--hours", "0.5", "--repeats", "1", "--json")
    data = result.json()
    assert result.code == 0 and data["pass"] is True
    assert data["ticks"] == 30 and data["events"]["daemon_tick"] == 30
    assert data["ours"]["pct_of_one_core"] < 1.0 and data["ratio"] > 0
    assert data["scheduler"]["ticks"] > 0 and data["tick_errors"] == 0


# ── the daemon inside `rilai shell` ────────────────────────────────────────
@pytest.fixture
def ctx() -> Iterator[Context]:
    context = Context.create({}, json=False, debug=False)
    log = context.event_log()
    models = RoleModels(
        ScriptedLLM(default=VOICE_REPLY),
        {
            "agents": ScriptedLLM(default=AGENT_REPLY),
            "council": ScriptedLLM(default={"intent": "observe", "tone": "warm"}),
        },
    )
    runner = build_turn_runner(
        events=log, models=models, memory=InMemoryTurnMemory(), prompts=PROMPTS, use_judge=False
    )
    context._engine = Engine(EngineParts(context.core(), StubRouter(), None, runner))
    yield context
    context.close()


def _nudge(text: str, level: int = 3) -> Nudge:
    return Nudge("strain_silence", "strain then silence", text, level, {}, datetime.now(UTC))


def test_shell_nudges_print_at_the_prompt_and_join_the_conversation(ctx: Context) -> None:
    runner = ctx.engine().runner
    out = io.StringIO()
    nudges = ShellNudges(runner, out, interactive=True)
    assert nudges.deliver(_nudge("Busy day?"))  # not at the prompt: kept for later
    assert out.getvalue() == ""
    nudges.flush()
    assert out.getvalue() == "Rilai (check-in): Busy day?\n"
    nudges.waiting(True)
    assert nudges.deliver(_nudge("How are you \x1b[31mholding up?"))  # at the prompt: at once
    assert out.getvalue().endswith("\nRilai (check-in): How are you [31mholding up?\nyou> ")
    with runner.turn_lock:  # a turn is running: wait for it
        nudges.deliver(_nudge("Later, then."))
    assert "Later" not in out.getvalue()
    nudges.waiting(False)
    nudges.flush()
    assert out.getvalue().endswith("Rilai (check-in): Later, then.\n")
    shown = [m["content"] for m in runner.session.history if m.get("nudge")]
    assert shown == ["Busy day?", "How are you [31mholding up?", "Later, then."]


def test_the_shell_runs_the_daemon_and_stops_it_on_exit(ctx: Context) -> None:
    db = ctx.paths.data_dir / STORE_FILENAME
    stdout = io.StringIO()
    assert shell_cmd.repl(ctx, io.StringIO("Hello there.\n/stance\n"), stdout) == 0
    text = stdout.getvalue()
    assert "Rilai: " + VOICE_REPLY in text and text.rstrip().endswith("bye.")
    assert "daemon not started" not in text
    assert running_daemon_pid(db) is None  # shut down with the shell
    assert {job.id for job in stored_jobs(db)} == {TICK_JOB, MAINTENANCE_JOB}
    # its daemon events (the first tick runs at start) belong to the shell's session
    sid = ctx.engine().runner.session_id
    assert all(t.session_id == sid for t in ctx.event_log().events(kind=EventKind.DAEMON_TICK))


def test_the_shell_goes_on_without_a_daemon_another_process_runs(ctx: Context) -> None:
    log = ctx.event_log()
    clock = SystemClock()
    sink = LogEventSink(log)
    daemon = Daemon(clock, sink, LogLiveState(log, clock), Settings(), session_id=sink.session_id)
    scheduler = DaemonScheduler(daemon, ctx.paths.data_dir / STORE_FILENAME)
    scheduler.start()
    try:
        stdout = io.StringIO()
        assert shell_cmd.repl(ctx, io.StringIO("Hi.\n"), stdout) == 0
        assert "daemon not started here: Another Rilai daemon" in stdout.getvalue()
        assert "Rilai: " + VOICE_REPLY in stdout.getvalue()
    finally:
        scheduler.shutdown()
