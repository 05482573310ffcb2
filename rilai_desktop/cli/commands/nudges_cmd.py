"""`rilai nudges list|snooze|mute|unmute|settings|simulate` (docs/nudges.md).

    rilai nudges list [--limit 20] [--json]    recent nudges, what waits for the next open,
                                                and today's digest
    rilai nudges snooze [30m|2h|1h30m|1d]      no nudge shown for a while (default 1h)
    rilai nudges mute                          no nudge shown until local midnight
    rilai nudges unmute                        lift a snooze or a mute
    rilai nudges settings [--on|--off] [--json]
    rilai nudges simulate [--hours 24] [--scenario FILE] [--start ISO] [--json]

Snooze and mute are stored in ``data_dir/nudges.json`` (the running daemon reads it on
every tick); on/off is the ``nudges.enabled`` setting, saved like ``rilai config set``.
``simulate`` needs no database and no model: it plays a scripted day through the real
engine on a fake clock and exits 1 if any promise (budget, quiet hours, …) was broken.
"""

from __future__ import annotations

import sys
from argparse import Namespace
from datetime import date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any

from rilai_desktop.app.checkins import checkin_key, seen_in_log
from rilai_desktop.app.nudge_facts import LogFacts
from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.config import set_in_file
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.clock import SystemClock
from rilai_desktop.daemon.delivery import printable
from rilai_desktop.daemon.nudges.controls import (
    ControlState,
    NudgeControls,
    NudgeInputError,
    parse_duration,
)
from rilai_desktop.daemon.nudges.day import DEFAULT_DAY
from rilai_desktop.daemon.nudges.engine import NudgeEngine
from rilai_desktop.daemon.nudges.history import record_from_event
from rilai_desktop.daemon.nudges.ladder import LEVEL_NAMES
from rilai_desktop.daemon.nudges.quiet_hours import local
from rilai_desktop.daemon.nudges.scenario import parse_scenario
from rilai_desktop.daemon.nudges.simulate import MAX_HOURS, SimResult, simulate
from rilai_desktop.daemon.ports import Nudge, own_session
from rilai_desktop.jsonl import read_text
from rilai_desktop.paths import ensure_private_dir
from rilai_desktop.turn.sensors import FastSensors

MAX_LIST = 1000


class _ReadOnlySink:
    """`rilai nudges list` only reads; an engine that tried to write here is a bug."""

    def append(
        self, session_id: str, turn_id: int, kind: EventKind | str, payload: Any = None
    ) -> EngineEvent:
        raise RuntimeError("rilai nudges list does not write events")


def _controls(ctx: Context) -> NudgeControls:
    return NudgeControls.in_data_dir(ctx.paths.data_dir)


def _hhmm(dt: datetime | None) -> str:
    """A local time for people: "14:05", "tomorrow 00:00", or the date when further."""
    if dt is None:
        return "-"
    here = local(dt)
    today = local(datetime.now(here.tzinfo)).date()
    if here.date() == today:
        return here.strftime("%H:%M")
    if here.date() == today + timedelta(days=1):
        return here.strftime("tomorrow %H:%M")
    return here.strftime("%Y-%m-%d %H:%M")


def _nudge_json(n: Nudge) -> dict[str, Any]:
    return {
        "at": n.at.isoformat(),
        "level": n.level,
        "level_name": LEVEL_NAMES.get(n.level, "?"),
        "condition": n.condition,
        "reason": n.reason,
        "suggestion": n.suggestion,
        "delivered": bool(n.context.get("delivered")),
        "gates": n.context.get("gates", []),
    }


def _rows(nudges: list[Nudge]) -> list[tuple[str, ...]]:
    return [
        (_hhmm(n.at), f"L{n.level}", n.condition, printable(n.reason), printable(n.suggestion))
        for n in nudges
    ]


def _warn(state: ControlState) -> None:
    """A corrupt nudges.json is treated as no snooze; say so (on stderr: --json stays clean)."""
    if state.warning:
        print(f"warning: {state.warning}", file=sys.stderr)


