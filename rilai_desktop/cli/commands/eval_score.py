"""`rilai eval score KEY.json VERDICTS.json [VERDICTS2.json]`: blind judges' verdicts
mapped back through the key of `rilai eval replies --pairs` (docs/eval.md, "Blind pairs")."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.cli.evaluation.blind_pairs import PairsError, score
from rilai_desktop.errors import RilaiError


class ScoreInputError(RilaiError):
    """A key or verdicts file that does not fit: the message names the file and the pair."""

    code = "RIL-058"
    name = "ScoreInputError"
    recovery_suggestions = [  # noqa: RUF012 - the RilaiError convention: class-level hints
        'rilai eval score KEY.json VERDICTS.json  (verdicts: {"p001": "A" | "B" | "tie"})',
    ]


def run(args: Namespace, ctx: Context) -> int:
    try:
        result = score(Path(args.key), [Path(v) for v in args.verdicts])
    except PairsError as exc:
        raise ScoreInputError(str(exc)) from None
    if ctx.json:
        emit_json(result)
        return 0
    other = result["other"] or "other"
    print(f"rilai eval score — Rilai against {other} ({result['set'] or 'set unknown'})")
    rows = [
        (
            Path(j["file"]).name, j["pairs"], j["rilai_wins"], j["other_wins"], j["ties"],
            f"{j['win_rate']:.3f}", "-" if j["decisive_win_rate"] is None
            else f"{j['decisive_win_rate']:.3f}",
        )
        for j in result["judges"]
    ]  # fmt: skip
    print(table(rows, ["judge", "pairs", "rilai", other, "ties", "win rate", "decisive"]))
    if "agreement" in result:
        print(f"agreement between the first two judges {result['agreement']:.3f}"
              f" (Cohen's kappa {result['kappa']:.3f})")  # fmt: skip
    return 0
