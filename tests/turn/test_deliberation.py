"""The argument graph, consensus, contested claims and the deliberation rounds."""

from __future__ import annotations

import pytest

from rilai_desktop.contracts import Claim, ClaimType
from rilai_desktop.turn.deliberation.graph import (
    ArgumentGraph,
    Edge,
    build_graph,
    claim_weight,
    consensus,
    contested,
    tallies,
)
from rilai_desktop.turn.deliberation.rounds import (
    EXIT_EARLY,
    EXIT_HIGH,
    EXIT_MAX_ROUNDS,
    EXIT_NO_CHANGE,
    EXIT_NO_FOLLOW_UP,
    EXIT_NOTHING_CONTESTED,
    MAX_REVISED_CLAIMS,
    deliberate,
)
from rilai_desktop.turn.state import RoundResult

OBS = ClaimType.OBSERVATION
REC = ClaimType.RECOMMENDATION
CON = ClaimType.CONCERN


def claim(
    cid: str,
    text: str,
    agent: str,
    kind: ClaimType = REC,
    urgency: int = 2,
    confidence: int = 2,
    supports: list[str] | None = None,
    opposes: list[str] | None = None,
) -> Claim:
    return Claim(
        id=cid,
        text=text,
        type=kind,
        source_agent=agent,
        urgency=urgency,
        confidence=confidence,
        supports=supports or [],
        opposes=opposes or [],
    )


def relations(graph: ArgumentGraph) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.relation) for e in graph.edges}


ADVICE = claim("adv", "Give the user concrete advice", "planning.short_term")
LISTEN = claim("lis", "Just listen for now", "social.empathy")


# --- edges ----------------------------------------------------------------------------------


def test_explicit_edges_and_unknown_or_self_links_dropped() -> None:
    a = claim("a", "alpha one", "x.a", supports=["b", "missing", "a"])
    b = claim("b", "beta two", "x.b", opposes=["a"])
    graph = build_graph([a, b])
    assert graph.edges == (
        Edge("a", "b", "supports", "explicit"),
        Edge("b", "a", "opposes", "explicit"),
    )


def test_explicit_edge_suppresses_implicit_one() -> None:
    advice = claim("adv", "Give the user concrete advice", "planning.short_term", supports=["lis"])
    graph = build_graph([advice, LISTEN])
    assert relations(graph) == {("adv", "lis", "supports")}


def test_implicit_opposition_between_different_agents_both_directions() -> None:
    graph = build_graph([ADVICE, LISTEN])
    assert graph.edges == (
        Edge("adv", "lis", "opposes", "advice vs no-advice"),
        Edge("lis", "adv", "opposes", "advice vs no-advice"),
    )


def test_no_implicit_relations_within_one_agent() -> None:
    a = claim("a", "Give the user concrete advice", "planning.short_term")
    b = claim("b", "Just listen for now", "planning.short_term")
    assert build_graph([a, b]).edges == ()


@pytest.mark.parametrize(
    ("left", "right", "reason"),
    [
        ("Encourage them to apply", "Give them space", "push vs give-space"),
        ("Ask what happened at work", "Avoid probing", "ask vs no-questions"),
        ("Reassure them it's okay", "Don't minimise their feelings", "reassure vs no-dismissing"),
        ("User is at risk", "User is not at risk", "negation"),
    ],
)
def test_implicit_opposition_patterns(left: str, right: str, reason: str) -> None:
    graph = build_graph([claim("l", left, "x.one"), claim("r", right, "x.two")])
    assert {e.relation for e in graph.edges} == {"opposes"}
    assert graph.edges[0].reason == reason


def test_implicit_support_from_similarity_and_shared_stance() -> None:
    similar = build_graph(
        [
            claim("a", "User is stressed about the deadline", "emotion.stress", OBS),
            claim("b", "Deadline stress is building for the user", "resource.time", OBS),
        ]
    )
    assert relations(similar) == {("a", "b", "supports"), ("b", "a", "supports")}
    assert similar.edges[0].reason == "similar"
    stance = build_graph([LISTEN, claim("h", "Hold off on solutions", "inhibition.suppressor")])
    assert stance.edges[0].reason == "same stance (no-advice)"


