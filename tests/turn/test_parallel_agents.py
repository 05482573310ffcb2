"""A wave's agents on two model instances at once: both used, order kept, events tagged."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.contracts.llm import ChatMessage, Completion, CompletionStream
from rilai_desktop.llm.fake import RoleModels, ScriptedLLM
from rilai_desktop.store import EventLog
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from rilai_desktop.turn.model_events import ModelEventRelay
from rilai_desktop.turn.result import TurnResult
from tests.turn.conftest import AGENT_REPLY, PROMPTS, VOICE_REPLY


class SlowReporting:
    """A ScriptedLLM that takes a while and reports its calls to the relay, like llama.cpp."""

    active = 0
    peak = 0
    lock = threading.Lock()

    def __init__(self, relay: ModelEventRelay, name: str) -> None:
        self.inner = ScriptedLLM(default=AGENT_REPLY, model_id=name)
        self.relay = relay

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def complete(
        self, messages: Sequence[ChatMessage | Mapping[str, str]], **kwargs: Any
    ) -> Completion | CompletionStream:
        cls = SlowReporting
        with cls.lock:
            cls.active += 1
            cls.peak = max(cls.peak, cls.active)
        try:
            self.relay(
                EventKind.MODEL_CALL_STARTED,
                {"model": self.model_id, "prompt_tokens": 1, "cached_prompt_tokens": 0},
            )
            time.sleep(0.05)
            out = self.inner.complete(messages, **{**kwargs, "stream": False})
            self.relay(
                EventKind.MODEL_CALL_COMPLETED,
                {
                    "model": self.model_id,
                    "prompt_tokens": 1,
                    "completion_tokens": 1,
                    "reasoning_tokens": None,
                    "latency_ms": 50,
                    "cached_prompt_tokens": 0,
                    "finish_reason": "stop",
                    "ttft_ms": 10,
                },
            )
        finally:
            with cls.lock:
                cls.active -= 1
        return out


def _turn(
    tmp_path: Path, workers: int, text: str
) -> tuple[TurnResult, list[EngineEvent], list[SlowReporting]]:
    """One turn on ``workers`` slow agent instances: its result, events and the instances."""
    relay = ModelEventRelay()
    agents = [SlowReporting(relay, f"small-{i}") for i in range(workers)]
    roles = {"agents" if i == 0 else f"agents#{i}": m for i, m in enumerate(agents)}
    voice = ScriptedLLM(default=VOICE_REPLY, model_id="medium")
    council = ScriptedLLM(default={"intent": "observe", "tone": "warm"}, model_id="medium")
    models = RoleModels(voice, {**roles, "council": council, "voice": voice})
    log = EventLog(tmp_path / f"rilai-{workers}.db")
    try:
        runner = build_turn_runner(
            events=log,
            models=models,
            memory=InMemoryTurnMemory(),
            prompts=PROMPTS,
            relay=relay,
            use_judge=False,
            agent_workers=workers,
        )
        result = runner.run_turn(text)
        events = log.replay_turn(runner.session_id, result.turn_id)
    finally:
        log.close()
    return result, events, agents


def test_two_workers_run_a_wave_two_at_a_time(tmp_path: Path) -> None:
    SlowReporting.peak = 0
    result, events, (first, second) = _turn(
        tmp_path, 2, "Work was rough today and I feel stressed about it."
    )
    assert SlowReporting.peak == 2  # two calls at once, never more
    assert first.inner.requests and second.inner.requests  # both instances did work
    # the records keep the plan's order (wave by wave), whatever finished first
    planned = [a for e in events if e.kind is EventKind.WAVE_STARTED for a in e.payload["agents"]]
    assert [r.agent_id for r in result.agents if not r.followup] == planned
    # every model call is tagged with the agent whose thread made it
    for e in events:
        if e.kind is EventKind.MODEL_CALL_STARTED and e.payload["model"].startswith("small"):
            assert e.payload["caller"].startswith("agent:")
    per_agent: dict[str, list[EventKind]] = {}
    for e in events:
        agent = e.payload.get("agent_id") or e.payload.get("caller", "").removeprefix("agent:")
        if agent and e.kind in (
            EventKind.AGENT_STARTED,
            EventKind.MODEL_CALL_STARTED,
            EventKind.MODEL_CALL_COMPLETED,
            EventKind.AGENT_COMPLETED,
        ):
            per_agent.setdefault(agent, []).append(e.kind)
    for agent in planned:
        assert per_agent[agent][:4] == [
            EventKind.AGENT_STARTED,
            EventKind.MODEL_CALL_STARTED,
            EventKind.MODEL_CALL_COMPLETED,
            EventKind.AGENT_COMPLETED,
        ], agent


def test_the_relay_caller_is_per_thread() -> None:
    relay = ModelEventRelay()
    seen: list[tuple[str, str]] = []

    def emit(kind: EventKind, payload: Mapping[str, Any]) -> None:
        seen.append((payload["who"], payload["caller"]))

    barrier = threading.Barrier(2)

    def work(name: str) -> None:
        with relay.caller(name):
            barrier.wait(timeout=5)  # both callers are set before either reports
            relay(EventKind.MODEL_CALL_STARTED, {"who": name})

    with relay.attached(emit):
        threads = [threading.Thread(target=work, args=(n,)) for n in ("agent:a", "agent:b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sorted(seen) == [("agent:a", "agent:a"), ("agent:b", "agent:b")]


def _wave_events(tmp_path: Path, workers: int) -> list[tuple[EventKind, int]]:
    """(kind, wave) of the WAVE_* and AGENT_STARTED events of one turn on ``workers``."""
    text = "I've been feeling really lonely and stressed since I moved."
    _, events, _ = _turn(tmp_path, workers, text)
    kinds = (EventKind.WAVE_STARTED, EventKind.WAVE_COMPLETED, EventKind.AGENT_STARTED)
    return [(e.kind, int(e.payload["wave"])) for e in events if e.kind in kinds]


def test_wave_one_takes_the_core_that_wave_zero_leaves_idle(tmp_path: Path) -> None:
    seen = _wave_events(tmp_path, workers=2)
    wave0 = [i for i, (k, w) in enumerate(seen) if k is EventKind.AGENT_STARTED and w == 0]
    assert len(wave0) == 5  # odd: the last one runs beside wave 1's first
    first_of_wave1 = seen.index((EventKind.AGENT_STARTED, 1))
    assert seen.index((EventKind.WAVE_STARTED, 1)) < first_of_wave1
    assert first_of_wave1 < seen.index((EventKind.WAVE_COMPLETED, 0))
    # each wave still opens before its agents and closes after them
    for wave in (0, 1):
        mine = [i for i, (k, w) in enumerate(seen) if k is EventKind.AGENT_STARTED and w == wave]
        assert seen.index((EventKind.WAVE_STARTED, wave)) < min(mine)
        assert seen.index((EventKind.WAVE_COMPLETED, wave)) > max(mine)


def test_one_worker_runs_the_waves_strictly_one_after_the_other(tmp_path: Path) -> None:
    seen = _wave_events(tmp_path, workers=1)
    assert seen.index((EventKind.WAVE_COMPLETED, 0)) < seen.index((EventKind.WAVE_STARTED, 1))
    waves = [w for k, w in seen if k is EventKind.AGENT_STARTED]
    assert waves == sorted(waves) and waves[-1] == 1
