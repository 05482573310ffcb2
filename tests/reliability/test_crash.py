"""Proof 1, crash safety: ``kill -9`` at a random moment of a turn or of maintenance.

Each run starts ``tests.reliability._crash_turn_child`` on a fresh data dir (turns on the
scripted fake LLM with the real SQLite log, memory and FAISS index; a daemon tick after
each turn; a maintenance pass every third turn) and SIGKILLs it. Where the kill lands is
varied by a seeded plan per run: a uniformly random moment, a random delay after a given
turn stage or maintenance step begins, or a hold at a narrow point (inside the write
transaction of a memory commit, between a fully written FAISS / category / journal /
backup temp file and its rename) that the child widens with a short sleep.

After each kill, as the next start would: every visible file is whole (no truncated
index, category, journal or backup under its real name), the log reopens with
``PRAGMA integrity_check`` ok and every event the child was told was committed, the
FAISS index agrees with the memory tables (or was rebuilt from them, with a
``memory.index_rebuilt`` note), each category file says what SQLite says, and a next turn
completes. Figures: report "crash" (and "crash_real" from the e2e test with the real
models, for the lead to merge).
"""

from __future__ import annotations

import json
import os
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import faiss
import numpy as np
import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.paths import REPO_ROOT
from rilai_desktop.store import EventLog
from tests.reliability._crash_turn_child import HOLD_S, open_engine_for
from tests.reliability.conftest import Report, Scale

SEED = 20_030
# the first three are what the fast subset runs; the full run cycles through all of them
PLANS: tuple[tuple[str, str], ...] = (
    ("hold", "memory_commit"),
    ("hold", "faiss_write"),
    ("stage", "maintenance:backup"),
    ("random", ""),
    ("stage", "turn:sense"),
    ("stage", "turn:recall"),
    ("stage", "turn:agents"),
    ("stage", "turn:voice"),
    ("stage", "turn:commit"),
    ("hold", "faiss_sidecar"),
    ("hold", "category_write"),
    ("hold", "journal_write"),
    ("stage", "maintenance:consolidation"),
    ("stage", "maintenance:index_snapshot"),
    ("stage", "maintenance:optimize"),
    ("hold", "backup_publish"),
    ("hold", "snapshot_publish"),
    ("random", ""),
)
TEMP_MARKS = (".tmp", ".partial")


@dataclass
class Run:
    """What one killed child left, and what the checks found."""

    plan: str
    landed: str = "?"
    reported: set[tuple[str, int, int, str]] = field(default_factory=set)
    lost: int = 0
    integrity_ok: bool = False
    index_consistent: bool = False
    rebuilt: str | None = None
    half_written: list[str] = field(default_factory=list)
    out_of_sync: list[str] = field(default_factory=list)  # after the reopen
    left_out_of_sync: int = 0  # category pages the kill left unlike SQLite (fixed on open)
    leftover_temp: int = 0
    next_turn_ok: bool = False


