"""`rilai bench daemon [--hours H] [--json]`: what the daemon costs the CPU per hour.

The daemon wakes every ``daemon.tick_seconds`` for as long as the app is open, on a 2-core
laptop, so its cost is a budget: under 1 % of one core. Measured in one process, side by
side (the machine is shared and noisy, so ratios are the bar's context):

- **ours**: H simulated hours on a FakeClock in a temporary data dir: the real Daemon, a
  real EventLog (LogEventSink + LogLiveState), decay, and the real nudge engine (LogFacts,
  the person's goals from the same database, a recording delivery); the stance starts
  stressed, so decay has work to do and nudge conditions fire;
- **bare**: the same number of raw ``EventLog.append`` calls as ours made, plus the bare
  decay arithmetic (12 exponentials per tick) — the least any daemon could do.

CPU is ``time.process_time()`` (all threads of this process), best of ``--repeats``.
Reported: CPU seconds per simulated hour, % of one core (= cpu_s_per_hour / 3600 × 100),
and ours/bare. Then one REAL APScheduler run for a few seconds at a short interval gives
the scheduler's own overhead per tick (its CPU minus the same ticks called directly),
projected onto the default interval.
"""

from __future__ import annotations

import math
import tempfile
import time
from argparse import Namespace
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from rilai_desktop.app.daemon_state import LogEventSink, LogLiveState
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.config import Settings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.clock import Clock, FakeClock, SystemClock
from rilai_desktop.daemon.decay import MODULATOR_BASELINES, STANCE_BASELINES
from rilai_desktop.daemon.errors import DaemonError
from rilai_desktop.daemon.ports import NudgeRunner
from rilai_desktop.daemon.service import Daemon
from rilai_desktop.store import EventLog

BAR_PCT = 1.0  # of one core
SCHEDULER_SECONDS = 3.0
SCHEDULER_INTERVAL_S = 0.05
WARM_UP_S = 0.5
START = datetime(2026, 3, 2, 7, 0, tzinfo=UTC)
STRESSED = {"strain": 0.85, "valence": -0.6, "arousal": 0.8, "safety": 0.35, "control": 0.3}
STRESSED_MODS = {"arousal": 0.8, "fatigue": 0.6, "time_pressure": 0.7, "social_risk": 0.4}


@dataclass
class Side:
    cpu_s: float
    wall_s: float
    appends: int

    def per_hour(self, hours: float) -> float:
        return self.cpu_s / hours

    def as_dict(self, hours: float) -> dict[str, Any]:
        per_hour = self.per_hour(hours)
        return {
            "cpu_s": round(self.cpu_s, 4),
            "wall_s": round(self.wall_s, 4),
            "appends": self.appends,
            "cpu_s_per_hour": round(per_hour, 6),
            "pct_of_one_core": round(per_hour / 3600 * 100, 6),
        }


def _seed(log: EventLog, at: datetime) -> str:
    """A short stressed conversation: a turn that left the stance strained, and a goal."""
    sid = "bench-daemon"
    log.append(sid, 0, EventKind.SESSION_STARTED, {"session_id": sid}, ts_wall=at)
    log.append(sid, 1, EventKind.TURN_STARTED, {"user_input": "deadline tomorrow"}, ts_wall=at)
    log.append(
        sid,
        1,
        EventKind.STANCE_UPDATED,
        {"delta": {"strain": 0.15}, "current": STRESSED},
        ts_wall=at,
    )
    log.append(
        sid,
        1,
        EventKind.MODULATORS_UPDATED,
        {"changes": {}, "current": STRESSED_MODS},
        ts_wall=at,
    )
    log.append(
        sid, 1, EventKind.TURN_COMPLETED, {"total_time_ms": 900, "response": "ok"}, ts_wall=at
    )
    return sid


def _nudges(
    log: EventLog,
    data_dir: Path,
    daemon_sink: LogEventSink,
    state: LogLiveState,
    clock: Clock,
    settings: Settings,
) -> NudgeRunner | None:
    try:
        from rilai_desktop.app.nudge_facts import LogFacts, goals_from_log
        from rilai_desktop.daemon.delivery import RecordingDelivery
        from rilai_desktop.daemon.nudges import NudgeControls, NudgeEngine
    except ImportError:  # the nudge engine is not built: bench tick + decay only
        return None
    facts = LogFacts(log, goals_from_log(log), clock, turn_running=state.turn_running)
    return NudgeEngine(
        clock,
        daemon_sink,
        facts,
        settings.nudges,
        RecordingDelivery(),
        log,
        NudgeControls(data_dir / "nudges.json"),
        session_id=daemon_sink.session_id,
    )


