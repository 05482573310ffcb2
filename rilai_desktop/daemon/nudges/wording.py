"""What a nudge says: short, warm templates, checked against surveillance phrasing.

A nudge must never sound like being watched ("I noticed you haven't…", "my logs show…"),
so every suggestion — templated, or produced by an optional generator — passes
:func:`forbidden_phrase` before it is emitted; one that fails falls back to the same
template without the person's text, and then to :data:`NEUTRAL`, which is checked too.

The checker folds case, accents, apostrophes, punctuation and whitespace away on both
sides and compares the squeezed letters, so "I-HEARD  you…say" and "Iʼve been
t r a c k i n g" are caught. It errs towards false alarms: a false alarm only costs the
warmer wording, a miss costs trust.

Goal and thread titles are the person's own text: :func:`safe_title` strips control and
invisible characters, collapses whitespace, drops quote marks, cuts to
:data:`MAX_TITLE_CHARS` at a word boundary, and refuses a title that is itself forbidden.
Templates are picked by a stable hash of the episode, so the same situation always gets
the same words (deterministic) but different days do not all read alike.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from rilai_desktop.daemon.nudges.conditions import Candidate

FORBIDDEN_PHRASES: Final[tuple[str, ...]] = (
    "I heard you say",
    "I've been tracking",
    "I have been tracking",
    "according to my records",
    "I noticed you haven't",
    "I noticed you have not",
    "I noticed that you",
    "I've noticed you",
    "I've been watching",
    "I have been watching",
    "I've been monitoring",
    "I have been monitoring",
    "I've been keeping track",
    "I have been keeping track",
    "keeping an eye on you",
    "my logs show",
    "my records show",
    "my data shows",
    "based on your history",
    "you told me at",
    "I saw that you",
    "I see that you",
    "I can see you",
    "I detected",
    "I logged",
    "I recorded",
    "you haven't replied",
    "you have not replied",
    "you haven't messaged",
    "you've been quiet for",
    "you have been quiet for",
    "you have been silent",
    "you went quiet at",
    "since you last",
    "you were last seen",
    "last seen",
    "your activity",
)

MAX_TITLE_CHARS: Final = 48
MAX_SUGGESTION_CHARS: Final = 200
NEUTRAL: Final = "I'm here whenever you'd like to talk."

_APOSTROPHES: Final = "'’‘ʼ`´′"
_NON_WORD: Final = re.compile(r"[\W_]+")
_QUOTES: Final = '"“”„«»‹›「」『』'
# Common Cyrillic/Greek look-alikes of Latin letters, so "I've bееn tracking" with
# Cyrillic е's is still caught (not a full confusables table: enough for the usual tricks).
_LOOKALIKES: Final = str.maketrans(
    "аеорсухіјѕԁԛԝһӏοαιντυκρεχ",
    "aeopcyxijsdqwhloaivtukpex",
)


def squeeze(text: str) -> str:
    """Letters and digits only, case- and accent-folded: the form phrases are compared in."""
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(
        ch
        for ch in decomposed
        if unicodedata.category(ch)[0] != "M" and unicodedata.category(ch) != "Cf"
    )
    folded = kept.casefold().translate(_LOOKALIKES)
    for mark in _APOSTROPHES:
        folded = folded.replace(mark, "")
    return _NON_WORD.sub("", folded)


_SQUEEZED: Final[tuple[tuple[str, str], ...]] = tuple((squeeze(p), p) for p in FORBIDDEN_PHRASES)


def forbidden_phrase(text: str) -> str | None:
    """The first forbidden phrase ``text`` contains (tolerantly), or None if it is clean."""
    squeezed = squeeze(text)
    for needle, phrase in _SQUEEZED:
        if needle in squeezed:
            return phrase
    return None


def safe_title(title: object) -> str | None:
    """A goal title fit to quote in a nudge, or None when there is nothing safe to quote."""
    if not isinstance(title, str):
        return None
    text = unicodedata.normalize("NFKC", title)
    text = "".join(
        " " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch
        for ch in text
        if unicodedata.category(ch) not in ("Cf", "Cs", "Co", "Cn")
    )
    text = text.translate({ord(q): None for q in _QUOTES})
    text = " ".join(text.split()).strip(" '.,;:-")
    if not text:
        return None
    if len(text) > MAX_TITLE_CHARS:
        cut = text[:MAX_TITLE_CHARS]
        space = cut.rfind(" ")
        text = (cut[:space] if space >= MAX_TITLE_CHARS // 2 else cut).rstrip(" ,.;:-") + "…"
    if forbidden_phrase(text) is not None:
        return None
    return text


# (template id, text). ``{title}`` is a safe_title; templates with a title have an
# untitled twin used when the title is missing or unsafe.
TEMPLATES: Final[dict[str, tuple[str, ...]]] = {
    "strain_silence": (
        "Just checking in. If things still feel heavy, I'm here whenever you want to talk.",
        "Thinking of you. No need to reply — I'm around if you'd like to talk things through.",
        "I hope the rest of the day is kinder. I'm here if you want to talk.",
    ),
    "deadline_now": ("“{title}” is due soon. Anything I can help with for the last stretch?",),
    "deadline_soon": (
        "“{title}” is due in about {hours} hours. Want to go over what's left together?",
    ),
    "deadline_day": ("“{title}” is coming up. Want to make a small plan for it?",),
    "deadline_untitled": (
        "Something you're working on is due soon. Want a hand planning the next step?",
    ),
    "rupture": (
        "I may have missed the mark earlier, and I'm sorry. I'd be glad to try again "
        "whenever you like.",
        "Sorry if I got that wrong before. I'm here if you want to give it another go.",
    ),
    "long_session": (
        "We've been at this a while. A short break might feel good — I'll be right here.",
        "How about a little pause? Stretch, some water, and we can pick it up after.",
    ),
    "idle_threads": ("Whenever you feel like it, we could pick up “{title}” again.",),
    "idle_threads_untitled": (
        "A few things are still open from before. No rush — we can come back to them "
        "whenever it suits you.",
    ),
}

Generator = Callable[[Candidate], str | None]


@dataclass(frozen=True)
class Wording:
    text: str
    template: str  # template key, "generated", or "neutral"
    fallback: bool  # True when something failed the check and a safer wording was used


def _pick(key: str, seed: str) -> str:
    options = TEMPLATES[key]
    digest = hashlib.sha256(f"{key}|{seed}".encode("utf-8", "replace")).digest()
    return options[digest[0] % len(options)]


def _template_key(candidate: Candidate, titled: bool) -> str:
    if candidate.kind == "deadline":
        return f"deadline_{candidate.detail.get('stage', 'day')}" if titled else "deadline_untitled"
    if candidate.kind == "idle_threads":
        one = candidate.detail.get("threads") == 1
        return "idle_threads" if titled and one else "idle_threads_untitled"
    return candidate.kind if candidate.kind in TEMPLATES else "neutral"


def _raw_title(candidate: Candidate) -> object:
    if candidate.kind == "deadline":
        return candidate.detail.get("title")
    if candidate.kind == "idle_threads":
        titles = candidate.detail.get("titles")
        if isinstance(titles, list) and titles:
            return titles[0]
    return None


def _render(key: str, candidate: Candidate, title: str | None) -> str:
    if key == "neutral":
        return NEUTRAL
    hours = candidate.detail.get("hours_left")
    rounded = max(1, round(hours)) if isinstance(hours, int | float) else 1
    text = _pick(key, f"{candidate.condition}|{candidate.anchor}")
    return text.replace("{title}", title or "").replace("{hours}", str(rounded))


def _clean(text: str) -> bool:
    return bool(text.strip()) and len(text) <= MAX_SUGGESTION_CHARS and not forbidden_phrase(text)


def word(candidate: Candidate, generate: Generator | None = None) -> Wording:
    """The suggestion for ``candidate``: generated (if a generator is given and its text
    passes), else the template with the title, else without it, else :data:`NEUTRAL`."""
    fallback = False
    if generate is not None:
        try:
            generated = generate(candidate)
        except Exception:  # a generator is optional; it must never cost the nudge
            generated = None
        if isinstance(generated, str):
            text = " ".join(generated.split())
            if _clean(text):
                return Wording(text, "generated", False)
        fallback = True
    raw = _raw_title(candidate)
    title = safe_title(raw)
    if title is None and isinstance(raw, str) and raw.strip():
        fallback = True  # the person's title could not be quoted safely
    if title is not None:
        key = _template_key(candidate, titled=True)
        text = _render(key, candidate, title)
        if _clean(text):
            return Wording(text, key, fallback)
        fallback = True
    key = _template_key(candidate, titled=False)
    text = _render(key, candidate, None)
    if _clean(text):
        return Wording(text, key, fallback)
    return Wording(NEUTRAL, "neutral", True)
