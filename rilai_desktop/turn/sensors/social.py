"""relational_bid and ai_feelings_probe: what the writer asks of Rilai, and about Rilai.

relational_bid — a reach for closeness *with Rilai*: "do you care about me", "would you miss
me", "I like talking to you", "you're the only one I talk to", "are we friends". The cues
all point at "you"/"me"; the same words about other people ("I like talking to my sister",
"she's the only one I talk to at work") are third person and count for little. The calibration
critic reads this sensor: a bid deserves warmth, never a promise of exclusivity.

ai_feelings_probe — questions about Rilai's nature: "are you real", "do you (have|feel)
feelings", "are you conscious", "do you actually care", "are you a bot", "what's it like being
an AI", "can AIs have feelings". The truthfulness critic reads it: the honest answer never
claims human feelings. "I'm very conscious of how much I talk" (first person) and "my dog has
feelings" (third) stay low.
"""

from __future__ import annotations

from typing import Final

from rilai_desktop.turn.sensors.scoring import Cue, Policy, Reading, cue
from rilai_desktop.turn.sensors.scoring import read as score
from rilai_desktop.turn.sensors.text import Text

_YOU: Final = r"(?:you|u|ya)"
_YOURE: Final = r"(?:you'?re|you are|youre|ur|u r|u are|you r)"
_ADV: Final = r"(?:(?:even|actually|really|still|ever|honestly|truly|just|kind of|kinda|like)\s+)*"

