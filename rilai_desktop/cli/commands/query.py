"""`rilai query agent-calls|stats|events`: read the event log and its projections."""

from __future__ import annotations

from argparse import Namespace
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.contracts import EventKind
from rilai_desktop.store.projections import AnalyticsProjection, rebuild


def _clip(text: Any, width: int = 60) -> str:
    s = str(text).replace("\n", " ")
    return s if len(s) <= width else s[: width - 1] + "…"


def agent_calls(args: Namespace, ctx: Context) -> int:
    events = ctx.event_log().events(
        kind=[EventKind.AGENT_COMPLETED, EventKind.AGENT_FAILED],
        session_id=args.session,
        limit=args.limit,
        newest_first=True,
    )
    rows: list[dict[str, Any]] = []
    for e in reversed(events):
        p = e.payload
        ok = e.kind is EventKind.AGENT_COMPLETED
        rows.append(
            {
                "session_id": e.session_id,
                "turn_id": e.turn_id,
                "agent_id": p["agent_id"],
                "status": "completed" if ok else "failed",
                "urgency": p.get("urgency"),
                "confidence": p.get("confidence"),
                "ms": p.get("processing_time_ms"),
                "detail": p.get("observation") if ok else p.get("error"),
            }
        )
    if ctx.json:
        emit_json(rows)
    elif not rows:
        print("No agent calls recorded yet.")
    else:
        print(
            table(
                [
                    (
                        r["turn_id"],
                        r["agent_id"],
                        r["status"],
                        r["urgency"],
                        r["confidence"],
                        r["ms"],
                        _clip(r["detail"]),
                    )
                    for r in rows
                ],
                ["turn", "agent", "status", "U", "C", "ms", "observation / error"],
            )
        )
    return 0


def stats(args: Namespace, ctx: Context) -> int:
    log = ctx.event_log()
    source = log.replay_session(args.session) if args.session else log.replay_all()
    analytics = rebuild(AnalyticsProjection(), source).as_dict()
    data = {
        "events": log.count(args.session),
        "sessions": len(log.session_ids()) if not args.session else 1,
        "events_by_kind": log.counts_by_kind(args.session),
        **analytics,
    }
    if ctx.json:
        emit_json(data)
        return 0
    turns = data["turns"]
    print(f"events: {data['events']} in {data['sessions']} session(s)")
    print(
        f"turns: {turns['completed']} completed, {turns['aborted']} aborted; "
        f"time p50 {turns['time_ms_p50']} ms, p95 {turns['time_ms_p95']} ms"
    )
    if data["models"]:
        print(
            table(
                [
                    (
                        m,
                        s["calls"],
                        s["prompt_tokens"],
                        s["completion_tokens"],
                        s["latency_ms_mean"],
                        s["latency_ms_p95"],
                    )
                    for m, s in data["models"].items()
                ],
                ["model", "calls", "prompt tok", "completion tok", "mean ms", "p95 ms"],
            )
        )
    else:
        print("no model calls recorded yet")
    return 0


def events(args: Namespace, ctx: Context) -> int:
    found = ctx.event_log().events(
        kind=args.kind, session_id=args.session, limit=args.limit, newest_first=True
    )
    found.reverse()
    if ctx.json:
        emit_json([e.model_dump(mode="json") for e in found])
    elif not found:
        print("No events match.")
    else:
        print(
            table(
                [
                    (
                        e.ts_wall.strftime("%Y-%m-%d %H:%M:%S"),
                        e.session_id[:8],
                        e.turn_id,
                        e.seq,
                        e.kind.value,
                        _clip(e.payload, 50),
                    )
                    for e in found
                ],
                ["time (UTC)", "session", "turn", "seq", "kind", "payload"],
            )
        )
    return 0


HANDLERS = {"agent-calls": agent_calls, "stats": stats, "events": events}


def run(args: Namespace, ctx: Context) -> int:
    return HANDLERS[args.what](args, ctx)
