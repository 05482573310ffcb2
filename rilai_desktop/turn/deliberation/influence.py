"""Did the agents change anything? The council's decision and the voice's notes, replayed
without them (issue 16: "an agent that never does is a finding to act on").

Agents reach the reply only through two things: their claims (key points, the question,
urgency, a concern that tips the fallback intent, the silent-turn check) and the stance
nudges the reducer applies (the fallback intent reads valence; the tone reads warmth and
arousal). The council's rules are deterministic and cheap (well under a millisecond), so
we replay them:

- **all agents**: no claims, the stance and modulators as they were before the agents;
- **each agent** that made a claim or nudged the stance: the turn without that agent's
  outputs (the reducer re-run over the others, its claims removed).

A replay never calls a model: where the rules leave the intent open and the model chose
it this turn, every replay keeps that intent (``intent_by_model``: the agents' effect on
the model's choice is not measured; saying so is honest, paying a second model call per
agent is not affordable). The notes are the voice's "how to answer" paragraph
(``voice_prompt.answer_block``), which is built from the decision alone.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from rilai_desktop.contracts import CouncilDecision
from rilai_desktop.turn.agents.reading import READER_ID
from rilai_desktop.turn.deliberation.council import Council
from rilai_desktop.turn.deliberation.reducer import reduce
from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.speaking.voice_prompt import answer_block
from rilai_desktop.turn.state import TurnState

DECISION_FIELDS: Final[tuple[str, ...]] = (
    "speak",
    "urgency",
    "intent",
    "key_points",
    "tone",
    "do_not",
    "asks_user",
)


def _fields(decision: CouncilDecision) -> dict[str, Any]:
    act = decision.speech_act
    return {
        "speak": decision.speak,
        "urgency": decision.urgency,
        "intent": act.intent,
        "key_points": list(act.key_points),
        "tone": act.tone,
        "do_not": list(act.do_not),
        "asks_user": list(act.asks_user or []),
    }


def _changed(a: CouncilDecision, b: CouncilDecision) -> list[str]:
    fa, fb = _fields(a), _fields(b)
    return [name for name in DECISION_FIELDS if fa[name] != fb[name]]


def _notes(decision: CouncilDecision, prompts: Prompts) -> str:
    return answer_block(decision, prompts=prompts) if decision.speak else ""


def _without(state: TurnState, agent_id: str | None) -> TurnState:
    """``state`` as if ``agent_id`` (None: every agent) had said nothing this turn."""
    stance = state.stance_before_agents or state.stance
    modulators = state.modulators_before_agents or state.modulators
    if agent_id is None:
        return dataclasses.replace(
            state, outputs=[], claims=[], stance=stance, modulators=modulators, decision=None
        )
    outputs = [o for o in state.outputs if o.agent_id != agent_id]
    reduced = reduce(
        stance,
        modulators,
        outputs,
        turn_id=state.turn_id,
        now_ts=float(state.stance.last_update_ts or 0.0),
    )
    return dataclasses.replace(
        state,
        outputs=outputs,
        claims=[c for c in state.claims if c.source_agent != agent_id],
        stance=reduced.stance,
        modulators=reduced.modulators,
        decision=None,
    )


def agent_influence(state: TurnState, council: Council, *, used_model: bool) -> dict[str, Any]:
    """The ``agent_influence`` field of COUNCIL_DECISION_MADE for this turn.

    ``changed_decision`` / ``changed_notes``: the agents together changed the decision /
    the voice's notes; ``fields``: which decision fields; ``by_agent``: per agent that ran,
    whether removing it alone changes the decision / the notes; ``key_point_sources``:
    which agents' claims became which key points.
    """
    decision = state.decision
    ran = list(dict.fromkeys(o.agent_id for o in state.outputs))
    read = bool(state.readings or state.not_wanted)  # the reader's facts are in the notes
    if read:
        ran.append(READER_ID)
    if decision is None:
        return {"agents": ran, "changed_decision": False, "changed_notes": read}
    open_intent = decision.speech_act.intent if used_model else None
    actual = council.replay(state, open_intent)
    base = council.replay(_without(state, None), open_intent)
    fields = _changed(actual, base)
    notes = _notes(actual, council.prompts)
    by_agent: dict[str, dict[str, bool]] = {}
    for agent_id in ran:
        if agent_id == READER_ID:  # notes only: the council never reads the readings
            by_agent[agent_id] = {"decision": False, "notes": True}
            continue
        spoke = any(c.source_agent == agent_id for c in state.claims) or any(
            o.agent_id == agent_id and o.stance_delta for o in state.outputs
        )
        if not spoke:
            by_agent[agent_id] = {"decision": False, "notes": False}
            continue
        alone = council.replay(_without(state, agent_id), open_intent)
        by_agent[agent_id] = {
            "decision": bool(_changed(actual, alone)),
            "notes": _notes(alone, council.prompts) != notes,
        }
    sources: dict[str, list[str]] = {}
    for point in decision.speech_act.key_points:
        stem = point.rstrip("…").strip()
        agents = sorted(
            {c.source_agent for c in state.claims if c.text.strip() in point or stem in c.text}
        )
        if agents:
            sources[point] = agents
    return {
        "agents": ran,
        "changed_decision": bool(fields),
        "changed_notes": read or notes != _notes(base, council.prompts),
        "readings": len(state.readings) + bool(state.not_wanted),
        "fields": fields,
        "by_agent": by_agent,
        "key_point_sources": sources,
        "intent_by_model": used_model,
    }