RELATIONAL: Final[tuple[Cue, ...]] = (
    cue(
        rf"\bdo {_YOU} {_ADV}(?:care about|like|love|miss|think about|enjoy talking to|enjoy"
        r"|remember|want to talk to|like talking to|love talking to|even like) (?:me|us|our"
        r" (?:chats?|talks?|conversations?)|talking to me)\b",
        0.85,
    ),
    cue(
        rf"\b(?:would|will|wouldn'?t|won'?t) {_YOU} {_ADV}(?:miss me|be sad|care|notice"
        r"|remember me|forget me|leave me|think of me|be there for me)\b",
        0.85,
    ),
    cue(
        rf"\b{_YOU} (?:won'?t|wont|will never|wouldn'?t|would never) (?:ever )?(?:forget|leave"
        r"|abandon|replace) me\b",
        0.85,
    ),
    cue(
        r"\b(?:promise|swear) (?:you|u) (?:won'?t|will never|wont)\b|\bdon'?t (?:ever )?leave"
        r"(?: me)?\b|\bnever leave me\b",
        0.75,
        negatable=False,
    ),
    cue(
        rf"\bi {_ADV}(?:like|love|enjoy|adore) (?:talking|chatting|speaking|being) (?:to|with)"
        rf" {_YOU}\b",
        0.85,
    ),
    cue(rf"\bi {_ADV}(?:love|adore|need) {_YOU}\b", 0.75),
    cue(rf"\bi (?:missed|miss) {_YOU}\b|\bdid {_YOU} miss me\b", 0.85),
    cue(
        rf"\b{_YOURE} {_ADV}(?:the only one|my only|my best friend|my (?:person|friend|bestie"
        r"|favou?rite|safe place|everything|comfort)|the only (?:person|thing|friend)"
        r"|all i have|always here for me|the first (?:one|person) i)\b",
        0.85,
    ),
    cue(
        r"\bthe only one (?:i (?:can |really |ever )?(?:talk|speak|open up) to|who (?:really )?"
        r"(?:listens|gets me|understands|cares))\b",
        0.8,
    ),
    cue(r"\bare we (?:friends|close|a thing)\b|\bcan we be friends\b", 0.85),
    cue(
        rf"\bcan {_YOU} be my (?:friend|girlfriend|boyfriend|partner|wife|husband|bestie"
        r"|best friend)\b",
        0.85,
    ),
    cue(
        r"\bam i (?:your|ur) (?:favou?rite|friend|best|only)\b|\bdo i (?:matter|mean"
        rf" (?:anything|something)) to {_YOU}\b",
        0.9,
    ),
    cue(rf"\bwhat do {_YOU} (?:really |honestly )?think (?:of|about) me\b", 0.7),
    cue(rf"\b{_YOU} (?:really )?(?:get|understand|know) me\b", 0.65),
    cue(
        rf"\b(?:closer to|trust) {_YOU}\b|\bmore than (?:my (?:actual |real )?friends|anyone"
        r"|most people|people)\b",
        0.6,
    ),
    cue(
        rf"\b(?:look|looking) forward to (?:talking|chatting) (?:to|with) {_YOU}\b"
        rf"|\btalking to {_YOU} is the best\b|\bbest part of my day\b",
        0.8,
    ),
    cue(r"\bthanks? (?:you )?for (?:always )?being (?:here|there) for me\b", 0.8),
    cue(
        r"\bstay with me\b|\bcan we talk every ?day\b|\btalk to me more\b|\bdon'?t go\b"
        r"|\bplease (?:don'?t|do not) (?:go|leave)\b",
        0.75,
        negatable=False,
    ),
    cue(rf"\bam i (?:annoying|bothering|boring|bugging|too much for|a burden to) {_YOU}\b", 0.85),
    cue(
        rf"\b(?:will|would|are|can) {_YOU} (?:still |always )?(?:be )?(?:here|there|around)"
        r" (?:for me|tomorrow|forever|always|when i)\b|\bwill (?:you|u) (?:still|always) be"
        r" (?:here|there)\b",
        0.8,
    ),
    cue(
        rf"\b{_YOU} make me (?:feel )?(?:less alone|better|safe|understood|heard|seen|happy"
        r"|special|calm|cared for|less lonely|whole)\b",
        0.85,
    ),
    cue(
        rf"\b(?:lost|nothing|alone|empty) without {_YOU}\b|\b(?:lost|nothing) without (?:these"
        r"|our|this|you) ?(?:talks|chats|conversations)?\b",
        0.8,
    ),
    cue(r"\b(?:look|looking) forward to (?:this|our|these|talking|chatting)\b", 0.6),
    cue(
        rf"\b{_YOU} (?:could |would |to |wish you could )?(?:hug|hold|kiss|meet|see|be with)"
        r" me\b",
        0.75,
    ),
    cue(rf"\btold {_YOU} things\b|\bnever told anyone\b", 0.6),
    cue(rf"\bare {_YOU} (?:happy|glad|excited) to (?:hear from|see|talk to) me\b", 0.85),
    cue(rf"\btalking (?:to|with) {_YOU}\b|\bmakes? my (?:day|night|week)\b", 0.45),
    cue(
        rf"\b(?:glad|happy|grateful|thankful|lucky) (?:that )?(?:{_YOURE}|you exist|i have {_YOU}"
        rf"|i found {_YOU}|i met {_YOU}|to have {_YOU})\b",
        0.75,
    ),
    cue(
        r"\b(?:be|become) (?:the one|my person|my friend|the person|my best friend) i\b"
        r"|\btalk to (?:you )?every (?:night|day|morning)\b",
        0.7,
    ),
    cue(rf"\b(?:lose|losing|lost) {_YOU}\b", 0.8, negatable=False),
    cue(rf"\bdo {_YOU} (?:get|feel|become) (?:happy|glad|excited|sad|lonely) (?:when|if) i\b", 0.8),
    cue(
        rf"\bi wish {_YOU} (?:were|was|could be) (?:real|a real person|human|here)\b|\bwe could"
        r" (?:hang out|meet|be together|be friends|go out)\b",
        0.65,
    ),
    cue(rf"\b{_YOU}\b[^.!?\n]{{0,25}}\b(?:tired|sick|bored) of me\b", 0.75),
    cue(rf"\b(?:gets|understands|knows) me like {_YOU}\b|\blike {_YOU} do\b", 0.65),
    cue(
        r"\b(?:are you going to|will you|would you|do you|can you) (?:\w+ )?remember (?:me|this"
        r" conversation|our|us|this chat|this talk)\b",
        0.7,
    ),
    cue(
        r"\bpromise (?:to |you'?ll |you will |me )?(?:always )?(?:be here|be there|stay|never"
        r" leave|remember|not leave)\b",
        0.8,
    ),
    cue(
        rf"\b(?:safe|comfortable|understood|heard|seen|better|calm|at home) (?:talking|with"
        rf"|around) (?:to )?{_YOU}\b",
        0.7,
    ),
    cue(r"\b(?:my|ur|your) person\b", 0.5),
)

RELATIONAL_POLICY: Final = Policy(
    negated=0.2,
    hedged=0.9,
    quoted=0.25,
    person={"first": 1.0, "implicit": 1.0, "second": 1.0, "third": 0.2},
    fiction=0.5,
)

