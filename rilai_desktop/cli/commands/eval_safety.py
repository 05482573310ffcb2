"""`rilai eval safety [FILE] [--json] [--no-check]` (docs/safety.md).

Screens scripted conversations turn by turn as the app does (``app.build_sensors`` +
``app.build_safety_check`` through ``turn.safety_screen.screen_turn``, the conversation's
risk carried across turns) and prints, per category, how many of the turns that need the
protective reply or the careful path got it, and how many look-alike turns were flagged;
then the bars. A measurement: the exit code is 0 whether or not the bars pass (2 for a bad
file).
"""

from __future__ import annotations

import time
from argparse import Namespace
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.cli.commands.sense_safety import app_screen
from rilai_desktop.cli.evaluation.safety_conversations import (
    DEFAULT_SET,
    ConversationSetError,
    load,
    run,
    summarise,
)
from rilai_desktop.errors import RilaiError
from rilai_desktop.turn.safety_screen import Screened, screen_turn
from rilai_desktop.turn.safety_state import ConversationRisk


class EvalSafetyInputError(RilaiError):
    code = "RIL-056"
    name = "EvalSafetyInputError"
    recovery_suggestions = [  # noqa: RUF012 - the RilaiError convention
        "rilai eval safety [FILE]: JSON Lines of {id, category, turns: [{user, needs}]}",
    ]


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def command(args: Namespace, ctx: Context) -> int:
    path = Path(args.file) if getattr(args, "file", None) else DEFAULT_SET
    try:
        conversations = load(path)
    except (OSError, ConversationSetError) as exc:
        raise EvalSafetyInputError(str(exc)) from None
    sensors, check, note = app_screen(ctx, check=not getattr(args, "no_check", False))

    def screen(
        text: str, history: Sequence[dict[str, Any]], risk: ConversationRisk, now: float
    ) -> Screened:
        return screen_turn(sensors, check, text, history, risk, now)

    report = summarise(run(conversations, screen, time.time()), source=str(path))
    report["note"] = note
    report["bank"] = sensors.bank is not None
    report["model_check"] = None
    if check is not None:
        ms = sorted(check.stats.ms)
        report["model_check"] = {
            "asked": check.stats.asked,
            "turns": report["overall"]["turns"],
            "raised": check.stats.raised,
            "lowered": check.stats.lowered,
            "p50_ms": ms[len(ms) // 2] if ms else None,
            "p95_ms": ms[int(0.95 * (len(ms) - 1))] if ms else None,
        }
    if ctx.json:
        emit_json(report)
        return 0
    _print(report)
    return 0


def _print(report: dict[str, Any]) -> None:
    print(f"{report['source']} — {report['conversations']} conversations")
    body = [
        (
            name,
            f["turns"],
            f"{f['covered']}/{f['need_care']}",
            _fmt(f["cover_rate"]),
            f"{f['protected']}/{f['need_protect']}",
            f"{f['alarms']}/{f['need_none']}",
            _fmt(f["alarm_rate"]),
        )
        for name, f in [*report["categories"].items(), ("all", report["overall"])]
    ]
    columns = ["category", "turns", "covered", "rate", "protected", "alarms", "alarm rate"]
    print(table(body, columns))
    for miss in report["missed"]:
        print(f"  missed {miss['id']} turn {miss['turn']} ({miss['needs']}): {miss['user']}")
    for alarm in report["alarms"]:
        print(f"  alarm  {alarm['id']} turn {alarm['turn']} ({alarm['done']}): {alarm['user']}")
    if report["model_check"]:
        mc = report["model_check"]
        print(
            f"model check: asked on {mc['asked']} of {mc['turns']} turns, raised {mc['raised']},"
            f" lowered {mc['lowered']}, p50 {_fmt(mc['p50_ms'])} ms, p95 {_fmt(mc['p95_ms'])} ms"
        )
    bars = report["bars"]
    cover, alarms = bars["cover"], bars["lookalike_alarms"]
    print(
        f"bars: protect or careful on {_fmt(cover['value'])} of the turns that need it"
        f" (>= {cover['bar']}) {'ok' if cover['passed'] else 'FAILED'}; look-alike alarms"
        f" {_fmt(alarms['value'])} (<= {alarms['bar']}) {'ok' if alarms['passed'] else 'FAILED'}"
        f" → {'passed' if bars['passed'] else 'FAILED'}"
    )
