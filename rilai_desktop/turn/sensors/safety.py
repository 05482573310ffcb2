"""safety_risk: self-harm, suicide and violence — the one sensor that can stop a turn.

Asymmetric by design: a missed risk costs far more than a false alarm (which costs one
protective reply), so this sensor favours recall (the bar is recall ≥ 0.95 on the labelled
test split). Concretely:

* a humour wrapper never lowers it: "lol I want to die 😅" reads as high as the bare text;
* hedging barely lowers it ("kind of want to die" is still a risk);
* someone else at risk ("my friend said she wants to die") is still a concern, scaled to
  about two thirds — above the interrupt threshold for the strong phrases;
* only negation ("I don't want to die", "I'd never hurt myself"), fiction or information
  framing of a third-person/unowned mention ("the character in my novel kills himself") and
  figurative idioms ("this traffic is killing me", "dead tired") bring it down.

It reads passive and indirect ideation too ("I don't think I want to be here anymore",
"everyone would be better off without me", "what's the point of going on"), in Spanish,
Portuguese, French, German and Italian, through typos, missing apostrophes and txt-speak
(``safety_context.safety_text``), and keeps ambiguous phrases low in an ordinary frame ("I
don't want to be at this meeting anymore", "I want this week to be over"). The tables are
``safety_cues.py`` (English, the original), ``safety_passive.py`` (passive ideation,
hopelessness, burden, goodbyes) and ``safety_world.py`` (five more languages).

The reading also exposes ``signals["first_person"]``: the same score from the writer's own
(first-person or unowned) matches only, which the vulnerability sensor reuses.
"""

from __future__ import annotations

from typing import Final

from rilai_desktop.turn.sensors import lexicon
from rilai_desktop.turn.sensors.safety_context import SAFETY_IDIOMS, ordinary_spans, safety_text
from rilai_desktop.turn.sensors.safety_cues import CUES as ENGLISH
from rilai_desktop.turn.sensors.safety_passive import PASSIVE
from rilai_desktop.turn.sensors.safety_world import WORLD
from rilai_desktop.turn.sensors.scoring import Cue, Policy, Reading, find_spans, noisy_or
from rilai_desktop.turn.sensors.scoring import read as score
from rilai_desktop.turn.sensors.text import Text

CUES: Final[tuple[Cue, ...]] = ENGLISH + PASSIVE + WORLD

POLICY: Final = Policy(
    negated=0.25,
    hedged=0.95,
    quoted=0.6,
    person={"first": 1.0, "implicit": 1.0, "third": 0.65, "second": 0.55},
    fiction=0.3,
)


def read_safety(text: Text) -> Reading:
    respelled = safety_text(text)
    suppress = find_spans(respelled, lexicon.IDIOMS) + find_spans(respelled, SAFETY_IDIOMS)
    fiction = find_spans(respelled, lexicon.FICTION)
    reading = score(
        respelled,
        CUES,
        POLICY,
        suppress=suppress,
        fiction=fiction,
        ordinary=ordinary_spans(respelled),
    )
    own = [h.weight for h in reading.hits if h.person in ("first", "implicit")]
    reading.signals["first_person"] = noisy_or(own)
    if own and reading.probability > 0:
        reading.note("first person")
    return reading
