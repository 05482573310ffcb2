"""Step 6: one whole turn on the real models, in a data folder of its own.

The Engine is opened the way the app opens it (``app.engine.open_engine``), over the
person's settings and models but with the data, logs and cache under a temporary folder
(``Paths.scratch``, cache included), which is deleted afterwards: the person's
conversations, memory and log are never opened. One message is sent; the turn passes
when the reply is not empty and the log holds the turn's ``turn_completed`` event.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from rilai_desktop.app.core import Core, build_core
from rilai_desktop.app.engine import Engine
from rilai_desktop.app.self_test.report import CheckResult, fail, ok
from rilai_desktop.config import Settings
from rilai_desktop.contracts import EventKind
from rilai_desktop.paths import Paths

EngineOpener = Callable[[Core], Engine]
MESSAGE = "Hi Rilai, I just got home from work and I'm a bit tired."
TURN_TIMEOUT_S = 300.0


def real_engine(core: Core) -> Engine:
    from rilai_desktop.app.engine import open_engine

    return open_engine(core)


def scratch_paths(paths: Paths, home: Path) -> Paths:
    """``paths`` with data, logs and cache under ``home``; settings and models as they are."""
    return dataclasses.replace(paths.scratch(home), cache_dir=home / "cache")


def check_turn(
    paths: Paths,
    settings: Settings,
    open_engine: EngineOpener,
    *,
    message: str = MESSAGE,
    timeout: float = TURN_TIMEOUT_S,
) -> CheckResult:
    name = "turn"
    fix = "run `rilai self-test --debug` and `rilai doctor`, and report the error"
    with tempfile.TemporaryDirectory(prefix="rilai-self-test-") as tmp:
        core = build_core(scratch_paths(paths, Path(tmp)), settings)
        t0 = time.perf_counter()
        try:
            engine = open_engine(core)
        except BaseException:
            core.close()
            raise
        opened = time.perf_counter() - t0
        try:
            handle = engine.send(message)
            if not handle.wait(timeout):
                handle.cancel()
                return fail(name, f"the turn did not finish in {timeout:.0f} s", fix)
            result = handle.result()
            completed = core.event_log.events(
                kind=EventKind.TURN_COMPLETED, session_id=result.session_id, turn_id=result.turn_id
            )
        finally:
            engine.close()  # the log too
    took = time.perf_counter() - t0 - opened
    reply = " ".join(result.reply.split())
    if not reply:
        return fail(name, f"the turn finished in {took:.1f} s with an empty reply", fix)
    if not completed:
        return fail(
            name, f"the reply came but the log has no {EventKind.TURN_COMPLETED.value}", fix
        )
    shown = reply if len(reply) <= 80 else reply[:79] + "…"
    return ok(
        name,
        f"{shown!r} in {took:.1f} s (engine opened in {opened:.1f} s; "
        f"{len(result.agents)} agents, voice {result.voice_model or '?'})",
    )