def test_unrelated_claims_have_no_edges() -> None:
    graph = build_graph(
        [claim("a", "User likes jazz", "social.empathy"), claim("b", "Rent is due", "resource.x")]
    )
    assert graph.edges == ()


# --- consensus ------------------------------------------------------------------------------


def test_claim_weight_range() -> None:
    assert claim_weight(claim("a", "x", "a.b", urgency=0, confidence=0)) == 1 / 16
    assert claim_weight(claim("a", "x", "a.b", urgency=3, confidence=3)) == 1.0
    assert claim_weight(claim("a", "x", "a.b", urgency=2, confidence=1)) == 6 / 16


def test_consensus_of_nothing_is_one() -> None:
    assert consensus(build_graph([])) == (1.0, {})
    assert contested(build_graph([])) == []


def test_no_opposition_is_exactly_one() -> None:
    claims = [
        claim("a", "User is stressed about work", "emotion.stress", OBS, 3, 1),
        claim("b", "Stress about work is high", "emotion.wellbeing", OBS, 1, 2),
        claim("c", "Ask what happened", "social.empathy", ClaimType.QUESTION, 0, 3),
    ]
    level, by_type = consensus(build_graph(claims))
    assert level == 1.0
    assert by_type == {"observation": 1.0, "question": 1.0}


def test_consensus_formula_by_hand() -> None:
    a = claim("a", "alpha", "x.a", urgency=2, confidence=2)  # w = 9/16
    b = claim("b", "beta", "x.b", urgency=1, confidence=1, opposes=["a"])  # w = 4/16
    c = claim("c", "gamma", "x.c", CON, urgency=1, confidence=2, supports=["a"])  # w = 6/16
    graph = build_graph([a, b, c])
    wa, wb, wc = 9 / 16, 4 / 16, 6 / 16
    agree_a = (wa + wc) / (wa + wc + wb)
    agree_b = wb / (wb + wa)  # opposition is mutual: 'a' weighs against 'b'
    expected = (wa * agree_a + wb * agree_b + wc * 1.0) / (wa + wb + wc)
    level, by_type = consensus(graph)
    assert level == pytest.approx(expected)
    assert by_type["recommendation"] == pytest.approx((wa * agree_a + wb * agree_b) / (wa + wb))
    assert by_type["concern"] == 1.0
    table = tallies(graph)
    assert table["a"].support == pytest.approx(wc) and table["a"].opposition == pytest.approx(wb)
    assert table["b"].opposers == ("a",)


def test_even_split_is_half_and_both_contested() -> None:
    graph = build_graph([ADVICE, LISTEN])
    level, by_type = consensus(graph)
    assert level == pytest.approx(0.5)
    assert by_type == {"recommendation": pytest.approx(0.5)}
    assert contested(graph) == ["adv", "lis"]


def test_minor_opposition_lowers_consensus_without_contesting_the_strong_claim() -> None:
    strong = claim(
        "s", "Give the user concrete advice", "planning.short_term", urgency=3, confidence=3
    )
    weak = claim("w", "Just listen for now", "social.empathy", urgency=0, confidence=0)
    graph = build_graph([strong, weak])
    level, _ = consensus(graph)
    assert 0.85 < level < 1.0
    assert contested(graph) == ["w"]


def test_support_protects_a_claim_from_being_contested() -> None:
    a = claim("a", "alpha", "x.a", urgency=1, confidence=1, opposes=["b"])
    b = claim("b", "beta", "x.b", urgency=1, confidence=1)
    assert contested(build_graph([a, b])) == ["a", "b"]
    helpers = [claim(f"h{i}", f"helper {i}", f"x.h{i}", supports=["b"]) for i in range(2)]
    graph = build_graph([a, b, *helpers])
    assert contested(graph) == ["a"]


