"""Every input a manifest declares reaches the agents that declare it, and only then.

The shared context (``turn/agents/context.py``) is one text for every agent of a turn (its
KV cache is reused), so it carries an input only when there is something to say and a
scheduled agent declares it; ``active_claims`` go to the declaring agent's own message.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import pytest

from rilai_desktop.contracts import (
    AgentManifest,
    Claim,
    ClaimType,
    EventKind,
    GlobalModulators,
    StanceVector,
    WorkspaceState,
)
from rilai_desktop.contracts.llm import ChatMessage
from rilai_desktop.llm.fake import ScriptedLLM, agent_answer
from rilai_desktop.turn.agents.context import (
    AGENT_INPUTS,
    MEMORY_LINE_CHARS,
    agent_messages,
    declared_inputs,
    turn_context,
)
from rilai_desktop.turn.agents.loader import load_registry
from rilai_desktop.turn.agents.registry import AgentSpec, Label, Triggers
from rilai_desktop.turn.agents.runner import AgentRunner
from rilai_desktop.turn.agents.selection import ScheduledAgent, Scheduler
from rilai_desktop.turn.agents.stage import WaveStage
from rilai_desktop.turn.ports import Recall
from rilai_desktop.turn.state import TurnState
from tests.turn.conftest import PROMPTS, Rig

SYSTEM = "Answer with a label."
LONG = "finish the thesis draft before the committee meets " * 5


def _spec(*inputs: str, agent_id: str = "reasoning.researcher") -> AgentSpec:
    manifest = AgentManifest(
        id=agent_id,
        display_name="Test agent",
        inputs=["user_message", *inputs],
        outputs=["claims"],
        cost_estimate=150,
        prompt_template=f"{agent_id.split('.')[1]}.md",
    )
    labels = (Label("yes", "it shows"), Label("no", "it does not"))
    return AgentSpec(manifest, "Does it show?", Triggers(), labels)


def _claim(text: str) -> Claim:
    return Claim(
        id=text,
        text=text,
        type=ClaimType.CONCERN,
        source_agent="emotion.stress",
        urgency=2,
        confidence=2,
    )


def _state(**recall: list[dict[str, object]]) -> TurnState:
    return TurnState("s", 1, "I can't get anything done this week", recall=Recall(**recall))


def _text(messages: list[ChatMessage]) -> str:
    return "\n".join(m.content for m in messages)


# what each input looks like when there is something to say: how to give the turn some,
# and a marker the declaring agent must then read (a new input needs an entry here)
def _fill_history(state: TurnState) -> None:
    state.history = [{"role": "user", "content": "the exam is on Friday"}]


def _fill_stance(state: TurnState) -> None:
    state.stance = StanceVector(strain=0.6)


def _fill_modulators(state: TurnState) -> None:
    state.modulators = GlobalModulators(time_pressure=0.7)


def _fill_facts(state: TurnState) -> None:
    state.recall = Recall(user_facts=[{"fact": "they study law in Leeds"}])


def _fill_threads(state: TurnState) -> None:
    state.recall = Recall(open_threads=[{"title": "finish the thesis draft"}])


def _fill_episodes(state: TurnState) -> None:
    state.recall = Recall(episodes=[{"summary": "they failed a resit last spring"}])


def _fill_knowledge(state: TurnState) -> None:
    doc = {"kb": "kb_core", "id": "lease", "text": "the lease ends on 30 June", "score": 0.6}
    state.recall = Recall(knowledge=[doc])


FILL: dict[str, tuple[Callable[[TurnState], None], str]] = {
    "user_message": (lambda s: None, "I can't get anything done this week"),
    "conversation_history": (_fill_history, "the exam is on Friday"),
    "stance": (_fill_stance, "strain 0.6"),
    "modulators": (_fill_modulators, "Pressure: time pressure 0.7"),
    "user_facts": (_fill_facts, "they study law in Leeds"),
    "open_threads": (_fill_threads, "Still open: finish the thesis draft"),
    "retrieved_episodes": (_fill_episodes, "Earlier: they failed a resit last spring"),
    "knowledge": (_fill_knowledge, "From their documents: the lease ends on 30 June"),
    "active_claims": (lambda s: None, "Claims so far: they sound overwhelmed."),
}
CLAIMS = [_claim("they sound overwhelmed")]
# markers that say nothing when the input is empty
EMPTY_MARKERS = {
    "modulators": "Pressure:",
    "open_threads": "Still open:",
    "retrieved_episodes": "Earlier:",
    "knowledge": "From their documents:",
    "active_claims": "Claims so far:",
}


def test_every_input_a_turn_provides_is_a_workspace_slot_and_has_a_case_here() -> None:
    assert set(FILL) == AGENT_INPUTS
    assert set(WorkspaceState.model_fields) >= AGENT_INPUTS


@pytest.mark.parametrize("name", sorted(AGENT_INPUTS))
def test_an_agent_declaring_an_input_sees_it(name: str) -> None:
    fill, marker = FILL[name]
    state = _state()
    fill(state)
    spec = _spec(name)
    context = turn_context(state, declared_inputs([spec]))
    messages = agent_messages(SYSTEM, context, spec, claims=CLAIMS)
    assert marker in _text(messages)


@pytest.mark.parametrize("name", sorted(EMPTY_MARKERS))
def test_nothing_is_added_when_the_input_is_empty(name: str) -> None:
    spec = _spec(*AGENT_INPUTS)
    state = _state()
    context = turn_context(state, declared_inputs([spec]))
    assert EMPTY_MARKERS[name] not in _text(agent_messages(SYSTEM, context, spec, claims=[]))


@pytest.mark.parametrize("name", ["modulators", "open_threads", "retrieved_episodes", "knowledge"])
def test_a_shared_line_only_when_a_scheduled_agent_declares_it(name: str) -> None:
    fill, marker = FILL[name]
    state = _state()
    fill(state)
    assert marker not in turn_context(state, declared_inputs([_spec("user_facts")]))
    both = declared_inputs([_spec("user_facts"), _spec(name, agent_id="emotion.stress")])
    assert marker in turn_context(state, both)
    assert marker in turn_context(state)  # no plan given: whatever has something to say


def test_shared_memory_lines_stay_short() -> None:
    threads = [{"title": f"{i} {LONG}"} for i in range(5)]
    episodes = [{"summary": f"episode {i} {LONG}"} for i in range(3)]
    state = _state(open_threads=threads, episodes=episodes)  # type: ignore[arg-type]
    lines = turn_context(state).splitlines()
    still = next(line for line in lines if line.startswith("Still open: "))
    parts = still.removeprefix("Still open: ").split("; ")
    assert len(parts) == 2 and all(len(p) <= MEMORY_LINE_CHARS for p in parts)
    earlier = next(line for line in lines if line.startswith("Earlier: "))
    assert "episode 0" in earlier and "episode 1" not in earlier
    assert len(earlier.removeprefix("Earlier: ")) <= MEMORY_LINE_CHARS


def test_modulators_at_their_defaults_say_nothing() -> None:
    state = _state()
    state.modulators = GlobalModulators(arousal=0.35, fatigue=0.1)  # within 0.15 of default
    assert "Pressure:" not in turn_context(state)


def test_active_claims_go_to_the_declaring_agents_own_message_only() -> None:
    reader, other = _spec("active_claims"), _spec(agent_id="emotion.stress")
    state = _state()
    context = turn_context(state, declared_inputs([reader, other]))
    mine = agent_messages(SYSTEM, context, reader, claims=CLAIMS)
    theirs = agent_messages(SYSTEM, context, other, claims=CLAIMS)
    assert mine[0] == theirs[0]  # the shared part is the same text: one KV prefix
    assert "they sound overwhelmed" in mine[1].content
    assert "overwhelmed" not in _text(theirs)


# ── in the running stage ─────────────────────────────────────────────────────


@pytest.mark.parametrize("workers", [1, 2])
def test_a_wave_1_agent_declaring_active_claims_reads_wave_0s_claims(workers: int) -> None:
    registry = load_registry(PROMPTS)
    assert "active_claims" in registry.get("creative.synthesizer").manifest.inputs
    models = [ScriptedLLM(default=agent_answer(), model_id=f"small-{i}") for i in range(workers)]
    runner, *extra = [AgentRunner(m, SYSTEM) for m in models]
    stage = WaveStage(registry, Scheduler(registry), runner, extra_runners=tuple(extra))
    plans = [
        [_planned("emotion.stress"), _planned("inhibition.censor")],
        [_planned("creative.synthesizer"), _planned("social.empathy")],
    ]
    state = _state()
    runs = stage._run_plans(plans, turn_context(state), lambda k, p: None, _no_scope, state)
    wave0_claims = [c.text for run in runs[0] for c in run.output.claims]
    assert wave0_claims  # the first label, present, confidence 2: a claim each
    requests = [r for m in models for r in m.requests]
    asks = {r.messages[-1].content.split(".")[0]: r.messages[-1].content for r in requests}
    synth = asks[f"Your role: {registry.get('creative.synthesizer').manifest.display_name}"]
    empathy = asks[f"Your role: {registry.get('social.empathy').manifest.display_name}"]
    assert all(text in synth for text in wave0_claims[:2])
    assert "Claims so far" not in empathy


def _planned(agent_id: str) -> ScheduledAgent:
    return ScheduledAgent(agent_id, 1.0, ())


def _no_scope(name: str) -> AbstractContextManager[None]:
    return nullcontext()


def test_a_turn_says_open_threads_iff_a_planned_agent_declares_them(rig: Rig) -> None:
    rig.memory.threads = [{"title": "finish the thesis draft"}]
    registry = rig.runner.waves.registry
    seen: set[bool] = set()
    for text in ("can you sum up the big picture of all of this", "hello there"):
        before = len(rig.agents.requests)
        result = rig.runner.run_turn(text)
        events = rig.log.events(kind=EventKind.WAVE_STARTED, turn_id=result.turn_id)
        planned = [agent for e in events for agent in e.payload["agents"]]
        declares = any("open_threads" in registry.get(a).manifest.inputs for a in planned)
        prompts = [r.messages[0].content for r in rig.agents.requests[before:]]
        assert prompts
        assert all(("Still open: finish the thesis draft" in p) == declares for p in prompts)
        seen.add(declares)
    assert seen == {True, False}  # the synthesizer reads threads; wave 0 alone does not