# ── list ─────────────────────────────────────────────────────────────────────
def _list(args: Namespace, ctx: Context) -> int:
    limit = args.limit
    if not 1 <= limit <= MAX_LIST:
        raise NudgeInputError(
            f"--limit must be between 1 and {MAX_LIST}, got {limit}",
            recovery_suggestions=["rilai nudges list --limit 20"],
        )
    event_log = ctx.event_log()
    clock = SystemClock()
    now = clock.now()
    reader = event_log
    events = reader.events(kind=EventKind.PROACTIVE_NUDGE, limit=limit, newest_first=True)
    recent = [record_from_event(e).to_nudge() for e in events]
    engine = NudgeEngine(
        clock,
        _ReadOnlySink(),
        LogFacts(event_log, None, clock),
        ctx.loaded.settings.nudges,
        None,
        reader,
        _controls(ctx),
        session_id=own_session(),  # never asked: this engine does not write
    )
    today: date = engine.today(now)
    seen, _digested = seen_in_log(event_log, today)  # shown on an open: no longer waiting
    pending = [n for n in engine.pending(now) if checkin_key(n) not in seen]
    digest = engine.digest(today)
    if ctx.json:
        emit_json(
            {
                "recent": [_nudge_json(n) for n in recent],
                "pending": [_nudge_json(n) for n in pending],
                "digest": {"day": today.isoformat(), "nudges": [_nudge_json(n) for n in digest]},
            }
        )
        return 0
    headers = ["time", "level", "condition", "reason", "suggestion"]
    if recent:
        print(f"Recent nudges (newest first, at most {limit}):")
        print(table(_rows(recent), headers))
    else:
        print("No nudges yet.")
    if pending:
        print("\nWaiting for the next open:")
        print(table(_rows(pending), headers))
    if digest:
        print(f"\nToday's digest ({today.isoformat()}):")
        print(table(_rows(digest), headers))
    return 0


# ── snooze / mute / unmute ───────────────────────────────────────────────────
def _state_json(state: ControlState, now: datetime) -> dict[str, Any]:
    out = state.as_dict(now)
    out["warning"] = state.warning
    return out


def _snooze(args: Namespace, ctx: Context) -> int:
    duration = parse_duration(args.duration)
    ensure_private_dir(ctx.paths.data_dir)
    controls = _controls(ctx)
    _warn(controls.state())
    now = SystemClock().now()
    state = controls.snooze(now, duration)
    if ctx.json:
        emit_json(_state_json(state, now))
    else:
        print(f"Nudges snoozed until {_hhmm(state.snoozed_until)} (rilai nudges unmute to undo).")
    return 0


def _mute(args: Namespace, ctx: Context) -> int:
    ensure_private_dir(ctx.paths.data_dir)
    controls = _controls(ctx)
    _warn(controls.state())
    now = SystemClock().now()
    state = controls.mute_for_day(now)
    if ctx.json:
        emit_json(_state_json(state, now))
    else:
        print(f"Nudges muted until {_hhmm(state.muted_until)} (rilai nudges unmute to undo).")
    return 0


def _unmute(args: Namespace, ctx: Context) -> int:
    ensure_private_dir(ctx.paths.data_dir)
    now = SystemClock().now()
    state = _controls(ctx).unmute()
    if ctx.json:
        emit_json(_state_json(state, now))
    else:
        print("Nudges unmuted: no snooze, no mute.")
    return 0


# ── settings ─────────────────────────────────────────────────────────────────
def _settings(args: Namespace, ctx: Context) -> int:
    if args.on and args.off:
        raise NudgeInputError(
            "--on and --off given together",
            recovery_suggestions=["rilai nudges settings --on  |  rilai nudges settings --off"],
        )
    nudges = ctx.loaded.settings.nudges
    enabled = nudges.enabled
    note = None
    if args.on or args.off:
        enabled = bool(set_in_file(ctx.paths.settings_file, "nudges.enabled", str(args.on)))
        source = ctx.loaded.sources.get("nudges.enabled", "default")
        if source in ("env", "cli"):
            note = (
                f"saved to {ctx.paths.settings_file}, but this run's value comes from {source}"
                " (RILAI_NUDGES__ENABLED or --set), which overrides the file"
            )
    now = SystemClock().now()
    state = _controls(ctx).state()
    data: dict[str, Any] = {
        "enabled": enabled,
        "per_hour": nudges.per_hour,
        "per_day": nudges.per_day,
        "quiet_start": nudges.quiet_start,
        "quiet_end": nudges.quiet_end,
        "cooldown_hours": nudges.cooldown_hours,
        **_state_json(state, now),
        "controls_file": str(ctx.paths.data_dir / "nudges.json"),
        "settings_file": str(ctx.paths.settings_file),
        "note": note,
    }
    _warn(state)
    if ctx.json:
        emit_json(data)
        return 0
    quiet = "not snoozed or muted"
    if state.muted(now):
        quiet = f"muted until {_hhmm(state.muted_until)}"
    elif state.snoozed(now):
        quiet = f"snoozed until {_hhmm(state.snoozed_until)}"
    rows = [
        ("enabled", "on" if enabled else "off"),
        ("budget", f"{nudges.per_hour} per hour, {nudges.per_day} per day (cost units)"),
        ("quiet hours", f"{nudges.quiet_start}–{nudges.quiet_end} local time"),
        ("cooldown", f"{nudges.cooldown_hours:g} h per condition"),
        ("now", quiet),
    ]
    print(table(rows, ["nudges", "value"]))
    if note:
        print(f"note: {note}")
    return 0


