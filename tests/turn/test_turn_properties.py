"""Property tests (hypothesis) for the reducer, claim dedupe and the deliberation maths."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rilai_desktop.contracts import (
    STANCE_DIMENSIONS,
    AgentOutput,
    Claim,
    ClaimType,
    GlobalModulators,
    StanceVector,
)
from rilai_desktop.turn.deliberation.claims import dedupe_claims
from rilai_desktop.turn.deliberation.graph import (
    ArgumentGraph,
    Edge,
    build_graph,
    consensus,
    contested,
)
from rilai_desktop.turn.deliberation.reducer import ALPHA, BOUNDS, MAX_DELTA, reduce
from rilai_desktop.turn.deliberation.rounds import deliberate

# no deadline: a timing threshold would make these flaky on a busy 2-core machine
PROPERTY = settings(max_examples=150, deadline=None)

AGENTS = (
    "emotion.stress",
    "emotion.wellbeing",
    "social.empathy",
    "social.norms",
    "resource.time",
    "planning.short_term",
    "monitoring.trigger_watcher",
    "reasoning.debugger",
)
PHRASES = (
    "Give the user concrete advice",
    "Just listen for now",
    "Offer a practical plan",
    "Hold off on solutions",
    "User is at risk",
    "User is not at risk",
    "User is stressed about work",
    "The user seems stressed about work",
    "Stress about work is building",
    "Encourage them to apply",
    "Give them space",
    "Ask what happened at the meeting",
    "Avoid probing",
    "Reassure them it's okay",
    "Don't minimise their feelings",
    "User wants to talk about the weekend",
)
IDS = tuple(f"c{i}" for i in range(8))

any_float = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e300, -1e300, 0.15, -0.15, 0.0]),
)
dimension = st.one_of(st.sampled_from(STANCE_DIMENSIONS), st.text(max_size=8))
texts = st.one_of(st.sampled_from(PHRASES), st.text(max_size=80))


@st.composite
def raw_outputs(draw: st.DrawFn) -> AgentOutput:
    """Outputs past validation: deltas may be NaN, inf, huge, or for unknown dimensions."""
    return AgentOutput.model_construct(
        agent_id=draw(st.sampled_from(AGENTS)),
        observation="x",
        salience=draw(st.floats(0.0, 1.0)),
        urgency=1,
        confidence=1,
        claims=[],
        stance_delta=draw(st.dictionaries(dimension, any_float, max_size=6)),
        memory_candidates=None,
        debug_trace=None,
        processing_time_ms=0,
    )


@st.composite
def claims(draw: st.DrawFn, ids: tuple[str, ...] = IDS) -> Claim:
    return Claim(
        id=draw(st.sampled_from(ids)),
        text=draw(texts)[:200],
        type=draw(st.sampled_from(list(ClaimType))),
        source_agent=draw(st.sampled_from(AGENTS)),
        urgency=draw(st.integers(0, 3)),
        confidence=draw(st.integers(0, 3)),
        supports=draw(st.lists(st.sampled_from(ids), max_size=3)),
        opposes=draw(st.lists(st.sampled_from(ids), max_size=3)),
    )


def unique_ids(items: list[Claim]) -> list[Claim]:
    seen: dict[str, Claim] = {}
    for item in items:
        seen.setdefault(item.id, item)
    return list(seen.values())


@st.composite
def valid_outputs(draw: st.DrawFn) -> AgentOutput:
    agent = draw(st.sampled_from(AGENTS))
    return AgentOutput(
        agent_id=agent,
        observation="noticed",
        salience=draw(st.floats(0.0, 1.0)),
        urgency=draw(st.integers(0, 3)),
        confidence=draw(st.integers(0, 3)),
        claims=draw(st.lists(claims(), max_size=3)),
        stance_delta=draw(
            st.none()
            | st.dictionaries(
                st.sampled_from(STANCE_DIMENSIONS), st.floats(-1, 1, allow_nan=False), max_size=4
            )
        ),
    )


def _clamped_finite(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0.0
    return max(-MAX_DELTA, min(MAX_DELTA, float(value)))


@PROPERTY
@given(st.lists(st.lists(raw_outputs(), max_size=6), max_size=6))
def test_stance_always_in_bounds_and_steps_are_bounded(turns: list[list[AgentOutput]]) -> None:
    stance = StanceVector(last_update_ts=0.0)
    modulators = GlobalModulators()
    for turn_id, outputs in enumerate(turns, start=1):
        result = reduce(stance, modulators, outputs, turn_id=turn_id, now_ts=1e9 + turn_id)
        for name in STANCE_DIMENSIONS:
            low, high = BOUNDS[name]
            new, old = getattr(result.stance, name), getattr(stance, name)
            assert low <= new <= high
            budget = ALPHA * sum(
                abs(_clamped_finite((o.stance_delta or {}).get(name))) for o in outputs
            )
            assert abs(new - old) <= budget + 1e-12
        for value in result.modulators.to_dict().values():
            assert 0.0 <= value <= 1.0
        stance, modulators = result.stance, result.modulators


@PROPERTY
@given(st.lists(valid_outputs(), max_size=6), st.randoms(use_true_random=False))
def test_reducer_is_deterministic_and_order_independent(
    outputs: list[AgentOutput], rng: Any
) -> None:
    stance = StanceVector(last_update_ts=0.0)
    modulators = GlobalModulators()
    first = reduce(stance, modulators, outputs, turn_id=3, now_ts=1e9)
    assert reduce(stance, modulators, outputs, turn_id=3, now_ts=1e9) == first
    shuffled = list(outputs)
    rng.shuffle(shuffled)
    assert reduce(stance, modulators, shuffled, turn_id=3, now_ts=1e9) == first


@PROPERTY
@given(st.lists(claims(ids=tuple(f"c{i}" for i in range(30))), max_size=20))
def test_dedupe_is_idempotent_and_keeps_only_input_claims(items: list[Claim]) -> None:
    once = dedupe_claims(items)
    assert dedupe_claims(once) == once
    assert len(once) <= len(items)
    assert {c.id for c in once} <= {c.id for c in items}
    assert len({c.id for c in once}) == len(once)


@PROPERTY
@given(
    st.lists(claims(), max_size=8),
    st.lists(
        st.builds(
            Edge,
            st.sampled_from((*IDS, "ghost")),
            st.sampled_from((*IDS, "ghost")),
            st.sampled_from(["supports", "opposes"]),
            st.just("x"),
        ),
        max_size=20,
    ),
)
def test_consensus_is_in_unit_interval_for_any_graph(items: list[Claim], edges: list[Edge]) -> None:
    for graph in (build_graph(items), ArgumentGraph(tuple(items), tuple(edges))):
        level, by_type = consensus(graph)
        assert 0.0 <= level <= 1.0
        assert all(0.0 <= value <= 1.0 for value in by_type.values())
        # a repeated id is one claim: its first occurrence counts
        assert set(by_type) == {c.type.value for c in unique_ids(items)}
        assert set(contested(graph)) <= {c.id for c in items}


@PROPERTY
@given(
    st.lists(claims(), max_size=8),
    st.lists(st.tuples(st.sampled_from(IDS), st.sampled_from(IDS)), max_size=20),
)
def test_no_opposition_means_consensus_exactly_one(
    items: list[Claim], pairs: list[tuple[str, str]]
) -> None:
    edges = tuple(Edge(a, b, "supports", "x") for a, b in pairs)
    level, by_type = consensus(ArgumentGraph(tuple(items), edges))
    assert level == 1.0
    assert all(value == 1.0 for value in by_type.values())
    assert contested(ArgumentGraph(tuple(items), edges)) == []


@PROPERTY
@given(
    st.lists(claims(ids=tuple(f"c{i}" for i in range(20))), max_size=10),
    st.integers(0, 5),
    st.data(),
)
def test_deliberate_bounds_rounds_and_asks_only_contested_authors(
    items: list[Claim], max_rounds: int, data: st.DataObject
) -> None:
    items = unique_ids(items)
    round_now = [-1]
    calls: list[tuple[int, str, list[Claim]]] = []
    counter = iter(range(10_000))

    def follow_up(agent: str, mine: list[Claim], opposing: list[Claim]) -> list[Claim] | None:
        calls.append((round_now[0], agent, mine))
        choice = data.draw(st.sampled_from(["none", "withdraw", "revise"]))
        if choice == "none":
            return None
        if choice == "withdraw":
            return []
        return [
            Claim(
                id=f"r{next(counter)}",
                text=data.draw(st.sampled_from(PHRASES)),
                type=ClaimType.RECOMMENDATION,
                source_agent=agent,
                urgency=data.draw(st.integers(0, 3)),
                confidence=data.draw(st.integers(0, 3)),
            )
        ]

    def started(number: int) -> None:
        round_now[0] = number

    final, rounds = deliberate(items, follow_up, max_rounds=max_rounds, on_round_start=started)
    assert len(rounds) <= max_rounds
    assert [r.round for r in rounds] == list(range(len(rounds)))
    if rounds:
        assert rounds[-1].exit_reason != ""
        assert all(r.exit_reason == "" for r in rounds[:-1])
    for number, agent, mine in calls:
        assert mine, "an agent is only asked about claims of its own"
        assert all(c.source_agent == agent for c in mine)
        assert {c.id for c in mine} <= set(rounds[number].contested)
        assert agent in rounds[number].followups
    for result in rounds:
        asked = [agent for number, agent, _ in calls if number == result.round]
        assert asked == result.followups == sorted(set(asked))
        assert 0.0 <= result.consensus <= 1.0
    assert dedupe_claims(final) == final
