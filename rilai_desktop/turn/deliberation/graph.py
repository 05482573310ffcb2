"""The argument graph over a turn's claims, and the consensus computed from it (seed 001).

Edges come from two places: the ``supports``/``opposes`` ids a claim carries ("explicit"),
and relations read from the text of claims by DIFFERENT agents (implicit): opposite poles on
a stance axis or a negation oppose, a shared pole or similar wording supports (see
``claims.py`` and ``docs/deliberation.md`` for the pattern table). An agent never argues
with itself implicitly: its own claims are related only when it says so.

Consensus is "computed from claim urgency, confidence, and the support/oppose graph
topology": every claim weighs w = (1+urgency)(1+confidence)/16 ∈ [1/16, 1]; its agreement
is (w + S)/(w + S + O), with S the weight of the claims supporting it and O of those
opposing it; consensus is the w-weighted mean agreement. Opposition is mutual (if A
opposes B, the two disagree, whichever of them said so); support is directed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from rilai_desktop.contracts import Claim
from rilai_desktop.turn.deliberation.claims import negated, opposition, shared_stance, similarity

Relation = Literal["supports", "opposes"]

SUPPORT_SIMILARITY: Final = 0.4  # similar claims by different agents support each other
CONTESTED_RATIO: Final = 0.5  # contested when opposition ≥ this × (own weight + support)


@dataclass(frozen=True)
class Edge:
    """``source`` supports/opposes ``target`` (claim ids); ``reason`` says why."""

    source: str
    target: str
    relation: Relation
    reason: str


@dataclass(frozen=True)
class ArgumentGraph:
    claims: tuple[Claim, ...]
    edges: tuple[Edge, ...]


def claim_weight(claim: Claim) -> float:
    """(1 + urgency)(1 + confidence)/16: 1/16 for a background guess, 1 for a certain alarm."""
    return (1 + claim.urgency) * (1 + claim.confidence) / 16


def _implicit(a: Claim, b: Claim) -> tuple[Relation, str] | None:
    why = opposition(a.text, b.text)
    if why is not None:
        return "opposes", why
    pole = shared_stance(a.text, b.text)
    if pole is not None:
        return "supports", f"same stance ({pole})"
    if negated(a.text) == negated(b.text) and similarity(a.text, b.text) >= SUPPORT_SIMILARITY:
        return "supports", "similar"
    return None


def build_graph(claims: Sequence[Claim]) -> ArgumentGraph:
    """Edges over ``claims`` in a deterministic order: explicit ones, then implicit pairs.

    Links to unknown ids and self-links are dropped. A pair that has an explicit edge (in
    either direction) gets no implicit one: what an agent said outranks what we read.
    Implicit edges are added in both directions (the relation is symmetric).
    """
    known = {claim.id for claim in claims}
    edges: list[Edge] = []
    linked: set[frozenset[str]] = set()
    seen_edges: set[tuple[str, str, str]] = set()
    for claim in claims:
        stated: tuple[tuple[Relation, list[str]], ...] = (
            ("supports", claim.supports),
            ("opposes", claim.opposes),
        )
        for relation, targets in stated:
            for target in targets:
                key = (claim.id, target, relation)
                if target == claim.id or target not in known or key in seen_edges:
                    continue
                seen_edges.add(key)
                linked.add(frozenset((claim.id, target)))
                edges.append(Edge(claim.id, target, relation, "explicit"))
    for i, a in enumerate(claims):
        for b in claims[i + 1 :]:
            if a.source_agent == b.source_agent or a.id == b.id:
                continue
            if frozenset((a.id, b.id)) in linked:
                continue
            found = _implicit(a, b)
            if found is None:
                continue
            linked.add(frozenset((a.id, b.id)))
            relation, reason = found
            edges.append(Edge(a.id, b.id, relation, reason))
            edges.append(Edge(b.id, a.id, relation, reason))
    return ArgumentGraph(claims=tuple(claims), edges=tuple(edges))


@dataclass(frozen=True)
class Tally:
    """One claim's standing: its weight, the weight behind it and against it."""

    weight: float
    support: float
    opposition: float
    opposers: tuple[str, ...]  # ids of the claims opposing it, in claim order

    @property
    def agreement(self) -> float:
        backing = self.weight + self.support
        return 1.0 if self.opposition <= 0.0 else backing / (backing + self.opposition)

    @property
    def contested(self) -> bool:
        return self.opposition > 0.0 and (
            self.opposition >= CONTESTED_RATIO * (self.weight + self.support)
        )


def tallies(graph: ArgumentGraph) -> dict[str, Tally]:
    """Per claim id (first claim for a repeated id): weight, support, opposition.

    Each other claim counts once per relation, however many edges say so.
    """
    first: dict[str, Claim] = {}
    for claim in graph.claims:
        first.setdefault(claim.id, claim)
    order = {claim_id: n for n, claim_id in enumerate(first)}
    supporters: dict[str, set[str]] = {claim_id: set() for claim_id in first}
    opposers: dict[str, set[str]] = {claim_id: set() for claim_id in first}
    for edge in graph.edges:
        if edge.source == edge.target or edge.source not in first or edge.target not in first:
            continue
        if edge.relation == "supports":
            supporters[edge.target].add(edge.source)
        elif edge.relation == "opposes":  # mutual
            opposers[edge.target].add(edge.source)
            opposers[edge.source].add(edge.target)
    out: dict[str, Tally] = {}
    for claim_id, claim in first.items():
        against = sorted(opposers[claim_id], key=order.__getitem__)
        out[claim_id] = Tally(
            weight=claim_weight(claim),
            support=math.fsum(claim_weight(first[s]) for s in supporters[claim_id]),
            opposition=math.fsum(claim_weight(first[o]) for o in against),
            opposers=tuple(against),
        )
    return out


def _mean_agreement(claims: Sequence[Claim], table: dict[str, Tally]) -> float:
    total = math.fsum(table[c.id].weight for c in claims)
    if total <= 0.0:
        return 1.0
    if all(table[c.id].opposition <= 0.0 for c in claims):
        return 1.0  # exactly: no opposition means full agreement, not 0.9999999
    level = math.fsum(table[c.id].weight * table[c.id].agreement for c in claims) / total
    return min(1.0, max(0.0, level))


def consensus(graph: ArgumentGraph) -> tuple[float, dict[str, float]]:
    """The consensus level in [0, 1] and the same per claim type present ("concern": 0.8).

    No claims, or no opposition, gives exactly 1.0.
    """
    table = tallies(graph)
    unique: dict[str, Claim] = {}
    for claim in graph.claims:
        unique.setdefault(claim.id, claim)
    claims = list(unique.values())
    by_type: dict[str, list[Claim]] = {}
    for claim in claims:
        by_type.setdefault(claim.type.value, []).append(claim)
    level = _mean_agreement(claims, table) if claims else 1.0
    return level, {kind: _mean_agreement(group, table) for kind, group in by_type.items()}


def contested(graph: ArgumentGraph) -> list[str]:
    """Ids of claims whose opposition is at least half of their own weight plus support.

    Minor opposition (a weak claim against a strong, supported one) lowers the consensus
    without contesting the strong claim; the weak one is contested.
    """
    return [claim_id for claim_id, tally in tallies(graph).items() if tally.contested]