def test_graph_with_dangling_edges_and_repeated_ids_is_safe() -> None:
    a = claim("a", "alpha", "x.a")
    graph = ArgumentGraph(
        claims=(a, a, claim("a", "other", "x.b")),
        edges=(Edge("a", "zzz", "opposes", "x"), Edge("a", "a", "opposes", "self")),
    )
    assert consensus(graph) == (1.0, {"recommendation": 1.0})
    assert contested(graph) == []


# --- rounds ---------------------------------------------------------------------------------


class Recorder:
    """A follow-up callback that answers from a script and records who was asked."""

    def __init__(self, answers: dict[str, list[Claim] | None] | None = None) -> None:
        self.answers = answers or {}
        self.calls: list[tuple[str, list[str], list[str]]] = []

    def __call__(self, agent: str, mine: list[Claim], opposing: list[Claim]) -> list[Claim] | None:
        self.calls.append((agent, [c.id for c in mine], [c.id for c in opposing]))
        return self.answers.get(agent)


def test_high_consensus_exits_in_round_zero_without_follow_ups() -> None:
    follow = Recorder()
    claims = [claim("a", "User is stressed about work", "emotion.stress", OBS)]
    final, rounds = deliberate(claims, follow)
    assert final == claims
    assert rounds == [RoundResult(0, 1.0, {"observation": 1.0}, 1, [], [], EXIT_HIGH)]
    assert follow.calls == []


def camps(size: int, against: int) -> list[Claim]:
    """Two camps of ``size`` claims, each camp fully self-supporting, each claim opposing
    ``against`` claims of the other camp (explicit links, unrelated texts). Every claim has
    backing ``size`` and opposition ``against``: agreement size/(size+against), and nothing
    is contested while against < size/2."""
    out: list[Claim] = []
    for camp, other in (("p", "q"), ("q", "p")):
        for i in range(size):
            out.append(
                claim(
                    f"{camp}{i}",
                    f"{camp}{i}word{camp}",
                    f"agent.{camp}{i}",
                    urgency=3,
                    confidence=3,
                    supports=[f"{camp}{j}" for j in range(size) if j != i],
                    opposes=[f"{other}{(i + j) % size}" for j in range(against)]
                    if camp == "p"
                    else [],
                )
            )
    return out


def test_early_exit_at_point_seven_when_nothing_contested() -> None:
    follow = Recorder()
    _, rounds = deliberate(camps(3, 1), follow)
    assert len(rounds) == 1
    assert rounds[0].consensus == pytest.approx(0.75)
    assert rounds[0].contested == []
    assert rounds[0].exit_reason == EXIT_EARLY
    assert follow.calls == []


def test_low_consensus_with_nothing_contested_exits_without_asking() -> None:
    follow = Recorder()
    _, rounds = deliberate(camps(9, 4), follow)
    assert rounds[0].consensus == pytest.approx(9 / 13)
    assert rounds[0].contested == []
    assert [r.exit_reason for r in rounds] == [EXIT_NOTHING_CONTESTED]
    assert follow.calls == []


def test_no_follow_up_callback_exits_after_round_zero() -> None:
    final, rounds = deliberate([ADVICE, LISTEN], None)
    assert [r.exit_reason for r in rounds] == [EXIT_NO_FOLLOW_UP]
    assert rounds[0].contested == ["adv", "lis"]
    assert final == [ADVICE, LISTEN]


def test_follow_ups_go_only_to_contested_authors_once_each_in_order() -> None:
    bystander = claim("by", "User likes jazz music", "social.relationships", OBS)
    second = claim("adv2", "Offer a practical plan", "planning.short_term", urgency=2, confidence=2)
    follow = Recorder()
    _, rounds = deliberate([bystander, ADVICE, second, LISTEN], follow)
    asked = [agent for agent, _, _ in follow.calls]
    assert asked == ["planning.short_term", "social.empathy"]
    assert follow.calls[0] == ("planning.short_term", ["adv", "adv2"], ["lis"])
    assert follow.calls[1] == ("social.empathy", ["lis"], ["adv", "adv2"])
    assert rounds[0].followups == asked
    # everyone answered None: nothing new came back
    assert rounds[0].exit_reason == EXIT_NO_CHANGE
    assert len(rounds) == 1


