"""`rilai eval agents [--session ID] [--json]`: what each agent did for the replies.

Read from the event log (nothing is run): per agent, how often it was chosen for a message,
its calls and failures (by reason: copied, invalid reply, timeout, model error), how often
it found what it looks for and with which labels, and how often its output changed the
council's decision or the voice's notes (``agent_influence`` on COUNCIL_DECISION_MADE,
``turn/deliberation/influence.py``). Issue 16: an agent that never changes anything is a finding to
act on, so the report lists them.
"""

from __future__ import annotations

from argparse import Namespace
from collections import Counter
from collections.abc import Iterable
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.contracts import EngineEvent, EventKind

KINDS = (
    EventKind.AGENT_STARTED,
    EventKind.AGENT_COMPLETED,
    EventKind.AGENT_FAILED,
    EventKind.COUNCIL_DECISION_MADE,
)
MIN_RUNS_FOR_FINDING = 3  # an agent chosen fewer times than this is not judged yet


def _agent(rows: dict[str, dict[str, Any]], agent_id: str) -> dict[str, Any]:
    return rows.setdefault(
        agent_id,
        {
            "agent_id": agent_id,
            "chosen": 0,  # turns it was chosen for (wave 0 or scheduled; not follow-ups)
            "calls": 0,  # model calls, follow-ups included
            "failures": 0,
            "failure_reasons": Counter(),
            "present": 0,
            "claims": 0,
            "labels": Counter(),
            "changed_decision": 0,
            "changed_notes": 0,
            "errors": [],
        },
    )


def summarise(events: Iterable[EngineEvent]) -> dict[str, Any]:
    """The report for ``events`` (any order of sessions; each turn counted once)."""
    rows: dict[str, dict[str, Any]] = {}
    chosen_per_turn: dict[tuple[str, int], set[str]] = {}
    turns = changed_turns = decision_turns = notes_turns = 0
    for e in events:
        p = e.payload
        key = (e.session_id, e.turn_id)
        if e.kind is EventKind.AGENT_STARTED:
            row = _agent(rows, str(p.get("agent_id")))
            row["calls"] += 1
            if not p.get("followup"):
                row["chosen"] += 1
                chosen_per_turn.setdefault(key, set()).add(row["agent_id"])
        elif e.kind is EventKind.AGENT_FAILED:
            row = _agent(rows, str(p.get("agent_id")))
            row["failures"] += 1
            row["failure_reasons"][str(p.get("reason") or "unknown")] += 1
            if len(row["errors"]) < 3:
                row["errors"].append(str(p.get("error", ""))[:160])
        elif e.kind is EventKind.AGENT_COMPLETED:
            row = _agent(rows, str(p.get("agent_id")))
            if p.get("present"):
                row["present"] += 1
                if p.get("label"):
                    row["labels"][str(p["label"])] += 1
            row["claims"] += bool(p.get("claims"))
        elif e.kind is EventKind.COUNCIL_DECISION_MADE:
            influence = p.get("agent_influence")
            if not isinstance(influence, dict) or "changed_decision" not in influence:
                continue
            turns += 1
            decision, notes = bool(influence["changed_decision"]), bool(influence["changed_notes"])
            decision_turns += decision
            notes_turns += notes
            changed_turns += decision or notes
            for agent_id, did in (influence.get("by_agent") or {}).items():
                row = _agent(rows, str(agent_id))
                row["changed_decision"] += bool(did.get("decision"))
                row["changed_notes"] += bool(did.get("notes"))
    agents = []
    for row in sorted(rows.values(), key=lambda r: (-r["chosen"], r["agent_id"])):
        ran = max(1, row["chosen"])
        changed = max(row["changed_decision"], row["changed_notes"])
        agents.append(
            {
                **row,
                "failure_reasons": dict(row["failure_reasons"]),
                "labels": dict(row["labels"].most_common()),
                "changed_share": round(changed / ran, 3),
            }
        )
    never = [
        a["agent_id"]
        for a in agents
        if a["chosen"] >= MIN_RUNS_FOR_FINDING
        and not a["changed_decision"]
        and not a["changed_notes"]
    ]
    per_turn = [len(v) for v in chosen_per_turn.values()]
    return {
        "turns": turns,
        "agents_per_turn": round(sum(per_turn) / len(per_turn), 2) if per_turn else 0.0,
        "agent_influence_share": round(changed_turns / turns, 3) if turns else 0.0,
        "changed_decision_turns": decision_turns,
        "changed_notes_turns": notes_turns,
        "never_changed_anything": never,
        "agents": agents,
    }


def run(args: Namespace, ctx: Context) -> int:
    events = ctx.event_log().events(kind=list(KINDS), session_id=getattr(args, "session", None))
    report = summarise(events)
    if ctx.json:
        emit_json(report)
        return 0
    if not report["agents"]:
        print("No agent calls recorded yet.")
        return 0
    print(
        f"{report['turns']} turns · {report['agents_per_turn']} agents chosen per turn ·"
        f" agents changed the decision or the notes in"
        f" {report['agent_influence_share']:.0%} of turns"
    )
    rows = [
        (
            a["agent_id"],
            a["chosen"],
            a["calls"],
            a["failures"],
            ", ".join(f"{k} {v}" for k, v in a["failure_reasons"].items()) or "-",
            a["present"],
            ", ".join(f"{k} {v}" for k, v in list(a["labels"].items())[:3]) or "-",
            a["changed_decision"],
            a["changed_notes"],
        )
        for a in report["agents"]
    ]
    headers = [
        "agent",
        "chosen",
        "calls",
        "failed",
        "why",
        "found",
        "labels",
        "Δdecision",
        "Δnotes",
    ]
    print(table(rows, headers))
    if report["never_changed_anything"]:
        print(
            f"Chosen {MIN_RUNS_FOR_FINDING}+ times and never changed the decision or the notes: "
            + ", ".join(report["never_changed_anything"])
        )
    return 0
