"""One of the two writers of tests/reliability/test_two_writers.py: a whole Engine on the
fakes over the shared RILAI_HOME, running turns, daemon ticks and maintenance passes for a
given number of seconds, as the window and a `rilai chat` would side by side.

Every event this process committed (the engine's bus is fed by its own event log after
each COMMIT) is written to ``OUT`` as one JSON line, flushed at once, so the parent knows
exactly what each writer was told was saved. A turn that fails is recorded with its error
(the two-writer policy: a writer waits for the other, and only past the busy timeout gets
the clear "database is busy" error).

Usage: python -m tests.reliability._writer_child SECONDS TAG OUT
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import IO

from rilai_desktop.contracts import EngineEvent
from rilai_desktop.errors import RilaiError

TICK_EVERY = 3  # turns between daemon ticks
MAINTENANCE_EVERY = 10  # turns between maintenance passes


def _write(out: IO[str], record: dict[str, object]) -> None:
    out.write(json.dumps(record) + "\n")
    out.flush()


def main(seconds: float, tag: str, out_path: str) -> int:
    os.environ.setdefault("RILAI_EMBEDDING__BACKEND", "hash")
    from tests.fake_engine import open_fake_engine

    with open(out_path, "a", encoding="utf-8") as out:

        def committed(event: EngineEvent) -> None:
            _write(
                out,
                {
                    "event": [event.session_id, event.turn_id, event.seq, event.kind.value],
                    "by": tag,
                },
            )

        engine = open_fake_engine()
        try:
            engine.subscribe(committed)
            daemon = engine.start_daemon(schedule=False)
            _write(out, {"ready": tag, "pid": os.getpid()})
            deadline = time.monotonic() + seconds
            turns = 0
            while time.monotonic() < deadline:
                text = f"{tag} turn {turns}: I walked by the river and thought about my sister"
                try:
                    result = engine.send(text).result(timeout=60)
                except RilaiError as exc:
                    _write(out, {"failed": str(exc), "code": exc.code, "by": tag})
                else:
                    _write(out, {"turn": [result.session_id, result.turn_id], "by": tag})
                turns += 1
                if turns % TICK_EVERY == 0:
                    engine.run_job(daemon.tick)
                if turns % MAINTENANCE_EVERY == 0:
                    report = daemon.maintenance_pass()
                    steps = report.get("steps", {})
                    failed = {
                        k: v.get("error") for k, v in steps.items() if v["status"] == "failed"
                    }
                    _write(
                        out, {"maintenance": bool(report.get("ok")), "errors": failed, "by": tag}
                    )
        finally:
            engine.close()
        _write(out, {"done": tag, "turns": turns})
    return 0


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1]), sys.argv[2], sys.argv[3]))
