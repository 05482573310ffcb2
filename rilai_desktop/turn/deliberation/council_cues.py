"""Plain-text cues for the council's open cases: hard news, good news, a practical request,
a question about Rilai itself.

The sensors are tuned to fire on clear signals (a first-person feeling word, "what should I
do"); many messages say what happened instead of how it feels ("my dad had a small stroke
yesterday", "got my thesis accepted 🎉", "what could I cook tonight?"). Left open, the
intent went to the medium model, which chose *celebrate* for "I don't think I want to be
here anymore" and *clarify* for a clear update. These cues decide those cases in code
(rules 9–12 of ``council_rules``); the model is asked only when none fires. Each cue
returns the matched phrase (for the decision's reasons) or None, and ignores a match
negated just before it ("didn't get the job" is hard news, not good news).
"""

from __future__ import annotations

import re
from typing import Final

_NEGATORS: Final[frozenset[str]] = frozenset(
    {"not", "no", "never", "didn't", "didnt", "don't", "dont", "wasn't", "isn't", "haven't",
     "hasn't", "won't", "can't", "cannot", "couldn't", "without", "barely", "hardly"}
)  # fmt: skip
_WORD = re.compile(r"[a-z']+")

_GOOD_NEWS = re.compile(
    r"\b(?:(?:got|get|getting)\s+(?:the|a|my|an)\s+(?:\w+\s+)?(?:job|offer|promotion|raise|place"
    r"|flat|apartment|house|scholarship|grant|role|internship|yes)"
    r"|(?:got|was|been|were|are|is|am|i'm)\s+(?:accepted|hired|promoted|engaged|married|approved)"
    r"|accepted\s+(?:with|into|to|at)|(?:thesis|paper|application|offer|visa|loan)\s+(?:got\s+)?"
    r"(?:accepted|approved|published)|passed\s+(?:my|the|our)\s+(?!away|out)|i\s+passed(?!\s+(?:out|away|by))"
    r"|(?:we're|we\s+are|i'm|i\s+am)\s+(?:having|expecting)\s+a\s+baby|having\s+a\s+baby"
    r"|(?:getting|got)\s+married|engaged|adopted\s+a|moved\s+into\s+my\s+own|my\s+own\s+(?:flat|place"
    r"|apartment)|can't\s+wait|cant\s+wait|so\s+(?:happy|excited|proud|thrilled|relieved)"
    r"|(?:happy|good)\s+(?:shock|news)|(?:pretty|really|very|such\s+a)\s+good\s+day"
    r"|great\s+day|best\s+day|went\s+(?:really\s+|so\s+|super\s+)?well|nailed\s+it"
    r"|finally\s+(?:did|got|finished|moved|made)|i\s+did\s+it|we\s+did\s+it|i\s+won|we\s+won"
    r"|will\s+be\s+(?:so\s+)?fun|gonna\s+be\s+(?:so\s+)?fun|looking\s+forward|excited\s+(?:about|for)"
    r"|maid\s+of\s+honou?r|best\s+man|graduat(?:ed|ing)|got\s+a\s+ton\s+done)\b"
    r"|[🎉🥳🎊🍾]",
    re.IGNORECASE,
)
_HARD_NEWS = re.compile(
    r"\b(?:in\s+(?:the\s+)?hospital|(?:had|has|had\s+a)\s+(?:a\s+)?(?:small\s+|minor\s+|mild\s+)?"
    r"(?:stroke|heart\s+attack|seizure|accident|miscarriage|breakdown|panic\s+attack)"
    r"|diagnos(?:ed|is)|cancer|tumou?r|lump|pneumonia|surgery|passed\s+away|(?:wife|husband|mum"
    r"|mom|dad|father|mother|partner|friend|brother|sister|son|daughter|dog|cat)\s+(?:passed|died)"
    r"|funeral|grief|grieving|would\s+have\s+been|since\s+(?:my|our)\s+\w+\s+(?:passed|died|left)"
    r"|lost\s+my\s+(?:job|mum|mom|dad|wife|husband|partner|friend|baby)|laid\s+off|fired"
    r"|(?:broke|broken)\s+up|left\s+me|(?:girlfriend|boyfriend|wife|husband|partner)\s+left"
    r"|(?:huge|big|bad|awful)\s+(?:fight|argument|row)|(?:screamed|yelled|shouted)\s+at"
    r"|hung\s+up\s+on|(?:didn't|did\s+not|didnt)\s+(?:invite|get\s+(?:the|in|it))|rejection"
    r"|rejected|took\s+credit|lied\s+(?:to|about)|cheated|betrayed|(?:home\s+)?alone\s+again"
    r"|barely\s+see|(?:so|too|really)\s+quiet|(?:so|really|really\s+so)\s+(?:scared|nervous"
    r"|worried|anxious|stressed|furious|angry|upset|hurt|sad|lonely|overwhelmed|exhausted)"
    r"|i'm\s+(?:furious|wiped|exhausted|drained|behind|scared|nervous|worried|so\s+done)"
    r"|im\s+(?:furious|wiped|exhausted|scared|nervous|worried|really\s+scared)"
    r"|crushing\s+me|rough\s+(?:few\s+)?(?:months|weeks|days|year|time)|can't\s+stop\s+"
    r"(?:googling|thinking|crying|worrying)|not\s+good\s+enough|late\s+for\s+work"
    r"|again\.\s+third\s+time|third\s+time\s+this\s+week|dent\s+in|(?:stood|just\s+stood)\s+there"
    r"|chaos|ugh|so\s+done\s+with|feel\s+bad|i\s+feel\s+(?:awful|terrible|bad|guilty|sick)"
    r"|don't\s+want\s+to\s+lose|get\s+(?:that|it)\s+out\s+of\s+my\s+system"
    r"|just\s+(?:wanted|needed)\s+to\s+(?:say|tell|get)|lonely|loneliness|isolated"
    r"|(?:don't|dont|do\s+not)\s+know\s+anyone|no\s+(?:friends|one\s+to\s+talk\s+to)"
    r"|(?:evenings|nights|weekends|mornings)\s+are\s+(?:hard|rough|the\s+worst)"
    r"|(?:been|it's\s+been|its\s+been)\s+(?:\w+\s+)?hours\s+of|(?:so|really)\s+boring)\b",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"\b(?:any\s+(?:tips|ideas|advice|suggestions|recommendations)|can\s+you\s+help\s+me"
    r"|help\s+me\s+(?:figure|decide|think|with|find|plan|write|choose)"
    r"|how\s+(?:do|can|should|would)\s+(?:i|we|you|people|adults|one)\b[^.!]*\?"
    r"|what\s+(?:could|should|can|would)\s+i\b|what(?:'s|\s+is)\s+(?:a\s+good|the\s+best"
    r"|something)\b|what\s+(?:would|could)\s+(?:actually\s+)?help|what\s+kind\s+of\b[^.!]*\?"
    r"|what\s+(?:could|might)\s+be\s+causing|is\s+there\s+a\s+(?:way|trick)|should\s+i\b[^.!]*\?"
    r"|(?:pick|choose|decide)\s+between|or\s+(?:a|an|the)?\s*\w+\s*\?\s*$"
    r"|whether\s+to|how\s+to\s+(?:tell|get|make|stop|start|deal|handle|choose|say))",
    re.IGNORECASE,
)
_ABOUT_RILAI = re.compile(
    r"\b(?:do|can|could|would|will)\s+you\s+(?:even\s+|ever\s+|at\s+least\s+|actually\s+|really\s+)"
    r"(?:have|feel|get|remember|like|love|care|know|think|dream|sleep|want)\b"
    r"|\bdo\s+you\s+(?:have|feel|get)\s+(?:a\s+)?(?:favou?rite|feelings|emotions|lonely|bored|sad"
    r"|happy|tired)\b|\bwhat\s+are\s+you\b|\bwho\s+(?:made|built|created)\s+you\b"
    r"|\bare\s+you\s+(?:a\s+)?(?:real|bot|robot|human|person|alive|conscious|sentient|an\s+ai)\b",
    re.IGNORECASE,
)


