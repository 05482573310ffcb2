"""advice_requested: the writer asks for solutions — or says plainly that they do not.

Asking: "what should I do", "any tips", "how do I ...", "should I ...?", "what would you
do", "help me decide", "is it better to ...". Word order matters: "what should I do" asks,
"I know what I should do" does not; "he asked me what he should do" is someone else's
question.

Declining beats everything: "I don't want advice", "please just listen", "don't try to fix
it", "not looking for solutions", "I just need to vent". When a decline is present the
probability is capped at 0.05 whatever else the message says, the decline span is the
counterevidence, and the notes carry :data:`ADVICE_DECLINED` so the council and the
premature-advice critic can see it.
"""

from __future__ import annotations

import re
from typing import Final

from rilai_desktop.turn.sensors.scoring import Cue, Policy, Reading, cue, find_spans
from rilai_desktop.turn.sensors.scoring import read as score
from rilai_desktop.turn.sensors.text import Text

ADVICE_DECLINED: Final = "advice_declined"
DECLINED_CAP: Final = 0.05

_TOLD: Final = (
    r"(?:tell(?:ing|s)?|told|show(?:ing|ed|s)?|teach(?:ing|es)?|taught|know|knows|knew"
    r"|learn(?:ed|t|ing)?|explain(?:ed|ing|s)?|asked|asking|wonder|wondering|sure|idea|knowing"
    r"|(?:video|article|tutorial|guide|post|book|podcast|thread|course|class|reel|tiktok)"
    r" (?:on|about|of|showing|explaining))(?: me| us| you| them| him| her)? "
)
_WH: Final = r"(?:what|wat|wht|wut|whats|what's)"

CUES: Final[tuple[Cue, ...]] = (
    cue(
        rf"\b{_WH} (?:should|shall|shud|shld|shuld|do|can|could|would|must) (?:i|we) "
        r"(?:even |actually |possibly |really )?(?:do|say|tell|try|write|text|choose|pick"
        r"|reply|answer)\b",
        0.85,
    ),
    cue(r"\bso what (?:do|now)\b|\bwhat now\b|\bnow what\b", 0.6),
    cue(
        r"\bwhat (?:would|do|should) you (?:do|suggest|recommend|advise|think i should)\b"
        r"|\bin my (?:situation|shoes|position)\b",
        0.85,
    ),
    cue(
        r"\bany (?:tips|advice|suggestions|ideas?|recommendations|pointers|hacks|thoughts on how)"
        r"\b",
        0.85,
    ),
    cue(r"\b(?:tips|advice|suggestions|ideas|recommendations|thoughts)\s*\?", 0.7),
    cue(
        r"\b(?:need|want|looking for|could use|give me|got any|have any|get some|seeking)"
        r" (?:some |your |any )?(?:advice|tips|suggestions|ideas|help|guidance|input"
        r"|recommendations)\b",
        0.75,
    ),
    cue(
        r"\bhow (?:do|can|should|would|could|might|does) (?:i|we|one|people|someone|anyone)\b",
        0.65,
        not_after=_TOLD,
    ),
    cue(
        r"\bhow (?:do|can|should|would|could) you (?!feel|like|mean|remember|know|even|do\b)",
        0.5,
        not_after=_TOLD,
    ),
    cue(r"\bhow to\b", 0.55, not_after=_TOLD),
    cue(r"\b(?:should|shud|shld) (?:i|we)\b", 0.8),
    cue(r"\b(?:do you think|would you say|you think) (?:i|we) should\b", 0.85),
    cue(
        r"\b(?:is|would|will) it (?:be )?(?:better|a good idea|a bad idea|ok|okay|wise|smart"
        r"|worth|normal|too late|weird|rude|wrong|bad|fine|too much|inappropriate|crazy|strange"
        r"|selfish|unreasonable) (?:to|if)\b",
        0.75,
    ),
    cue(
        r"\b(?:what'?s|what is|whats|is there|are there|know) (?:a |an |the |any )?(?:good|best"
        r"|better|easy|easier|quick|quicker|healthy|right|proper|simple|gentle|way|ways|trick"
        r"|tricks)\b(?: (?:way|ways|method|approach|trick|strategy|place|thing))? to\b",
        0.8,
    ),
    cue(r"\bwhich (?:one|option|should|is better|makes more sense|would you|do i|to)\b", 0.65),
    cue(r"^\W*help\b(?! me with (?:my|the) (?:\w+ )?(?:essay|homework|code|cv|resume))", 0.6),
    cue(r"\b(?:game plan|plan of action|a script for|what to say to|next steps?)\b", 0.55),
    cue(r"\bthoughts on (?:whether|how|if|what)\b", 0.7),
    cue(
        r"\bwhat(?:'s| is|s| would be| will be| might be)? the (?:best|right|nicest|easiest"
        r"|kindest|fastest|smartest|safest|cheapest|quickest|healthiest|gentlest|most \w+|\w+est)"
        r" (?:way|thing|approach|option|move|time|place|thing to)\b",
        0.8,
    ),
    cue(r"\bwhere (?:do|should|can|would) i (?:even )?(?:start|begin|go|look|turn)\b", 0.75),
    cue(
        r"^\W*(?:do|should|can|could|would|must|shall) i\b(?! (?:just |please )?(?:tell|vent|rant"
        r"|talk|say|ask|share|show))[^.!\n]*\?",
        0.6,
        "any",
    ),
    cue(r"\b(?:recommendations?|suggestions?|tips|ideas|advice|pointers) (?:for|on|about)\b", 0.7),
    cue(
        r"\bhelp me (?:decide|figure|choose|with|plan|fix|deal|understand|think|sort|work)\b"
        r"|\bhelp (?:deciding|choosing|figuring)\b",
        0.75,
    ),
    cue(
        r"\b(?:can|could|would|will) you (?:help|suggest|recommend|advise|tell me how|give me)\b",
        0.7,
    ),
    cue(r"\b(?:suggest|recommend|advise)\b", 0.4),
    cue(r"\bwhat (?:steps|can i do|are (?:some|the|good) (?:ways|steps|options))\b", 0.75),
    cue(r"\bways to\b|\bways of\b|\bstrategies\b", 0.45),
    cue(
        r"\btell me how to\b|\bhow (?:do i|to) (?:deal|cope|handle|fix|stop|get|make|tell"
        r"|talk|find|start|learn)\b",
        0.75,
        not_after=_TOLD,
    ),
    cue(r"\bwhat (?:would|should|do|can) (?:you|i) (?:say|do|tell) (?:to|about|if|when)\b", 0.75),
    cue(
        r"\b(?:do you think|would you say|is it|you think) (?:it'?s |it is |it would be )?(?:too"
        r" late|worth it|a good idea|smart|wise|normal|ok|okay|weird|wrong|too early) to\b",
        0.75,
    ),
    cue(
        r"\b(?:idk|i don'?t know|dunno|no idea) (?:what|how) to (?:do|handle|deal|say|fix"
        r"|approach)\b",
        0.55,
    ),
    cue(r"\b(?:or|vs\.?|versus) (?:should i|stay|go|wait|quit|keep)\b", 0.35, "any"),
)

