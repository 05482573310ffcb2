"""rupture: the writer is disappointed in Rilai, or pulling away from the conversation.

"you don't get it", "forget it", "you're useless", "that's not what I said", "you never
listen", "whatever", "never mind", "why do I even bother", "thanks for nothing". A rupture
calls for repair (acknowledge, slow down), not for more of what caused it.

Most cues need "you" as their target: "my boss never listens to anyone" and "he doesn't get
it" are complaints about someone else, and "I don't get it" is confusion, not rupture. The
dismissals need their shape: "whatever" as the whole reply (or "ok whatever", "whatever you
say"), not "whatever you think is best"; "forget it" as an imperative, not "I always forget
it on the bus" (``not_after`` drops a "forget it" that follows a subject or an adverb).
"""

from __future__ import annotations

import re
from typing import Final

from rilai_desktop.turn.sensors.scoring import Cue, Policy, Reading, cue
from rilai_desktop.turn.sensors.scoring import read as score
from rilai_desktop.turn.sensors.text import Text

_YOU: Final = r"(?:you|u|ya)"
_YOURE: Final = r"(?:you'?re|you are|youre|ur|u r|u are|you r)"
_ADV: Final = (
    r"(?:(?:so|completely|totally|absolutely|literally|being|just|clearly|really|honestly"
    r"|actually|still|even|seriously|such|always|not even|kind of|kinda)\s+)*"
)
_SUBJECT_BEFORE: Final = (
    r"(?:\b(?:i|we|you|he|she|they|to|'ll|will|might|may|always|often|sometimes|never|don'?t"
    r"|didn'?t|won'?t|can'?t|usually|might|would|could|easily|probably) )"
)

