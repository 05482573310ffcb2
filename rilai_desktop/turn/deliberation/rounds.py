"""Deliberation rounds (stage 5): argue over the claims until they settle, at most 3 rounds.

Each round builds the argument graph (``graph.py``), computes the consensus and the
contested claims, and either exits or asks the authors of the contested claims — and only
them — to reconsider, showing each the claims that oppose theirs. The maths is
deterministic; the only model work is inside the ``follow_up`` callback the runner passes
(one call per contested agent per round), so the whole stage is testable without a model.

Exit rules, checked in this order at every round r (numbered from 0):
1. consensus ≥ 0.9                       -> "consensus>=0.9"
2. consensus ≥ 0.7 and nothing contested -> "consensus>=0.7 and nothing contested"
3. nothing contested (consensus < 0.7)   -> "nothing contested" (nobody to ask)
4. no follow_up callback                 -> "no follow-up"
5. r is the last round                   -> "max rounds" (no one is asked: there would be
                                            no round left to weigh the answers)
6. after asking, nothing new came back   -> "no change after follow-ups"

A follow-up answer replaces that agent's contested claims: ``None`` (no answer, or the
callback failed) keeps them; ``[]`` withdraws them; a list of claims replaces them (at most
three, attributed to the agent whatever they say). The result is deduped before the next
round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from rilai_desktop.contracts import Claim
from rilai_desktop.turn.deliberation.claims import canonical, dedupe_claims
from rilai_desktop.turn.deliberation.graph import (
    ArgumentGraph,
    Edge,
    Relation,
    Tally,
    build_graph,
    consensus,
    contested,
    tallies,
)
from rilai_desktop.turn.state import RoundResult

# the graph types and functions are re-exported: one import for the whole of stage 5
__all__ = [
    "EXIT_EARLY",
    "EXIT_HIGH",
    "EXIT_MAX_ROUNDS",
    "EXIT_NOTHING_CONTESTED",
    "EXIT_NO_CHANGE",
    "EXIT_NO_FOLLOW_UP",
    "ArgumentGraph",
    "Edge",
    "FollowUp",
    "Relation",
    "build_graph",
    "consensus",
    "contested",
    "deliberate",
]

# (agent_id, its contested claims, the claims opposing them) -> its revised claims or None
FollowUp = Callable[[str, list[Claim], list[Claim]], list[Claim] | None]

HIGH_CONSENSUS: Final = 0.9
EARLY_CONSENSUS: Final = 0.7
MAX_REVISED_CLAIMS: Final = 3

EXIT_HIGH: Final = "consensus>=0.9"
EXIT_EARLY: Final = "consensus>=0.7 and nothing contested"
EXIT_NOTHING_CONTESTED: Final = "nothing contested"
EXIT_NO_FOLLOW_UP: Final = "no follow-up"
EXIT_MAX_ROUNDS: Final = "max rounds"
EXIT_NO_CHANGE: Final = "no change after follow-ups"


def _exit_reason(
    level: float, disputed: list[str], follow_up: FollowUp | None, number: int, max_rounds: int
) -> str:
    if level >= HIGH_CONSENSUS:
        return EXIT_HIGH
    if not disputed:
        return EXIT_EARLY if level >= EARLY_CONSENSUS else EXIT_NOTHING_CONTESTED
    if follow_up is None:
        return EXIT_NO_FOLLOW_UP
    if number >= max_rounds - 1:
        return EXIT_MAX_ROUNDS
    return ""


def _answer(
    follow_up: FollowUp, agent: str, theirs: list[Claim], against: list[Claim]
) -> list[Claim] | None:
    """Call the follow-up; anything but a list of claims (or an exception) counts as None."""
    try:
        answer = follow_up(agent, list(theirs), list(against))
    except Exception:  # a failed model call must not end the turn: keep the claims
        return None
    if not isinstance(answer, list):
        return None
    revised = [c for c in answer if isinstance(c, Claim)][:MAX_REVISED_CLAIMS]
    if answer and not revised:
        return None  # garbage is not a withdrawal
    return [
        c if c.source_agent == agent else c.model_copy(update={"source_agent": agent})
        for c in revised
    ]


def _ask(
    claims: list[Claim], table: dict[str, Tally], disputed: list[str], follow_up: FollowUp
) -> tuple[list[Claim], list[str]]:
    """Ask each contested agent (sorted by id) once; return the revised claims and who."""
    disputed_ids = set(disputed)
    by_id = {claim.id: claim for claim in claims}
    mine: dict[str, list[Claim]] = {}
    for claim in claims:
        if claim.id in disputed_ids:
            mine.setdefault(claim.source_agent, []).append(claim)
    asked = sorted(mine)
    answers: dict[str, list[Claim] | None] = {}
    for agent in asked:
        theirs = mine[agent]
        own = {c.id for c in theirs}
        against_ids = {o for c in theirs for o in table[c.id].opposers if o not in own}
        against = [c for c in claims if c.id in against_ids and c.id in by_id]
        answers[agent] = _answer(follow_up, agent, theirs, against)
    revised: list[Claim] = []
    placed: set[str] = set()
    for claim in claims:
        answer = answers.get(claim.source_agent) if claim.id in disputed_ids else None
        if answer is None:
            revised.append(claim)
        elif claim.source_agent not in placed:
            placed.add(claim.source_agent)
            revised.extend(answer)
    return dedupe_claims(revised), asked


def _content(claims: Sequence[Claim]) -> list[tuple[str, str, str, int, int]]:
    """What a claim list says, ignoring ids (a follow-up may resend a claim under a new id)."""
    return [
        (c.source_agent, c.type.value, canonical(c.text), c.urgency, c.confidence) for c in claims
    ]


def deliberate(
    claims: Sequence[Claim],
    follow_up: FollowUp | None,
    *,
    max_rounds: int = 3,
    on_round_start: Callable[[int], None] | None = None,
    on_round: Callable[[RoundResult], None] | None = None,
) -> tuple[list[Claim], list[RoundResult]]:
    """Run up to ``max_rounds`` rounds (none if it is < 1); return final claims and rounds.

    Each ``RoundResult`` describes the claims as the round found them (consensus, types,
    contested ids), who was asked in it, and on the last round why it stopped.
    """
    current = dedupe_claims(claims)
    rounds: list[RoundResult] = []
    for number in range(max(0, max_rounds)):
        if on_round_start is not None:
            on_round_start(number)
        graph = build_graph(current)
        level, by_type = consensus(graph)
        table = tallies(graph)
        disputed = [claim_id for claim_id, tally in table.items() if tally.contested]
        reason = _exit_reason(level, disputed, follow_up, number, max_rounds)
        asked: list[str] = []
        revised = current
        if not reason and follow_up is not None:
            revised, asked = _ask(current, table, disputed, follow_up)
            if _content(revised) == _content(current):
                reason = EXIT_NO_CHANGE
        result = RoundResult(
            round=number,
            consensus=level,
            by_type=by_type,
            active_claims=len(current),
            contested=disputed,
            followups=asked,
            exit_reason=reason,
        )
        rounds.append(result)
        if on_round is not None:
            on_round(result)
        if reason:
            break
        current = revised
    return current, rounds
