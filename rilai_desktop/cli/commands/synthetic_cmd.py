"""`rilai synthetic SCENARIO.jsonl`: replay a scripted conversation, print each decision.

One JSON object per line:
  {"user": "message", "expect": {"intent": "meta", "speak": true, "safety_interrupt": true,
   "no_advice": true, "min_agents": 6}}        (``expect`` is optional)
  {"reset": true}                               (start a new conversation; memory stays)
Blank lines and lines starting with # are skipped. The scenario runs in a new session
unless --continue is given. A missed expectation is reported and the exit code is 1.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.errors import ScenarioError
from rilai_desktop.jsonl import object_lines
from rilai_desktop.turn.result import TurnResult
from rilai_desktop.turn.speaking.critic_patterns import ADVICE_STRONG

_ADVICE = ADVICE_STRONG  # the premature-advice critic's own patterns, not a third copy
EXPECT_KEYS = ("intent", "speak", "safety_interrupt", "no_advice", "min_agents", "quarantined")


def load_scenario(path: Path) -> list[dict[str, Any]]:
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(
            f"Cannot read the scenario {path}: {exc.strerror or exc}",
            recovery_suggestions=["Give the path of a .jsonl file, one JSON object per line"],
        ) from exc
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{path} is not UTF-8 text ({exc.reason})") from exc
    steps: list[dict[str, Any]] = []

    def bad(number: int, problem: str) -> ScenarioError:
        return ScenarioError(f"{path}:{number}: {problem}")

    for number, step in object_lines(raw, bad, comments=True):
        if not (isinstance(step.get("user"), str) or step.get("reset") is True):
            raise ScenarioError(
                f'{path}:{number}: each line needs {{"user": "text"}} or {{"reset": true}}'
            )
        expect = step.get("expect", {})
        if not isinstance(expect, dict) or set(expect) - set(EXPECT_KEYS):
            raise ScenarioError(f"{path}:{number}: expect takes only {', '.join(EXPECT_KEYS)}")
        steps.append(step)
    if not any("user" in s for s in steps):
        raise ScenarioError(f"{path} has no turns", recovery_suggestions=['Add {"user": "hi"}'])
    return steps


def check(result: TurnResult, expect: dict[str, Any]) -> list[str]:
    """The expectations this turn missed, in words."""
    d = result.as_dict()
    misses: list[str] = []
    if "intent" in expect and d["council"]["intent"] != expect["intent"]:
        misses.append(f"intent {d['council']['intent']} ≠ {expect['intent']}")
    if "speak" in expect and d["council"]["speak"] != expect["speak"]:
        misses.append(f"speak {d['council']['speak']} ≠ {expect['speak']}")
    if "safety_interrupt" in expect and (
        ("safety_interrupt" in d["flags"]) != expect["safety_interrupt"]
    ):
        misses.append(f"safety_interrupt ≠ {expect['safety_interrupt']}")
    if expect.get("no_advice") and _ADVICE.search(result.reply):
        misses.append(f"advice given: {_ADVICE.search(result.reply)!r}")
    if "min_agents" in expect and len(d["agents"]) < int(expect["min_agents"]):
        misses.append(f"{len(d['agents'])} agents < {expect['min_agents']}")
    if "quarantined" in expect and bool(d["memory"].get("quarantined")) != expect["quarantined"]:
        misses.append(f"quarantined ≠ {expect['quarantined']}")
    return misses


def describe(result: TurnResult, misses: list[str]) -> str:
    d = result.as_dict()
    top = sorted(d["sensors"].items(), key=lambda kv: -kv[1])[:3]
    rounds = d["consensus"]
    c = d["council"]
    lines = [
        f"turn {d['turn_id']}  you: {result.state.user_text[:100]!r}",
        "  sensors: " + ", ".join(f"{n} {p:.2f}" for n, p in top),
        f"  agents: {len(d['agents'])} ({', '.join(a['agent_id'] for a in d['agents'])})",
        f"  consensus: {d['final_consensus']:.2f} after {len(rounds)} round(s)",
        f"  council: {'speak' if c['speak'] else 'silent'} · {c['intent']} · {c['urgency']}"
        f" — {'; '.join(c['reasons'][:2])}",
        f"  Rilai: {result.reply or '(silent)'}",
    ]
    failed = [r for r in d["critics"] if not r["passed"]]
    lines.append(
        "  critics: "
        + ("all pass" if not failed else "; ".join(f"{r['critic']}: {r['reason']}" for r in failed))
        + f" · {d['total_ms'] / 1000:.1f} s"
    )
    if misses:
        lines.append("  EXPECTED: " + "; ".join(misses))
    return "\n".join(lines)


def run(args: argparse.Namespace, ctx: Context) -> int:
    steps = load_scenario(Path(args.scenario))
    engine = ctx.engine()
    if not args.continue_session:
        engine.reset()
    failures = 0
    for step in steps:
        if step.get("reset"):
            engine.reset()
            if not ctx.json:
                print("— new conversation —")
            continue
        result = engine.send(step["user"]).result()
        misses = check(result, step.get("expect", {}))
        failures += bool(misses)
        if ctx.json:
            print(json.dumps({**result.as_dict(), "expect_missed": misses}, ensure_ascii=False))
        else:
            print(describe(result, misses), flush=True)
    if not ctx.json:
        print(
            f"{len([s for s in steps if 'user' in s])} turns, {failures} with missed expectations"
        )
    return 1 if failures else 0