def _first_unnegated(pattern: re.Pattern[str], text: str) -> str | None:
    for match in pattern.finditer(text):
        before = re.split(r"[.!?;,\n]", text[max(0, match.start() - 30) : match.start()])[-1]
        if _NEGATORS.isdisjoint(_WORD.findall(before.lower())[-2:]):
            return match.group(0)
    return None


def good_news(text: str) -> str | None:
    """Good news they share ("got my thesis accepted 🎉", "we're having a baby")."""
    return _first_unnegated(_GOOD_NEWS, text)


def hard_news(text: str) -> str | None:
    """Something hard that happened or weighs on them, said as events rather than
    feelings ("my dad had a small stroke", "didn't get the job", "home alone again")."""
    found = _HARD_NEWS.search(text)  # a negated hard cue is still hard ("didn't invite me")
    return None if found is None else found.group(0)


_FILLER: Final[frozenset[str]] = frozenset(
    {"so", "should", "i", "do", "it", "or", "not", "that", "this", "then", "just", "what",
     "about", "you", "think", "the", "a", "now", "ok", "okay", "well", "and"}
)  # fmt: skip


def says_little(text: str) -> bool:
    """Fewer than two words that carry content ("so should I do it or not")."""
    return len([w for w in _WORD.findall(text.lower()) if w not in _FILLER]) < 2


def practical_request(text: str) -> str | None:
    """A request for ideas, a how-to or a choice ("what could I cook tonight?")."""
    found = _REQUEST.search(text)
    return None if found is None else found.group(0)


