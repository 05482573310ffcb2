"""Turns -> ItemDrafts: the extraction half of seed 003's ``extract_and_store`` (1.2).

``RuleExtractor`` is deterministic and always runs, so memory works even when the model is
weak: it reads only the user's turns, sentence by sentence, and drafts the sentence itself
(cleaned, never rewritten) when a pattern recognises a preference, boundary, biography
fact, commitment, decision, value, goal or event. A substantive user turn no pattern
recognised becomes one low-importance ``utterance`` item, so recall never misses it.

``LLMExtractor`` asks the extraction model for short facts under a JSON schema the grammar
enforces (enums for every bounded value), then validates each item in code: unknown turn
ids, parroted instructions, ungrounded text and repeats are dropped (DESIGN: the tiny
models parrot and repeat). ``extract_drafts`` picks or combines the two per the mode.
"""

from __future__ import annotations

import json
import logging
import re
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from rilai_desktop.errors import ExtractionError, MemoryInputError, RilaiError
from rilai_desktop.memory.ports import TextModel
from rilai_desktop.memory.types import (
    CATEGORY_NAME,
    CATEGORY_NAME_MAX,
    IMPORTANCE_LEVELS,
    ITEM_KINDS,
    Importance,
    ItemDraft,
    Turn,
)

__all__ = [
    "KIND_CATEGORIES",
    "ExtractionMode",
    "LLMExtractor",
    "RuleExtractor",
    "clean_text",
    "extract_drafts",
    "iter_sentences",
    "reply_schema",
]

log = logging.getLogger(__name__)

ExtractionMode = Literal["rules", "llm", "both"]
KIND_CATEGORIES: dict[str, str] = {
    "preference": "preferences",
    "boundary": "boundaries",
    "biography": "biography",
    "commitment": "commitments",
    "decision": "decisions",
    "value": "values",
    "goal": "goals",
    "event": "events",
    "emotion": "events",
    "utterance": "conversation",
    "fact": "facts",
}
RULE_CONTENT_CHARS = 300
UTTERANCE_CHARS = 600
MATCH_CHARS = 1_000  # a sentence is matched on its first 1,000 characters
MAX_SENTENCES_PER_TURN = 400
MAX_RULE_ITEMS_PER_TURN = 20
MIN_UTTERANCE_WORDS = 6

# ── text hygiene ─────────────────────────────────────────────────────────────

# C0/C1 controls (not \t \n \r), lone surrogates, private use, BOM, specials (U+FFFD...).
_JUNK = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ue000-\uf8ff\ufeff\ufff0-\uffff"
    "\U000f0000-\U0010ffff]+"
)


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_APOSTROPHES = str.maketrans({c: "'" for c in "\u2019\u2018\u02bc\u00b4\u0060\uff07\u2032"})
_BAD_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn"})
_SPACES = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|\n")
_ABBREVIATIONS = _wordset("mr mrs ms dr st jr sr prof vs etc e.g i.e approx mt no")
_WORD = re.compile(r"^[^\W\d_]+(?:['’-][^\W\d_]+)*$")
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")
_FILLER = _wordset(
    """ok okay k kk yes yeah yep yup ya yah no nope nah sure cool nice great good fine right
    alright haha hahaha hehe lol lmao rofl omg wow oh ah hmm hm um uh thanks thank thx ty you
    u bye goodbye cya see later soon talk tomorrow tonight night morning hi hello hey yo too
    so well sounds awesome perfect agreed true same me i totally exactly indeed welcome
    np gn gm xoxo love it that this is was do will"""
)


def clean_text(text: str) -> str:
    """Text with junk characters dropped (turned into spaces); newlines are kept."""
    return _JUNK.sub(" ", text)


def _one_line(text: str) -> str:
    return _SPACES.sub(" ", clean_text(text)).strip()


def _fold(text: str) -> str:
    """The copy patterns match against: NFKC (full-width → ASCII) and straight apostrophes."""
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)


