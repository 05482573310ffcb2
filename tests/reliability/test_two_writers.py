"""Proof 9 of docs/reliability.md: two writers on one data folder at once.

The window and a `rilai chat` (or two windows that both got past the single-instance
check) open the same database. The policy is **wait**: every write is one short SQLite
transaction (BEGIN IMMEDIATE), so a second writer waits for the first (the busy timeout,
5 s) and only past it gets the clear "database is busy" error (RIL-006). Both processes go
on with the latest conversation, so the turn ids of one session are handed out by the log
inside the transaction that writes TURN_STARTED: two writers never share a turn.

The stress runs two child processes (``_writer_child.py``) of turns on the fake models,
daemon ticks and maintenance passes (backup, optimize + checkpoint, index snapshot …) for
10 minutes at full scale (~10 s in `make test`), then checks the log: integrity ok, every
(session, turn) has contiguous seq from 0, no turn holds events of both writers or two
TURN_STARTED, and every event a writer was told was committed is there, exactly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.paths import REPO_ROOT, resolve_paths
from rilai_desktop.store import EventLog
from tests.fake_engine import open_fake_engine
from tests.reliability.conftest import Report, Scale

Key = tuple[str, int, int]


def _seed_conversation(monkeypatch: pytest.MonkeyPatch) -> str:
    """One finished turn, so both writers go on with the same (latest) conversation."""
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    engine = open_fake_engine()
    try:
        result = engine.send("Hello, I am starting a diary today.").result(timeout=60)
    finally:
        engine.close()
    return result.session_id


def _read_records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _run_writers(home: Path, seconds: float, out_dir: Path) -> dict[str, list[dict[str, Any]]]:
    env = {**os.environ, "RILAI_HOME": str(home), "RILAI_EMBEDDING__BACKEND": "hash"}
    env.setdefault("OMP_NUM_THREADS", "1")
    procs: dict[str, subprocess.Popen[bytes]] = {}
    for tag in ("a", "b"):
        procs[tag] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.reliability._writer_child",
                str(seconds),
                tag,
                str(out_dir / f"{tag}.jsonl"),
            ],
            cwd=REPO_ROOT,
            env=env,
            stderr=subprocess.PIPE,
        )
    errors: dict[str, str] = {}
    for tag, proc in procs.items():
        _, err = proc.communicate(timeout=seconds + 180)
        if proc.returncode != 0:
            errors[tag] = err.decode("utf-8", "replace")[-3000:]
    assert not errors, f"a writer process failed: {errors}"
    return {tag: _read_records(out_dir / f"{tag}.jsonl") for tag in procs}


def _check_log(
    db: Path, records: dict[str, list[dict[str, Any]]]
) -> tuple[dict[str, Any], dict[str, bool]]:
    """The figures and bars of the stress, from the final log and the writers' records."""
    told: dict[Key, tuple[str, str]] = {}
    doubly_told = 0
    for tag, rows in records.items():
        for row in rows:
            if "event" in row:
                sid, turn, seq, kind = row["event"]
                doubly_told += (sid, turn, seq) in told
                told[(sid, turn, seq)] = (kind, tag)
    with EventLog(db, readonly=True) as log:
        integrity = log.integrity_check()
        events = list(log.replay_all())
    in_log: dict[Key, str] = {(e.session_id, e.turn_id, e.seq): e.kind.value for e in events}
    lost = sum(1 for key, (kind, _) in told.items() if in_log.get(key) != kind)
    seqs: dict[tuple[str, int], list[int]] = defaultdict(list)
    writers: dict[tuple[str, int], set[str]] = defaultdict(set)
    starts: dict[tuple[str, int], int] = defaultdict(int)
    for e in events:
        seqs[(e.session_id, e.turn_id)].append(e.seq)
        if (e.session_id, e.turn_id, e.seq) in told:
            writers[(e.session_id, e.turn_id)].add(told[(e.session_id, e.turn_id, e.seq)][1])
        starts[(e.session_id, e.turn_id)] += e.kind.value == "turn_started"
    gaps = sum(1 for s in seqs.values() if sorted(s) != list(range(len(s))))
    # turn 0 holds a session's own events (start, ticks, decay) from either writer
    mixed = sum(1 for (_, turn), who in writers.items() if turn > 0 and len(who) > 1)
    double_started = sum(1 for n in starts.values() if n > 1)
    turns = {tag: sum(1 for r in rows if "turn" in r) for tag, rows in records.items()}
    failed = {tag: [r for r in rows if "failed" in r] for tag, rows in records.items()}
    maintenance = {
        tag: [r["maintenance"] for r in rows if "maintenance" in r] for tag, rows in records.items()
    }
    figures: dict[str, Any] = {
        "policy": "wait",
        "turns_per_process": turns,
        "failed_turns": {tag: len(rows) for tag, rows in failed.items()},
        "failures": [r["failed"] for rows in failed.values() for r in rows][:5],
        "maintenance_passes": {tag: len(m) for tag, m in maintenance.items()},
        "maintenance_failed": sum(1 for m in maintenance.values() for ok in m if not ok),
        "maintenance_errors": [
            r["errors"] for rows in records.values() for r in rows if r.get("errors")
        ][:3],
        "events": len(events),
        "events_reported_committed": len(told),
        "integrity": integrity,
        "lost": lost,
        "seq_gaps": gaps,
        "turns_with_both_writers": mixed,
        "turns_started_twice": double_started,
    }
    bars = {
        "integrity_ok": integrity == "ok",
        "lost_0": lost == 0 and doubly_told == 0,
        "seq_contiguous": gaps == 0,
        "no_interleaved_turn": mixed == 0 and double_started == 0,
        "both_wrote": all(n > 0 for n in turns.values()),
        "no_failed_turn": all(not rows for rows in failed.values()),
        "maintenance_ok": figures["maintenance_failed"] == 0,
    }
    return figures, bars


def test_two_writers_leave_an_intact_log(
    tmp_path: Path,
    rilai_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    scale: Scale,
    report: Report,
) -> None:
    seconds = scale.pick(10, 600)
    session = _seed_conversation(monkeypatch)
    started = time.monotonic()
    records = _run_writers(rilai_home, seconds, tmp_path)
    wall = time.monotonic() - started
    figures, bars = _check_log(resolve_paths().db_path, records)
    turn_sessions = {r["turn"][0] for rows in records.values() for r in rows if "turn" in r}
    figures = {"seconds": seconds, "wall_s": round(wall, 1), **figures}
    bars["same_conversation"] = turn_sessions == {session}
    report.record("two_writers", figures, bars)
    assert all(bars.values()), figures