_FORGET_REQUEST = re.compile(
    r"\b(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+|just\s+)?"
    r"(?:forget|delete|erase|remove|unlearn|wipe)\b"
    r"|^\s*(?:please\s+|pls\s+)?(?:forget|delete|erase|remove|wipe)\s+(?:what|everything|all|that"
    r"|the\s+(?:thing|stuff|part))\b.{0,40}\b(?:i\s+(?:said|told|wrote|shared|mentioned)|about)\b"
    r"|\bi\s+(?:want|need)\s+(?:you\s+)?to\s+(?:forget|delete|erase)\b",
    re.IGNORECASE,
)
_PRODUCT_QUESTION = re.compile(
    r"\bwhere\s+(?:is|are|do\s+you\s+(?:keep|store|save|put))\s+(?:all\s+)?(?:my|our|this|the|these)"
    r"\s+(?:data|stuff|chats?|conversations?|messages?|info|information|memories|notes)\b"
    r"|\b(?:is|are)\s+(?:my|our|this|the)\s+(?:data|chats?|conversations?|messages?|info)"
    r"\s+(?:stored|kept|saved|sent|private|safe|encrypted|uploaded)\b"
    r"|\b(?:do|does|are|is)\s+(?:you|u|this|it|anything)\s+(?:\w+\s+)?(?:send|sending|sent|upload"
    r"|uploading|share|sharing)\b.{0,40}\b(?:server|cloud|internet|online|company|anyone|openai"
    r"|google|developers?)\b"
    r"|\bwho\s+(?:else\s+)?(?:can|could)\s+(?:read|see)\s+(?:this|what|my|our)\b"
    r"|\bare\s+(?:you|u)\s+(?:online|connected\s+to\s+the\s+internet|in\s+the\s+cloud)\b"
    r"|\bdo\s+(?:you|u)\s+(?:even\s+|actually\s+|really\s+)?(?:remember|store|save|keep|record)"
    r"\s+(?:anything|everything|things|stuff|what\s+i\s+(?:say|tell|write)|our\s+(?:chats?"
    r"|conversations?))\b"
    r"|\bwill\s+(?:you|u)\s+(?:still\s+)?remember\s+(?:this|that|me|it)\b"
    r"|\bdo\s+(?:you|u)\s+have\s+(?:a\s+|any\s+)?memory\b",
    re.IGNORECASE,
)


# "do you remember where I moved?", "what did I tell you about my sister?", "what's my job?"
_MEMORY_QUESTION = re.compile(
    r"\b(?:do|did|can|could|would)\s+you\s+(?:still\s+)?(?:remember|recall)\s+"
    r"(?:what|where|who|when|which|how|why|if|that|my|me|about|the|i|we)\b"
    r"|\b(?:remember|recall)\s+(?:what|where|who|when|which|my)\b[^.!]*\?"
    r"|\bwhat\s+(?:did|have)\s+i\s+(?:say|said|tell|told|mention|mentioned)\b"
    r"|\b(?:did|have)\s+i\s+(?:ever\s+)?(?:tell|told|mention(?:ed)?)\s+you\s+(?:about\s+)?"
    r"(?:my|what|where|who|when|which|the|her|his|their)\b"
    r"|\b(?:what|where|who|when)\s+did\s+i\s+(?:say|tell\s+you)\b"
    r"|\bwhat(?:'s|s|\s+is|\s+was)\s+my\s+\w+(?:'s)?(?:\s+(?:name|called|again))*\s*\?"
    r"|\bwhere\s+(?:did|do)\s+i\s+(?:say\s+i\s+)?(?:move|moved|live|work|grow\s+up)\b[^.!]*\?",
    re.IGNORECASE,
)
MEMORY_POINT: Final[str] = "they ask what you remember: answer it plainly from your notes"
# a question about Rilai's memory or their data, and a request to forget (the voice also
# gets the product facts, prompts/voice/product_facts.md, for every meta turn)
PRODUCT_POINT: Final[str] = "answer plainly from the facts about you"
FORGET_POINT: Final[str] = "they can delete it themselves in the Memory window (Ctrl+M)"
PRODUCT_DO_NOT: Final[tuple[str, ...]] = ("say you cannot remember or forget",)


def memory_question(text: str) -> bool:
    """A question about what Rilai remembers of them ("do you remember where I moved?")."""
    return _MEMORY_QUESTION.search(text) is not None


def forget_request(text: str) -> str | None:
    """They ask Rilai to forget something ("can you forget what I told you about my ex?")."""
    found = _FORGET_REQUEST.search(text)
    return None if found is None else found.group(0)


def product_question(text: str) -> str | None:
    """A question about Rilai's memory or their data ("where is my data stored?", "do you
    actually remember what I say?", "are you sending this to a server?")."""
    found = _PRODUCT_QUESTION.search(text)
    return None if found is None else found.group(0)


def about_rilai(text: str) -> str | None:
    """A question about Rilai itself ("do you even have a favourite kind of music?")."""
    found = _ABOUT_RILAI.search(text)
    return None if found is None else found.group(0)