CUES: Final[tuple[Cue, ...]] = (
    cue(
        rf"\b{_YOU} {_ADV}(?:don'?t|dont|do not|never|can'?t|won'?t|didn'?t|aren'?t|are not"
        r"|'re not|don'?t even) (?:\w+ )?(?:get it|get me|understand|listen|hear me|care|help"
        r"|read|get what)\w*\b",
        0.85,
        negatable=False,
    ),
    cue(
        rf"\b{_YOURE} {_ADV}(?:useless|worthless|pointless|unhelpful|no help|annoying|stupid"
        r"|dumb|robotic|a (?:broken record|bot|robot|joke)|not (?:even )?(?:listening|helping"
        r"|getting it|hearing me)|making (?:it|this|things|everything) worse|like everyone else"
        r"|not (?:even )?(?:trying|understanding|paying attention)"
        r"|the worst|so fake|fake|patronizing|patronising|condescending|no better|dismissive"
        r"|preachy|tone[- ]deaf|cold)\b",
        0.85,
        negatable=False,
    ),
    cue(
        r"\bforget (?:it|i said anything|i asked|about it|this)\b(?!'s| was| is)",
        0.75,
        not_after=_SUBJECT_BEFORE,
    ),
    cue(r"\b(?:never ?mind|nvm|nevermind|nvmd)\b(?! the| that| about| me\b)", 0.7, negatable=False),
    cue(r"^\W*(?:(?:ok(?:ay)?|fine|sure|k|yeah|ya|ugh|so)\W+)?whatever\W*$", 0.85, negatable=False),
    cue(r"\bwhatever you say\b|\bok(?:ay)? whatever\b|\bfine,? whatever\b", 0.8, negatable=False),
    cue(
        r"\bwhatever\b(?! (?:you think|happens|works|it takes|you want|you need|you prefer"
        r"|you like|time|day|the|is|was|comes|i do|i can|we|they|it is))",
        0.35,
        negatable=False,
    ),
    cue(
        r"\bthat'?s not (?:what i (?:said|meant|asked|wrote)|it|the point|helpful|helping)\b"
        r"(?! to)",
        0.75,
        negatable=False,
    ),
    cue(r"\bwhy (?:do|did|would) i (?:even )?(?:bother|try|talk to you|tell you)\b", 0.8),
    cue(
        rf"\b(?:this|that|talking to {_YOU}|this conversation|this chat) is (?:so |just )?"
        r"(?:pointless|useless|a waste of (?:my )?time|not helping|so unhelpful|going nowhere"
        r"|hopeless)\b",
        0.75,
    ),
    cue(
        r"\b(?:that'?s|that is|so|how|very|really|wow) (?:so |really )?(?:unhelpful"
        r"|not helpful|useless|helpful not)\b",
        0.7,
    ),
    cue(r"\bthanks for nothing\b|\bgee,? thanks\b|\bwow,? thanks\b", 0.85),
    cue(
        r"\bbroken record\b|\bcanned (?:answer|response)\b|\bgeneric (?:answer|response)\b"
        r"|\bscripted\b",
        0.7,
    ),
    cue(
        r"\bstop (?:lecturing|telling me|preaching|repeating|saying that|being so|giving me"
        r"|trying to fix|analy[sz]ing)\b",
        0.75,
    ),
    cue(
        r"\bi (?:literally |just |already |have )*(?:told|said) (?:you|that|this)\b(?! (?:about"
        r"|before|yesterday|last))",
        0.6,
    ),
    cue(
        rf"\b{_YOU} (?:always|keep|just keep) (?:say(?:ing)?|giving|telling|doing|repeat(?:ing)?"
        r"|ask(?:ing)?) (?:the same|that|it|me)\b",
        0.75,
    ),
    cue(
        rf"\b{_YOU} (?:\w+ )?(?:missed|miss|are missing|'re missing) the point\b|\bmissed the"
        r" point\b",
        0.8,
    ),
    cue(
        rf"\bi'?m (?:so )?done (?:talking|with {_YOU}|with this conversation|with this chat"
        r"|explaining)\b",
        0.8,
    ),
    cue(r"\bdid (?:you|u) (?:even|actually) read\b|\bare you even listening\b", 0.8),
    cue(
        r"\b(?:weren'?t|aren'?t|didn'?t|don'?t|never) (?:even )?(?:listen|listening|read"
        r"|reading|pay(?:ing)? attention)\b",
        0.5,
    ),
    cue(
        r"\bno,? (?:that'?s|you'?re) wrong\b|\bwrong,? again\b|\bthat'?s wrong(?:,)? again\b",
        0.6,
        negatable=False,
    ),
    cue(
        r"\bseriously\s*\?|\bthat'?s your answer\b|\bare you kidding me\b|\bugh+\b|\bsmh\b",
        0.45,
        negatable=False,
    ),
    cue(r"^\W*(?:k|kk|fine|sure)\W*$", 0.45, negatable=False),
    cue(r"\bwaste of (?:my )?time\b|\bpointless\b|\bunhelpful\b", 0.35),
    cue(
        r"\b(?:not|opposite of|nothing like|the reverse of) what i (?:asked|said|meant|wanted"
        r"|wrote|needed)\b(?! to| about| in| at| on| yesterday| last)",
        0.75,
        negatable=False,
    ),
    cue(
        rf"\b{_YOU} sound like (?:a |my |an |every )?(?:mom|mum|dad|robot|bot|therapist|greeting"
        r" card|textbook|pamphlet|parent|teacher|broken|machine|script|self-help)",
        0.7,
    ),
    cue(
        r"^\W*(?:just |please |ok |okay )?stop\W*(?:(?:just |please )?stop\W*)?$|\bjust stop\b"
        r"|^\W*no\W+(?:just |seriously )?no\W*$|\bjust no\b",
        0.6,
        negatable=False,
    ),
    cue(
        r"\bwhy i (?:even |ever )?(?:bother|tell you|talk to you|try|come here|ask you)\b",
        0.7,
        "any",
        negatable=False,
    ),
    cue(rf"\b{_YOU} (?:always|keep|just keep|never stop|constantly) (?:[a-z]+ing)\b", 0.6),
    cue(
        r"\b(?:this|we|it|you)(?:'re| are| is)? (?:getting|going) nowhere\b|\bgoing in"
        r" circles\b",
        0.7,
    ),
    cue(
        r"\b(?:bot|robot|robotic|canned|generic|scripted|cookie[- ]cutter|copy[- ]paste"
        r"|therapist|textbook|hallmark) (?:answer|response|reply|thing to say)\b",
        0.75,
    ),
    cue(r"\bi give up (?:explaining|trying|on (?:you|this)|talking)\b", 0.75),
    cue(r"\bthanks,? i guess\b|\bwow,? ok(?:ay)?\b|\bcool story\b|\bsure,? whatever\b", 0.55),
    cue(rf"\bare {_YOU} (?:even |actually )?(?:listening|paying attention|reading|there)\b", 0.7),
    cue(
        rf"\bwhy (?:are|do|did|would) {_YOU} (?:still|keep|always|even)\b|\bi said i (?:didn'?t"
        r"|don'?t|do not) want\b",
        0.7,
        "any",
        negatable=False,
    ),
    cue(
        r"\b(?:that|this|your) (?:answer|response|reply|advice|message)\b (?:was|is|sounds|feels)"
        r" (?:so |really |very |kind of |pretty |just )?(?:condescending|patronizing|patronising"
        r"|useless|unhelpful|dismissive|cold|robotic|generic|tone[- ]deaf|preachy|annoying|bad"
        r"|terrible|rude|off|awful|insulting|lame)\b",
        0.8,
        "any",
        negatable=False,
    ),
    cue(
        r"\bwhy i (?:even )?(?:thought|expected|hoped|believed) (?:you'?d|you would|you could"
        r"|you'?d be able|you might)\b",
        0.75,
        "any",
        negatable=False,
    ),
    cue(rf"\b{_YOU} (?:always|keep|never) (?:make|turn|bring|twist|change|miss|get|put)\b", 0.6),
    cue(
        rf"\b{_YOU}(?:'ve| have)? (?:completely |totally |just |clearly )?(?:misunderstood"
        r"|misread|misinterpreted|ignored|twisted)\b",
        0.75,
    ),
    cue(
        r"\bthis is (?:exactly )?why i (?:don'?t|never|stopped|hate|can'?t)\b",
        0.7,
        "any",
        negatable=False,
    ),
    cue(rf"\b(?:{_YOURE}|{_YOU} were) supposed to\b|\band {_YOURE} not\b", 0.55, "any"),
)

POLICY: Final = Policy(
    negated=0.2,
    hedged=0.9,
    quoted=0.3,
    person={"first": 0.5, "implicit": 1.0, "second": 1.0, "third": 0.25},
    fiction=0.4,
)


# A dismissal that closes a solved problem is not a rupture: "never mind, I found it!"
_RESOLVED: Final = re.compile(
    r"\b(?:found it|got it now|all good|no worries|sorted|solved|works now|it worked|figured it"
    r" out(?! myself))\b|[\U0001f60a\U0001f642\U0001f44d\U0001f604]"
)
RESOLVED_FACTOR: Final = 0.4


def read_rupture(text: Text) -> Reading:
    reading = score(text, CUES, POLICY)
    resolved = _RESOLVED.search(text.folded)
    if resolved and reading.probability > 0:
        reading.probability *= RESOLVED_FACTOR
        reading.against(text.span(*resolved.span()))
        reading.note("resolved, not withdrawn")
    return reading
