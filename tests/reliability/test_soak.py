"""Proof 4, soak (docs/reliability.md): many turns in one process, as a day-long session
runs them, and what the process holds afterwards.

Measured, on the scripted fake models (every other part real: SQLite, FTS5, FAISS, the
daemon's tick through the worker) and, separately (e2e), on the real small/medium models:
- RSS (``VmRSS`` of /proc/self/status, after ``gc.collect()``): growth from the end of the
  warm-up (turn 100 at full scale) to the end, held under 5% at full scale;
- open file descriptors (/proc/self/fd) and threads (``threading.active_count()`` and the
  kernel's ``Threads``): the value at the end against the value after the warm-up. A turn
  opens no file and starts no thread that outlives it, so the bar is "no more than
  FD_SLACK / THREAD_SLACK above the warm-up value": 2 fds for a file opened lazily once
  (the day's journal file when the date turns, the -shm of a reader), 1 thread for the
  between-turns warm-up, which may still be running when the sample is taken. A leak of
  one fd or thread per turn is hundreds at full scale and thirty at fast scale;
- latency of each turn (send to result): p95 of the last 100 turns within 20% of the p95
  of turns 100–200 (full scale);
- database growth per turn: bytes of rilai.db + its WAL, from the warm-up to the end.

At fast scale (a few seconds in ``make test``) RSS and latency over 150 turns are noise
(the allocator has not settled, the disk cache is cold); their figures are reported with
``held: false`` and only the fd and thread bars are held.
"""

from __future__ import annotations

import gc
import os
import statistics
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rilai_desktop.app.engine import Engine
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM
from tests.fake_engine import open_fake_engine

FD_SLACK = 2
THREAD_SLACK = 1
RSS_GROWTH_MAX = 0.05
LATENCY_GROWTH_MAX = 0.20
NAMES = ("Ana", "Rui", "Marta", "Tomás", "Inês", "João", "Beatriz", "Luís", "Sofia", "Pedro")
PLACES = ("Porto", "Lisbon", "Braga", "Coimbra", "Faro")
LONG = (
    "Today was one of those days where everything piled up: the train was late, the "
    "meeting ran over, my manager asked for the report again, and by the evening I "
    "could not remember why I had been so excited about this job a year ago. "
)


def message(n: int) -> str:
    """The n-th message of the soak: small talk, long venting, facts to remember."""
    name, place = NAMES[n % len(NAMES)], PLACES[n % len(PLACES)]
    kind = n % 8
    if kind == 0:
        return f"remember that my sister is called {name}"
    if kind == 1:
        return f"I had a long day at work, turn {n}, and I'm tired."
    if kind == 2:
        return LONG * (1 + n % 12)  # up to ~2.5 KB
    if kind == 3:
        return f"remember that I moved to {place} in {1990 + n % 30}"
    if kind == 4:
        return "How are you?"
    if kind == 5:
        return f"My friend {name} called me today about the trip to {place}. What do you think?"
    if kind == 6:
        return f"remember that I prefer tea over coffee when I read about {place}"
    return "Not much to say, just checking in. 🙂"


def _status(field_name: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field_name + ":"):
            return int(line.split()[1])
    raise AssertionError(f"{field_name} missing from /proc/self/status")


@dataclass
class Sample:
    turn: int
    rss_kb: int
    fds: int
    threads_py: int
    threads_os: int
    db_bytes: int


def sample(turn: int, db: Path) -> Sample:
    gc.collect()
    size = sum(p.stat().st_size for p in (db, Path(f"{db}-wal")) if p.exists())
    return Sample(
        turn=turn,
        rss_kb=_status("VmRSS"),
        fds=len(os.listdir("/proc/self/fd")),
        threads_py=threading.active_count(),
        threads_os=_status("Threads"),
        db_bytes=size,
    )


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else 0.0


@dataclass
class Soak:
    """The run's per-turn latencies and its samples (after the warm-up, and at the end)."""

    latencies_ms: list[float] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _forget_fake_requests(engine: Engine) -> None:
    """The scripted fakes record every request they answer (a test inspects them): the
    soak drops all but the last, so their record is not counted as the engine's memory."""
    models = engine.parts.models
    if not isinstance(models, RoleModels):  # the real router: nothing recorded
        return
    fakes = [models.default, *models.roles.values()]
    for fake in fakes:
        if isinstance(fake, ScriptedLLM):
            del fake.requests[:-1]
            del fake.prefills[:-1]