def _ours(workdir: Path, settings: Settings, ticks: int) -> tuple[Side, dict[str, int]]:
    data = workdir / f"ours-{time.time_ns()}"
    data.mkdir()
    log = EventLog(data / "rilai.db")
    try:
        _seed(log, START)
        seeded = log.count()
        clock = FakeClock(START)
        sink = LogEventSink(log, clock=clock)
        state = LogLiveState(log, clock)
        nudges = _nudges(log, data, sink, state, clock, settings)
        daemon = Daemon(clock, sink, state, settings, nudges, session_id=sink.session_id)
        step = float(settings.daemon.tick_seconds)
        errors = 0
        t0, w0 = time.process_time(), time.perf_counter()
        for _ in range(ticks):
            clock.advance(step)
            errors += len(daemon.tick().errors)
        side = Side(time.process_time() - t0, time.perf_counter() - w0, log.count() - seeded)
        counts = log.counts_by_kind()
        counts["tick_errors"] = errors
        counts["nudge_engine"] = int(nudges is not None)
        return side, counts
    finally:
        log.close()


def _bare(workdir: Path, settings: Settings, ticks: int, appends: int) -> Side:
    log = EventLog(workdir / f"bare-{time.time_ns()}.db")
    try:
        stance = {**STANCE_BASELINES, **STRESSED}
        mods = {**MODULATOR_BASELINES, **STRESSED_MODS}
        step = float(settings.daemon.tick_seconds)
        fs = 0.5 ** (step / (settings.daemon.stance_half_life_minutes * 60))
        fm = 0.5 ** (step / (settings.daemon.modulator_half_life_minutes * 60))
        per_tick = max(1, math.ceil(appends / max(1, ticks)))
        done = 0
        t0, w0 = time.process_time(), time.perf_counter()
        for i in range(ticks):
            for name, b in STANCE_BASELINES.items():
                stance[name] = b + (stance[name] - b) * fs
            for name, b in MODULATOR_BASELINES.items():
                mods[name] = b + (mods[name] - b) * fm
            for _ in range(min(per_tick, appends - done)):
                log.append("bare", 0, EventKind.DAEMON_TICK, {"timestamp": float(i)})
                done += 1
        return Side(time.process_time() - t0, time.perf_counter() - w0, done)
    finally:
        log.close()


def _scheduler_overhead(workdir: Path, settings: Settings) -> dict[str, Any]:
    """A real APScheduler run at a short interval vs the same ticks called directly."""
    from rilai_desktop.daemon.jobs import DaemonScheduler

    data = workdir / f"sched-{time.time_ns()}"
    data.mkdir()
    log = EventLog(data / "rilai.db")
    try:
        _seed(log, datetime.now(UTC) - timedelta(hours=1))
        clock = SystemClock()
        sink = LogEventSink(log, clock=clock)
        daemon = Daemon(clock, sink, LogLiveState(log, clock), settings, session_id=sink.session_id)
        scheduler = DaemonScheduler(
            daemon, data / "scheduler.db", tick_seconds=SCHEDULER_INTERVAL_S
        )
        scheduler.start()
        try:
            time.sleep(WARM_UP_S)  # the store's first open and the first ticks: not steady
            n0, t0, w0 = daemon.ticks, time.process_time(), time.perf_counter()
            time.sleep(SCHEDULER_SECONDS)
            sched_cpu, wall = time.process_time() - t0, time.perf_counter() - w0
            ticks = daemon.ticks - n0
        finally:
            scheduler.shutdown()
        t1 = time.process_time()
        for _ in range(max(1, ticks)):
            daemon.tick()
        direct_cpu = time.process_time() - t1
    finally:
        log.close()
    per_tick = sched_cpu / max(1, ticks)
    direct = direct_cpu / max(1, ticks)
    overhead = max(0.0, per_tick - direct)
    ticks_per_hour = 3600 / settings.daemon.tick_seconds
    return {
        "seconds": round(wall, 3),
        "interval_s": SCHEDULER_INTERVAL_S,
        "ticks": ticks,
        "expected_ticks": round(wall / SCHEDULER_INTERVAL_S),
        "cpu_s": round(sched_cpu, 4),
        "cpu_ms_per_tick": round(per_tick * 1000, 4),
        "direct_cpu_ms_per_tick": round(direct * 1000, 4),
        "overhead_ms_per_tick": round(overhead * 1000, 4),
        "projected_overhead_pct_of_one_core": round(overhead * ticks_per_hour / 3600 * 100, 6),
    }


