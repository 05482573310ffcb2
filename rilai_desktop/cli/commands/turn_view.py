"""How a finished turn reads in a terminal: the reply line, /why, /stance, /memory."""

from __future__ import annotations

from typing import Any

from rilai_desktop.cli.commands.output import table
from rilai_desktop.turn.result import TurnResult


def _pct(value: float) -> str:
    return f"{value:.2f}"


def why(result: TurnResult) -> str:
    """The last turn's sensors, agents, claims, consensus, council decision and critics."""
    d = result.as_dict()
    out: list[str] = [f"turn {d['turn_id']} — {d['total_ms']:.0f} ms"]
    if d["flags"]:
        out.append("flags: " + ", ".join(d["flags"]))
    sensors = sorted(d["sensors"].items(), key=lambda kv: -kv[1])
    out.append("\nsensors")
    out.append(
        table(
            [(n, _pct(p), "; ".join(d["sensor_evidence"].get(n, [])[:2])) for n, p in sensors],
            ["sensor", "p", "evidence"],
        )
    )
    out.append("\nagents")
    rows = []
    for a in d["agents"]:
        o = a["output"]
        label = f"{a['wave']}{'f' if a['followup'] else ''}"
        what = "FAILED: " + a["error"] if a["failed"] else o["observation"]
        rows.append(
            (label, a["agent_id"], f"{o['urgency']}/{o['confidence']}", f"{a['ms']:.0f}", what[:70])
        )
    out.append(table(rows, ["wave", "agent", "u/c", "ms", "observation"]) if rows else "  (none)")
    out.append("\nclaims")
    claims = [(c["source_agent"], c["type"], c["text"]) for c in d["claims"]]
    out.append(table(claims, ["agent", "type", "claim"]) if claims else "  (none)")
    out.append("\nconsensus")
    for r in d["consensus"]:
        extra = f" — asked {', '.join(r['followups'])}" if r["followups"] else ""
        out.append(
            f"  round {r['round']}: {r['consensus']:.2f}, {len(r['contested'])} contested"
            f"{extra}{' — ' + r['exit_reason'] if r['exit_reason'] else ''}"
        )
    c = d["council"]
    out.append(
        f"\ncouncil: {'speak' if c['speak'] else 'stay silent'}, intent {c['intent']},"
        f" urgency {c['urgency']}, tone {c['tone']}"
    )
    for reason in c["reasons"]:
        out.append(f"  because {reason}")
    if c["do_not"]:
        out.append("  do not: " + "; ".join(c["do_not"]))
    if c["key_points"]:
        out.append("  key points: " + "; ".join(c["key_points"]))
    v = d["voice"]
    out.append(
        f"\nvoice: {v['model']} ({v['attempts']} attempt{'s' if v['attempts'] != 1 else ''}"
        f"{', escalated' if v['escalated'] else ''})"
    )
    out.append("critics")
    crit = [
        (r["critic"], "pass" if r["passed"] else "FAIL", r["severity"], r["reason"][:60])
        for r in d["critics"]
    ]
    out.append(table(crit, ["critic", "result", "severity", "reason"]) if crit else "  (none)")
    stages = ", ".join(f"{k} {v:.0f}" for k, v in d["stage_ms"].items())
    out.append(f"\nms per stage: {stages}")
    return "\n".join(out)


def stance(values: dict[str, float], modulators: dict[str, float]) -> str:
    rows = [(k, f"{v:+.2f}" if k == "valence" else f"{v:.2f}") for k, v in values.items()]
    mods = [(k, f"{v:.2f}") for k, v in modulators.items()]
    return table(rows, ["stance", "value"]) + "\n\n" + table(mods, ["modulator", "value"])


def memory_summary(result: TurnResult | None, stats: dict[str, Any] | None) -> str:
    out: list[str] = []
    if stats:
        out.append(
            f"memory: {stats.get('total_items', 0)} items in {stats.get('total_categories', 0)}"
            f" categories, {stats.get('total_resources', 0)} resources"
        )
    if result is not None:
        recall = result.state.recall
        out.append("recalled for the last turn:")
        for f in recall.user_facts:
            out.append(f"  fact: {f.get('fact')}")
        for e in recall.episodes:
            out.append(f"  episode: {str(e.get('summary'))[:100]}")
        for t in recall.open_threads:
            out.append(f"  thread: {t.get('title') or t.get('text')}")
        for i in recall.items:
            out.append(f"  item: {str(i.get('content'))[:100]}")
        if recall.is_empty():
            out.append("  (nothing)")
        out.append(f"committed: {result.memory_summary}")
    return "\n".join(out) if out else "(nothing yet)"