def _clip(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut at a word boundary and marked with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def iter_sentences(text: str) -> Iterator[str]:
    """Sentences (whitespace-normalised) of cleaned text; abbreviations do not end one."""
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.group().startswith("."):
            before = text[max(start, m.start() - 12) : m.start()].rsplit(None, 1)
            if before and before[-1].lower() in _ABBREVIATIONS:
                continue
        piece = _SPACES.sub(" ", text[start : m.end()]).strip()
        if piece:
            yield piece
        start = m.end()
    tail = _SPACES.sub(" ", text[start:]).strip()
    if tail:
        yield tail


def _words(text: str) -> list[str]:
    """The word-like tokens of a text (letters, inner apostrophes/hyphens), lower-cased."""
    words = (_EDGE.sub("", token) for token in text.split())
    return [w.lower() for w in words if _WORD.match(w)]


def _looks_binary(text: str, sample: int = 5_000) -> bool:
    """More than 10% control, surrogate, private-use, unassigned or U+FFFD characters."""
    head = text[:sample]
    bad = sum(
        1
        for ch in head
        if ch == "\ufffd" or (unicodedata.category(ch) in _BAD_CATEGORIES and not ch.isspace())
    )
    return bad * 10 > len(head)


def _is_substantive(text: str) -> bool:
    """At least six real words, mostly words (not junk), and not only chit-chat."""
    if _looks_binary(text):
        return False
    text = clean_text(text)
    tokens = text.split()
    words = _words(_fold(text))
    if len(words) < MIN_UTTERANCE_WORDS or len(words) * 2 < len(tokens):
        return False
    return not all(w.replace("'", "") in _FILLER or w in _FILLER for w in words)


def _key(content: str) -> str:
    """Normalised content for dedupe: case-folded word characters only."""
    return " ".join(re.findall(r"\w+", _fold(content).casefold()))


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


# ── drafts ───────────────────────────────────────────────────────────────────

_IMPORTANCE_RANK = {level: n for n, level in enumerate(IMPORTANCE_LEVELS)}


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None or b is None:
        return a or b
    return max(a, b)


def _merge(kept: ItemDraft, dup: ItemDraft) -> ItemDraft:
    """One draft for two that say the same: union of turns, the stronger claim, the later date."""
    ids = list(dict.fromkeys([*kept.source_turn_ids, *dup.source_turn_ids]))
    importance = max(kept.importance, dup.importance, key=_IMPORTANCE_RANK.__getitem__)
    return kept.model_copy(
        update={
            "source_turn_ids": ids,
            "confidence": max(kept.confidence, dup.confidence),
            "importance": importance,
            "valid_at": _later(kept.valid_at, dup.valid_at),
        }
    )


def _dedupe(drafts: Sequence[ItemDraft], *, containment: bool = False) -> list[ItemDraft]:
    """Drafts with equal normalised content (or, with ``containment``, one inside another,
    three words or more) folded into the first."""
    out: list[ItemDraft] = []
    index: dict[str, int] = {}
    for draft in drafts:
        key = _key(draft.content) or draft.content
        n = index.get(key)
        if n is None and containment:
            n = next((i for seen, i in index.items() if _contains(seen, key)), None)
        if n is None:
            index[key] = len(out)
            out.append(draft)
        else:
            out[n] = _merge(out[n], draft)
    return out


def _contains(a: str, b: str) -> bool:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return len(short.split()) >= 3 and f" {short} " in f" {long} "


def _check_hint(category_hint: str | None) -> None:
    if category_hint is not None and (
        len(category_hint) > CATEGORY_NAME_MAX or not CATEGORY_NAME.match(category_hint)
    ):
        raise MemoryInputError(
            f"category_hint must be a snake_case category name, got {category_hint!r}",
            context={"category_hint": category_hint},
        )


class RuleExtractor:
    """Deterministic extraction from the user's own sentences (see the module docstring)."""

    def extract(
        self, turns: Sequence[Turn], *, category_hint: str | None = None
    ) -> list[ItemDraft]:
        _check_hint(category_hint)
        drafts: list[ItemDraft] = []
        for turn in turns:
            if not turn.is_user or not turn.text.strip():
                continue
            text = clean_text(turn.text)
            found = self._from_sentences(turn, text, category_hint)
            if not found and _is_substantive(turn.text):
                found = [self._utterance(turn, text, category_hint)]
            drafts.extend(found)
        return _dedupe(drafts)

    def _from_sentences(self, turn: Turn, text: str, hint: str | None) -> list[ItemDraft]:
        found: list[ItemDraft] = []
        for sentence in islice(iter_sentences(text), MAX_SENTENCES_PER_TURN):
            draft = self._match(turn, sentence, hint)
            if draft is not None:
                found.append(draft)
                if len(found) >= MAX_RULE_ITEMS_PER_TURN:
                    break
        return found

    def _match(self, turn: Turn, sentence: str, hint: str | None) -> ItemDraft | None:
        folded = _fold(sentence[:MATCH_CHARS])
        question = folded.rstrip(" \"'”)").endswith("?")
        for rule in _RULES:
            if question and not rule.questions:
                continue
            m = rule.pattern.search(folded)
            if m is None or (rule.accept is not None and not rule.accept(m)):
                continue
            slot = rule.slot(m) if callable(rule.slot) else rule.slot
            return ItemDraft(
                content=_clip(sentence, RULE_CONTENT_CHARS),
                kind=rule.kind,
                category=hint or KIND_CATEGORIES[rule.kind],
                confidence=rule.confidence,
                importance=rule.importance,
                source_turn_ids=[turn.id],
                valid_at=turn.at,
                slot=slot,
            )
        return None

    @staticmethod
    def _utterance(turn: Turn, text: str, hint: str | None) -> ItemDraft:
        content = ""
        for sentence in iter_sentences(text):
            joined = f"{content} {sentence}".strip()
            if len(joined) > UTTERANCE_CHARS:
                break
            content = joined
        if not content:  # the first sentence alone is too long
            content = _clip(_SPACES.sub(" ", text).strip(), UTTERANCE_CHARS)
        return ItemDraft(
            content=content,
            kind="utterance",
            category=hint or KIND_CATEGORIES["utterance"],
            confidence=0.5,
            importance="low",
            source_turn_ids=[turn.id],
            valid_at=turn.at,
        )


# ── the model ────────────────────────────────────────────────────────────────

# the model proposes facts: never an utterance fallback or a turn record (memory keeps those)
LLM_KINDS: tuple[str, ...] = tuple(k for k in ITEM_KINDS if k not in ("utterance", "turn"))
LLM_CONFIDENCE = {"low": 0.5, "medium": 0.7, "high": 0.9}
LLM_CONTENT_CHARS = 200
MAX_TURNS_PER_CALL = 40
USER_LINE_CHARS = 280
OTHER_LINE_CHARS = 120
MAX_TURN_IDS = 3
INSTRUCTIONS = (
    "List durable facts about the user from this chat: preferences, boundaries, biography, "
    "commitments, decisions, values, goals and notable events.",
    "Write each fact as one short sentence about the user.",
    "Cite the ids of the user turns it comes from.",
    "Skip small talk and what the assistant said.",
)
SYSTEM_PROMPT = "\n".join(INSTRUCTIONS)
_PARROT_MARKERS = ("turn_id", "turn id", "turn ids", "durable fact")
_PLACEHOLDERS = frozenset({"", "string", "content", "fact", "none", "null", "n a", "example"})
_STOP_STEMS = _wordset(
    """the user users they them their she her he his has have had and but for with that this
    from are was were been being who whom which what when where about into onto very really
    also just does did doing said says like"""
)


class _ReplyItem(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    content: str
    kind: str
    importance: Importance
    confidence: Literal["low", "medium", "high"]
    turn_ids: list[str]


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    items: list[dict[str, Any]]


class _BadReply(Exception):
    """The model's reply could not be parsed (retried like a model error)."""


def _stems(text: str) -> set[str]:
    return {w[:4] for w in _words(_fold(text)) if len(w) >= 3 and w not in _STOP_STEMS}


def reply_schema(turn_ids: Sequence[str], max_items: int, min_items: int = 0) -> dict[str, Any]:
    """The JSON schema the model's reply is constrained to (enums for everything bounded).

    ``min_items`` 1 when the chunk has a substantive user turn: the 0.5B model otherwise
    answers ``{"items": []}`` to almost everything (measured on the e2e transcript); an
    item that turns out to be empty or ungrounded is dropped in code anyway.
    """
    item = {
        "type": "object",
        "properties": {
            "content": {"type": "string", "minLength": 1, "maxLength": LLM_CONTENT_CHARS},
            "kind": {"type": "string", "enum": list(LLM_KINDS)},
            "importance": {"type": "string", "enum": list(IMPORTANCE_LEVELS)},
            "confidence": {"type": "string", "enum": list(LLM_CONFIDENCE)},
            "turn_ids": {
                "type": "array",
                "items": {"type": "string", "enum": list(turn_ids)},
                "minItems": 1,
                "maxItems": MAX_TURN_IDS,
            },
        },
        "required": ["content", "kind", "importance", "confidence", "turn_ids"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": item,
                "minItems": min(min_items, max_items),
                "maxItems": max_items,
            }
        },
        "required": ["items"],
        "additionalProperties": False,
    }


class LLMExtractor:
    """Facts the extraction model finds, validated and deduped in code.

    Each call sees at most 40 turns (longer conversations are chunked). A model error or an
    unparsable reply is retried ``retries`` times, sleeping ``backoff_base * 2**attempt``
    between tries, each retry asking for fewer items (a shorter reply) a little warmer;
    then ExtractionError (MEM-005).
    """

    def __init__(
        self,
        model: TextModel,
        *,
        max_items: int = 6,
        max_tokens: int = 400,
        retries: int = 2,
        backoff_base: float = 2.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if max_items < 1 or max_tokens < 1 or retries < 0 or backoff_base < 0:
            raise MemoryInputError(
                "LLMExtractor needs max_items >= 1, max_tokens >= 1, retries >= 0 and "
                f"backoff_base >= 0, got {max_items}, {max_tokens}, {retries}, {backoff_base}"
            )
        self.model = model
        self.max_items = max_items
        self.max_tokens = max_tokens
        self.retries = retries
        self.backoff_base = backoff_base
        self._sleep = sleep

    def extract(
        self, turns: Sequence[Turn], *, category_hint: str | None = None
    ) -> list[ItemDraft]:
        _check_hint(category_hint)
        shown = [t for t in turns if _one_line(t.text)]
        drafts: list[ItemDraft] = []
        for start in range(0, len(shown), MAX_TURNS_PER_CALL):
            chunk = shown[start : start + MAX_TURNS_PER_CALL]
            if any(t.is_user for t in chunk):
                drafts.extend(self._extract_chunk(chunk, category_hint))
        return _dedupe(drafts, containment=True)

    def prompt(self, turns: Sequence[Turn]) -> list[dict[str, str]]:
        """The messages for one chunk: the instructions, then ``[turn_id] Speaker: text``."""
        lines = []
        for t in turns:
            speaker = _one_line(t.speaker)[:40] or ("User" if t.is_user else "Assistant")
            limit = USER_LINE_CHARS if t.is_user else OTHER_LINE_CHARS
            lines.append(f"[{t.id}] {speaker}: {_clip(_one_line(t.text), limit)}")
        return [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": "\n".join(lines)},
        ]

    def _extract_chunk(self, chunk: Sequence[Turn], hint: str | None) -> list[ItemDraft]:
        user_ids = list(dict.fromkeys(t.id for t in chunk if t.is_user))
        messages = self.prompt(chunk)
        cause: BaseException | None = None
        for attempt in range(self.retries + 1):
            substantive = any(
                t.is_user and len(_words(t.text)) >= 6 and len(set(_words(t.text))) >= 4
                for t in chunk
            )
            schema = reply_schema(
                user_ids, max(1, self.max_items >> attempt), min_items=1 if substantive else 0
            )
            try:
                reply = self.model.complete(
                    messages,
                    schema=schema,
                    max_tokens=self.max_tokens,
                    temperature=min(0.2 + 0.2 * attempt, 1.0),
                )
                return self._drafts(_parse(reply), chunk, hint)
            except (RilaiError, _BadReply, TimeoutError, OSError) as exc:
                cause = exc
                log.info("extraction attempt %d failed: %s", attempt + 1, exc)
                if attempt < self.retries:
                    self._sleep(self.backoff_base * 2**attempt)
        raise ExtractionError(
            f"LLM extraction failed after {self.retries + 1} attempts: {cause}",
            context={"model": self.model.model_id},
        ) from cause

    def _drafts(
        self, items: list[dict[str, Any]], chunk: Sequence[Turn], hint: str | None
    ) -> list[ItemDraft]:
        by_id = {t.id: t for t in chunk if t.is_user}
        instructions = {_key(line) for line in INSTRUCTIONS}
        whole = _key(SYSTEM_PROMPT)
        drafts: list[ItemDraft] = []
        for raw in items:
            try:
                item = _ReplyItem.model_validate(raw)
            except ValidationError:
                continue
            content = _clip(_one_line(item.content), LLM_CONTENT_CHARS)
            key = _key(content)
            lowered = content.casefold()
            ids = list(dict.fromkeys(item.turn_ids))
            if (
                item.kind not in LLM_KINDS
                or key in _PLACEHOLDERS
                or not ids
                or any(i not in by_id for i in ids)
                or any(marker in lowered for marker in _PARROT_MARKERS)
                or key in instructions
                or (len(key.split()) >= 3 and key in whole)
                or any(f"[{i}]".casefold() in lowered for i in by_id)
                or not _stems(content) & _stems(" ".join(by_id[i].text[:2000] for i in ids))
            ):
                continue
            valid_at: datetime | None = None
            for i in ids:
                valid_at = _later(valid_at, by_id[i].at)
            drafts.append(
                ItemDraft(
                    content=content,
                    kind=item.kind,
                    category=hint or KIND_CATEGORIES[item.kind],
                    confidence=LLM_CONFIDENCE[item.confidence],
                    importance=item.importance,
                    source_turn_ids=ids,
                    valid_at=valid_at,
                )
            )
        return _dedupe(drafts, containment=True)


def _parse(reply: Any) -> list[dict[str, Any]]:
    text = getattr(reply, "text", None)
    if not isinstance(text, str):
        raise _BadReply(f"the model returned no text ({type(reply).__name__})")
    try:
        return _Reply.model_validate(json.loads(text)).items
    except (ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise _BadReply(f"unparsable reply ({first}): {text[:200]!r}") from exc


# ── the modes ────────────────────────────────────────────────────────────────


def _repeats_a_rule(draft: ItemDraft, rule_drafts: Sequence[ItemDraft]) -> bool:
    """Equal or contained normalised content; or, against a recognised (non-utterance) rule
    draft, a paraphrase made only of that draft's words."""
    key, stems = _key(draft.content), _stems(draft.content)
    for rule in rule_drafts:
        rule_key = _key(rule.content)
        if key and (key in rule_key or rule_key in key):
            return True
        if rule.kind != "utterance" and stems and stems <= _stems(rule.content):
            return True
    return False


def extract_drafts(
    turns: Sequence[Turn],
    mode: ExtractionMode,
    *,
    rules: RuleExtractor,
    llm: LLMExtractor | None,
    category_hint: str | None = None,
) -> tuple[list[ItemDraft], list[str]]:
    """Drafts for ``turns`` per ``mode``, and warnings for the caller to show.

    "rules": the rules only. "llm": the model only (no model → MemoryInputError; its
    ExtractionError propagates). "both": the rules, plus the model's drafts that do not
    repeat a rule draft; if the model fails, the rule drafts and a warning (seed 003's
    matrix: log a warning, return what we have).
    """
    if mode not in ("rules", "llm", "both"):
        raise MemoryInputError(f"extraction mode must be rules, llm or both, got {mode!r}")
    _check_hint(category_hint)
    if mode == "llm":
        if llm is None:
            raise MemoryInputError(
                "no extraction model is configured, so mode 'llm' cannot run",
                recovery_suggestions=[
                    "Install the extraction model tier (`rilai models list`)",
                    "Or extract with mode 'rules'",
                ],
            )
        return llm.extract(turns, category_hint=category_hint), []
    drafts = rules.extract(turns, category_hint=category_hint)
    if mode == "rules":
        return drafts, []
    if llm is None:
        return drafts, ["no extraction model is configured: used the rules only"]
    try:
        found = llm.extract(turns, category_hint=category_hint)
    except ExtractionError as exc:
        log.warning("llm extraction failed, keeping the rule drafts: %s", exc)
        return drafts, [f"llm extraction failed: {exc.message}"]
    return drafts + [d for d in found if not _repeats_a_rule(d, drafts)], []
