"""A TurnRunner on ScriptedLLMs, a temporary EventLog and the in-memory memory fake."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from rilai_desktop.llm.fake import RoleModels, ScriptedLLM, agent_answer
from rilai_desktop.paths import REPO_ROOT
from rilai_desktop.store import EventLog
from rilai_desktop.turn.factory import build_turn_runner
from rilai_desktop.turn.fakes import InMemoryTurnMemory
from rilai_desktop.turn.model_events import ModelEventRelay
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.runner import TurnRunner

PROMPTS_DIR = REPO_ROOT / "prompts"


def repo_prompts() -> Prompts:
    """A reader of the repository's own ``prompts/`` folder (what the app reads)."""
    return Prompts(PROMPTS_DIR)


PROMPTS = repo_prompts()

# every agent answers its first label, present, confidence 2 (agents answer with labels:
# docs/agents.md, "Output")
AGENT_REPLY = agent_answer()
VOICE_REPLY = "That sounds like a full day. I'm glad you told me about it."


class StubRouter:
    """Stands in for the ModelRouter where a command only asks which models are loaded."""

    def loaded_models(self) -> list[str]:
        return ["scripted"]

    def close(self) -> None:
        pass


@dataclass
class Rig:
    log: EventLog
    agents: ScriptedLLM
    council: ScriptedLLM
    voice: ScriptedLLM
    escalation: ScriptedLLM
    memory: InMemoryTurnMemory
    relay: ModelEventRelay
    runner: TurnRunner

    def restart(self) -> TurnRunner:
        """A new runner on the same log and memory, as after a process restart."""
        self.runner = _runner(
            self.log,
            self.agents,
            self.council,
            self.voice,
            self.escalation,
            self.memory,
            self.relay,
        )
        return self.runner


def _runner(
    log: EventLog,
    agents: ScriptedLLM,
    council: ScriptedLLM,
    voice: ScriptedLLM,
    escalation: ScriptedLLM,
    memory: InMemoryTurnMemory,
    relay: ModelEventRelay,
) -> TurnRunner:
    models = RoleModels(
        voice, {"agents": agents, "council": council, "voice": voice, "escalation": escalation}
    )
    return build_turn_runner(
        events=log,
        models=models,
        memory=memory,
        prompts=PROMPTS,
        relay=relay,
        use_judge=False,
    )


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    log = EventLog(tmp_path / "rilai.db")
    agents = ScriptedLLM(default=AGENT_REPLY, model_id="small")
    council = ScriptedLLM(default={"intent": "observe", "tone": "warm"}, model_id="medium")
    voice = ScriptedLLM(default=VOICE_REPLY, model_id="medium")
    escalation = ScriptedLLM(default=VOICE_REPLY, model_id="large")
    memory = InMemoryTurnMemory()
    relay = ModelEventRelay()
    runner = _runner(log, agents, council, voice, escalation, memory, relay)
    yield Rig(log, agents, council, voice, escalation, memory, relay, runner)
    log.close()
