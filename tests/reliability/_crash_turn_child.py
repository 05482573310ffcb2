"""The process tests/reliability/test_crash.py kills: turns and maintenance on a data dir.

Run as ``python -m tests.reliability._crash_turn_child [--real] [--hold NAME]`` from the
repository root with RILAI_HOME set (and RILAI_EMBEDDING__BACKEND=hash for the fake runs).
It loops: a turn, a daemon tick, and every third turn a full maintenance pass (expired
contexts, retention, consolidation, index snapshot, optimize, backup), until it is killed.

What it prints on stdout, one flushed line each, is what the parent holds it to:

- ``READY`` once the engine is open;
- ``E <session> <turn> <seq> <kind> [<stage>]`` for every event the log reported committed
  (the engine's subscription is told only after COMMIT), so the parent knows what must
  survive the kill;
- ``S <stage>`` where the process is: ``maintenance:<step>`` as each maintenance step
  starts, ``idle`` between a turn / a step and the next; turn stages come from the
  ``turn_stage_changed`` events above;
- ``S hold:<point>`` on entering a hold (``--hold``): the child then sleeps
  ``HOLD_S`` at that point, so a kill the parent sends right away lands inside a window
  that is otherwise a few microseconds wide. The points: ``memory_commit`` (inside a write
  transaction that holds memory events, before its COMMIT), and, just before the rename
  that publishes a fully written temporary file, ``faiss_write`` (index.faiss),
  ``faiss_sidecar`` (index.faiss.json), ``category_write``, ``journal_write``,
  ``backup_publish`` (rilai-*.db), ``snapshot_publish`` (index-*.faiss).

The holds only add a sleep at a named point; nothing the product does is changed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from rilai_desktop.app.engine import Engine
from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.store import EventLog

HOLD_S = 0.06
TEXTS = (
    "I love jazz music on rainy evenings.",
    "My sister Anna lives in Lisbon and I miss her.",
    "I work as a nurse on night shifts.",
    "My favourite food is lentil soup.",
    "I want to run a half marathon this year.",
    "Work was stressful today, my manager shouted at me.",
)
# the events of a transaction that writes memory (items, resources, categories, pages)
MEMORY_WRITES = frozenset(
    {
        EventKind.MEMORY_RESOURCE_STORED,
        EventKind.MEMORY_ITEMS_EXTRACTED,
        EventKind.MEMORY_CATEGORY_CREATED,
        EventKind.MEMORY_CATEGORY_CONSOLIDATED,
        EventKind.MEMORY_ITEM_UPDATED,
    }
)
_print_lock = threading.Lock()


def say(line: str) -> None:
    with _print_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def _on_event(event: EngineEvent) -> None:
    stage = ""
    if event.kind is EventKind.TURN_STAGE_CHANGED:
        stage = " " + str(event.payload.get("stage", ""))
    say(f"E {event.session_id} {event.turn_id} {event.seq} {event.kind.value}{stage}")


# ── holds ─────────────────────────────────────────────────────────────────────
def _publish_point(dest: Path) -> str:
    name = dest.name
    if name == "index.faiss":
        return "faiss_write"
    if name == "index.faiss.json":
        return "faiss_sidecar"
    if dest.parent.name == "categories" and name.endswith(".md"):
        return "category_write"
    if dest.parent.name == "backups":
        return "snapshot_publish" if name.endswith(".faiss") else "backup_publish"
    if "agents" in dest.parts:
        return "journal_write"
    return "other"


def install_holds(point: str) -> None:
    """Sleep at ``point`` (see the module docstring) every time the process reaches it."""
    if point == "memory_commit":
        original = EventLog.transaction

        @contextlib.contextmanager
        def held(self: EventLog) -> Iterator[Any]:
            with original(self) as conn:
                outermost = self._tx_depth == 1
                yield conn
                stores = any(e.kind in MEMORY_WRITES for e in self._stored)
                if outermost and stores:
                    say("S hold:memory_commit")
                    time.sleep(HOLD_S)

        EventLog.transaction = held  # type: ignore[method-assign,assignment]
        return
    real_replace = os.replace

    def replace(src: Any, dst: Any, *args: Any, **kwargs: Any) -> None:
        if _publish_point(Path(os.fsdecode(dst))) == point:
            say(f"S hold:{point}")
            time.sleep(HOLD_S)
        real_replace(src, dst, *args, **kwargs)

    os.replace = replace  # type: ignore[assignment]


# ── maintenance, step by step ─────────────────────────────────────────────────
class MarkedTasks:
    """The real StoreMaintenance, saying which step runs (for the kill's stage)."""

    def __init__(self, tasks: Any) -> None:
        self._tasks = tasks

    def __getattr__(self, name: str) -> Callable[..., Any]:
        call = getattr(self._tasks, name)
        step = {
            "delete_expired_contexts": "expired_contexts",
            "cleanup_old_daily": "old_daily_logs",
            "apply_resource_retention": "resource_retention",
            "consolidate_pending": "consolidation",
            "snapshot_index": "index_snapshot",
            "optimize_database": "optimize",
            "backup_database": "backup",
        }.get(name)
        if step is None:
            return call  # type: ignore[no-any-return]

        def marked(*args: Any, **kwargs: Any) -> Any:
            say(f"S maintenance:{step}")
            try:
                return call(*args, **kwargs)
            finally:
                say("S idle")

        return marked


def open_engine_for(real: bool) -> Engine:
    if real:
        from rilai_desktop.app.core import build_core
        from rilai_desktop.app.engine import open_engine
        from rilai_desktop.config import load_settings
        from rilai_desktop.paths import resolve_paths

        paths = resolve_paths()
        return open_engine(build_core(paths, load_settings(paths.settings_file).settings))
    from tests.fake_engine import open_fake_engine

    return open_fake_engine()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--real", action="store_true")
    parser.add_argument("--hold", default="")
    args = parser.parse_args(argv)
    if args.hold:
        install_holds(args.hold)

    from rilai_desktop.app.maintenance_tasks import StoreMaintenance
    from rilai_desktop.contracts.clock import SystemClock
    from rilai_desktop.daemon.delivery import RecordingDelivery
    from rilai_desktop.daemon.maintenance import Maintenance

    engine = open_engine_for(args.real)
    engine.subscribe(_on_event)
    core, memory = engine.parts.core, engine.parts.memory
    assert memory is not None
    clock = SystemClock()
    daemon = engine.start_daemon(RecordingDelivery(), schedule=False)
    maintenance = Maintenance(
        MarkedTasks(StoreMaintenance(core.event_log, memory, clock=clock)),
        core.settings,
        core.paths.data_dir,
        clock,
        busy=lambda: engine.busy,
    )
    say("READY")
    n = 0
    while True:  # until killed
        engine.send(TEXTS[n % len(TEXTS)]).result(timeout=600)
        say("S idle")
        engine.run_job(daemon.tick)
        say("S idle")
        if n % 3 == 2:
            maintenance.run()
        n += 1


if __name__ == "__main__":
    main()
