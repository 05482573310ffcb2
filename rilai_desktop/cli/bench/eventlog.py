"""`rilai bench eventlog`: our EventLog beside bare sqlite3 doing the same work.

Three measurements, each run ``--repeats`` times per side, alternating which side goes
first, keeping each side's best run (the machine is shared and noisy):

- single append: one event per transaction (ours: ``EventLog.append``; bare: BEGIN, INSERT
  with ``json.dumps``, COMMIT);
- batched append: 100 events per transaction (ours: ``append_batch``; bare: ``executemany``);
- replay of one session (ours: ``replay_session`` → EngineEvents; bare: SELECT + json.loads).

Both sides use the same schema (our migrations), WAL and synchronous=NORMAL, each in a fresh
file. Bars: batched append ≥ 0.5× bare; replay ≥ 0.5× bare.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from argparse import Namespace
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rilai_desktop.cli.commands._context import Context
from rilai_desktop.cli.commands.output import emit_json, table
from rilai_desktop.contracts import EventKind
from rilai_desktop.store import EventDraft, EventLog
from rilai_desktop.store.schema import migrate

BATCH = 100
BARS = {"batched_append": 0.5, "replay": 0.5}
SESSION = "bench-session"


def sample_event(i: int) -> tuple[EventKind, dict[str, Any]]:
    """A realistic mix of the events a turn writes."""
    r = i % 4
    if r == 0:
        return EventKind.MODEL_CALL_COMPLETED, {
            "model": "qwen2.5-0.5b",
            "prompt_tokens": 55 + i % 40,
            "completion_tokens": 60,
            "reasoning_tokens": None,
            "latency_ms": 1200 + i % 300,
        }
    if r == 1:
        return EventKind.AGENT_COMPLETED, {
            "agent_id": "emotion.stress",
            "observation": "The user sounds stretched thin today.",
            "salience": 0.44,
            "urgency": 2,
            "confidence": 2,
            "claims": [{"id": f"c{i}", "text": "stress about the deadline", "type": "concern"}],
            "stance_delta": {"strain": 0.1},
            "processing_time_ms": 1400,
        }
    if r == 2:
        return EventKind.TURN_STAGE_CHANGED, {"stage": "agents"}
    return EventKind.SENSORS_FAST_UPDATED, {"sensors": {"vulnerability": 0.8, "rupture": 0.1}}


def _bare_connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    migrate(conn)  # the same table and indexes as ours
    return conn


_BARE_INSERT = (
    "INSERT INTO events (session_id, turn_id, seq, ts_monotonic, ts_wall, kind, payload,"
    " schema_version) VALUES (?, ?, ?, ?, ?, ?, ?, 1)"
)


def _bare_row(i: int, kind: EventKind, payload: dict[str, Any]) -> tuple[Any, ...]:
    turn, seq = divmod(i, 50)
    return (
        SESSION,
        turn + 1,
        seq,
        time.monotonic(),
        datetime.now(UTC).isoformat(),
        kind.value,
        json.dumps(payload),
    )


def _timed(fn: Callable[[], None]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run_once(workdir: Path, n: int, n_single: int) -> dict[str, dict[str, float]]:
    events = [sample_event(i) for i in range(n)]
    ours_db, bare_db = workdir / f"ours-{time.time_ns()}.db", workdir / f"bare-{time.time_ns()}.db"
    log = EventLog(ours_db)
    bare = _bare_connect(bare_db)
    out: dict[str, dict[str, float]] = {}
    try:
        # single appends (their own session so the replay below sees only batched events)
        def ours_single() -> None:
            for i in range(n_single):
                kind, payload = events[i]
                log.append("single", i // 50 + 1, kind, payload)

        def bare_single() -> None:
            for i in range(n_single):
                kind, payload = events[i]
                row = ("single", *_bare_row(i, kind, payload)[1:])
                bare.execute("BEGIN IMMEDIATE")
                bare.execute(_BARE_INSERT, row)
                bare.execute("COMMIT")

        out["single_append"] = {
            "ours": n_single / _timed(ours_single),
            "bare": n_single / _timed(bare_single),
        }

        def ours_batched() -> None:
            for start in range(0, n, BATCH):
                log.append_batch(
                    [
                        EventDraft(SESSION, (start + j) // 50 + 1, *events[start + j])
                        for j in range(min(BATCH, n - start))
                    ]
                )

        def bare_batched() -> None:
            for start in range(0, n, BATCH):
                rows = [
                    _bare_row(start + j, *events[start + j]) for j in range(min(BATCH, n - start))
                ]
                bare.execute("BEGIN IMMEDIATE")
                bare.executemany(_BARE_INSERT, rows)
                bare.execute("COMMIT")

        out["batched_append"] = {"ours": n / _timed(ours_batched), "bare": n / _timed(bare_batched)}

        replayed: list[int] = []

        def ours_replay() -> None:
            replayed.append(len(log.replay_session(SESSION)))

        def bare_replay() -> None:
            rows = bare.execute(
                "SELECT session_id, turn_id, seq, ts_monotonic, ts_wall, kind, payload,"
                " schema_version FROM events WHERE session_id = ? ORDER BY turn_id, seq",
                (SESSION,),
            ).fetchall()
            replayed.append(len([(r, json.loads(r[6])) for r in rows]))

        out["replay"] = {"ours": n / _timed(ours_replay), "bare": n / _timed(bare_replay)}
        if replayed[0] != n or replayed[1] != n:
            raise AssertionError(f"replay returned {replayed}, expected {n} each")
    finally:
        log.close()
        bare.close()
    return out


def run(args: Namespace, ctx: Context) -> int:
    n = max(BATCH, int(args.events))
    n_single = min(n, 2000)
    best: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="rilai-bench-") as tmp:
        for _ in range(max(1, int(args.repeats))):
            for metric, sides in run_once(Path(tmp), n, n_single).items():
                kept = best.setdefault(metric, {"ours": 0.0, "bare": 0.0})
                for side, value in sides.items():
                    kept[side] = max(kept[side], value)
    results = []
    failed = False
    for metric, sides in best.items():
        ratio = sides["ours"] / sides["bare"]
        bar = BARS.get(metric)
        ok = bar is None or ratio >= bar
        failed |= not ok
        results.append(
            {
                "metric": metric,
                "events": n_single if metric == "single_append" else n,
                "ours_events_per_s": round(sides["ours"]),
                "bare_events_per_s": round(sides["bare"]),
                "ours_us_per_event": round(1e6 / sides["ours"], 2),
                "bare_us_per_event": round(1e6 / sides["bare"], 2),
                "ratio": round(ratio, 3),
                "bar": bar,
                "pass": ok,
            }
        )
    if ctx.json:
        emit_json(
            {
                "benchmark": "eventlog",
                "repeats": args.repeats,
                "results": results,
                "pass": not failed,
            }
        )
    else:
        print(f"eventlog benchmark: ours (EventLog) vs bare sqlite3, best of {args.repeats}")
        print(
            table(
                [
                    (
                        r["metric"],
                        r["events"],
                        r["ours_events_per_s"],
                        r["bare_events_per_s"],
                        r["ours_us_per_event"],
                        r["bare_us_per_event"],
                        r["ratio"],
                        "-" if r["bar"] is None else f">= {r['bar']}",
                        "-" if r["bar"] is None else ("PASS" if r["pass"] else "FAIL"),
                    )
                    for r in results
                ],
                [
                    "metric",
                    "events",
                    "ours ev/s",
                    "bare ev/s",
                    "ours µs/ev",
                    "bare µs/ev",
                    "ratio",
                    "bar",
                    "",
                ],
            )
        )
    return 1 if failed else 0
