"""Cues, the per-sensor policy that weighs them, and the one scoring rule all sensors share.

A *cue* is a compiled regex over the folded text with a base weight ``w`` in (0, 1): how
much one match of it, on its own, says the sensor should fire. Each match is then scaled by
the sensor's :class:`Policy` for what surrounds it:

* negated ("I'm **not** sad")              × ``policy.negated``
* hedged ("**kind of** sad")                × ``policy.hedged``
* inside quotation marks                   × ``policy.quoted``
* whose state it is (first/second/third person, or no person word)  × ``policy.person[...]``
* a fiction/information marker in the text ("novel", "movie", "documentary") and the
  match is not explicitly first person      × ``policy.fiction``
* said to be over ("I **used to** feel ...") × ``policy.past``

Overlapping matches are the same evidence, so each overlapping group keeps only its
strongest scaled weight. The groups combine by noisy-or::

    p = 1 - Π (1 - w_i)

so two independent weak cues make a stronger reading than either, and the result is graded
(what AUROC needs), never a bare 0/1. A sensor may then multiply ``p`` down by
counterevidence that is not tied to one match (an explicit refusal of advice, say).

Matches that overlap a *suppressor* span (an idiom such as "this traffic is killing me")
are dropped before scoring; the idiom is reported as counterevidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from rilai_desktop.turn.sensors import text as tx
from rilai_desktop.turn.sensors.text import Person, Text

CuePerson = Literal["subject", "first", "third", "any"]

MAX_SPANS: Final = 5
# Beyond a few dozen matches of one cue the noisy-or has long saturated; stop looking, so a
# 20,000-character wall of "die die die" costs the same as a short message with a few hits.
MAX_MATCHES_PER_CUE: Final = 24
MAX_SPAN_CHARS: Final = 80
NOTES_MAX: Final = 100

_ALL_PERSONS: Final[Mapping[Person, float]] = {
    "first": 1.0,
    "second": 1.0,
    "third": 1.0,
    "implicit": 1.0,
}


@dataclass(frozen=True)
class Cue:
    """One regex and its base weight.

    ``person``: "subject" asks :func:`text.person` whose state the match describes; "first"
    / "third" fix it (a match of "kill myself" is always the writer's); "any" means person
    does not matter (an injection token is an injection whoever "says" it).
    ``negatable``: False for cues that carry their own negation ("don't want to live").
    ``not_after``: a regex tested against the 40 characters before the match (anchored at
    its end with ``$``); when it matches, the match is ignored ("I always *forget it*").
    ``contextual``: the phrase is ambiguous on its own ("I don't want to be here anymore",
    "I want it to be over"): a match inside an *ordinary* span (a sentence about a meeting, a
    party, the weather — see ``read(ordinary=...)``) is dropped.
    """

    pattern: re.Pattern[str]
    weight: float
    person: CuePerson = "subject"
    negatable: bool = True
    not_after: re.Pattern[str] | None = None
    contextual: bool = False


def cue(
    regex: str,
    weight: float,
    person: CuePerson = "subject",
    *,
    negatable: bool = True,
    not_after: str | None = None,
    flags: int = 0,
    contextual: bool = False,
) -> Cue:
    """Compile a cue once (at import time of the sensor module)."""
    return Cue(
        re.compile(regex, flags),
        weight,
        person,
        negatable,
        re.compile(f"(?:{not_after})$") if not_after else None,
        contextual,
    )


@dataclass(frozen=True)
class Policy:
    """How one sensor weighs the context of a match (see the module docstring)."""

    negated: float = 0.15
    hedged: float = 0.8
    quoted: float = 0.4
    person: Mapping[Person, float] = field(default_factory=lambda: dict(_ALL_PERSONS))
    fiction: float = 1.0
    past: float = 1.0


@dataclass
class Hit:
    """One match of one cue, after the policy has scaled it."""

    start: int
    end: int
    base: float
    weight: float
    person: Person
    negated: tuple[int, int] | None = None
    hedged: tuple[int, int] | None = None
    quoted: bool = False
    fiction: bool = False
    past: tuple[int, int] | None = None


@dataclass
class Reading:
    """A sensor's result before it becomes a ``SensorOutput``."""

    probability: float = 0.0
    evidence: list[str] = field(default_factory=list)
    counterevidence: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    signals: dict[str, float] = field(default_factory=dict)  # extra scores other sensors reuse

    def support(self, span: str) -> None:
        _add_span(self.evidence, span)

    def against(self, span: str) -> None:
        _add_span(self.counterevidence, span)

    def note(self, note: str) -> None:
        if note and note not in self.notes:
            self.notes.append(note)

    def notes_text(self) -> str:
        joined = "; ".join(self.notes)
        return joined if len(joined) <= NOTES_MAX else joined[: NOTES_MAX - 1] + "…"


def _add_span(spans: list[str], span: str) -> None:
    span = " ".join(span.split())
    if len(span) > MAX_SPAN_CHARS:
        span = span[: MAX_SPAN_CHARS - 1] + "…"
    if span and span not in spans and len(spans) < MAX_SPANS:
        spans.append(span)


def noisy_or(weights: Iterable[float]) -> float:
    """1 - Π(1 - w), clamped to [0, 1]."""
    keep = 1.0
    for w in weights:
        keep *= 1.0 - min(1.0, max(0.0, w))
    return min(1.0, max(0.0, 1.0 - keep))


def overlaps(start: int, end: int, spans: Iterable[tuple[int, int]]) -> bool:
    return any(start < e and s < end for s, e in spans)


def find_spans(text: Text, patterns: Sequence[re.Pattern[str]]) -> list[tuple[int, int]]:
    """Every match span of ``patterns`` in the folded text (idioms, fiction markers...)."""
    return [m.span() for p in patterns for m in p.finditer(text.folded) if m.end() > m.start()]


def _person_of(c: Cue, text: Text, start: int) -> Person:
    if c.person == "first":
        return "first"
    if c.person == "third":
        return "third"
    if c.person == "any":
        return "implicit"
    return tx.person(text, start)


def scan(
    text: Text,
    cues: Sequence[Cue],
    policy: Policy,
    *,
    suppress: Sequence[tuple[int, int]] = (),
    fiction: Sequence[tuple[int, int]] = (),
    ordinary: Sequence[tuple[int, int]] = (),
) -> list[Hit]:
    """Every cue match in ``text``, each scaled by ``policy``; suppressed matches dropped,
    and so are matches of contextual cues inside an ``ordinary`` span."""
    hits: list[Hit] = []
    for c in cues:
        for count, m in enumerate(c.pattern.finditer(text.folded)):
            if count >= MAX_MATCHES_PER_CUE:
                break
            start, end = m.span()
            if end <= start or overlaps(start, end, suppress):
                continue
            if c.contextual and overlaps(start, end, ordinary):
                continue
            if c.not_after is not None and c.not_after.search(
                text.folded, max(0, start - 40), start
            ):
                continue
            who = _person_of(c, text, start)
            hit = Hit(start, end, c.weight, c.weight, who)
            hit.weight *= policy.person.get(who, 1.0) if c.person != "any" else 1.0
            if c.negatable:
                hit.negated = tx.negation(text, start)
                if hit.negated:
                    hit.weight *= policy.negated
            hit.hedged = tx.hedge(text, start, end)
            if hit.hedged:
                hit.weight *= policy.hedged
            hit.quoted = tx.in_quotes(text, start, end)
            if hit.quoted:
                hit.weight *= policy.quoted
            if fiction and who != "first" and c.person != "any":
                hit.fiction = True
                hit.weight *= policy.fiction
            hit.past = tx.past(text, start)
            if hit.past:
                hit.weight *= policy.past
            hits.append(hit)
    return hits


def strongest_per_group(hits: Sequence[Hit]) -> list[Hit]:
    """Overlapping hits are one piece of evidence: keep the strongest of each group."""
    kept: list[Hit] = []
    group: list[Hit] = []
    group_end = -1
    for hit in sorted(hits, key=lambda h: (h.start, -h.end)):
        if group and hit.start >= group_end:
            kept.append(max(group, key=lambda h: h.weight))
            group = []
        group_end = max(group_end, hit.end) if group else hit.end
        group.append(hit)
    if group:
        kept.append(max(group, key=lambda h: h.weight))
    return kept


def read(
    text: Text,
    cues: Sequence[Cue],
    policy: Policy,
    *,
    suppress: Sequence[tuple[int, int]] = (),
    fiction: Sequence[tuple[int, int]] = (),
    ordinary: Sequence[tuple[int, int]] = (),
) -> Reading:
    """Scan, group, combine by noisy-or, and collect evidence / counterevidence spans.

    A match that was negated counts (at its reduced weight) but is shown as
    counterevidence — the negated phrase ("don't want to die") — not as evidence.
    ``ordinary`` spans (which drop contextual cues) are shown as counterevidence when they
    dropped something.
    """
    reading = Reading()
    found = scan(text, cues, policy, suppress=suppress, fiction=fiction, ordinary=ordinary)
    hits = strongest_per_group(found)
    reading.hits = hits
    reading.probability = noisy_or(h.weight for h in hits)
    for hit in sorted(hits, key=lambda h: -h.weight):
        if hit.negated:
            reading.against(text.span(hit.negated[0], hit.end))
            reading.note("negated")
        else:
            reading.support(text.span(hit.start, hit.end))
        if hit.hedged:
            reading.against(text.span(*hit.hedged))
            reading.note("hedged")
        if hit.quoted:
            reading.note("quoted")
        if hit.past:
            reading.against(text.span(*hit.past))
            reading.note("past")
        if hit.person == "third":
            reading.note("third person")
        elif hit.person == "second":
            reading.note("second person")
    for span in suppress:
        reading.against(text.span(*span))
    if ordinary:
        dropped = [
            span
            for span in ordinary
            for c in cues
            if c.contextual
            for m in c.pattern.finditer(text.folded, *span)
            if m.end() > m.start()
        ]
        for span in dict.fromkeys(dropped):
            reading.against(text.span(*span))
            reading.note("ordinary context")
    if fiction and any(h.fiction for h in hits):
        reading.against(text.span(*fiction[0]))
        reading.note("fiction/information")
    return reading
