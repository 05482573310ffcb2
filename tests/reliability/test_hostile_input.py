"""Proof 2 of issue 30, hostile and random input, through the sensors and the whole turn
(the window's input box: test_hostile_window.py; the CLI: test_hostile_cli.py).

Hypothesis draws the text (``_strategies.hostile_text``); one fake Engine serves every
example (a fake turn takes ~30 ms). Each input must give: no exception out of the sensors
or out of ``Engine.send``, no stage that crashed (an ERROR event with a ``stage``), a turn
that ends with TURN_COMPLETED, and a reply and logged message that are valid UTF-8. The
product refuses nothing here (``turn/sanitize.py`` cleans instead), so ``refused`` is 0
unless that changes.
"""

from __future__ import annotations

import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from rilai_desktop.app.engine import Engine
from rilai_desktop.contracts import EventKind
from rilai_desktop.errors import RilaiError
from rilai_desktop.turn.sensors import FastSensors
from tests.fake_engine import open_fake_engine
from tests.reliability._strategies import hostile_settings, hostile_text, record_part


@pytest.fixture(autouse=True)
def hashed(monkeypatch: pytest.MonkeyPatch, rilai_home: Path) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Tally:
    """What the examples did, for the figures."""

    def __init__(self) -> None:
        self.inputs = 0
        self.completed = 0
        self.refused: Counter[str] = Counter()
        self.unhandled: list[str] = []  # an exception out of the sensors or the engine
        self.crashes: list[str] = []  # a stage that crashed inside a completed turn
        self.longest = 0

    def bad(self, kind: list[str], text: str, why: str) -> None:
        if len(kind) < 20:  # keep the report small: the first few are enough to fix
            kind.append(f"{why} <- {text[:60]!r}")


def _one(engine: Engine, sensors: FastSensors, tally: Tally, text: str) -> None:
    tally.inputs += 1
    tally.longest = max(tally.longest, len(text))
    try:
        sensors.read(text)
    except Exception as exc:
        tally.bad(tally.unhandled, text, f"sensors: {type(exc).__name__}: {exc}")
    log = engine.parts.core.event_log
    before = log.last_turn_id(engine.session_id)
    try:
        result = engine.send(text).result(timeout=120)
    except RilaiError as exc:  # refused before the turn, with a clear message
        tally.refused[exc.message[:80]] += 1
        return
    except Exception:
        tally.bad(tally.unhandled, text, traceback.format_exc(limit=3)[-300:])
        return
    # this turn's events only (reading the whole session each time would be quadratic)
    events = log.events(session_id=result.session_id, turn_id=result.turn_id)
    if result.turn_id <= before:
        tally.bad(tally.unhandled, text, f"turn id {result.turn_id} did not advance")
    kinds = [e.kind for e in events]
    for event in events:
        if event.kind is EventKind.ERROR and "stage" in event.payload:
            tally.bad(tally.crashes, text, str(event.payload.get("error"))[:200])
    if kinds.count(EventKind.TURN_COMPLETED) == 1 and _utf8(result.reply):
        tally.completed += 1
    else:
        tally.bad(tally.unhandled, text, f"no clean TURN_COMPLETED ({len(kinds)} events)")


def test_hostile_input_through_sensors_and_turn(scale: Any, report: Any) -> None:
    examples = scale.pick(50, 10_000)
    engine = open_fake_engine()
    engine.runner.warm_next_voice = False
    sensors, tally = FastSensors(), Tally()
    start = time.perf_counter()

    @hostile_settings(examples)
    @given(hostile_text)
    def run(text: str) -> None:
        _one(engine, sensors, tally, text)

    try:
        run()
    finally:
        engine.close()
    figures = {
        "inputs": tally.inputs,
        "turns_completed": tally.completed,
        "refused": sum(tally.refused.values()),
        "refused_reasons": dict(tally.refused),
        "unhandled_exceptions": len(tally.unhandled),
        "crashes": len(tally.crashes),
        "longest_input_chars": tally.longest,
        "seconds": round(time.perf_counter() - start, 1),
        "unhandled": tally.unhandled,
        "crashed_stages": tally.crashes,
    }
    handled = tally.completed + sum(tally.refused.values())
    bars = {
        "inputs": tally.inputs >= examples,
        "unhandled_exceptions": not tally.unhandled,
        "crashes": not tally.crashes,
        "all_completed_or_refused": handled == tally.inputs,
    }
    record_part(report, "turn", figures, bars)
    assert all(bars.values()), figures
