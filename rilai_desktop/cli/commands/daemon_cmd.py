"""`rilai daemon run|status|maintenance` (docs/daemon.md).

rilai daemon run [--interval S] [--seconds N] [--json]
    the daemon headless: ticks, decay, nudges and maintenance on the real scheduler,
    each daemon event printed as it is appended (JSON Lines with --json); Ctrl-C (or
    SIGTERM, or --seconds) stops it cleanly, waiting for a running job.
rilai daemon status [--json]
    its jobs and their next run times, whether a process runs them now, the last tick.
rilai daemon maintenance [--dry-run] [--json]
    one maintenance pass now (--dry-run: say what each step would do, do nothing).
"""

from __future__ import annotations

import json
import math
import signal
import sys
import threading
from argparse import Namespace
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TextIO

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.daemon.errors import DaemonError
from rilai_desktop.daemon.jobs import (
    STORE_FILENAME,
    DaemonScheduler,
    running_daemon_pid,
    stored_jobs,
)
from rilai_desktop.daemon.maintenance import Maintenance

SHOWN_DELTA = 0.0005  # decay lines list the dimensions that moved at least this much


def _local(ts: datetime) -> str:
    return ts.astimezone().strftime("%H:%M:%S")


def _moves(payload: dict[str, Any]) -> str:
    moved: list[tuple[float, str]] = []
    for group in ("stance", "modulators"):
        changes = payload.get(group)
        if not isinstance(changes, dict):
            continue
        for name, change in changes.items():
            if not isinstance(change, dict):
                continue
            before, after = change.get("before"), change.get("after")
            if not (isinstance(before, int | float) and isinstance(after, int | float)):
                continue
            if abs(after - before) >= SHOWN_DELTA:
                label = name if group == "stance" else f"{name}(mod)"
                moved.append((abs(after - before), f"{label} {before:.3f}→{after:.3f}"))
    moved.sort(key=lambda m: -m[0])
    return ", ".join(text for _, text in moved[:5]) or "nothing visible"


def describe(event: EngineEvent) -> str:
    """One human line for a daemon event."""
    p = event.payload
    when = _local(event.ts_wall)
    if event.kind is EventKind.DAEMON_TICK:
        return f"{when}  tick"
    if event.kind is EventKind.MODULATORS_DECAYED:
        elapsed = p.get("elapsed_s", 0)
        span = f"{elapsed:.0f} s" if isinstance(elapsed, int | float) else "?"
        return f"{when}  decay over {span}: {_moves(p)}"
    if event.kind is EventKind.PROACTIVE_NUDGE:
        context = p.get("context")
        seen = isinstance(context, dict) and context.get("delivered") is True
        delivered = " delivered" if seen else ""
        return (
            f"{when}  nudge L{p.get('level')}{delivered} ({p.get('reason')}): {p.get('suggestion')}"
        )
    if event.kind is EventKind.ERROR:
        return f"{when}  ERROR {p.get('error')}"
    return f"{when}  {event.kind.value} {json.dumps(p, default=str)[:160]}"


def _positive(value: float | None, flag: str, upper: float) -> float | None:
    if value is None:
        return None
    if not math.isfinite(value) or not (0 < value <= upper):
        raise DaemonError(
            f"{flag} must be a number of seconds above 0 and at most {upper:g}, got {value!r}",
            recovery_suggestions=[f"Example: rilai daemon run {flag} 5"],
        )
    return value


class _Printer:
    """Prints each daemon event from the scheduler's thread, one whole line at a time."""

    def __init__(self, as_json: bool, out: TextIO) -> None:
        self.as_json, self.out = as_json, out
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}

    def __call__(self, event: EngineEvent) -> None:
        line = (
            json.dumps(event.model_dump(mode="json"), ensure_ascii=False)
            if self.as_json
            else describe(event)
        )
        with self.lock:
            self.counts[event.kind.value] = self.counts.get(event.kind.value, 0) + 1
            self.out.write(line + "\n")
            self.out.flush()


def _wait(stop: threading.Event, seconds: float | None) -> bool:
    """Wait for ``stop`` or ``seconds``; True when Ctrl-C ended it."""
    deadline = None if seconds is None else datetime.now(UTC).timestamp() + seconds
    try:
        while not stop.is_set():
            left = 0.5 if deadline is None else deadline - datetime.now(UTC).timestamp()
            if left <= 0:
                return False
            stop.wait(min(0.5, left))
    except KeyboardInterrupt:
        return True
    return False


