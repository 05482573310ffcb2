"""Wires the turn's stages from ports. The composition root (``app/build.py``) passes the
real event log, model router and memory bridge; tests pass a temporary EventLog, ScriptedLLMs
(``llm.fake.RoleModels``) and ``fakes.InMemoryTurnMemory``.
"""

from __future__ import annotations

from rilai_desktop.turn.agents.context import load_system_text
from rilai_desktop.turn.agents.loader import load_registry
from rilai_desktop.turn.agents.reading import SYSTEM_FILE, Reader
from rilai_desktop.turn.agents.runner import AgentRunner
from rilai_desktop.turn.agents.selection import Scheduler, SchedulerSettings
from rilai_desktop.turn.agents.stage import WaveStage
from rilai_desktop.turn.deliberation.council import Council
from rilai_desktop.turn.model_events import ModelEventRelay
from rilai_desktop.turn.ports import EventStore, Models, TurnMemory
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.runner import TurnRunner, TurnSettings
from rilai_desktop.turn.safety_check import SafetyCheck
from rilai_desktop.turn.sensors import FastSensors
from rilai_desktop.turn.speaking.critics import Critics
from rilai_desktop.turn.speaking.stage import SpeakingStage


def build_turn_runner(
    *,
    events: EventStore,
    models: Models,
    memory: TurnMemory | None,
    prompts: Prompts,
    relay: ModelEventRelay | None = None,
    scheduler_settings: SchedulerSettings | None = None,
    agent_timeout_s: float = 20.0,
    session_id: str | None = None,
    use_judge: bool = True,
    agent_workers: int = 1,
    sensors: FastSensors | None = None,
    safety_check: SafetyCheck | None = None,
    agents: bool = True,
    readings: bool = False,
) -> TurnRunner:
    """``prompts``: the one reader of ``prompts/`` (the composition root builds it from
    ``paths.prompts_dir``), handed to every stage that reads a prompt file.
    ``agent_workers`` > 1 runs a wave's agents on that many instances of the agents'
    model at once (``llm.agent_workers``; the fakes' tests keep 1 unless they test it).
    ``sensors``: the fast sensors (the app passes them with the learned layer; default the
    rules alone). ``safety_check``: the grey-band model check (``turn/safety_check.py``;
    None: off). ``agents``: run the agents at all (``agents.enabled``); ``readings``: the
    reader's grounded reading on the ``reader`` role (``agents.readings``; the app turns it
    on, the fakes' tests leave it off unless they test it)."""
    registry = load_registry(prompts)
    system_text = load_system_text(prompts)
    runner, *extra = [
        AgentRunner(models.for_role("agents", i), system_text, timeout_s=agent_timeout_s)
        for i in range(max(1, agent_workers))
    ]
    # Wave 1 takes at most two agents: with the five always-on agents that is ~6.5 a turn,
    # and each grammar-constrained call costs ~1 s on the small model (docs/turn.md).
    settings = scheduler_settings or SchedulerSettings(max_agents_per_wave=2)
    system = prompts.read(SYSTEM_FILE).strip() if readings else ""
    reader = Reader(models.for_role("reader"), system) if readings else None
    waves = WaveStage(
        registry,
        Scheduler(registry, settings),
        runner,
        extra_runners=tuple(extra),
        enabled=agents,
        reader=reader,
    )
    council_model = models.for_role("council")
    speaking = SpeakingStage(
        models,
        Council(council_model, prompts=prompts),
        Critics(council_model if use_judge else None, prompts=prompts),
        prompts,
    )
    return TurnRunner(
        events=events,
        memory=memory,
        sensors=sensors if sensors is not None else FastSensors(),
        waves=waves,
        speaking=speaking,
        relay=relay,
        settings=TurnSettings(),
        session_id=session_id,
        safety_check=safety_check,
    )
