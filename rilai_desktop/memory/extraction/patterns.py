"""The rule patterns: what a user's sentence must match to become a draft of each kind.

Each ``_Rule`` names the kind, a case-insensitive pattern over the folded sentence, the
confidence and importance of its draft, an optional slot (a single-valued biography fact)
and an optional check on the match. The first rule that matches wins (``rules.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rilai_desktop.memory.extraction.text import _words, _wordset
from rilai_desktop.memory.types import (
    Importance,
)

# ── the patterns ─────────────────────────────────────────────────────────────

_IM = r"(?:i'?m|i\s+am)"
_IVE = r"(?:i'?ve|i\s+have)"
_ID = r"(?:i'd|i\s+would)"
_DONT = r"(?:don'?t|do\s+not)"
_CANT = r"(?:can'?t|cannot|can\s+not)"
_ADV = r"(?:really|absolutely|totally|just|truly|honestly|also|so|do|still|kinda|kind\s+of)"
_FEEL_ADV = (
    r"(?:so|really|very|super|kinda|kind\s+of|a\s+bit|a\s+little|pretty|quite|extremely|"
    r"incredibly|feeling|totally|just|absolutely)"
)
_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DATE = (
    r"(?<!last\s)(?<!past\s)\b(?:today|tonight|tomorrow|tmrw|eod|eow|noon|midnight|"
    rf"(?:this|next)\s+(?:morning|afternoon|evening|week(?:end)?|month|year|{_DAYS})|"
    r"(?:the\s+)?end\s+of\s+(?:the\s+)?(?:day|week|month|year|quarter|semester|term)|"
    rf"{_DAYS}|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?|"
    r"(?:january|february|march|april|june|july|august|september|october|november|december)|"
    r"(?:the\s+)?\d{1,2}(?:st|nd|rd|th)|\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{4}-\d{2}-\d{2}|"
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|"
    r"in\s+(?:a|one|two|three|\d+|a\s+few|a\s+couple\s+of)\s+(?:days?|weeks?|months?|hours?))\b"
)
_FLAGS = re.IGNORECASE


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _FLAGS)


_PRONOUNS = _wordset(
    """you u ya it that this them those these him her so much too very a lot the way when how
    what here there now lol haha though your yours idea ideas suggestion answer response reply
    point one"""
)
_RELATION_SLOTS = {
    "partner": "partner_name",
    "wife": "partner_name",
    "husband": "partner_name",
    "boyfriend": "partner_name",
    "girlfriend": "partner_name",
    "fiance": "partner_name",
    "fiancee": "partner_name",
    "mom": "mother_name",
    "mum": "mother_name",
    "mother": "mother_name",
    "dad": "father_name",
    "father": "father_name",
}

SlotFn = Callable[[re.Match[str]], str | None]


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    confidence: float
    importance: Importance = "normal"
    slot: str | SlotFn | None = None
    accept: Callable[[re.Match[str]], bool] | None = None
    questions: bool = False  # does it apply to a sentence that ends with "?"


def _has_object(m: re.Match[str]) -> bool:
    """A preference must be about something, not "I love you" / "I like that"."""
    return any(w not in _PRONOUNS for w in _words(m.group("obj")))


def _favourite_slot(m: re.Match[str]) -> str | None:
    thing = re.sub(r"[^a-z0-9]+", "_", (m.group("thing") or "").lower()).strip("_")[:40]
    return f"favourite_{thing}" if thing else None


def _relation_slot(m: re.Match[str]) -> str | None:
    rel = m.group("rel").lower().replace("é", "e")
    return _RELATION_SLOTS.get(rel)


def _plausible_age(m: re.Match[str]) -> bool:
    return 1 <= int(m.group("age") or m.group("age2") or m.group("age3")) <= 120


_REL = (
    r"(?P<rel>sister|brother|mom|mum|mother|dad|father|partner|wife|husband|boyfriend|"
    r"girlfriend|fianc[eé]e?|son|daughter|best\s+friend|grandma|grandmother|grandpa|"
    r"grandfather|aunt|uncle|cousin|roommate|flatmate|boss|therapist)"
)
_PET = (
    r"(?P<species>dog|cat|puppy|kitten|rabbit|bunny|hamster|parrot|bird|horse|turtle|"
    r"guinea\s+pig|ferret|lizard|snake)"
)
_NAME = r"(?-i:[A-Z][\w'-]+)"
_JOBS = (
    r"(?:nurse|teacher|developer|engineer|student|doctor|designer|programmer|lawyer|writer|"
    r"chef|cook|barista|accountant|manager|consultant|researcher|scientist|artist|musician|"
    r"freelancer|paramedic|pharmacist|therapist|electrician|plumber|carpenter|mechanic|"
    r"journalist|translator|architect|photographer|librarian|cashier|driver|farmer|"
    r"firefighter|police\s+officer|social\s+worker|professor|dentist|vet|surgeon|pilot)s?"
)
_EMOTIONS = (
    r"(?:stressed(?:\s+out)?|anxious|happy|sad|depressed|exhausted|excited|nervous|"
    r"overwhelmed|lonely|angry|upset|worried|scared|frustrated|tired|burn(?:t|ed)\s+out|"
    r"heartbroken|devastated|thrilled|proud|grateful|miserable|hurt|furious|ecstatic|"
    r"relieved|terrified|panicking)"
)

_BOUNDARY_PLEASE = rf"\bplease\s*,?\s+(?:{_DONT}|never|stop|not|no\s+more)\b"
_BOUNDARY_DONT = (
    rf"\b(?:{_DONT}|never)\s+(?:ever\s+)?(?:bring\s+up|ask\s+(?:me\s+)?about|mention|"
    r"call\s+me|remind\s+me|joke\s+about|talk\s+to\s+me\s+about|comment\s+on|lecture\s+me)"
)
_BOUNDARY_RATHER = rf"\b{_ID}\s+(?:rather|prefer)\s+(?:not|you\s+(?:didn'?t|not))\b"
_BOUNDARY_OTHER = (
    rf"\bi\s+{_DONT}\s+(?:want|like)\s+to\s+(?:talk|discuss|think|hear|get\s+into|go\s+into)"
    r"|\bstop\s+(?:calling\s+me|asking\s+(?:me\s+)?about|bringing\s+up|mentioning)\b"
    r"|\b(?:that|it)(?:'?s|\s+is)\s+(?:off[-\s]limits|a\s+sore\s+(?:spot|subject))"
)
# a trigger and a deadline anywhere in the sentence
_COMMITMENT = (
    r"^(?=.*?\b(?:i\s+(?:really\s+|still\s+|absolutely\s+)?(?:need\s+to|have\s+to|must|"
    r"gotta|got\s+to|should|promised|will|am\s+(?:supposed|meant)\s+to)|i'?ve\s+got\s+to|"
    r"i'll|i'?m\s+(?:supposed|meant)\s+to|promised|(?:is|are)\s+due|due\s+(?:on|by|at)|"
    rf"deadline|appointment|interview|exam|surgery|flight|dentist|doctor)\b)(?=.*?{_DATE})"
)
_DECISION = (
    rf"\b(?:{_IVE}\s+(?:finally\s+|just\s+)?(?:decided|made\s+up\s+my\s+mind|made\s+"
    r"(?:a|the)\s+decision)|i\s+(?:finally\s+|just\s+)?(?:decided|made\s+up\s+my\s+mind)|"
    rf"{_IM}\s+(?:going\s+to|gonna)\s+(?:stop|start|quit|give\s+up|cut\s+(?:back|down|out)|"
    rf"switch|leave)|from\s+now\s+on|{_IM}\s+(?:quitting|giving\s+up|done\s+with))\b"
)
_GOAL_MY = r"\bmy\s+(?:[\w-]+\s+){0,2}(?:goal|dream|aim|resolution|ambition)s?\s+(?:is|are|for)\b"
_GOAL_DOING = (
    rf"\b{_IM}\s+(?:currently\s+|now\s+)?(?:training\s+for|working\s+towards?|saving\s+"
    r"(?:up\s+)?(?:for|to)|studying\s+for|preparing\s+for|learning\s+(?:how\s+)?to)\b"
)
_GOAL_BY = (
    rf"\b(?:i\s+(?:really\s+)?(?:want|hope|plan|aim|intend)|{_ID}\s+(?:really\s+)?like)"
    rf"\s+to\b.*?\bby\s+(?:{_DATE}|(?:the\s+)?(?:summer|spring|fall|autumn|winter|"
    r"christmas|new\s+year|my\s+birthday)\b|(?:19|20)\d{2}\b|age\s+\d+|the\s+time)"
)
_LIVES_IN = (
    rf"\b(?:i\s+(?:now\s+|currently\s+|still\s+)?live\s+in|{_IM}\s+(?:now\s+|currently\s+)?"
    rf"(?:living|based|staying)\s+in|(?:i|{_IVE})\s+(?:just\s+|recently\s+|finally\s+)?"
    r"(?:moved|relocated)\s+(?:back\s+)?to)\s+\w"
)
_GREW_UP = r"\bi\s+(?:grew\s+up|was\s+(?:raised|brought\s+up))\s+in\s+\w"
_BORN_IN = r"\bi\s+was\s+born\s+in\s+\w"
_JOB = (
    rf"\b(?:(?:i\s+(?:currently\s+|now\s+)?work\s+(?:as|at|for|in)|{_IM}\s+(?:working|"
    r"employed)\s+(?:as|at|for)|my\s+(?:job|profession|occupation|day\s+job)\s+is|i\s+(?:just\s+)?"
    r"(?:got\s+a\s+(?:new\s+)?job|started\s+(?:a\s+new\s+job|working))\s+(?:as|at))\s+\w|"
    rf"{_IM}\s+an?\s+(?:[\w-]+\s+){{0,2}}{_JOBS}\b)"
)
_AGE = (
    rf"\b(?:{_IM}\s+(?P<age>\d{{1,3}})\s*(?:years?|yrs?|y/?o)\b|i\s+(?:just\s+)?turned\s+"
    r"(?P<age2>\d{1,3})\b|my\s+age\s+is\s+(?P<age3>\d{1,3})\b)"
)
_NAMED = (
    r"(?:'?s\s+name\s+is\s+\w|\s+is\s+(?:called|named)\s+\w"
    rf"|\s*,?\s+(?:called\s+|named\s+)?{_NAME})"
)
_PET_NAME = rf"\bmy\s+(?:(?:little|old|new|sweet|baby)\s+)?{_PET}{_NAMED}"
_RELATIVE = rf"\bmy\s+(?:(?:older|younger|little|big|baby|twin|step)\s+)?{_REL}{_NAMED}"
_ALLERGY = rf"\b{_IM}\s+(?:\w+\s+)?allergic\s+to\s+\w"
_FAVOURITE = (
    r"\bmy\s+(?:all[-\s]time\s+|absolute\s+)?fav(?:ou?rite|e)?\s+"
    r"(?:(?P<thing>[\w'\- ]{1,40}?)\s+)?(?:is|are|has\s+to\s+be)\s+\w"
)
_LIKES = (
    rf"\bi\s+(?:{_ADV}\s+){{0,2}}(?:love|like|enjoy|adore|prefer|hate|dislike|detest|"
    rf"loathe|despise|{_CANT}\s+stand|{_DONT}\s+(?:really\s+)?(?:like|enjoy))\b(?P<obj>.*)"
)
_INTO = (
    rf"\b{_IM}\s+(?:(?:really|so|totally)\s+)?(?:into|a\s+(?:big\s+|huge\s+)?fan\s+of|"
    r"obsessed\s+with)\b(?P<obj>.*)"
)
_IS_FAVOURITE = (
    r"\bis\s+my\s+(?:all[-\s]time\s+)?fav(?:ou?rite|e)?\b"
    rf"|\b{_IM}\s+(?:a\s+)?(?:vegan|vegetarian|pescatarian|teetotal)\b"
)
_MATTERS = (
    r"\b(?:matters?|means?\s+(?:a\s+lot|so\s+much|everything|the\s+world))\s+(?:(?:a\s+lot|"
    r"so\s+much|deeply|more\s+than\s+anything)\s+)?to\s+me\b|\bimportant\s+to\s+me\b"
    r"|\bwhat\s+(?:i\s+(?:really\s+|truly\s+)?(?:care\s+about|value)|matters\s+to\s+me)"
    r"(?:\s+most)?\s+is\b"
)
_BELIEVE = (
    r"\bi\s+(?:really\s+|truly\s+|strongly\s+|firmly\s+|deeply\s+)?(?:believe|value|care\s+"
    r"(?:a\s+lot\s+|deeply\s+|so\s+much\s+)?about)\b"
)
_HAD_A_DAY = (
    r"\bi\s+(?:just\s+)?had\s+(?:a|an|such\s+a|the)\s+(?:(?:really|very|so|pretty|super|"
    r"truly|kinda)\s+)?(?:rough|hard|tough|bad|terrible|awful|horrible|shitty|crappy|long|"
    r"great|good|amazing|wonderful|lovely|fantastic|stressful|crazy|weird|exhausting|"
    r"productive|perfect|nice|fun|best|worst)\s+(?:day|week|night|morning|evening|weekend|"
    r"time|shift|month|year)\b"
)
_HAPPENED = (
    r"\b(?:we|i|my\s+\w+\s+and\s+i|\w+\s+and\s+i)\s+(?:just\s+)?had\s+(?:a|another|our\s+"
    r"first|such\s+a)\s+(?:(?:big|huge|massive|stupid|bad|little|terrible|awful)\s+)?"
    r"(?:fight|argument|row|falling[-\s]out|disagreement)\b"
    r"|\bi\s+(?:just\s+)?(?:got|was|'?ve\s+been|have\s+been)\s+(?:fired|promoted|laid\s+off|"
    r"dumped|engaged|married|divorced|accepted|rejected|diagnosed)\b"
    r"|\b(?:passed\s+away|broke\s+up\s+with|we\s+broke\s+up)\b"
)
_FEELING = (
    rf"\b(?:{_IM}|i\s+(?:feel|felt|was)|i'?m\s+feeling|i\s+am\s+feeling|{_IVE}\s+been)\s+"
    rf"(?:{_FEEL_ADV}\s+){{0,2}}{_EMOTIONS}\b"
)

# Tried in this order; the first rule that matches a sentence decides its kind.
_RULES: tuple[_Rule, ...] = (
    _Rule("boundary", _rx(_BOUNDARY_PLEASE), 0.8, "high", questions=True),
    _Rule("boundary", _rx(_BOUNDARY_DONT), 0.8, "high", questions=True),
    _Rule("boundary", _rx(_BOUNDARY_RATHER), 0.75, "high", questions=True),
    _Rule("boundary", _rx(_BOUNDARY_OTHER), 0.7, "high", questions=True),
    _Rule("commitment", _rx(_COMMITMENT), 0.75, "high"),
    _Rule("decision", _rx(_DECISION), 0.75),
    _Rule("goal", _rx(_GOAL_MY), 0.8),
    _Rule("goal", _rx(_GOAL_DOING), 0.7),
    _Rule("goal", _rx(_GOAL_BY), 0.7),
    _Rule("biography", _rx(_LIVES_IN), 0.8, slot="lives_in"),
    _Rule("biography", _rx(_GREW_UP), 0.8, slot="grew_up_in"),
    _Rule("biography", _rx(_BORN_IN), 0.8, slot="born_in"),
    _Rule("biography", _rx(_JOB), 0.75, slot="job"),
    _Rule("biography", _rx(_AGE), 0.8, slot="age", accept=_plausible_age),
    _Rule("biography", _rx(_PET_NAME), 0.75, slot="pet_name"),
    _Rule("biography", _rx(_RELATIVE), 0.75, slot=_relation_slot),
    _Rule("biography", _rx(_ALLERGY), 0.8, "high"),
    _Rule("preference", _rx(_FAVOURITE), 0.8, slot=_favourite_slot),
    _Rule("preference", _rx(_LIKES), 0.7, accept=_has_object),
    _Rule("preference", _rx(_INTO), 0.7, accept=_has_object),
    _Rule("preference", _rx(_IS_FAVOURITE), 0.75),
    _Rule("value", _rx(_MATTERS), 0.7),
    _Rule("value", _rx(_BELIEVE), 0.6),
    _Rule("event", _rx(_HAD_A_DAY), 0.7),
    _Rule("event", _rx(_HAPPENED), 0.75),
    _Rule("event", _rx(_FEELING), 0.65),
)