def _on_sigterm(stop: threading.Event) -> Callable[[], None]:
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def run_daemon(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.app.build import build_daemon
    from rilai_desktop.daemon.delivery import default_delivery

    interval = _positive(getattr(args, "interval", None), "--interval", 86400)
    seconds = _positive(getattr(args, "seconds", None), "--seconds", 10 * 365 * 86400)
    core = ctx.core()
    out = sys.stdout
    daemon = build_daemon(
        core,
        delivery=default_delivery(sys.stderr if ctx.json else out),
        memory=lambda: ctx.memory(),
    )
    printer = _Printer(ctx.json, out)
    # what the daemon (and the maintenance it runs on memory) logs, from the log itself:
    # the same feed the Engine's bus is
    unsubscribe = core.event_log.add_listener(printer)
    scheduler = DaemonScheduler(daemon, ctx.paths.data_dir / STORE_FILENAME, tick_seconds=interval)
    stop = threading.Event()
    restore_signal = _on_sigterm(stop)
    interrupted = False
    try:
        scheduler.start()
        if scheduler.recovered is not None:
            print(
                f"note: an unreadable scheduler store was moved to {scheduler.recovered}",
                file=sys.stderr,
            )
        if not ctx.json:
            every = scheduler.tick_seconds
            print(
                f"Rilai daemon: a tick every {every:g} s, maintenance every "
                f"{scheduler.maintenance_hours:g} h"
                + (f", for {seconds:g} s" if seconds else "")
                + "; Ctrl-C stops it.",
                file=out,
                flush=True,
            )
        interrupted = _wait(stop, seconds)
    finally:
        scheduler.shutdown()
        unsubscribe()
        restore_signal()
        daemon.close()
    summary = {"stopped": "interrupted" if interrupted else "done", "events": printer.counts}
    if ctx.json:
        out.write(json.dumps({"summary": summary}) + "\n")
    else:
        counts = ", ".join(f"{n} {k}" for k, n in sorted(printer.counts.items())) or "no events"
        print(f"stopped ({summary['stopped']}): {counts}.", file=out)
    return 0


def _span(seconds: float) -> str:
    span = abs(seconds)
    if span < 120:
        return f"{span:.3g} s"
    if span < 7200:
        return f"{span / 60:.0f} min"
    return f"{span / 3600:.3g} h"


def _ago(moment: datetime | None, now: datetime) -> str:
    if moment is None:
        return "-"
    delta = (moment - now).total_seconds()
    return f"in {_span(delta)}" if delta >= 0 else f"{_span(delta)} ago"


def _next(moment: datetime | None, now: datetime, running: bool) -> str:
    if moment is not None and moment < now and not running:
        return "due: one catch-up run at the next start"
    return _ago(moment, now)


def status(args: Namespace, ctx: Context) -> int:
    db = ctx.paths.data_dir / STORE_FILENAME
    jobs = stored_jobs(db)
    pid = running_daemon_pid(db)
    log = ctx.event_log()
    last = log.events(kind=EventKind.DAEMON_TICK, limit=1, newest_first=True)
    last_tick = last[0].ts_wall.astimezone(UTC) if last else None
    settings = ctx.loaded.settings
    now = datetime.now(UTC)
    data = {
        "running": pid is not None,
        "pid": pid,
        "store": str(db),
        "tick_seconds": settings.daemon.tick_seconds,
        "maintenance_hours": settings.daemon.maintenance_hours,
        "nudges_enabled": settings.nudges.enabled,
        "last_tick": last_tick.isoformat() if last_tick else None,
        "jobs": [job.as_dict() for job in jobs],
    }
    if ctx.json:
        emit_json(data)
        return 0
    print(f"daemon: {'running (pid ' + str(pid) + ')' if pid else 'not running'}")
    when = f"{_local(last_tick)} ({_ago(last_tick, now)})" if last_tick else "never"
    print(f"last tick: {when}")
    if not jobs:
        print("no jobs stored yet: `rilai daemon run` or `rilai shell` creates them.")
        return 0
    rows = [
        (
            job.id,
            "-" if job.interval_s is None else _span(job.interval_s),
            job.next_run.astimezone().strftime("%Y-%m-%d %H:%M:%S") if job.next_run else "paused",
            _next(job.next_run, now, pid is not None),
        )
        for job in jobs
    ]
    print(table(rows, ["job", "every", "next run (local)", ""]))
    return 0


def maintenance(args: Namespace, ctx: Context) -> int:
    from rilai_desktop.app.build import build_daemon

    core = ctx.core()
    daemon = build_daemon(core, memory=lambda: ctx.memory())
    try:
        if daemon.maintenance is None:
            raise DaemonError("Maintenance is not available in this build")
        if args.dry_run:
            if not isinstance(daemon.maintenance, Maintenance):
                raise DaemonError("This maintenance runner has no dry run")
            report = daemon.maintenance.run(daemon.clock.now(), dry_run=True)
        else:
            report = daemon.maintenance_pass()
    finally:
        daemon.close()
    if ctx.json:
        emit_json(report)
        return 0 if report.get("ok", "error" not in report) else 1
    steps = report.get("steps")
    if not isinstance(steps, dict):
        print(json.dumps(report, indent=2, default=str))
        return 1 if "error" in report else 0
    rows = []
    for name, step in steps.items():
        detail = step.get("what") or step.get("reason") or step.get("error") or step.get("result")
        rows.append((name, step.get("status"), str(detail)[:90], step.get("ms", "")))
    title = "maintenance (dry run: nothing was changed)" if args.dry_run else "maintenance"
    print(f"{title} at {_local(datetime.fromisoformat(report['at']))}")
    print(table(rows, ["step", "status", "detail", "ms"]))
    return 0 if report.get("ok", True) else 1


def run(args: Namespace, ctx: Context) -> int:
    action = args.daemon_command
    if action == "run":
        return run_daemon(args, ctx)
    if action == "status":
        return status(args, ctx)
    if action == "maintenance":
        return maintenance(args, ctx)
    raise DaemonError(f"unknown daemon action {action!r}")