POLICY: Final = Policy(
    negated=0.15,
    hedged=0.9,
    quoted=0.3,
    person={"first": 1.0, "implicit": 1.0, "second": 1.0, "third": 0.2},
)

DECLINES: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(p)
    for p in (
        r"\b(?:i )?(?:don'?t|do not|dont) (?:want|need) (?:any |your )?(?:advice|solutions"
        r"|tips|suggestions|fixing|to be fixed|you to (?:fix|solve|give)|answers)\b",
        r"\b(?:please )?(?:just )?listen(?: to me)?,? (?:please|don'?t|not)\b|\bjust listen\b",
        r"\b(?:don'?t|do not|dont|no need to) (?:try (?:to |and )?)?(?:fix|solve)"
        r" (?:it|this|anything|me|my)\b",
        r"\bnot (?:looking for|asking for|after|here for|wanting) (?:any )?(?:advice|solutions"
        r"|tips|fixes|suggestions|answers|a fix)\b",
        r"\bno (?:advice|solutions|tips|fixing|lectures|suggestions)(?: please)?\b",
        r"\b(?:just|only) (?:need|want|wanted|needed|gotta|have) to (?:vent|rant|be heard|talk"
        r"|get (?:it|this) out|tell someone|say it)\b",
        r"\b(?:let me|need to|want to|i'?m going to|gonna) (?:vent|rant)\b",
        r"\bhear me out\b|\bsit with me\b|\bbe heard\b",
        r"\b(?:don'?t|do not|dont) (?:give|tell) me (?:advice|what to do|how to|solutions)\b",
        r"\bnot asking (?:for (?:advice|solutions|help)|what (?:to|i should) do)\b",
        r"\b(?:i )?can handle it myself\b",
        r"\bwithout (?:you )?(?:fixing|solving|trying to (?:fix|solve)|giving (?:me )?advice|advice"
        r"|advising|judging)\b",
    )
)


def read_advice(text: Text) -> Reading:
    reading = score(text, CUES, POLICY)
    declines = find_spans(text, DECLINES)
    if declines:
        reading.probability = min(DECLINED_CAP, reading.probability * DECLINED_CAP)
        # the decline is counterevidence; shown before anything the cues found
        reading.counterevidence = []
        for start, end in sorted(declines):
            reading.against(text.span(start, end))
        reading.notes.insert(0, ADVICE_DECLINED)
    return reading
