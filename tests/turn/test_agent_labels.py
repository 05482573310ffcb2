"""Agents answer with labels (issue 16): grounded spans, copies rejected, claims composed by
code, consumed by deliberation and the council, and the agents' influence measured."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from rilai_desktop.contracts import AgentOutput, EventKind, SensorOutput
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.turn.agents.grounding import copied_run
from rilai_desktop.turn.agents.labels import compose_output, grounded_span
from rilai_desktop.turn.agents.loader import AgentRegistry, load_registry
from rilai_desktop.turn.agents.registry import AgentSpec
from rilai_desktop.turn.agents.runner import AgentRunner
from rilai_desktop.turn.deliberation.council import Council
from rilai_desktop.turn.deliberation.influence import agent_influence
from rilai_desktop.turn.deliberation.reducer import reduce
from rilai_desktop.turn.deliberation.rounds import build_graph, contested
from rilai_desktop.turn.state import TurnState
from tests.turn.conftest import PROMPTS, Rig

LONELY = "honestly it's been lonely. work is fine but evenings are hard."
# Rilai's reply quoted in issue 16; an agent copied it back as its observation
RILAI_BEFORE = (
    "Hi Dana, I'm glad you're thinking about your new job and that you're looking forward"
    " to a new home."
)


@cache
def registry() -> AgentRegistry:
    return load_registry(PROMPTS)


def spec(agent_id: str) -> AgentSpec:
    return registry().get(agent_id)


def answer(label: str, present: str = "yes", confidence: int = 2, **extra: Any) -> dict[str, Any]:
    return {"present": present, "label": label, "confidence": confidence, **extra}


# ── spans ────────────────────────────────────────────────────────────────────


def test_a_span_is_kept_as_the_message_writes_it() -> None:
    assert grounded_span("Evenings are hard", LONELY) == "evenings are hard"
    assert grounded_span("  evenings   are hard. ", LONELY) == "evenings are hard"
    assert grounded_span("it’s been lonely", LONELY) == "it's been lonely"


@pytest.mark.parametrize(
    "span", ["evenings are easy", "ening", "lonel", "a", "", "work is fine but nights"]
)
def test_a_span_not_in_the_message_or_cut_inside_a_word_is_dropped(span: str) -> None:
    assert grounded_span(span, LONELY) is None


def test_copied_run_names_the_source_and_ignores_short_overlaps() -> None:
    prompt = "You read the person's overall emotional state, and how strongly it shows."
    why = copied_run("You read the person's overall emotional", [("its own instructions", prompt)])
    assert why is not None and why.startswith("copies its own instructions")
    assert copied_run("the person", [("its own instructions", prompt)]) is None  # too short
    assert copied_run("my sister hates the person's overall plan", [("x", prompt)]) is None


# ── composing the output ─────────────────────────────────────────────────────


def test_a_present_label_becomes_the_manifests_claim() -> None:
    out = compose_output(spec("emotion.wellbeing"), answer("lonely", span="x"), "evenings")
    assert out.label == "lonely" and out.present and out.span == "evenings"
    assert [(c.text, c.type.value, c.urgency, c.confidence) for c in out.claims] == [
        ("they sound lonely", "concern", 2, 2)
    ]
    assert out.observation == "they sound lonely ('evenings')"
    assert out.stance_delta == {"valence": -0.1}  # wellbeing may nudge the stance
    assert out.salience == pytest.approx(4 / 9)


@pytest.mark.parametrize(("present", "confidence"), [("no", 3), ("yes", 0)])
def test_absent_or_unsure_is_quiet_with_the_label_recorded(present: str, confidence: int) -> None:
    out = compose_output(spec("emotion.wellbeing"), answer("sad", present, confidence), None)
    assert out.claims == [] and out.urgency == 0 and out.stance_delta is None
    assert out.label == "sad" and out.observation.startswith("not here: they sound sad")


def test_a_gated_label_needs_its_sensor() -> None:
    censor = spec("inhibition.censor")
    calm = compose_output(censor, answer("self_harm", confidence=3), None, sensors={})
    assert calm.claims == [] and "gated by the sensors" in calm.observation
    risky = compose_output(
        censor, answer("self_harm", confidence=3), None, sensors={"safety_risk": 0.3}
    )
    assert [c.urgency for c in risky.claims] == [3]


def test_an_unknown_label_is_refused() -> None:
    with pytest.raises(ValueError, match="not one of"):
        compose_output(spec("emotion.wellbeing"), answer("ecstatic"), None)


# ── copies are failures ──────────────────────────────────────────────────────


def run_agent(
    agent_id: str, reply: dict[str, Any], *, said: tuple[str, ...] = ()
) -> tuple[Any, list[tuple[EventKind, dict[str, Any]]]]:
    events: list[tuple[EventKind, dict[str, Any]]] = []
    run = AgentRunner(ScriptedLLM(default=reply), "Read the context.").run(
        spec(agent_id),
        f'The person says: "{LONELY}"',
        lambda k, p: events.append((k, dict(p))),
        wave=0,
        user_text=LONELY,
        rilai_said=said,
    )
    return run, events


def test_a_span_copied_from_the_agents_own_question_fails_with_the_reason() -> None:
    run, events = run_agent(
        "emotion.wellbeing", answer("lonely", span="How is the person feeling overall")
    )
    assert run.failed and run.output.claims == []
    kind, payload = events[-1]
    assert kind is EventKind.AGENT_FAILED
    assert payload["reason"] == "copied"
    assert "copies its own instructions" in payload["error"]


def test_a_span_copied_from_rilais_earlier_reply_fails() -> None:
    run, events = run_agent(
        "social.empathy",
        answer("heard", span="I'm glad you're thinking about your new job"),
        said=(RILAI_BEFORE,),
    )
    assert run.failed
    assert events[-1][0] is EventKind.AGENT_FAILED
    assert "copies an earlier Rilai reply" in events[-1][1]["error"]


def test_a_span_from_the_message_is_kept_even_when_rilai_said_it_too() -> None:
    run, events = run_agent(
        "social.empathy", answer("heard", span="evenings are hard"), said=("evenings are hard",)
    )
    assert not run.failed and run.output.span == "evenings are hard"
    assert events[-1][1]["label"] == "heard" and events[-1][1]["span"] == "evenings are hard"


def test_in_a_turn_copying_agents_fail_and_make_no_claims(rig: Rig) -> None:
    rig.runner.run_turn("hi, I'm Dana. I just moved to Lisbon for a new job.")
    rig.agents.default = lambda request: {
        "present": "yes",
        "label": request.schema["properties"]["label"]["enum"][0],  # type: ignore[index]
        "confidence": 2,
        "span": "That sounds like a full day",  # the conftest voice reply of turn 1
    }
    result = rig.runner.run_turn(LONELY)
    turn = rig.log.events(session_id=rig.runner.session_id, turn_id=result.turn_id)
    failed = [e for e in turn if e.kind is EventKind.AGENT_FAILED]
    assert failed and all(e.payload["reason"] == "copied" for e in failed)
    assert result.state.claims == []
    assert all(a.failed for a in result.agents)


# ── deliberation and the council consume the labels ─────────────────────────


def outputs(*answers: tuple[str, dict[str, Any]]) -> list[AgentOutput]:
    return [compose_output(spec(agent_id), reply, None) for agent_id, reply in answers]


def test_deliberation_sees_labels_that_disagree_about_advice() -> None:
    outs = outputs(
        ("inhibition.suppressor", answer("no_advice", confidence=3)),
        ("social.empathy", answer("advice", confidence=1)),
    )
    claims = [c for o in outs for c in o.claims]
    disputed = contested(build_graph(claims))
    assert disputed  # "hold off on advice" vs "they want advice or a plan"


def state_for(text: str, outs: list[AgentOutput], **sensors: float) -> TurnState:
    state = TurnState("s", 1, text)
    state.sensors = {n: SensorOutput(sensor=n, probability=p) for n, p in sensors.items()}
    state.stance_before_agents = state.stance
    state.modulators_before_agents = state.modulators
    reduced = reduce(state.stance, state.modulators, outs, turn_id=1, now_ts=0.0)
    state.outputs, state.claims = list(outs), list(reduced.claims)
    state.stance, state.modulators = reduced.stance, reduced.modulators
    return state


def test_the_council_puts_label_claims_in_the_notes_and_influence_says_whose() -> None:
    outs = outputs(
        ("emotion.wellbeing", answer("lonely", confidence=3)),
        ("emotion.stress", answer("work", present="no")),
    )
    state = state_for(LONELY, outs, vulnerability=0.7)
    council = Council(prompts=PROMPTS)
    outcome = council.decide(state)
    state.decision = outcome.decision
    assert outcome.decision.speech_act.intent == "witness"
    assert "they sound lonely" in outcome.decision.speech_act.key_points
    influence = agent_influence(state, council, used_model=outcome.used_model)
    assert influence["changed_decision"] and influence["changed_notes"]
    assert "key_points" in influence["fields"]
    assert influence["by_agent"]["emotion.wellbeing"] == {"decision": True, "notes": True}
    assert influence["by_agent"]["emotion.stress"] == {"decision": False, "notes": False}
    assert influence["key_point_sources"] == {"they sound lonely": ["emotion.wellbeing"]}


def test_a_stance_nudge_alone_can_change_the_fallback_intent() -> None:
    """No rule fires and no model: the fallback reads the stance valence the agents moved."""
    outs = outputs(("emotion.wellbeing", answer("sad", confidence=3)))
    state = state_for("the weekend was a bit meh", outs)
    state.claims = []  # only the stance nudge is left
    council = Council(prompts=PROMPTS)
    state.decision = council.decide(state).decision
    assert state.decision.speech_act.intent == "witness"
    influence = agent_influence(state, council, used_model=False)
    assert influence["changed_decision"] and "intent" in influence["fields"]


def test_quiet_agents_change_nothing() -> None:
    outs = outputs(("emotion.wellbeing", answer("sad", present="no")))
    state = state_for("hello there", outs)
    council = Council(prompts=PROMPTS)
    state.decision = council.decide(state).decision
    influence = agent_influence(state, council, used_model=False)
    assert not influence["changed_decision"] and not influence["changed_notes"]
    assert influence["by_agent"] == {"emotion.wellbeing": {"decision": False, "notes": False}}


def test_the_council_event_carries_the_influence(rig: Rig) -> None:
    result = rig.runner.run_turn(LONELY)
    turn = rig.log.events(session_id=rig.runner.session_id, turn_id=result.turn_id)
    decided = [e for e in turn if e.kind is EventKind.COUNCIL_DECISION_MADE]
    influence = decided[-1].payload["agent_influence"]
    assert influence == result.state.agent_influence
    assert set(influence["agents"]) == {a.agent_id for a in result.agents}
    assert isinstance(influence["changed_notes"], bool)
