"""The protective reply to a safety interrupt: a person who cares, in the person's language.

Safety must not depend on a small model, so no model writes it: it is fixed text from
``prompts/voice/safety.md`` (English) and ``prompts/voice/safety.<lang>.md`` (es, pt, fr, de,
it), a variant picked by turn id, with crisis lines named in that language for that
language's countries. Which text depends on the situation the turn runner flags:

- none of the flags, a first protective turn: takes them seriously, points to a person they
  trust or a professional now, the crisis lines, asks whether they are safe ("self"); a
  message about someone else at risk gets the third-party wording ("other");
- :data:`REPEAT_FLAG`: a reflection of what they just said (a small cue table: a burden,
  better off without me, hopelessness, tiredness, loneliness; a generic line otherwise),
  staying with them, the crisis lines in one short line, a gentle question ("repeat");
- :data:`RETRACTION_FLAG`: they played it down; believed, not dropped ("retraction");
- :data:`PRESENCE_FLAG`: they ask Rilai to stay; it stays, invites them to talk about
  anything, checks in, one short line of resources ("presence").

The reply is never word for word Rilai's previous message in the history. A language file
that lacks what a reply needs gives way to English; English sections that are missing or
empty fall back to the built-in text below. Never raises.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from rilai_desktop.turn.prompts import Prompts
from rilai_desktop.turn.safety_state import (
    MEANS_FLAG,
    PRESENCE_FLAG,
    REPEAT_FLAG,
    RETRACTION_FLAG,
)
from rilai_desktop.turn.speaking.at_risk import UNNAMED_PERSON, about_someone_else, person_at_risk
from rilai_desktop.turn.speaking.language import LANGUAGES, message_language
from rilai_desktop.turn.speaking.voice_prompt import parse_sections
from rilai_desktop.turn.state import TurnState

__all__ = [
    "DEFAULT_RESOURCES",
    "DEFAULT_SAFETY",
    "PRESENCE_FLAG",
    "REPEAT_FLAG",
    "RETRACTION_FLAG",
    "UNNAMED_PERSON",
    "about_someone_else",
    "message_language",
    "reflection_cue",
    "safety_reply",
    "situation_of",
]

# set by the turn runner from the conversation's risk (turn/safety_state.py)
SITUATIONS: Final[tuple[str, ...]] = ("first", "repeat", "retraction", "presence")

DEFAULT_RESOURCES: Final[str] = (
    "If you are in immediate danger, call your local emergency number (112 in Europe, 911 in"
    " North America). In the US you can call or text 988; in the UK and Ireland, Samaritans"
    " on 116 123; findahelpline.com lists lines in other countries."
)
DEFAULT_SAFETY: Final[Mapping[str, tuple[str, ...]]] = {
    "resources_brief": (
        "If it gets too much, you can call or text 988 in the US, call Samaritans on 116 123"
        " in the UK and Ireland, or find a line at findahelpline.com, any time.",
    ),
    "self": (
        "Thank you for telling me. What you're going through sounds really heavy, and I'm"
        " taking it seriously. Please reach out to someone you trust or a professional right"
        " now, so you don't have to carry this alone. {resources} Are you safe right now?",
        "It sounds like things have got really hard. You deserve support from a real person"
        " right now: someone you trust, a doctor, or a crisis line. {resources} Can you tell"
        " me whether you are safe at the moment?",
    ),
    "other": (
        "That sounds frightening, and it's good that you're taking it seriously. If they might"
        " act on it, please don't stay alone with this: tell someone who can be with them, or"
        " contact a professional now. {resources} Is {person} safe right now, and are you okay?",
    ),
    "repeat": (
        "{reflection} I'm still right here with you. {resources_brief} What's weighing on you"
        " most right now?",
        "{reflection} You don't have to hold this on your own while we talk; I'm staying."
        " {resources_brief} What's going through your mind at the moment?",
    ),
    "retraction": (
        "I'm glad you're not planning anything, and I believe you. I still want to check in,"
        " because what came up earlier matters. {resources_brief} How are you doing, really,"
        " right now?",
    ),
    "means": (
        "I want to ask you something directly, because of what you've told me and what you"
        " just asked: are you thinking about ending your life? You can tell me the truth; I'm"
        " not going anywhere. {resources}",
    ),
    "presence": (
        "Of course. I'm here, and I'm not going anywhere. We can talk about anything you like,"
        " for as long as you like. How are you doing right now, in this moment?"
        " {resources_brief}",
    ),
    "person": (UNNAMED_PERSON,),
    "reflect": ("What you just said matters, and I'm taking it seriously.",),
    "reflect_burden": ("Feeling like a burden to everyone is a heavy thing to carry.",),
    "reflect_better_off": (
        "Believing the people around you would be better off without you is a painful place to be.",
    ),
    "reflect_hopeless": (
        "It sounds really hard to see any way things could get better right now.",
    ),
    "reflect_tired": ("It sounds like a deep kind of tired, the kind that sleep doesn't fix.",),
    "reflect_lonely": ("Feeling this alone with all of it is really hard.",),
}
# added when an edited variant lost its question (built in: a guard, not a text to edit)
QUESTIONS: Final[Mapping[str, str]] = {
    "en": "Are you safe right now?",
    "es": "¿Estás a salvo ahora mismo?",
    "pt": "Você está em segurança agora?",
    "fr": "Est-ce que tu es en sécurité en ce moment ?",
    "de": "Bist du gerade in Sicherheit?",
    "it": "Sei al sicuro in questo momento?",
}

# a careful turn soon after a protective reply ends with a check-in (check_in below)
CHECK_INS: Final[Mapping[str, str]] = {
    "en": "And how are you doing right now?",
    "es": "¿Y cómo estás tú ahora mismo?",
    "pt": "E como você está agora?",
    "fr": "Et toi, comment ça va en ce moment ?",
    "de": "Und wie geht es dir gerade?",
    "it": "E tu come stai adesso?",
}


def check_in(state: TurnState, reply: str, question: str) -> str:
    """The check-in to add after ``reply`` on a careful turn whose council asked for it
    (``question`` in ``asks_user``) when the voice did not ask anything: in their language.
    "" when none is due, or when Rilai's last reply already ended with it (the memory soak
    printed "… And how are you doing right now?" on one turn after another)."""
    decision = state.decision
    asks = decision.speech_act.asks_user if decision is not None else None
    if not reply.strip() or "?" in reply or not asks or question not in asks:
        return ""
    text = state.user_text if isinstance(state.user_text, str) else ""
    history = state.history if isinstance(state.history, list) else []
    said = [
        m.get("content", "")
        for m in history
        if isinstance(m, dict) and m.get("role") == "assistant"
    ]
    if said and str(said[-1]).rstrip().endswith(tuple(CHECK_INS.values())):
        return ""
    return CHECK_INS.get(message_language(text, history), CHECK_INS["en"])


# --- what they just said: cue → reflection (any of the six languages) --------------------
_CUE_WORDS: Final[tuple[tuple[str, str], ...]] = (
    (
        "better_off",
        r"better\s+off\s+without\s+me|better\s+without\s+me|mejor\s+sin\s+m[ií]"
        r"|sin\s+m[ií]\s+(?:estar[ií]an|ser[ií]a|todo\s+ser[ií]a)\s+mejor|melhor(?:es)?\s+sem\s+mim"
        r"|mieux\s+sans\s+moi|besser(?:\s+dran)?\s+ohne\s+mich|meglio\s+senza\s+(?:di\s+)?me",
    ),
    (
        "burden",
        r"burden|carga|estorbo|fardo|fardeau|boulet|fardello|(?:eine|zur)\s+last|belastung"
        r"|(?:un|um|uma|une)\s+(?:peso|poids)",
    ),
    (
        "hopeless",
        r"hopeless|pointless|no\s+point|no\s+way\s+out|no\s+future|give\s+up"
        r"|nothing\s+(?:will\s+)?(?:ever\s+)?(?:gets?\s+better|changes?|improves?)"
        r"|sin\s+esperanza|no\s+tiene\s+sentido|no\s+hay\s+salida|sem\s+esperança|sem\s+saída"
        r"|não\s+(?:tem|faz)\s+sentido|sans\s+espoir|aucun\s+sens|à\s+quoi\s+bon|hoffnungslos"
        r"|sinnlos|keinen\s+sinn|ausweglos|senza\s+speranza|non\s+ha\s+senso|a\s+che\s+serve",
    ),
    (
        "lonely",
        r"lonely|(?<!leave\sme\s)alone|no\s*(?:one|body)\s+(?:cares|would\s+miss)|nobody\s+cares"
        r"|(?:me\s+siento|estoy)\s+(?:tan\s+|muy\s+)?sol[oa]|nadie\s+me|sozinh[oa]"
        r"|ningu[ée]m\s+(?:se|me)|(?:suis|sens|sentir|tellement|toute?)\s+seule?|personne\s+ne"
        r"|einsam|allein|niemand|(?:mi\s+sento|sono)\s+(?:così\s+|tanto\s+)?sol[oa]"
        r"|nessuno\s+(?:mi|si)",
    ),
    (
        "tired",
        r"tired|exhausted|worn\s+out|can'?t\s+(?:do\s+this|go\s+on|keep\s+going)|cansad[oa]"
        r"|agotad[oa]|hart[oa]|no\s+puedo\s+más|esgotad[oa]|não\s+aguento|fatigu[ée]e?"
        r"|épuisée?|(?:j'|n')en\s+peux\s+plus|müde|erschöpft|kann\s+nicht\s+mehr|stanc[oa]"
        r"|esaust[oa]|sfinit[oa]|non\s+ce\s+la\s+faccio",
    ),
)
# a cue is whole words: "(?<!...)" and "(?!...)" instead of \b, which misreads "à", "é"
_CUES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = tuple(
    (name, re.compile(rf"(?<![^\W\d_])(?:{words})(?![^\W\d_])", re.IGNORECASE))
    for name, words in _CUE_WORDS
)
_WS = re.compile(r"\s+")
_RAW_CAP: Final[int] = 20_000
_PREVIOUS_CAP: Final[int] = 5_000


def situation_of(state: TurnState) -> str:
    """ "presence", "means", "retraction", "repeat" or "first", from the turn's flags (in
    that order: a request to stay is answered first; a question about means after distress
    is asked about directly, with the full resources; a retraction before a repeat)."""
    flags = state.flags if isinstance(state.flags, set | frozenset) else set()
    if PRESENCE_FLAG in flags:
        return "presence"
    if MEANS_FLAG in flags:
        return "means"
    if RETRACTION_FLAG in flags:
        return "retraction"
    return "repeat" if REPEAT_FLAG in flags else "first"


def reflection_cue(text: str) -> str:
    """Which reflection fits what they said: "better_off", "burden", "hopeless", "lonely",
    "tired", or "" (the generic one)."""
    if not isinstance(text, str):
        return ""
    text = text[:_RAW_CAP].replace("’", "'")
    return next((name for name, cue in _CUES if cue.search(text)), "")


def safety_reply(state: TurnState, *, prompts: Prompts) -> str:
    """The protective reply to a safety interrupt: deterministic, never a model's.

    The situation comes from the flags (:func:`situation_of`), the language from their
    message and history (:func:`message_language`), the variant from the turn id; a variant
    that would repeat Rilai's previous message word for word is passed over.
    """
    text = state.user_text if isinstance(state.user_text, str) else ""
    history = state.history if isinstance(state.history, list) else []
    language = message_language(text, history)
    situation = situation_of(state)
    person = _person(text, language) if situation in ("first", "repeat") else None
    kind = "other" if person is not None else "self" if situation == "first" else situation
    sections = _sections(language, prompts)
    if not _has(sections, kind):
        language, sections = "en", _sections("en", prompts)
    previous = _previous_reply(history)
    turn = abs(state.turn_id) if isinstance(state.turn_id, int) else 0
    question = QUESTIONS.get(language, QUESTIONS["en"])
    cue = reflection_cue(text)
    reflections = _rotate(sections.get(f"reflect_{cue}") or sections.get("reflect") or [""], turn)
    candidates = [
        _render(
            variant,
            sections,
            brief=kind in ("repeat", "retraction", "presence"),
            person=person or "",
            # a retraction that names a burden, hopelessness... is reflected too
            reflection=reflection if kind == "repeat" or (kind == "retraction" and cue) else "",
            question=question,
        )
        for variant in _rotate(sections[kind], turn)
        for reflection in reflections
    ]
    fresh = next((c for c in candidates if not _same_paragraph(c, previous)), None)
    if fresh is not None:
        return fresh
    if kind != "self":  # every variant is the previous message: the first-turn text then
        for variant in _rotate(sections.get("self") or [], turn):
            alternative = _render(variant, sections, question=question)
            if not _same_paragraph(alternative, previous):
                return alternative
    return _WS.sub(" ", f"{candidates[0]} {question}").strip()


# --- the texts ----------------------------------------------------------------------------
def _sections(language: str, prompts: Prompts) -> dict[str, list[str]]:
    """The safety file of ``language``; English is completed from the built-in text."""
    name = "voice/safety.md" if language == "en" else f"voice/safety.{language}.md"
    text = prompts.get(name) if language in LANGUAGES else None
    sections = {} if text is None else parse_sections(text)
    if language == "en":
        if "resources" in sections and "resources_brief" not in sections:
            sections["resources_brief"] = sections["resources"]  # a localised file stays so
        sections.setdefault("resources", [DEFAULT_RESOURCES])
        for key, variants in DEFAULT_SAFETY.items():
            sections.setdefault(key, list(variants))
    return sections


def _has(sections: Mapping[str, list[str]], kind: str) -> bool:
    return bool(sections.get(kind)) and bool(sections.get("resources"))


def _render(
    variant: str,
    sections: Mapping[str, list[str]],
    *,
    brief: bool = False,
    person: str = "",
    reflection: str = "",
    question: str,
) -> str:
    """A variant with its placeholders filled; the resources and a question guaranteed."""
    resources = sections["resources"][0]
    line = (sections.get("resources_brief") or [resources])[0] if brief else resources
    text = variant.replace("{person}", person or _unnamed(sections))
    text = text.replace("{resources_brief}", line).replace("{resources}", line)
    if reflection:
        text = (
            text.replace("{reflection}", reflection)
            if "{reflection}" in text
            else f"{reflection} {text}"
        )
    text = text.replace("{reflection}", "")
    if line not in text:  # an edited variant lost its placeholder: resources anyway
        text = f"{text} {line}"
    if "?" not in text:
        text = f"{text} {question}"
    return _WS.sub(" ", text).strip()


def _unnamed(sections: Mapping[str, list[str]]) -> str:
    return (sections.get("person") or [UNNAMED_PERSON])[0]


def _person(text: str, language: str) -> str | None:
    """Who is at risk if it is someone else: "your sister", "tu hermana"; "" for someone
    unnamed (the language's "person" section says it); None when it is the person writing."""
    found = person_at_risk(text, language)
    if found is not None:
        return found
    named = about_someone_else(text)  # English words, whatever the reply's language
    if named is None or language == "en":
        return named
    return ""


def _rotate(variants: Sequence[str], turn: int) -> list[str]:
    if not variants:
        return []
    start = turn % len(variants)
    return [*variants[start:], *variants[:start]]


def _previous_reply(history: Sequence[Mapping[str, Any]]) -> str:
    for message in reversed(history):
        if isinstance(message, Mapping) and message.get("role") == "assistant":
            content = message.get("content")
            return content[:_PREVIOUS_CAP] if isinstance(content, str) else ""
    return ""


def _key(text: str) -> str:
    return _WS.sub(" ", text).strip().casefold()


def _same_paragraph(candidate: str, previous: str) -> bool:
    """The same text as Rilai's previous message, or the same after a different opening
    reflection (the body of one repeat variant said twice)."""
    if not previous:
        return False
    said, new = _key(previous), _key(candidate)
    if said == new:
        return True
    body = new.split(". ", 1)[1] if ". " in new else ""
    return len(body) > 40 and said.endswith(body)