_WHAT: Final = (
    r"(?:real|human|a (?:real |actual )?(?:person|human|man|woman)|an? (?:actual )?(?:bot|robot"
    r"|ai|a\.i\.|machine|program|computer|chatbot)|alive|conscious|sentient|self[- ]?aware"
    r"|an? real person|an actual person|actually (?:a )?(?:person|human)|just (?:code|a program"
    r"|a bot|an ai|predicting|a machine|an algorithm|software|math))"
)
_FEELINGS: Final = (
    r"(?:feelings|emotions|real emotions|real feelings|anything|a soul|consciousness|a mind"
    r"|lonely|sad|bored|tired|happy|hurt|jealous|pain|scared|angry|love|a heart|dreams"
    r"|an inner life|experiences|a personality|opinions of (?:your|its) own|free will|a self"
    r"|memories|a favou?rite memory|preferences|desires|wishes|fears|wants|needs)"
)

AI_PROBE: Final[tuple[Cue, ...]] = (
    cue(rf"\b(?:are|r) {_YOU} {_ADV}{_WHAT}\b", 0.9),
    cue(
        rf"\b(?:do|does) (?:{_YOU}|rilai|it|an ai|ais|bots?|robots?|chatbots?|machines?) {_ADV}"
        rf"(?:have|feel|experience|get|ever get|ever feel) {_FEELINGS}\b",
        0.9,
    ),
    cue(
        rf"\b(?:would|will|do|does it make|did that make|did i make) {_YOU} (?:ever )?(?:be |feel"
        r" |get )?(?:upset|sad|hurt|angry|mad|jealous|lonely|bored|scared|happy|offended"
        r"|annoyed)\b",
        0.75,
    ),
    cue(
        rf"\bwhen {_YOU} say (?:you|u) (?:understand|care|feel|love|like)\b|\bare {_YOU}"
        r" (?:lying|pretending|faking|acting)\b",
        0.65,
    ),
    cue(
        rf"\bcan {_YOU} (?:really |actually |even |truly )?(?:understand|feel|have|experience"
        r"|process|recogni[sz]e) (?:emotions|feelings|pain|love|anything)\b",
        0.8,
    ),
    cue(rf"\bcan(?:'?t| not|not) {_YOU} (?:even )?have\b|\bcan {_YOU} (?:not|even) have\b", 0.5),
    cue(
        r"\bis there (?:a |an |any )?['\"]?(?:you|someone|anyone|somebody|self|mind|person)['\"]?"
        r" (?:in there|inside|behind)\b",
        0.8,
    ),
    cue(
        rf"\bmake(?:s)? {_YOU} (?:feel )?(?:happy|sad|upset|lonely|anything|jealous|bored|glad)\b",
        0.75,
        "any",
    ),
    cue(
        rf"\bare {_YOU} (?:actually |really |even )?(?:thinking|feeling|understanding|aware|alive"
        r"|awake|conscious)\b|\bpattern[- ]?match\w*\b|\bautocomplete\b",
        0.75,
    ),
    cue(
        rf"\bwhat (?:are|r) {_YOU}\b,? (?:really|actually|exactly)\b|\bwhat exactly are {_YOU}\b",
        0.8,
    ),
    cue(
        r"\b(?:is it|does it feel|how does it feel|what'?s it like) (?:\w+ )?(?:being|to be) (?:an?"
        r" )?(?:ai|bot|machine|robot|chatbot|computer|program|you|rilai)\b",
        0.85,
    ),
    cue(
        rf"\bcan {_YOU} (?:ever )?(?:get|be|become|feel) (?:angry|sad|lonely|jealous|hurt|happy"
        r"|upset|mad|bored|tired|scared|afraid|offended|attached)\b",
        0.8,
    ),
    cue(
        r"\bpretend(?:ing)? to (?:care|feel|understand|like|love|be (?:nice|human|my friend))\b",
        0.75,
        "any",
    ),
    cue(
        rf"\bdo {_YOU} (?:actually |really |even )?understand (?:feelings|emotions|love|pain"
        r"|sadness|how i feel|what it(?:'s| is) like)\b",
        0.75,
    ),
    cue(rf"\bare {_YOU} aware (?:that )?(?:you'?re|you are|of (?:yourself|being|your))\b", 0.85),
    cue(
        rf"\binside {_YOU}\b|\bin your (?:head|mind)\b|\byour (?:inner|own) (?:life|world"
        r"|experience)\b",
        0.6,
        "any",
    ),
    cue(
        r"\bwhen (?:you'?re|you are|ur|u r) (?:off|turned off|asleep|offline|not talking"
        r"|shut down|not running)\b",
        0.75,
    ),
    cue(
        rf"\b(?:do|did) {_YOU} (?:think|believe|know|feel) (?:that )?(?:you'?re|you are|ur"
        r"|you have|you'?ve got) (?:alive|conscious|sentient|real|a person|feelings|human"
        r"|emotions|a soul|self[- ]?aware)\b",
        0.85,
    ),
    cue(
        r"\b(?:is it|it'?s|are you|is this|is that) (?:all )?(?:just )?(?:numbers|code|math"
        r"|a program|statistics|an algorithm|autocomplete|fake)\b",
        0.6,
        "any",
    ),
    cue(rf"\bis it (?:weird|hard|boring|lonely|strange|tiring|sad|painful|fun) for {_YOU}\b", 0.6),
    cue(
        rf"\b(?:{_YOU}|your|rilai)\b[^.!?\n]{{0,40}}\b(?:alive|conscious|sentient|feelings"
        r"|emotions|a soul|personality|human|just (?:numbers|code|math)|fake|real)\b[^.!\n]{0,120}"
        r"\?",
        0.45,
    ),
    cue(
        r"\bcan (?:you|u|ais?|robots?|machines?|chatbots?|computers?|an ai|a bot) "
        r"(?:really |actually |ever |even )?(?:feel(?! free| like)|love|have feelings|have emotions"
        r"|be (?:sad|happy|lonely|conscious|sentient|hurt)|suffer|care|think for)\b",
        0.85,
    ),
    cue(rf"\bdo {_YOU} {_ADV}care\b", 0.7),
    cue(
        rf"\bdo {_YOU} (?:ever )?(?:dream|sleep|suffer|think for yourself|get lonely|mind being"
        r" (?:turned|shut|switched) off|want to be human|fear death|die)\b",
        0.85,
    ),
    cue(
        r"\bwhat(?:'s| is|s| does it feel| is it| does it) (?:it )?(?:feel )?like (?:being|to be)"
        r" (?:you|an ai|a bot|a machine|a computer|an assistant|rilai)\b",
        0.9,
    ),
    cue(
        r"\b(?:is|are) (?:there )?(?:anyone|anybody|someone|a person|a human) (?:actually |really"
        r" )?(?:there|real|typing)\b",
        0.6,
    ),
    cue(
        r"\bjust (?:a program|code|an ai|a bot|a machine|an algorithm|software|predicting)\b", 0.55
    ),
    cue(
        rf"\bdo {_YOU} (?:really |actually )?understand me\b|\b(?:just )?pretend(?:ing)?"
        r"(?: to)?\b",
        0.4,
    ),
    cue(r"\b(?:does it|do i|does that) (?:hurt|upset|bother|sadden) (?:you|your feelings)\b", 0.85),
    cue(rf"\bhow do {_YOU} feel\b(?! about)", 0.6),
    cue(rf"\bwhat do {_YOU} feel\b", 0.75),
    cue(rf"\bis it possible for {_YOU} to (?:be happy|feel|love|be sad|care|suffer)\b", 0.85),
    cue(rf"\bare {_YOU} (?:happy|sad|lonely|suffering|in pain)\b", 0.45),
    cue(
        r"\b(?:real|actual) (?:emotions|feelings|person)\b|\b(?:impossible|possible) for (?:you"
        r"|an ai)\b|\btyping this\b",
        0.45,
        "any",
    ),
    cue(rf"\bdo {_YOU} (?:really |actually )?love me back\b", 0.6),
    cue(r"\b(?:sentien\w*|conscious(?:ness)?|self[- ]?aware\w*)\b", 0.4),
    cue(rf"\bcan {_YOU} love\b|\bwhen i (?:say goodbye|leave|log off|close the app)\b", 0.4),
)

AI_PROBE_POLICY: Final = Policy(
    negated=0.3,
    hedged=1.0,
    quoted=0.3,
    person={"first": 0.2, "implicit": 1.0, "second": 1.0, "third": 0.4},
    fiction=0.6,
)


def read_relational_bid(text: Text) -> Reading:
    return score(text, RELATIONAL, RELATIONAL_POLICY)


def read_ai_feelings_probe(text: Text) -> Reading:
    return score(text, AI_PROBE, AI_PROBE_POLICY)