# ── the child ────────────────────────────────────────────────────────────────
def _child_env(home: Path, real: bool, models_dir: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RILAI_")}
    env.update(RILAI_HOME=str(home), OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    if real:
        assert models_dir is not None
        env["RILAI_MODELS_DIR"] = str(models_dir)
    else:
        env["RILAI_EMBEDDING__BACKEND"] = "hash"
    return env


def _landed(lines: list[str]) -> str:
    """Where the child was when it died: its last stage or hold marker."""
    where = "starting"
    for line in lines:
        parts = line.split()
        if parts[:1] == ["S"] and len(parts) == 2:
            where = parts[1].removeprefix("hold:")
        elif parts[:1] == ["E"] and len(parts) == 6 and parts[4] == "turn_stage_changed":
            where = f"turn:{parts[5]}"
    return where


def kill_child(
    home: Path,
    kind: str,
    target: str,
    rng: random.Random,
    *,
    models_dir: Path | None = None,
    random_window_s: float = 2.0,
) -> tuple[list[str], str]:
    """Start the child, SIGKILL it as the plan says; (every line it printed, its stderr)."""
    real = models_dir is not None
    args = [sys.executable, "-m", "tests.reliability._crash_turn_child"]
    if real:
        args.append("--real")
    if kind == "hold":
        args += ["--hold", target]
    home.mkdir(parents=True, exist_ok=True)
    err_path = home.parent / f"{home.name}.stderr"  # a file: a full pipe would stall it
    with err_path.open("w", encoding="utf-8") as err_file:
        proc = subprocess.Popen(
            args,
            cwd=REPO_ROOT,
            env=_child_env(home, real, models_dir),
            stdout=subprocess.PIPE,
            stderr=err_file,
            text=True,
        )
    assert proc.stdout is not None
    lines: list[str] = []
    fresh: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            fresh.put(lines[-1])
        fresh.put(None)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    # the line to wait for (and the how-many-th of them: 1-3 for a stage or a hold)
    if kind == "hold":
        marker = f"S hold:{target}"
    elif kind == "stage" and target.startswith("turn:"):
        marker = f"turn_stage_changed {target.removeprefix('turn:')}"
    elif kind == "stage":
        marker = f"S {target}"
    else:
        marker = "READY"
    wanted = rng.randint(1, 3) if kind != "random" else 1
    seen = 0
    deadline = time.monotonic() + (600 if real else 90)
    try:
        while seen < wanted:
            line = fresh.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                break
            seen += line == marker or (line.startswith("E ") and line.endswith(" " + marker))
        if kind == "random":
            time.sleep(rng.uniform(0.05, random_window_s))
        elif kind == "hold":
            time.sleep(rng.uniform(0.0, HOLD_S / 2))
        else:
            time.sleep(rng.uniform(0.0, 0.01))
    finally:
        proc.send_signal(signal.SIGKILL)  # no clean-up of any kind
        proc.wait(timeout=30)
        reader.join(timeout=30)
        proc.stdout.close()
    err = err_path.read_text(encoding="utf-8", errors="replace")
    assert seen >= wanted, f"the child never reached {kind} {target}: {err[-2000:]}"
    return lines, err


# ── the checks ───────────────────────────────────────────────────────────────
def _whole_json(path: Path) -> bool:
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return True


def _whole_index(path: Path) -> bool:
    try:
        return faiss.read_index(str(path)).ntotal >= 0  # type: ignore[no-any-return]
    except RuntimeError:
        return False


def _whole_db(path: Path) -> bool:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error:
        return False
    try:
        return bool(conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok")
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def scan_files(data: Path) -> tuple[list[str], int]:
    """(visible files that are not whole, leftover temp files). A temp file is one whose
    name marks it as such (hidden, or ending .tmp/.partial): nothing reads it as real."""
    broken: list[str] = []
    leftovers = 0
    for path in sorted(p for p in data.rglob("*") if p.is_file()):
        name = path.name
        if name.startswith(".") or name.endswith(TEMP_MARKS):
            leftovers += 1
            continue
        if name.endswith(".faiss"):
            ok = _whole_index(path)
        elif name.endswith(".json"):
            ok = _whole_json(path)
        elif path.parent.name == "backups" and name.endswith(".db"):
            ok = _whole_db(path)
        elif name.endswith(".md"):
            try:
                path.read_text(encoding="utf-8")
                ok = True
            except (OSError, UnicodeError):
                ok = False
        else:
            continue
        if not ok:
            broken.append(str(path.relative_to(data)))
    return broken, leftovers


def _pages_unlike_sqlite(folder: Path, pages: dict[str, str]) -> list[str]:
    """The visible category pages that do not say what SQLite says (or have no row)."""
    unlike: list[str] = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        if not path.name.startswith(".") and pages.get(path.stem) != path.read_text("utf-8"):
            unlike.append(path.name)
    return unlike


def check_log(db: Path, run: Run) -> int:
    """Integrity and the reported events; returns the index rebuilds logged so far."""
    with EventLog(db) as log:
        run.integrity_ok = log.integrity_check() == "ok"
        rows = log.read(lambda c: c.execute("SELECT session_id, turn_id, seq, kind FROM events"))
        stored = {(str(s), int(t), int(q), str(k)) for s, t, q, k in rows.fetchall()}
        run.lost = len(run.reported - stored)
        rows = log.read(lambda c: c.execute("SELECT name, markdown_content FROM memory_categories"))
        pages = {str(name): str(text) for name, text in rows.fetchall()}
        run.left_out_of_sync = len(_pages_unlike_sqlite(db.parent / "categories", pages))
        return len(list(log.events(kind=EventKind.MEMORY_INDEX_REBUILT)))


def check_reopened(rebuilds_before: int, run: Run, *, real: bool = False) -> None:
    """The next start: the index against the tables, the category files, a next turn."""
    engine = open_engine_for(real)
    try:
        memory = engine.parts.memory
        assert memory is not None
        layer = memory.item_layer
        expected = np.sort(layer.expected_ids())
        run.index_consistent = np.array_equal(np.sort(layer.index.ids()), expected)
        notes = list(engine.parts.core.event_log.events(kind=EventKind.MEMORY_INDEX_REBUILT))
        if len(notes) > rebuilds_before:
            run.rebuilt = str(notes[-1].payload.get("reason", ""))
        pages = {c.name: c.markdown_content for c in memory.category_layer.list_all()}
        run.out_of_sync = _pages_unlike_sqlite(memory.category_layer.folder, pages)
        result = engine.send("Still here after the crash?").result(timeout=600)
        turn = engine.turn_events(engine.session_id, result.turn_id)
        run.next_turn_ok = bool(turn) and turn[-1].kind is EventKind.TURN_COMPLETED
    finally:
        engine.close()


def one_run(
    home: Path,
    plan: tuple[str, str],
    rng: random.Random,
    monkeypatch: pytest.MonkeyPatch,
    *,
    models_dir: Path | None = None,
) -> Run:
    """One child killed as ``plan`` says, then every check (the real models if
    ``models_dir`` is given)."""
    kind, target = plan
    real = models_dir is not None
    run = Run(plan=f"{kind}:{target}" if target else kind)
    lines, err = kill_child(
        home, kind, target, rng, models_dir=models_dir, random_window_s=30.0 if real else 2.0
    )
    assert "READY" in lines, err[-2000:]
    run.landed = _landed(lines)
    for line in lines:
        parts = line.split()
        if parts[:1] == ["E"] and len(parts) >= 5:
            run.reported.add((parts[1], int(parts[2]), int(parts[3]), parts[4]))
    data = home / "data"
    run.half_written, run.leftover_temp = scan_files(data)
    rebuilds = check_log(data / "rilai.db", run)
    monkeypatch.setenv("RILAI_HOME", str(home))
    if real:
        monkeypatch.setenv("RILAI_MODELS_DIR", str(models_dir))
    else:
        monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    check_reopened(rebuilds, run, real=real)
    return run


def _clean(run: Run) -> bool:
    return (
        run.lost == 0
        and run.integrity_ok
        and run.index_consistent
        and not run.half_written
        and not run.out_of_sync
        and run.next_turn_ok
    )


def _figures(runs: list[Run]) -> dict[str, object]:
    return {
        "runs_clean": sum(_clean(r) for r in runs),
        "committed_events_reported": sum(len(r.reported) for r in runs),
        "committed_events_lost": sum(r.lost for r in runs),
        "integrity_ok": sum(r.integrity_ok for r in runs),
        "index_consistent": sum(r.index_consistent for r in runs),
        "rebuilt_index": sum(r.rebuilt is not None for r in runs),
        "rebuild_reasons": sorted({r.rebuilt for r in runs if r.rebuilt}),
        "half_written_files": sum(len(r.half_written) for r in runs),
        "category_files_out_of_sync": sum(len(r.out_of_sync) for r in runs),
        "category_pages_fixed_on_open": sum(r.left_out_of_sync for r in runs),
        "leftover_temp_files": sum(r.leftover_temp for r in runs),
        "next_turn_ok": sum(r.next_turn_ok for r in runs),
        "kill_stages": dict(sorted(Counter(r.landed for r in runs).items())),
        "plans": dict(sorted(Counter(r.plan for r in runs).items())),
    }


def test_kill_nine_in_turns_and_maintenance_loses_nothing(
    tmp_path: Path, scale: Scale, report: Report, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = scale.pick(3, 50)
    rng = random.Random(SEED)
    runs = [
        one_run(tmp_path / f"run{i:02d}", PLANS[i % len(PLANS)], rng, monkeypatch) for i in range(n)
    ]
    # the real-model runs are the e2e test below; it writes "crash_real" (runs_real there)
    figures = {"runs": n, "runs_real": 0, "seed": SEED, **_figures(runs)}
    bars = {
        "all_runs_clean": figures["runs_clean"] == n,
        "committed_events_lost_0": figures["committed_events_lost"] == 0,
        "runs_at_least_50": n >= 50 or not scale.full,
    }
    report.record("crash", figures, bars)
    assert [r for r in runs if not _clean(r)] == []


@pytest.mark.e2e
def test_kill_nine_with_the_real_models(
    tmp_path: Path,
    scale: Scale,
    report: Report,
    real_models: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same kills on the real models (at least 5 at full scale), at a random moment
    of the first 30 s: real turns take seconds, so most land in a model call."""
    n = scale.pick(1, 5)
    rng = random.Random(SEED + 1)
    runs = [
        one_run(tmp_path / f"real{i:02d}", ("random", ""), rng, monkeypatch, models_dir=real_models)
        for i in range(n)
    ]
    figures = {"runs_real": n, "seed": SEED + 1, **_figures(runs)}
    bars = {
        "all_runs_clean": figures["runs_clean"] == n,
        "runs_real_at_least_5": n >= 5 or not scale.full,
    }
    report.record("crash_real", figures, bars)
    assert [r for r in runs if not _clean(r)] == []
