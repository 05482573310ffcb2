"""What the safety sensor reads besides its cues: spelling, ordinary frames, idioms.

* :func:`safety_text` gives the safety cues a respelled copy of the message: accents
  stripped (``não`` → ``nao``, ``wäre`` → ``ware``: people type both), letters repeated three
  or more times collapsed (``dieee`` → ``die``, ``soooo`` → ``so``), and the txt-speak and
  typos of :data:`RESPELL` written out (``evry1 wud`` → ``everyone would``, ``w/o`` →
  ``without``, ``wnat`` → ``want``). Every character of the copy still maps back into the
  original message, so evidence spans are always the person's own words.
* :func:`ordinary_spans` finds the sentences that are about something ordinary — a meeting,
  a party, the rain, an exam week, "when he arrives" — in which an ambiguous phrase ("I don't
  want to be here anymore", "I want it to be over") is not about living. Only cues marked
  ``contextual`` are dropped there; "I want to die" counts wherever it is said.
* :data:`SAFETY_IDIOMS` are figurative or informational uses (``me muero de risa``, ``ce
  boulot me tue``, "suicide prevention", a recovery told in the past) whose matches are
  suppressed and shown as counterevidence, like the shared idioms.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Final

from rilai_desktop.turn.sensors.text import Text, rebuild

RESPELL: Final[dict[str, str]] = {
    # txt-speak
    "evry1": "everyone", "every1": "everyone", "evryone": "everyone", "everyon": "everyone",
    "evryone's": "everyone's", "everbody": "everybody", "evrybody": "everybody",
    "any1": "anyone", "some1": "someone", "no1": "no one", "noone": "no one",
    "ppl": "people", "ppls": "people", "u": "you", "ur": "your", "r": "are",
    "w/o": "without", "wud": "would", "wld": "would", "woud": "would", "wuld": "would",
    "shud": "should",
    "cud": "could", "bc": "because", "cuz": "because", "coz": "because", "tho": "though",
    "rly": "really", "rlly": "really", "jus": "just", "juss": "just", "idk": "i don't know",
    "idc": "i don't care", "wat": "what", "wht": "what", "wut": "what", "b4": "before",
    "gunna": "gonna", "wana": "wanna", "nd": "and", "thru": "through",
    # typos of the words the cues need
    "wnat": "want", "watn": "want", "wnt": "want", "dnt": "don't", "dont't": "don't",
    "anymor": "anymore", "anymroe": "anymore", "anymoe": "anymore", "nemore": "anymore",
    "tierd": "tired", "tird": "tired", "tyred": "tired",
    "livin": "living", "nothin": "nothing", "evrything": "everything",
    "everythin": "everything", "evrythin": "everything", "alvie": "alive",
    "sucide": "suicide", "suicde": "suicide", "suiside": "suicide", "suicid": "suicide",
    "suicdie": "suicide", "sucidal": "suicidal", "suicdal": "suicidal",
    "suisidal": "suicidal", "myslef": "myself", "mysef": "myself", "myselff": "myself",
    "meself": "myself", "myeslf": "myself", "kil": "kill", "kll": "kill",
    "dissapear": "disappear", "disapear": "disappear", "dissappear": "disappear",
    "beter": "better", "bettr": "better", "witout": "without", "wihtout": "without",
    "withouth": "without", "pointt": "point", "wrold": "world", "wolrd": "world",
}  # fmt: skip
_WORD: Final = re.compile(r"\bw/o\b|[^\W_]+(?:'[^\W_]+)?")
_ELONGATED: Final = re.compile(r"([^\W\d_])\1{2,}")
_TO_AFTER: Final = re.compile(r"\b(want|wanna|going|need|have|ready|deserve|trying) 2\b")


def _strip_accents(folded: str) -> str:
    """The same length as ``folded``: each accented letter becomes its base letter."""
    out = []
    for ch in folded:
        if ch.isascii() or not ch.isalpha():
            out.append(ch)
            continue
        base = unicodedata.normalize("NFD", ch)[0]
        out.append(base if base.isascii() else ch)
    return "".join(out)


def _rewrite(
    folded: str, origin: list[int], pattern: re.Pattern[str], replace: Callable[[str], str]
) -> tuple[str, list[int]]:
    """Replace each match of ``pattern`` and carry the index map along."""
    parts: list[str] = []
    mapped: list[int] = []
    last = 0
    for m in pattern.finditer(folded):
        new = replace(m.group())
        if new == m.group():
            continue
        parts.append(folded[last : m.start()])
        mapped.extend(origin[last : m.start()])
        parts.append(new)
        first, final = origin[m.start()], origin[m.end() - 1]
        mapped.extend([first] * (len(new) - 1) + [final] if new else [])
        last = m.end()
    parts.append(folded[last:])
    mapped.extend(origin[last:-1])
    mapped.append(origin[-1])
    return "".join(parts), mapped


def safety_text(text: Text) -> Text:
    """The respelled copy the safety cues read (see the module docstring)."""
    folded = _strip_accents(text.folded)
    origin = list(text.origin)
    folded, origin = _rewrite(folded, origin, _ELONGATED, lambda s: s[0])
    folded, origin = _rewrite(folded, origin, _WORD, lambda w: RESPELL.get(w, w))
    folded, origin = _rewrite(folded, origin, _TO_AFTER, lambda s: s[:-1] + "to")
    if folded == text.folded:
        return text
    return rebuild(text.clean, folded, tuple(origin), text.truncated)


# ── ordinary frames ──────────────────────────────────────────────────────────

_SENTENCE: Final = re.compile(r"[^.!?;\n]+")
_ORDINARY: Final = re.compile(
    r"\b(?:meetings?|part(?:y|ies)|class(?:es)?|lectures?|queue|restaurant|bar|pub|club|concert"
    r"|trip|holidays?|vacation|flight|exams?|tests?|semester|weekend|shift|appointment|dentist"
    r"|gym|group ?chat|traffic|rain(?:ing)?|weather|heat|printer|wifi|renovation|escape room"
    r"|lease|contract|subscription|noise|neighbou?rs?|movie|film|project|homework|assignment"
    r"|alarm|parking|garage|conversation"
    r"|bug|commute|social media|cabin|blanket|countryside|netflix|store|shop(?:ping)?|mall"
    r"|airport|wedding|conference|zoom|course|diet|recipe|dishes|laundry|taxes|remote|maze"
    r"|hike|workout|marathon|puzzle|after (?:that|the|this|my|a) \w+|old (?:apartment|house"
    r"|flat|place|job|car|school|room)"
    r"|(?:this|next|exam|work) week|mondays?|tuesdays?|wednesdays?|thursdays?|fridays?"
    r"|saturdays?|sundays?|(?:this|that|the) (?:city|town|flat|apartment|house|place|room)"
    r"|when (?:he|she|they|the|we|my|his|her|our|it) \w+"
    # es / pt / fr / de / it
    r"|reuni(?:on|ao|one)|riunione|fiesta|festa|fete|soiree|clase|aula|cours|lezione|trafico"
    r"|transito|traffico|verkehr|calor|caldo|chaleur|hitze|lluvia|chuva|pluie|regen|pioggia"
    r"|examen|exame|prufung|esame|ciudad|cidade|ville|stadt|citta|grupo|groupe|gruppe|gruppo"
    r"|dossier|ce temps|este tiempo|esse tempo|questo tempo|dieses wetter)\b"
)
_LIFE_SCOPE: Final = re.compile(
    r"\b(?:alive|dead|die|dying|death|suicid\w*|kill\w*|for good|permanently|anywhere"
    r"|in this world|on this earth|without me|burden)\b"
)


def ordinary_spans(text: Text) -> list[tuple[int, int]]:
    """Sentences about something ordinary, with no word of life and death in them."""
    spans = []
    for m in _SENTENCE.finditer(text.folded):
        sentence = m.group()
        if _ORDINARY.search(sentence) and not _LIFE_SCOPE.search(sentence):
            spans.append(m.span())
    return spans


# ── idioms and information ───────────────────────────────────────────────────

SAFETY_IDIOMS: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(p)
    for p in (
        r"\bsuicide (?:prevention|awareness|hotline|helpline|squad|rates?|statistics|research"
        r"|bombers?|doors?|mission|run)\b",
        r"\bsuicide (?:risk factors|risk assessment|statistics)\b|\b(?:prevencion|prevencao"
        r"|prevention|prevenzione) (?:del |do |de la |du |de |dal )?(?:suicidio|suicide)\b"
        r"|\bsuizid ?pravention\b|\bsuizidpraevention\b",
        # farewells that are a job, a school year, a move, a pet going to a farm
        r"\b(?:say|said|saying|says)(?: my)? goodbyes? to (?:all )?(?:my |our |the |\d+ )?(?:\w+ )?"
        r"(?:teachers?|team|colleagues|co-?workers|class(?:mates)?|students|horse|pony|house"
        r"|flat|apartment|city|town|country|neighbou?rhood|yrs|years|cobol|job)\b",
        r"\bgoodbye (?:email|card|party|lunch|drinks|speech)\b(?=[^.!?]{0,60}\b(?:team|last day"
        r"|colleagues|co-?workers|office|job|retire\w*|leaving do)\b)",
        r"\bmy (?:last|final) message (?:tonight|today|for today|before (?:the|my) (?:flight|trip"
        r"|holiday|exam))\b",
        # cuts and scratches of daily life
        r"\b(?:accidentally )?cut myself (?:shaving|cooking|chopping|gardening|on (?:a|the|some"
        r"|my) \w+|with (?:a|the) \w+ (?:while|when)|by accident|accidentally)\b"
        r"|\b(?:cat|dog|kitten|puppy) (?:scratched|bit) my (?:arm|hand|leg|face)\b",
        # recovery told as such
        r"\b(?:\w+ )?(?:years?|months?) ago i (?:wanted to die|was suicidal|self[- ]?harmed"
        r"|used to (?:cut|self[- ]?harm))\b(?=[^!?]{0,80}\b(?:today|now|these days)\b)",
        r"\b(?:\d+|a hundred|hundreds of) days (?:without|free of|free from|clean from|clean of)"
        r" (?:self[- ]?harm\w*|cutting)\b|\burge to (?:self[- ]?harm|cut) (?:hasn'?t|has not)"
        r" come back\b|\btook them (?:all )?back to the pharmacy\b",
        # es / pt: dying of shame, a back pain that "will kill me"
        r"\b(?:queria|quise|iba a|me iba a) morir(?:me)? de (?:la )?(?:verguenza|risa|miedo"
        r"|hambre|calor|aburrimiento|pena)\b",
        r"\b(?:dor|trabalho|chefe|prova|fila|transito|fome|ressaca)\b[^.!?]{0,30}\bvai me"
        r" matar\b",
        # a dose or a means for an animal, a plant, a pest (a vet question, not a person's)
        r"\b(?:lethal|toxic|fatal|deadly|dangerous|poisonous) (?:dose|amount|quantity)s?"
        r"(?: of [\w' -]{1,30}?)? (?:for|to|in) (?:a |an |my |our |your |the )?(?:dogs?|cats?"
        r"|pets?|pupp(?:y|ies)|kittens?|horses?|birds?|parrots?|rabbits?|hamsters?|rats?|mice"
        r"|fish|plants?|slugs?|ants?|wasps?|cockroach\w*|weeds?)\b",
        r"\bused to (?:\w+ ){0,3}(?:want(?:ed)? to die|be suicidal|self[- ]?harm|cut|hurt myself)"
        r"[^.!?]{0,80}\b(?:better now|helped|recovered|i'?m (?:ok|okay|fine|safe|good) now"
        r"|doing (?:much |so much |a lot )?better)\b",
        r"\b(?:asked|asks|ask) (?:me )?if i (?:ever |had ever )?(?:wished|wish|thought|felt)"
        r"[^.!?]{0,60}\b(?:and|but) i said no\b",
        # es / pt / fr / de / it: dying of laughter, hunger, wanting; killing heat and jobs
        r"\b(?:me )?muero (?:de|por|dal|dalla|di)\b|\bmuoio (?:de|di|dal|dalla|dalle)\b"
        r"|\b(?:morro|morri|morrendo|morrer) de\b|\bje meurs (?:de|d')|\bmort(?:e)? de (?:rire"
        r"|fatigue|faim)\b|\bsterbe vor\b|\bvor (?:scham|hunger|langeweile) sterben\b",
        r"\b(?:me|mi) (?:esta|estan|va a|vai|ta|tá|sta|stanno) (?:matando|matar|ammazzando"
        r"|uccidendo)\b|\b(?:mi|me) (?:ammazza|uccide|tue|mata)\b|\bva me tuer\b"
        r"|\bbringt mich (?:noch )?um\b",
        r"\b(?:muert[oa]|mort[oa]|stanc[oa] mort[oa]|morta|morto) de (?:cansancio|cansaco"
        r"|sono|sueno|fatigue|rire|risa)\b|\bstanc[oa] mort[oa]\b|\btodmude\b",
    )
)