# ── simulate ─────────────────────────────────────────────────────────────────
def _start(text: str | None) -> tuple[datetime, tzinfo | None]:
    """The start time and the zone to play in: an ISO time with an offset plays in that
    offset; a naive one (or the default, today 07:00) in the machine's local zone."""
    if text is None:
        here = datetime.now().astimezone()
        start = datetime.combine(here.date(), time(7, 0)).astimezone()
        return start, None
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        raise NudgeInputError(
            f"--start is not an ISO time: {text!r}",
            recovery_suggestions=[
                "e.g. --start 2025-03-10T07:00 or --start 2025-03-10T07:00+01:00"
            ],
        ) from None
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return parsed.astimezone(), None
    return parsed, parsed.tzinfo


def _scenario(path_text: str | None) -> tuple[str, str]:
    if path_text is None:
        return DEFAULT_DAY, "the built-in day"
    path = Path(path_text)
    text = read_text(
        path,
        NudgeInputError,
        lambda line, problem: NudgeInputError(f"{path} line {line}: {problem}"),
        what="scenario",
    )
    return text, str(path)


def _print_sim(result: SimResult, source: str) -> None:
    s = result.summary
    print(
        f"Simulated {source}: {result.start.isoformat(timespec='minutes')} + "
        f"{(result.end - result.start) / timedelta(hours=1):g} h, a tick every "
        f"{result.tick_seconds} s ({result.tz})"
    )
    if result.settings.get("simulated_as_on"):
        print("(nudges are off in your settings; simulated as on)")
    rows = [
        (
            e["time"],
            f"L{e['level']}",
            e["condition"],
            printable(e["reason"]),
            printable(e["suggestion"]),
            ", ".join(e["gates"]),
        )
        for e in result.timeline
    ]
    if rows:
        print(table(rows, ["time", "level", "condition", "reason", "suggestion", "gates"]))
    else:
        print("No nudges.")
    levels = ", ".join(f"{k} {v}" for k, v in s["by_level"].items())
    print(
        f"\n{s['nudges']} nudges ({levels}); {s['delivered']} delivered inline or as notifications"
    )
    print(
        f"budget: at most {s['max_cost_rolling_hour']}/{s['per_hour']} in any rolling hour, "
        f"{s['max_cost_rolling_day']}/{s['per_day']} in any rolling day"
    )
    print(
        f"quiet hours: {s['above_l2_in_quiet_hours']} above L2; during a turn: "
        f"{s['during_turn']} ({s['deferred_ticks_turn_running']} ticks deferred)"
    )
    for name, ok in s["checks"].items():
        print(f"  {'ok  ' if ok else 'FAIL'} {name.replace('_', ' ')}")


def _simulate(args: Namespace, ctx: Context) -> int:
    hours = args.hours
    if not isinstance(hours, int | float) or not 0 < hours <= MAX_HOURS:
        raise NudgeInputError(
            f"--hours must be more than 0 and at most {MAX_HOURS}, got {hours}",
            recovery_suggestions=["rilai nudges simulate --hours 24"],
        )
    start, tz = _start(args.start)
    text, source = _scenario(args.scenario)
    steps = parse_scenario(text, start, tz, source)
    settings = ctx.loaded.settings
    result = simulate(
        steps,
        start=start,
        hours=hours,
        nudges=settings.nudges,
        daemon=settings.daemon,
        sense=FastSensors().read,
        tz=tz,
    )
    if ctx.json:
        emit_json({"scenario": source, **result.as_dict()})
    else:
        _print_sim(result, source)
    return 0 if result.summary["ok"] else 1


def run(args: Namespace, ctx: Context) -> int:
    action = args.nudges_command
    if action == "list":
        return _list(args, ctx)
    if action == "snooze":
        return _snooze(args, ctx)
    if action == "mute":
        return _mute(args, ctx)
    if action == "unmute":
        return _unmute(args, ctx)
    if action == "settings":
        return _settings(args, ctx)
    if action == "simulate":
        return _simulate(args, ctx)
    raise AssertionError(f"unhandled nudges action {action}")
