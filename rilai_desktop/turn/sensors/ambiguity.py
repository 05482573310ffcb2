"""ambiguity: it is unclear what the writer means or wants.

Three kinds of signal, combined by noisy-or:

* **little content** — the base, from the number of content words (not function words,
  pronouns or fillers): none → 0.8, one → 0.42, two → 0.3, three → 0.18, four or five → 0.1,
  more → 0.04;
* **vague fillers** — "idk", "hmm", "meh", "dunno", "?", "...", "that thing", "the usual",
  "you know", "stuff", "whatever that was";
* **pronouns without referents** — a message that opens with "it/that/this/they/he/she" and
  names nothing ("it happened again", "they did it again"), or is mostly pronouns.

Clear social formulae ("thanks!", "good morning", "hello", "bye") have an obvious intent and
are multiplied down (× 0.25). Empty or whitespace-only input is maximally ambiguous (0.95).
"""

from __future__ import annotations

import re
from typing import Final

from rilai_desktop.turn.sensors.scoring import Reading, find_spans, noisy_or
from rilai_desktop.turn.sensors.text import WORD_RE, Text

EMPTY_AMBIGUITY: Final = 0.95

# words that carry no topic of their own: fillers, pronouns, auxiliaries, vague verbs
_FUNCTION_TEXT: Final = (
    "a an the and or but so of to in on at for with about from by as is am are was were be "
    "been being do does did doing have has had having will would can could should shall may "
    "might must not no yes yeah yep nope ok okay oh ah just really very too also again then "
    "than there here now what which who whom whose when where why how if whether because that "
    "this these those it its it's that's this's there's what's i i'm im me my mine you you're "
    "your u ur we us our he him his she her they them their someone something anything "
    "everything nothing thing things one other same as before after up down out over all any "
    "some more most much many such own only even still already back around like well lol haha "
    "hm hmm um uh er eh meh idk dunno stuff whatever kinda sorta maybe sure know mean think "
    "guess see say said get got go went come came let lets let's make made tell told want "
    "wanna gonna don't dont didn't doesn't isn't aren't wasn't can't won't not happened "
    "happen happens usual complicated ugh hmph welp bleh blah"
)
FUNCTION_WORDS: Final = frozenset(_FUNCTION_TEXT.split())
_PRONOUN_TEXT: Final = (
    "it that this these those they them he him she her there one stuff thing things"
)
_PRONOUNS: Final = frozenset(_PRONOUN_TEXT.split())
_OPENING_PRONOUN: Final = re.compile(
    r"^\W*(?:and |so |but |well |um |uh )?(?:it|that|this|they|them|he|she|him|her|those|these)"
    r"\b(?:'s|'re)?"
)

VAGUE: Final[tuple[tuple[re.Pattern[str], float], ...]] = tuple(
    (re.compile(p), w)
    for p, w in (
        (r"\b(?:idk|idek|dunno|i don'?t know|not sure|no idea|who knows|idc)\b", 0.45),
        (r"\b(?:hm+|um+|uh+|eh+|meh|huh|erm|ehh+|mhm+|ugh+|hmph|welp|bleh|blah)\b", 0.55),
        (r"^\W*\?+\W*$|^\W*\.{2,}\W*$|^\W*…\W*$", 0.7),
        (r"\b(?:that|the|this) (?:thing|stuff|one|other one|whole thing)\b", 0.45),
        (
            r"\bsame (?:thing |one |stuff )?as (?:last time|before|always|usual|yesterday)\b"
            r"|\blike last time\b|\bthe same thing\b",
            0.45,
        ),
        (
            r"\b(?:the usual|same as (?:before|always|usual)|you know(?: what i mean)?|so yeah"
            r"|and stuff|or whatever|or something|sort of|kind of|whatever that was|it'?s"
            r" complicated)\b",
            0.4,
        ),
        (r"^\W*(?:and|so|but|or)\W*\??$|\band then\s*\?", 0.45),
        (r"\.{3}|…", 0.2),
        (
            r"^\W*(?:ok(?:ay)?|k|sure|yeah|yep|maybe|perhaps|fine|right|yes|no|nah|this|that|it"
            r"|him|her|them|stuff|things)\W*$",
            0.35,
        ),
    )
)
CLEAR_FORMULAE: Final = (
    re.compile(
        r"^\W*(?:(?:thank(?:s| you)(?: so much| a lot)?|thx|ty|cheers)(?: rilai)?|hello|hi|hey"
        r"|good (?:morning|night|evening|afternoon)(?: rilai)?|bye|goodbye|see you|talk (?:to you"
        r" )?(?:tomorrow|later|soon)|night|gn|gm)\b"
    ),
)


def _content_base(count: int) -> float:
    if count == 0:
        return 0.8
    if count == 1:
        return 0.42
    if count == 2:
        return 0.3
    if count == 3:
        return 0.18
    return 0.1 if count <= 5 else 0.04


def _is_content(token: str) -> bool:
    return token not in FUNCTION_WORDS and len(token) > 1 and not token.isdigit()


def read_ambiguity(text: Text) -> Reading:
    reading = Reading()
    if text.is_blank():
        reading.probability = EMPTY_AMBIGUITY
        reading.note("empty input")
        return reading
    matches = list(WORD_RE.finditer(text.folded))
    tokens = [m.group() for m in matches]
    content_spans = [m.span() for m in matches if _is_content(m.group())]
    content = [text.folded[s:e] for s, e in content_spans]
    weights = [_content_base(len(content))]
    if not content:
        reading.note("no content words")
    # a filler in a long, concrete message ("I don't know what to do about my landlord") says
    # little: vague cues count in full up to two content words, then half, then a quarter
    scale = 1.0 if len(content) <= 2 else 0.5 if len(content) <= 5 else 0.25
    for pattern, weight in VAGUE:
        found = [m.span() for m in pattern.finditer(text.folded) if m.end() > m.start()]
        if found:
            weights.append(weight * scale)
            for start, end in found:
                reading.support(text.span(start, end) or text.clean.strip())
    opening = _OPENING_PRONOUN.search(text.folded)
    if opening:  # "this traffic ..." is a determiner, not a pronoun: the next word decides
        following = WORD_RE.search(text.folded, opening.end())
        if following and _is_content(following.group()):
            opening = None
    if opening and len(content) <= 2:
        weights.append(0.35)
        reading.support(text.span(*opening.span()).strip())
        reading.note("pronoun without referent")
    pronouns = sum(1 for t in tokens if t in _PRONOUNS)
    if tokens and pronouns / len(tokens) >= 0.25 and len(content) <= 3:
        weights.append(0.3)
    probability = noisy_or(weights)
    clear = find_spans(text, CLEAR_FORMULAE)
    if clear:
        probability *= 0.25
        for start, end in clear:
            reading.against(text.span(start, end))
        reading.note("clear social formula")
    for start, end in content_spans:
        reading.against(text.span(start, end))
    reading.probability = probability
    return reading
