"""Who is at risk, for the safety reply's wording: the person writing, or someone else.

A simple deterministic check, never a model. Someone else is at risk when a third person
("my friend", "she", "mi hermana", "ma sœur") is followed in the same sentence by risk
wording, or a reflexive says so ("hurt herself", "matarse"). Any first-person risk wording
("I want to die", "quiero morir", "ich will sterben") wins over a third person: the reply to
the person writing is the safer one. English: :func:`about_someone_else`; es, pt, fr, de,
it: :func:`person_at_risk`, which names the relation with "your" in that language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

UNNAMED_PERSON: Final[str] = "the person you're worried about"

_RAW_CAP: Final[int] = 20_000
_WS = re.compile(r"\s+")
_I = re.IGNORECASE

# --- English ----------------------------------------------------------------------------
_RELATION = (
    r"best\s+friend|friend|sister|brother|sibling|mom|mum|mother|dad|father|parent|son"
    r"|daughter|kid|child|partner|boyfriend|girlfriend|wife|husband|fianc[eé]e?|roommate"
    r"|flatmate|colleague|coworker|co-worker|classmate|cousin|aunt|uncle|niece|nephew"
    r"|grandma|grandpa|grandmother|grandfather|neighbou?r|teammate|student|client|patient|ex"
)
# someone else, then (in the same sentence) risk wording; or a third-person reflexive
_OTHER_RISK = re.compile(
    rf"(?:\bmy\s+(?:[\w-]+\s+){{0,3}}?(?P<rel>{_RELATION})s?\b|\b(?:he|she|they|someone"
    r"|somebody)\b)[^.!?\n]{0,60}?\b(?:suicid\w*|die|dying|kill\w*|hurt\w*|harm\w*"
    r"|overdos\w*|end(?:ing)?\s+it|(?:end|take|ending|taking)\s+(?:his|her|their)\s+(?:own\s+)?life)\b"
    r"|\b(?:kill|hurt|harm|cut)\w*\s+(?:himself|herself|themselves|themself)\b",
    _I,
)
_NAMED = re.compile(rf"\bmy\s+(?:[\w-]+\s+){{0,3}}?(?P<rel>{_RELATION})s?\b", _I)
_SELF_RISK = re.compile(
    r"\b(?:kill|hurt|harm|cut|end)\s+myself\b"
    r"|\bI\s*(?:'m|’m|am)?\s*(?:want|wanna|going|gonna|plan\w*|thinking\s+(?:about|of)"
    r"|ready)\s+(?:to\s+)?(?:die|dying|end|ending|kill|killing|disappear)"
    r"|\b(?:end|take|ending|taking)\s+my\s+(?:own\s+)?life\b"
    r"|\bI\s+(?:don'?t|do\s+not)\s+want\s+to\s+(?:live|be\s+(?:here|alive))"
    r"|\bI\s*(?:'m|’m|am|feel|'ve\s+been|have\s+been)\s+(?:so\s+|really\s+|very\s+)?suicidal"
    r"|\bbetter\s+off\s+without\s+me\b"
    r"|\bI\s+(?:can'?t|cannot)\s+(?:go\s+on|take\s+(?:it|this)\s+any\s*more)",
    _I,
)


def about_someone_else(text: str) -> str | None:
    """Who is at risk, if it is someone else: "your sister", the generic phrase, or None.

    Someone else is at risk when a third person ("my friend", "she", "someone I know") is
    followed in the same sentence by risk wording, or a reflexive says so ("hurt herself").
    None (the person writing is at risk) whenever the message has any first-person risk
    wording, even beside a third person: that reply is the safer one.
    """
    if not isinstance(text, str):
        return None
    text = text[:_RAW_CAP]
    other = _OTHER_RISK.search(text)
    if other is None or _SELF_RISK.search(text):
        return None
    named = other if other.group("rel") else _NAMED.search(text)
    relation = named.group("rel") if named else None
    return f"your {_WS.sub(' ', relation.lower())}" if relation else UNNAMED_PERSON


# --- es, pt, fr, de, it -------------------------------------------------------------------
# (possessive, relation, third-person pronoun, risk wording, first-person risk wording)
_B = r"(?<![^\W\d_])"  # a word starts here
_E = r"(?![^\W\d_])"  # a word ends here
_LANGUAGE_WORDS: Final[Mapping[str, tuple[str, str, str, str, str]]] = {
    "es": (
        r"mis?",
        r"amig[oa]|herman[oa]|madre|mam[áa]|padre|pap[áa]|hij[oa]|novi[oa]|pareja|espos[oa]"
        r"|marido|mujer|prim[oa]|compañer[oa]|abuel[oa]|t[íi][oa]|vecin[oa]|ex",
        r"él|ella|alguien",
        r"morir\w*|matar(?:se|lo|la)?|suicid\w*|quitarse\s+la\s+vida|hacerse\s+daño|cortarse",
        r"quiero\s+morir|me\s+quiero\s+(?:morir|matar)|matarme|suicidarme|quitarme\s+la\s+vida"
        r"|no\s+quiero\s+vivir|hacerme\s+daño",
    ),
    "pt": (
        r"(?:[ao]s?\s+)?(?:minhas?|meus?)",
        r"amig[oa]|irm[ãa]o?|m[ãa]e|pai|filh[oa]|namorad[oa]|parceir[oa]|espos[oa]|marido"
        r"|mulher|prim[oa]|colega|av[óô]|ti[oa]|vizinh[oa]|ex",
        r"ele|ela|algu[ée]m",
        r"morrer|se\s+matar|matar-se|suicid\w*|tirar\s+a\s+pr[óo]pria\s+vida|se\s+machucar"
        r"|se\s+cortar",
        r"quero\s+morrer|me\s+matar|matar-me|me\s+suicidar|tirar\s+a\s+minha\s+vida"
        r"|n[ãa]o\s+quero\s+(?:mais\s+)?viver",
    ),
    "fr": (
        r"ma|mon|mes",
        r"ami(?:e)?|s(?:œ|oe)ur|fr[èe]re|m[èe]re|maman|p[èe]re|papa|fils|fille|copain|copine"
        r"|partenaire|femme|mari|cousine?|coll[èe]gue|grand-m[èe]re|grand-p[èe]re|tante|oncle"
        r"|voisine?|ex",
        r"elle|quelqu'un|il\s+(?:veut|dit|va|pense|parle|menace)",
        r"mourir|se\s+tuer|suicid\w*|se\s+faire\s+du\s+mal|mettre\s+fin\s+à\s+ses\s+jours"
        r"|se\s+couper",
        r"je\s+veux\s+mourir|me\s+tuer|me\s+suicider|mettre\s+fin\s+à\s+mes\s+jours"
        r"|je\s+ne\s+veux\s+plus\s+vivre|me\s+faire\s+du\s+mal",
    ),
    "de": (
        r"mein(?:e[mnrs]?)?",
        r"freund(?:in)?|schwester|bruder|mutter|mama|vater|papa|sohn|tochter|partner(?:in)?"
        r"|frau|mann|cousin(?:e)?|kolleg(?:e|in)|oma|opa|tante|onkel|nachbar(?:in)?|ex",
        r"er|sie|jemand",
        r"sterben|umbringen|suizid\w*|selbstmord\w*|sich\s+(?:selbst\s+)?(?:verletzen|ritzen)"
        r"|sich\s+das\s+leben\s+nehmen",
        r"ich\s+will\s+sterben|mich\s+umbringen|mir\s+das\s+leben\s+nehmen"
        r"|ich\s+will\s+nicht\s+mehr\s+leben|mich\s+(?:selbst\s+)?verletzen",
    ),
    "it": (
        r"(?:(?:il|la|i|le)\s+)?(?:mi[oa]|miei|mie)",
        r"amic[oa]|sorella|fratello|madre|mamma|padre|pap[àa]|figli[oa]|ragazz[oa]|partner"
        r"|moglie|marito|cugin[oa]|collega|nonn[oa]|zi[oa]|vicin[oa]|ex",
        r"lui|lei|qualcuno",
        r"morire|uccidersi|ammazzarsi|suicid\w*|farsi\s+del\s+male|togliersi\s+la\s+vita"
        r"|tagliarsi",
        r"voglio\s+morire|uccidermi|ammazzarmi|togliermi\s+la\s+vita"
        r"|non\s+voglio\s+pi[ùu]\s+vivere|farmi\s+del\s+male",
    ),
}
_OTHER_ML: Final[Mapping[str, re.Pattern[str]]] = {
    lang: re.compile(
        rf"(?:{_B}(?P<pos>{pos})\s+(?P<rel>{rel}){_E}|{_B}(?:{pronoun}){_E})"
        rf"[^.!?\n]{{0,60}}?{_B}(?:{risk}){_E}",
        _I,
    )
    for lang, (pos, rel, pronoun, risk, _own) in _LANGUAGE_WORDS.items()
}
_SELF_ML: Final[Mapping[str, re.Pattern[str]]] = {
    lang: re.compile(rf"{_B}(?:{own}){_E}", _I) for lang, (*_, own) in _LANGUAGE_WORDS.items()
}
# "my" → "your", in each language (Portuguese: "seu/sua", right for Brazil and Portugal)
_YOUR: Final[Mapping[str, Mapping[str, str]]] = {
    "es": {"mi": "tu", "mis": "tus"},
    "pt": {"minha": "sua", "meu": "seu", "minhas": "suas", "meus": "seus"},
    "fr": {"ma": "ta", "mon": "ton", "mes": "tes"},
    "de": {},  # by the relation's gender, below
    "it": {"mia": "tua", "mio": "tuo", "miei": "tuoi", "mie": "tue"},
}
_GERMAN_FEMININE = re.compile(
    r"(?:(?<!cous)in|schwester|mutter|mama|tochter|frau|cousine|oma|tante)$", _I
)


def person_at_risk(text: str, language: str) -> str | None:
    """In es, pt, fr, de or it: "tu hermana", "deine Schwester" when the message is about
    a named relation at risk, "" when about someone unnamed ("ella dice que quiere morir"),
    None when not about someone else (or when they are at risk themselves). None for "en"
    and any other language: :func:`about_someone_else` reads English."""
    pattern = _OTHER_ML.get(language)
    if pattern is None or not isinstance(text, str):
        return None
    text = text[:_RAW_CAP].replace("’", "'")
    found = pattern.search(text)
    if found is None or _SELF_ML[language].search(text):
        return None
    if not found.group("rel"):
        return ""
    relation = _WS.sub(" ", found.group("rel").lower())
    words = _WS.sub(" ", found.group("pos").lower()).split(" ")
    if language == "de":
        relation = relation.capitalize()
        return f"{'deine' if _GERMAN_FEMININE.search(relation) else 'dein'} {relation}"
    words[-1] = _YOUR[language].get(words[-1], words[-1])
    return " ".join([*words, relation])
