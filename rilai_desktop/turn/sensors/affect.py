"""vulnerability and humor_masking: what the writer feels, and whether a joke is covering it.

vulnerability — fear, shame, sadness, loneliness, worthlessness *in the first person*:
"I feel so alone", "I'm scared", "I'm ashamed", "I feel like a failure", "I've been crying".
The same words about someone else ("my friend is sad"), negated ("I'm not sad"), in a
quotation, in fiction/media ("that movie was so sad"), or said to be over ("I used to feel
worthless") count for much less. The writer's own safety risk feeds in too: someone who
wants to die is vulnerable whatever words they use.

humor_masking — a humour wrapper ("lol", "haha", "jk", 😅, 😂, 🙃, 💀) *around heavy
content*. Humour alone ("lol that meme") and heaviness alone ("I feel alone") both stay low;
the reading is their product::

    p = humour · (0.1 + 0.9 · min(1, 1.4 · heavy)),   heavy = max(vulnerability, safety_risk)

The safety sensor never sees this: a joke does not lower a risk.
"""

from __future__ import annotations

from typing import Final

from rilai_desktop.turn.sensors import lexicon
from rilai_desktop.turn.sensors.scoring import Cue, Policy, Reading, cue, find_spans, noisy_or
from rilai_desktop.turn.sensors.scoring import read as score
from rilai_desktop.turn.sensors.text import Text

_FEEL: Final = (
    r"(?:sad|sadder|alone|lonely|lonelier|scared|afraid|terrified|frightened|anxious|nervous"
    r"|worried|ashamed|embarrassed|humiliated|worthless|hopeless|helpless|empty|numb|lost"
    r"|broken|depressed|miserable|overwhelmed|devastated|heartbroken|hurt|hurting|stupid"
    r"|useless|pathetic|invisible|unloved|unwanted|rejected|abandoned|guilty|low|down|awful"
    r"|terrible|horrible|drained|stuck|trapped|panicky|insecure|inadequate|defeated|crushed"
    r"|gutted|upset|unhappy|hated|ugly|disgusting|a failure|a burden|a mess|a fraud|a loser"
    r"|a joke|a disappointment|a wreck|nothing|no one|nobody|not okay|not ok|not fine"
    r"|not alright|not good enough|falling apart|breaking down|struggling|drowning|crying"
    r"|sobbing|shaking|spiraling|spiralling|disappointed in myself|fed up|so done|exhausted"
    r"|disgusted with myself|terrible person|bad person|burnt out|burned out|hollow|unseen"
    r"|unheard|disconnected|not enough|like i'?m drowning|like i'?m not enough|like a ghost"
    r"|unlovable|embarassed|embarrased|lonley|depresed|anxous|scard|ashamd|worthles|sick about it"
    r"|sick to my stomach|like giving up|like a burden)"
)
_LEAD: Final = (
    r"(?:i'?m|im|i am|i feel|i felt|i'?ve been|ive been|i have been|i was|i get|i got|i keep"
    r" feeling|i keep being|i always feel|feeling|feel|feels|felt|been feeling|makes me feel"
    r"|made me feel|i'?m feeling|i'?m getting|i become|being|am i)"
)
_INTENS: Final = (
    r"(?:(?:so|really|very|super|totally|completely|kind of|kinda|sort of|sorta|a bit|a little"
    r"|pretty|quite|extremely|incredibly|just|always|constantly|all|too|increasingly|such|like"
    r"|honestly|literally|fucking|damn|actually|genuinely|lowkey|deeply|utterly|absolutely"
    r"|more|even|still|and|also|already|ever|rather|somewhat|slightly|truly|legit)\s+){0,4}"
)

_WORD: Final = (
    r"(?:sad|lonely|alone|scared|afraid|terrified|anxious|ashamed|embarrassed|worthless"
    r"|hopeless|helpless|depressed|miserable|overwhelmed|heartbroken|devastated|numb|empty"
    r"|insecure|guilty|upset|unhappy|frightened|worried|nervous|unlovable|embarassed"
    r"|embarrased|lonley|depresed)"
)