def test_revision_replaces_contested_claims_and_consensus_rises() -> None:
    revised = claim("adv-r", "Listen first; offer steps only if asked", "planning.short_term")
    follow = Recorder({"planning.short_term": [revised]})
    started: list[int] = []
    seen: list[RoundResult] = []
    final, rounds = deliberate(
        [ADVICE, LISTEN], follow, on_round_start=started.append, on_round=seen.append
    )
    assert [c.id for c in final] == ["adv-r", "lis"]
    assert started == [0, 1]
    assert seen == rounds
    assert rounds[0].consensus == pytest.approx(0.5) and rounds[0].exit_reason == ""
    assert rounds[1].consensus == 1.0 and rounds[1].exit_reason == EXIT_HIGH
    assert rounds[1].followups == []


def test_empty_answer_withdraws_and_none_keeps() -> None:
    follow = Recorder({"planning.short_term": [], "social.empathy": None})
    final, rounds = deliberate([ADVICE, LISTEN], follow)
    assert final == [LISTEN]
    assert rounds[-1].exit_reason == EXIT_HIGH


def test_max_rounds_stops_and_never_asks_in_the_last_round() -> None:
    counter = iter(range(100))

    def stubborn(agent: str, mine: list[Claim], opposing: list[Claim]) -> list[Claim]:
        n = next(counter)
        text = "Give the user concrete advice" if agent.startswith("planning") else "Just listen"
        return [claim(f"{agent}-{n}", f"{text} {'again ' * n}".strip(), agent)]

    final, rounds = deliberate([ADVICE, LISTEN], stubborn, max_rounds=3)
    assert [r.round for r in rounds] == [0, 1, 2]
    assert [r.exit_reason for r in rounds] == ["", "", EXIT_MAX_ROUNDS]
    assert rounds[2].followups == []
    assert next(counter) == 4  # two agents asked in rounds 0 and 1 only
    assert len(final) == 2


def test_zero_rounds_returns_deduped_claims() -> None:
    repeat = claim("adv-again", "Give the user concrete advice", "planning.priority")
    final, rounds = deliberate([ADVICE, repeat], Recorder(), max_rounds=0)
    assert rounds == [] and final == [ADVICE]


def test_failing_or_garbage_follow_up_keeps_the_claims() -> None:
    def broken(agent: str, mine: list[Claim], opposing: list[Claim]) -> list[Claim] | None:
        if agent.startswith("planning"):
            raise RuntimeError("model crashed")
        return ["not a claim"]  # type: ignore[list-item]

    final, rounds = deliberate([ADVICE, LISTEN], broken)
    assert final == [ADVICE, LISTEN]
    assert rounds[0].exit_reason == EXIT_NO_CHANGE


def test_revised_claims_are_attributed_and_capped() -> None:
    many = [claim(f"r{i}", f"topic{i} unrelated{i}", "someone.else", OBS) for i in range(5)]
    final, _ = deliberate([ADVICE, LISTEN], Recorder({"planning.short_term": many}))
    revised = [c for c in final if c.id.startswith("r")]
    assert len(revised) == MAX_REVISED_CLAIMS
    assert {c.source_agent for c in revised} == {"planning.short_term"}


def test_same_text_under_new_ids_is_nothing_new() -> None:
    again = claim("new-id", ADVICE.text, ADVICE.source_agent)
    follow = Recorder({"planning.short_term": [again]})
    _, rounds = deliberate([ADVICE, LISTEN], follow)
    assert len(rounds) == 1 and rounds[0].exit_reason == EXIT_NO_CHANGE