def soak(engine: Engine, turns: int, warmup: int, *, tick_every: int = 0) -> Soak:
    """``turns`` turns, one after another; samples at ``warmup`` and at the end (and every
    tenth of the run, for the record). Every ``tick_every`` turns the daemon ticks through
    the worker, as the scheduler's tick job does."""
    db = engine.parts.core.paths.db_path
    run = Soak()
    daemon = engine.daemon
    step = max(1, turns // 10)
    for n in range(1, turns + 1):
        start = time.perf_counter()
        try:
            engine.send(message(n)).result(timeout=600)
        except Exception as exc:
            run.errors.append(f"turn {n}: {type(exc).__name__}: {exc}")
        run.latencies_ms.append((time.perf_counter() - start) * 1000)
        _forget_fake_requests(engine)
        if daemon is not None and tick_every and n % tick_every == 0:
            engine.run_job(daemon.tick)
        if n in (warmup, turns) or n % step == 0:
            engine.parts.runner.wait_warm()  # the between-turns warm-up, done
            run.samples.append(sample(n, db))
    return run


def figures_and_bars(
    run: Soak, warmup: int, *, full: bool
) -> tuple[dict[str, Any], dict[str, bool]]:
    base = next(s for s in run.samples if s.turn == warmup)
    end = run.samples[-1]
    turns = len(run.latencies_ms)
    rss_growth = (end.rss_kb - base.rss_kb) / base.rss_kb
    early = run.latencies_ms[warmup : warmup + 100]
    last = run.latencies_ms[-100:]
    early_p95, last_p95 = p95(early), p95(last)
    latency_growth = (last_p95 - early_p95) / early_p95 if early_p95 else 0.0
    figures: dict[str, Any] = {
        "turns": turns,
        "errors": len(run.errors),
        "first_errors": run.errors[:5],
        "warmup_turns": warmup,
        "rss_mb": {
            "after_warmup": round(base.rss_kb / 1024, 1),
            "end": round(end.rss_kb / 1024, 1),
        },
        "rss_growth_pct": round(100 * rss_growth, 2),
        "rss_bar_held": full,
        "fds": {"after_warmup": base.fds, "end": end.fds, "max": max(s.fds for s in run.samples)},
        "threads_python": {"after_warmup": base.threads_py, "end": end.threads_py},
        "threads_os": {"after_warmup": base.threads_os, "end": end.threads_os},
        "latency_ms": {
            "median": round(statistics.median(run.latencies_ms), 1),
            "p95_turns_after_warmup": round(early_p95, 1),
            "p95_last_100": round(last_p95, 1),
        },
        "latency_growth_pct": round(100 * latency_growth, 2),
        "latency_bar_held": full,
        "db_bytes_per_turn": round((end.db_bytes - base.db_bytes) / max(1, turns - warmup)),
        "db_mb_end": round(end.db_bytes / 1e6, 2),
        "samples": [s.__dict__ for s in run.samples],
        "bars": (
            f"fds end <= after warm-up + {FD_SLACK}; threads end <= after warm-up + "
            f"{THREAD_SLACK}; full scale also RSS growth < 5%, latency p95 growth < 20%"
        ),
    }
    bars = {
        "no_errors": not run.errors,
        "fds_flat": end.fds <= base.fds + FD_SLACK,
        "threads_flat": end.threads_py <= base.threads_py + THREAD_SLACK
        and end.threads_os <= base.threads_os + THREAD_SLACK,
    }
    if full:
        bars["rss_growth_under_5pct"] = rss_growth < RSS_GROWTH_MAX
        bars["latency_p95_within_20pct"] = latency_growth <= LATENCY_GROWTH_MAX
    return figures, bars


def test_soak_fake_models(monkeypatch: pytest.MonkeyPatch, scale: Any, report: Any) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")
    turns = scale.pick(150, 2000)
    warmup = scale.pick(50, 100)
    engine = open_fake_engine()
    try:
        engine.start_daemon(schedule=False)
        run = soak(engine, turns, warmup, tick_every=10)
        figures, bars = figures_and_bars(run, warmup, full=scale.full)
        integrity = engine.parts.core.event_log.integrity_check()
    finally:
        engine.close()
    figures["integrity"] = integrity
    bars["integrity_ok"] = integrity == "ok"
    report.record("soak", figures, bars)
    failed = [name for name, ok in bars.items() if not ok]
    assert not failed, (failed, {k: figures[k] for k in figures if k != "samples"})


@pytest.mark.e2e
def test_soak_real_models(
    real_models: Path, monkeypatch: pytest.MonkeyPatch, scale: Any, report: Any
) -> None:
    """The same on the real models: the voice, council and escalation on the medium tier,
    the agents on the small (the large is not loaded), memory extraction by the rules.
    No setting caps a reply's length; the messages are the soak's, mostly short."""
    from rilai_desktop.app.core import build_core
    from rilai_desktop.app.engine import open_engine
    from rilai_desktop.config import load_settings
    from rilai_desktop.paths import resolve_paths

    for role, tier in {
        "VOICE": "medium",
        "ESCALATION": "medium",
        "COUNCIL": "medium",
        "READER": "medium",
        "AGENTS": "small",
        "EXTRACTION": "small",
        "CONSOLIDATION": "small",
        "SAFETY_CHECK": "small",
    }.items():
        monkeypatch.setenv(f"RILAI_ROLES__{role}", tier)
    monkeypatch.setenv("RILAI_MEMORY__EXTRACT", "rules")
    turns = scale.pick(3, 200)
    warmup = scale.pick(1, 50)
    paths = resolve_paths()
    engine = open_engine(build_core(paths, load_settings(paths.settings_file).settings))
    try:
        engine.start_daemon(schedule=False)
        run = soak(engine, turns, warmup, tick_every=10)
        full = scale.full
        figures, bars = figures_and_bars(run, warmup, full=full)
        figures["loaded_models"] = engine.loaded_models()
        integrity = engine.parts.core.event_log.integrity_check()
    finally:
        engine.close()
    figures["integrity"] = integrity
    if full:  # 200 real turns: 50 of warm-up, then turns 50–150 against the last 100
        figures["note"] = "latency compares turns 50–150 with the last 100"
    bars["integrity_ok"] = integrity == "ok"
    report.record("soak_real", figures, bars)
    failed = [name for name, ok in bars.items() if not ok]
    assert not failed, (failed, {k: figures[k] for k in figures if k != "samples"})