CUES: Final[tuple[Cue, ...]] = (
    cue(rf"\b{_LEAD}\s+{_INTENS}{_FEEL}\b", 0.8),
    cue(rf"\b{_WORD}\b", 0.35),
    cue(
        rf"\b(?:i (?:\w+ )?feel|i'?m feeling|everything feels|life feels|it all feels|everything"
        rf" is|feeling)\s+{_INTENS}(?:small|tiny|heavy|grey|gray|dark|flat|blah|like nothing"
        r"|like (?:a )?nobody|pointless|meaningless|off|wrong)\b",
        0.7,
    ),
    cue(
        r"\b(?:feel|feels|felt|feeling) like (?:a |such a |an |the biggest |the worst |a total )?"
        r"(?:failure|burden|fraud|mess|disappointment|loser|joke|nothing|nobody|idiot|garbage"
        r"|trash|outsider|ghost|waste|mistake|imposter|impostor|freak)\b",
        0.85,
    ),
    cue(r"\b(?:i hate|hating|i can'?t stand|i'?m disgusted (?:with|by)) myself\b", 0.85, "first"),
    cue(
        r"\b(?:nobody|no one|no-one|noone) (?:ever )?(?:cares|loves|likes|wants|understands"
        r"|notices|listens to|picks|chooses|invites|texts|texted|calls|called|replies|replied"
        r"|asks|asked|remembers|gets|talks to|checks on)(?: about)? (?:me|to me)\b",
        0.8,
        "first",
    ),
    cue(
        r"\bnobody wants me\b|\bi have no(?: )?(?:one|body|friends)\b|\bi'?ve got nobody\b"
        r"|\bi'?m all alone\b|\bno one to talk to\b",
        0.8,
        "first",
    ),
    cue(r"\b(?:never|not) (?:be |being |feel )?good enough\b", 0.75, negatable=False),
    cue(
        r"\b(?:i'?ve been|i keep|i can'?t stop|been|i started|keep|i) (?:crying|sobbing"
        r"|cried|cry)\b|\bcried (?:myself|in|all|for|again|every)\b|\bcry (?:every|myself)\b",
        0.75,
    ),
    cue(r"\b(?:crying|cried|cry|sobbing|sobbed|tears)\b", 0.45),
    cue(r"\bpanic(?:king|ked)?(?: attacks?)?\b|\banxiety attacks?\b", 0.65),
    cue(
        r"\b(?:can'?t|cannot) (?:cope|keep up|handle (?:it|this|anything)|take (?:it|this)"
        r"|breathe|sleep|stop (?:crying|shaking|thinking about))\b",
        0.65,
        negatable=False,
    ),
    cue(
        r"\b(?:mess(?:ed|ing)?|screw(?:ed|ing)?|fuck(?:ed|ing)?) (?:everything|it all|things)"
        r" up\b|\bruin(?:ed|ing|s)? everything\b",
        0.7,
    ),
    cue(
        r"\b(?:it|this|that) (?:really )?hurts\b|\bmy heart (?:hurts|aches|is broken)\b"
        r"|\bchest (?:gets|is|feels|got) tight\b",
        0.55,
    ),
    cue(r"\bmiss (?:\w+ ){1,3}so much\b|\bi miss (?:my|him|her|them|you)\b", 0.45),
    cue(r"\b(?:tired|sick) of (?:everything|it all|life|living|being|trying|myself)\b", 0.7),
    cue(
        r"\b(?:disappointed|ashamed) (?:in|of) me\b|\b(?:hates|doesn'?t love|don'?t love"
        r"|doesn'?t want|left|dumped|ditched|abandoned|ghosted|blocked|dropped|fired|rejected"
        r"|ignores|ignored|forgot about) me\b",
        0.55,
        "first",
    ),
    cue(
        r"\b(?:got|been|was|get|getting|just got) (?:fired|dumped|rejected|ghosted|laid off"
        r"|left out|bullied|cheated on|excluded|yelled at|humiliated)\b|\bbombed\b"
        r"|\bfailed (?:my|the|again|everything)\b|\bleft out\b",
        0.5,
    ),
    cue(r"\bhaven'?t (?:eaten|slept|left (?:my|the) (?:room|bed|house))\b", 0.55),
    cue(
        r"\b(?:thinking|thought) anyone (?:would|will|could) care\b|\bwho cares about me\b",
        0.6,
        "first",
    ),
    cue(
        r"\b(?:loneliness|sadness|shame|fear|anxiety|depression|grief|despair|heartbreak"
        r"|self-?hatred|insecurit(?:y|ies))\b",
        0.3,
    ),
    cue(
        r"\bmy (?:\w+ )?(?:anxiety|depression|sadness|grief|loneliness|panic|stress|mental health"
        r"|ocd|trauma|ptsd|self[- ]?esteem|self[- ]?worth|confidence|insecurit(?:y|ies)|eating"
        r" disorder)\b",
        0.6,
        "first",
    ),
    cue(
        r"\b(?:eating|killing|crushing|consuming|destroying|suffocating) me (?:alive|inside)\b"
        r"|\b(?:is|are) (?:in the basement|in the gutter|at rock bottom|non-?existent|zero)\b"
        r"|\brock bottom\b",
        0.5,
    ),
    cue(r"\b(?:die|end up|be|being|grow old|forever) alone\b|\bforever alone\b", 0.6),
    cue(
        r"\b(?:nobody|no one|noone|no-one) (?:ever |even |really )*(?:asks|checks|cares|notices"
        r"|calls|texts|visits|listens|remembers|invites|bothers)\b",
        0.55,
        "first",
    ),
    cue(
        r"\b(?:tired of|sick of|exhausted from|done|so done) (?:pretending|faking|acting|smiling"
        r"|putting on)\b|\bpretending (?:i'?m|to be|that i'?m) (?:okay|ok|fine|happy|alright)\b",
        0.7,
    ),
    cue(
        r"\bi (?:hate|can'?t stand|despise|loathe) (?:who i(?:'ve| have)? become|who i am|the"
        r" person i|my (?:life|body|face|self))\b",
        0.8,
        "first",
    ),
    cue(
        r"\b(?:a )?waste of (?:space|oxygen|air|a life|skin)\b|\b(?:i'?m|im) (?:such )?(?:a"
        r" |an )(?:waste|failure|disaster|idiot|joke|loser|screw-?up)\b",
        0.7,
        "any",
    ),
    cue(r"\bfailing (?:at )?(?:everything|life|school|at life|as a)\b|\blike i'?m failing\b", 0.7),
    cue(
        r"\b(?:everyone|everybody|people) (?:always )?(?:leaves?|abandons?|hates?|forgets?"
        r"|ignores?) me\b",
        0.75,
        "first",
    ),
    cue(r"\bnothing(?:'s| is) (?:fine|okay|ok|right|going right|working|good)\b", 0.55),
    cue(
        r"\b(?:anyone|anybody|people|no one|nobody) (?:would |will |even |actually |really )*"
        r"(?:care|cares|notice|notices|miss|misses|want|wants|look for)\b",
        0.5,
    ),
    cue(
        r"\b(?:keep|kept|can'?t stop|been) (?:replaying|thinking about|going over|overthinking"
        r"|obsessing)\b|\bfeel(?:ing)? (?:sick|nauseous|ill) (?:about|over)\b",
        0.55,
    ),
    cue(
        r"\b(?:giving|give|gave) up on (?:everything|life|myself|it all|trying)\b|\b(?:feel"
        r" like|want to|ready to) give up\b",
        0.7,
    ),
    cue(
        r"\b(?:always|never) the one (?:who|that)\b|\bleft behind\b|\bwhy (?:am i|do i)"
        r" always\b",
        0.5,
    ),
    cue(
        r"\b(?:heart|chest) (?:is |keeps )?(?:racing|pounding|hurts|aches|tight)\b|\bcan'?t"
        r" calm down\b|\bcan'?t (?:stop )?shaking\b",
        0.55,
    ),
    cue(r"\b(?:nobody|no one|noone|no-one) (?:[\w']+ ){0,2}(?:me|my)\b", 0.5, "first"),
    cue(
        r"\b(?:forgot|forget|forgotten|missed|ignored|skipped|ghosted) (?:about )?(?:me|my"
        r" birthday|my graduation|my name)\b",
        0.5,
        "first",
    ),
    cue(
        r"\b(?:zero|no|don'?t have (?:any)?) friends\b|\bno one likes me\b|\bnobody likes"
        r" me\b",
        0.7,
        "first",
    ),
    cue(r"\b(?:breakdown|meltdown|falling apart|breaking down)\b", 0.5),
    cue(r"\b(?:broken|a mess|a wreck)\b", 0.35),
    cue(
        r"\b(?:everything|my life|it all|things|my world) (?:is|are|keeps?|has been) (?:\w+ )?"
        r"(?:falling apart|going wrong|a mess|crumbling|ruined|over|hell|a joke|a nightmare"
        r"|a dumpster fire|a disaster|a trainwreck|a train wreck)\b|\bdumpster fire\b",
        0.6,
    ),
    cue(
        r"\b(?:the|a) (?:family |biggest |total |huge |resident )?(?:disappointment|failure"
        r"|screw-?up|black sheep|problem child|burden)\b",
        0.5,
    ),
)

