"""Which language a person writes in, for the replies no model writes (the safety reply).

:func:`message_language` answers one of :data:`LANGUAGES` (en, es, pt, fr, de, it) from
two kinds of evidence, so a short chat message is read as well as a long one:

- a character n-gram model, `py3langid <https://github.com/adbar/py3langid>`_ (BSD, a
  4.6 MB wheel whose model file ships inside it: nothing is downloaded), restricted to the
  six languages. It is reliable on a sentence, unreliable on two words ("quero morrer"
  reads 49 % pt, "so tired" reads it). It is loaded on first use (about half a second,
  ~55 MB resident), only by a protective turn; :func:`warm_up` loads it ahead of time;
- marker words and letters that belong to one of the six only ("estoy", "não", "ich",
  "je", "sono", "ñ", "ß"...), which decide short messages.

The model's weight grows with the message's length. An unclear message (too short, or no
language clearly ahead) takes the language of the person's previous messages in the history;
failing that, English. If py3langid is missing the markers alone decide. Never raises.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final

LANGUAGES: Final[tuple[str, ...]] = ("en", "es", "pt", "fr", "de", "it")
DEFAULT_LANGUAGE: Final[str] = "en"
MODEL_FULL_WEIGHT_LETTERS: Final[int] = 40  # from this many letters the model weighs fully
MIN_LEAD: Final[float] = 0.2  # the best language must lead the next by this much
MIN_SCORE: Final[float] = 0.45
SHORT_WORDS: Final[int] = 2  # a message under this many words, or
SHORT_LETTERS: Final[int] = 6  # under this many letters, is read with the history first
HISTORY_MESSAGES: Final[int] = 3  # the person's last messages tried one by one, then together
_CAP: Final[int] = 4000


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words (lower case, straight apostrophes) that, among the six languages, belong to one only.
# Shared words ("no", "me", "mi", "la", "die", "mais", "non", "una", "que") are left out.
_MARKERS: Final[Mapping[str, frozenset[str]]] = {
    "en": _words(
        "i i'm im i've i'll i'd you you're your the and to my it's don't dont can't cant"
        " won't not want just please with what this that is are jk lol idk fine anymore nobody"
        " everyone anything forget stay tired alone myself of be been going gonna really okay"
        " talk bit sorry"
    ),
    "es": _words(
        "yo estoy soy quiero puedo nadie conmigo contigo ya pero también olvídalo olvidalo"
        " olvida gracias hola vete vayas quédate quedate broma muy qué cómo aquí sí el los y"
        " hay siento eres tengo puedes hablar más mejor harta harto"
    ),
    "pt": _words(
        "eu estou sou não nao você voce quero ninguém ninguem comigo obrigado obrigada tô"
        " também esquece fica brincadeira muito tudo isso vou sinto estava pra ele ela uma é"
        " com em meu minha seu aguento mim fique falar agora tá"
    ),
    "fr": _words(
        "je j'ai j'en j'suis j'veux c'est n'est n'en m'aime t'es qu'il qu'est d'accord m'en"
        " suis pas ne moi toi ça veux merci oublie rigole très avec tout rien et est une mon"
        " vais fais peux reste parle"
    ),
    "de": _words(
        "ich nicht bin mir mich du bitte danke bleib geh vergiss ist und kann nur mehr gut"
        " müde mein meine dich dir nichts bei auch aber sehr ein eine der ja habe hab nein"
        " keine kein leben sterben allein einsam weg wirklich geht ganz witz"
    ),
    "it": _words(
        "io sono voglio più faccio sto grazie scherzavo nessuno niente anche perché perche"
        " gli della che ho hai sei è questo tutto tutti molto ciao bene stanco stanca andare"
        " andartene vado mia mio miei tuo c'è po' resta restare parlare sento"
    ),
}
# letters found in one of the six only
_LETTERS: Final[Mapping[str, str]] = {
    "es": "ñ¿¡",
    "pt": "ãõ",
    "de": "ßäöü",
    "fr": "œëîû",
    "it": "ìò",
}
_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*'?")
_NOISE = re.compile(r"https?://\S+|www\.\S+|\S+@\S+|[@#]\w+|\S+\.(?:com|org|net)\b\S*")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'"})


def message_language(text: str, history: Sequence[Mapping[str, Any]] = ()) -> str:
    """The language of ``text``: one of :data:`LANGUAGES`.

    When the message alone is unclear (no language clearly ahead) or short (one word, a few
    letters: "jk", "ok"), the language of the person's previous messages in ``history``
    ({"role", "content"} dicts, oldest first): the newest clear one, else all of them read
    together; else the short message's own language if clear; else ``"en"``.
    """
    own = _guess(text)
    if own is not None and not _short(text):
        return own
    theirs = _user_texts(history)[-HISTORY_MESSAGES:][::-1]
    for earlier in theirs:
        guess = _guess(earlier)
        if guess is not None:
            return guess
    together = _guess(" ".join(reversed(theirs))) if len(theirs) > 1 else None
    return together or own or DEFAULT_LANGUAGE


def language_scores(text: str) -> dict[str, float]:
    """Each language's score in [0, 1] (the model and the markers combined); {} when the
    text has no letters to go by."""
    if not isinstance(text, str):
        return {}
    text = _NOISE.sub(" ", text[:_CAP].translate(_APOSTROPHES))
    letters = sum(ch.isalpha() for ch in text)
    if letters < 2:
        return {}
    votes = _votes(text.lower())
    model = _model_scores(text)
    weight = min(1.0, letters / MODEL_FULL_WEIGHT_LETTERS) if model else 0.0
    total = sum(votes.values())
    if not total and not weight:
        return {}
    marker_weight = 1.0 if total else 0.0
    return {
        lang: (weight * model.get(lang, 0.0) + marker_weight * votes[lang] / max(total, 1))
        / (weight + marker_weight)
        for lang in LANGUAGES
    }


def warm_up() -> bool:
    """Load the language model now (else on first use); False when it cannot be loaded."""
    return _identifier() is not None


def _short(text: str) -> bool:
    """One word or a few letters ("jk", "ok", "stay"): their earlier messages decide first."""
    words = _TOKEN.findall(text[:_CAP]) if isinstance(text, str) else []
    return len(words) < SHORT_WORDS or sum(len(w) for w in words) < SHORT_LETTERS


def _guess(text: str) -> str | None:
    scores = language_scores(text)
    if not scores:
        return None
    ranked = sorted(scores.items(), key=lambda item: item[1], reverse=True)
    (best, top), (_, second) = ranked[0], ranked[1]
    return best if top >= MIN_SCORE and top - second >= MIN_LEAD else None


def _votes(text: str) -> Counter[str]:
    votes: Counter[str] = Counter()
    for token in _TOKEN.findall(text):
        for lang, words in _MARKERS.items():
            if token in words or (lang == "fr" and token.startswith("j'")):
                votes[lang] += 1
    for lang, letters in _LETTERS.items():
        votes[lang] += sum(1 for ch in letters if ch in text)
    return votes


def _user_texts(history: Sequence[Mapping[str, Any]]) -> list[str]:
    if not isinstance(history, Sequence) or isinstance(history, str | bytes):
        return []
    return [
        m["content"]
        for m in history
        if isinstance(m, Mapping) and m.get("role") == "user" and isinstance(m.get("content"), str)
    ]


# --- the n-gram model: py3langid, loaded once, restricted to the six languages -------------
_LOCK = threading.Lock()
_LOADED: list[Any] = []  # [identifier] once loaded; [None] when it could not be


def _identifier() -> Any:
    if _LOADED:
        return _LOADED[0]
    with _LOCK:
        if not _LOADED:
            _LOADED.append(_load())
    return _LOADED[0]


def _load() -> Any:
    """py3langid's identifier over the six languages only (its full 97-language table is
    dropped: ~20 MB less). None when the package or its model file is missing."""
    try:
        langid = importlib.import_module("py3langid.langid")
        numpy = importlib.import_module("numpy")
        full = langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)
        keep = [i for i, lang in enumerate(full.nb_classes) if lang in LANGUAGES]
        return langid.LanguageIdentifier(
            numpy.ascontiguousarray(full.nb_ptc[:, keep]),
            full.nb_pc[keep].copy(),
            [full.nb_classes[i] for i in keep],
            full.tk_nextmove,
            full.tk_output,
            norm_probs=True,
            tk_row=full.tk_row,
        )
    except Exception:  # a missing or broken model must not break a protective reply
        return None


def _model_scores(text: str) -> dict[str, float]:
    identifier = _identifier()
    if identifier is None:
        return {}
    try:
        ranked = identifier.rank(text)
    except Exception:
        return {}
    return {str(lang): float(score) for lang, score in ranked if lang in LANGUAGES}