def run(args: Namespace, ctx: Context) -> int:
    hours = float(getattr(args, "hours", 24.0))
    if not math.isfinite(hours) or not (0 < hours <= 24 * 366):
        raise DaemonError(
            f"--hours must be above 0 and at most a year of hours, got {hours!r}",
            recovery_suggestions=["Example: rilai bench daemon --hours 24"],
        )
    repeats = max(1, int(getattr(args, "repeats", 3)))
    settings = ctx.loaded.settings
    ticks = max(1, round(hours * 3600 / settings.daemon.tick_seconds))
    best_ours: Side | None = None
    best_bare: Side | None = None
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="rilai-bench-daemon-") as tmp:
        workdir = Path(tmp)
        for _ in range(repeats):
            ours, counts = _ours(workdir, settings, ticks)
            bare = _bare(workdir, settings, ticks, ours.appends)
            if best_ours is None or ours.cpu_s < best_ours.cpu_s:
                best_ours = ours
            if best_bare is None or bare.cpu_s < best_bare.cpu_s:
                best_bare = bare
        scheduler = _scheduler_overhead(workdir, settings)
    assert best_ours is not None and best_bare is not None
    pct = best_ours.per_hour(hours) / 3600 * 100
    ok = pct < BAR_PCT
    ratio = best_ours.cpu_s / best_bare.cpu_s if best_bare.cpu_s > 0 else None
    result = {
        "benchmark": "daemon",
        "hours": hours,
        "tick_seconds": settings.daemon.tick_seconds,
        "ticks": ticks,
        "repeats": repeats,
        "events": {k: v for k, v in counts.items() if k in _SHOWN},
        "nudge_engine": bool(counts.get("nudge_engine")),
        "tick_errors": counts.get("tick_errors", 0),
        "ours": best_ours.as_dict(hours),
        "bare": best_bare.as_dict(hours),
        "ratio": None if ratio is None else round(ratio, 3),
        "bar_pct_of_one_core": BAR_PCT,
        "pass": ok,
        "scheduler": scheduler,
    }
    if ctx.json:
        emit_json(result)
        return 0 if ok else 1
    _print(result)
    return 0 if ok else 1


_SHOWN = ("daemon_tick", "modulators_decayed", "proactive_nudge", "error")


def _print(r: dict[str, Any]) -> None:
    o, b, s = r["ours"], r["bare"], r["scheduler"]
    print(
        f"daemon benchmark: {r['hours']:g} simulated hours, a tick every {r['tick_seconds']} s "
        f"({r['ticks']} ticks), best of {r['repeats']}; nudge engine "
        f"{'on' if r['nudge_engine'] else 'not built'}"
    )
    print("events written: " + ", ".join(f"{k} {v}" for k, v in r["events"].items()))
    print(
        table(
            [
                (
                    "ours (daemon)",
                    o["appends"],
                    o["cpu_s"],
                    o["cpu_s_per_hour"],
                    f"{o['pct_of_one_core']:.4f}",
                ),
                (
                    "bare (appends + maths)",
                    b["appends"],
                    b["cpu_s"],
                    b["cpu_s_per_hour"],
                    f"{b['pct_of_one_core']:.4f}",
                ),
            ],
            ["side", "appends", "cpu s", "cpu s / hour", "% of one core"],
        )
    )
    verdict = "PASS" if r["pass"] else "FAIL"
    print(
        f"ours/bare: {r['ratio']}×   bar: < {r['bar_pct_of_one_core']} % of one core → "
        f"{o['pct_of_one_core']:.4f} %  {verdict}"
    )
    print(
        f"scheduler (real APScheduler, {s['interval_s']} s interval for {s['seconds']} s): "
        f"{s['ticks']} ticks (~{s['expected_ticks']} expected), {s['cpu_ms_per_tick']} ms CPU "
        f"per tick vs {s['direct_cpu_ms_per_tick']} ms called directly → overhead "
        f"{s['overhead_ms_per_tick']} ms per tick = {s['projected_overhead_pct_of_one_core']:.5f}"
        f" % of one core at a {r['tick_seconds']} s tick"
    )