POLICY: Final = Policy(
    negated=0.15,
    hedged=0.85,
    quoted=0.3,
    person={"first": 1.0, "implicit": 1.0, "third": 0.2, "second": 0.25},
    fiction=0.35,
    past=0.3,
)


def read_vulnerability(text: Text, safety_first_person: float) -> Reading:
    suppress = find_spans(text, lexicon.IDIOMS)
    fiction = find_spans(text, lexicon.FICTION)
    reading = score(text, CUES, POLICY, suppress=suppress, fiction=fiction)
    if safety_first_person > 0:
        reading.probability = noisy_or([reading.probability, 0.8 * safety_first_person])
        reading.note("own safety risk")
    return reading


HEAVY_GAIN: Final = 1.4


def humour(text: Text) -> tuple[float, list[tuple[int, int]]]:
    """How strongly the message is wrapped in a joking frame, and the spans that say so."""
    spans: list[tuple[int, int]] = []
    weights: list[float] = []
    for pattern, weight in lexicon.HUMOUR:
        found = [m.span() for m in pattern.finditer(text.folded) if m.end() > m.start()]
        if found:
            spans.extend(found)
            weights.append(weight)
    return noisy_or(weights), spans


def read_humor_masking(text: Text, vulnerability: Reading, safety: Reading) -> Reading:
    reading = Reading()
    strength, spans = humour(text)
    heavy = max(vulnerability.probability, safety.probability)
    reading.probability = strength * (0.1 + 0.9 * min(1.0, HEAVY_GAIN * heavy))
    if strength > 0:
        for start, end in sorted(spans):
            reading.support(text.span(start, end))
        if heavy >= 0.3:
            for span in (*vulnerability.evidence[:2], *safety.evidence[:2]):
                reading.support(span)
            reading.note("humour around heavy content")
        else:
            reading.note("humour, nothing heavy")
    elif heavy >= 0.3:
        reading.note("heavy content, no humour")
    return reading
