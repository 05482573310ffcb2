"""Normalisation and the small grammar helpers every sensor shares.

A message is read once into a :class:`Text`:

1. anything that is not a ``str`` is coerced (bytes are decoded as UTF-8 with replacement),
2. NFKC normalisation (full-width ``ｉ ｗａｎｔ`` becomes ``i want``, ligatures split),
3. control, format (zero-width, bidi), surrogate and private-use characters are removed, so
   ``ki\\u200bll`` reads as ``kill``; tabs become spaces, CR becomes a newline,
4. only the first :data:`MAX_SCAN_CHARS` (20,000) characters are scanned: a 100 KB paste
   costs the same as a 20 KB one, and what lies beyond the cap is not read at all,
5. case-folding and straightening of typographic quotes (’ → ', “ ” « » → ") give the
   ``folded`` string the regexes run on.

Case-folding can change the length of a string (``ß`` → ``ss``), so ``origin`` maps every
folded index back to the clean text: evidence spans are always slices of ``clean``, never of
the folded copy, and so are real substrings of the (normalised) message.

The helpers answer the questions the cue tables need about one match: is it negated
("I'm *not* sad"), hedged ("*kind of* sad"), inside a quotation, and whose state is it —
the writer's ("I"), the reader's ("you") or someone else's ("my friend said *she* ...")?
They are heuristics over the few tokens before a match, deliberately simple and cheap.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final, Literal

MAX_SCAN_CHARS: Final = 20_000

Person = Literal["first", "second", "third", "implicit"]

_QUOTES: Final = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201a": "'",
    "\u201b": "'",
    "\u2032": "'",
    "`": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\u201f": '"',
    "\u2033": '"',
    "\u00ab": '"',
    "\u00bb": '"',
}
_DROP_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co"})

WORD_RE: Final = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_SENTENCE_END: Final = re.compile(r"[.!?;\n]")
_CLAUSE_END: Final = re.compile(r"[.!?;:,\n()]|\b(?:but|because|though|although|however)\b")
_QUOTED: Final = re.compile(r"\"[^\"\n]{1,500}\"|(?<![^\W_])'[^'\n]{2,300}'(?![^\W_])")

NEGATORS: Final = frozenset(
    {
        "not",
        "never",
        "don't",
        "dont",
        "doesn't",
        "doesnt",
        "didn't",
        "didnt",
        "isn't",
        "isnt",
        "aren't",
        "arent",
        "wasn't",
        "wasnt",
        "weren't",
        "won't",
        "wont",
        "wouldn't",
        "wouldnt",
        "shouldn't",
        "ain't",
        "hardly",
        "nor",
        "no longer",
    }
)
# A negator does not reach past these: "I don't know *why* I want to die" is not negated,
# nor is "I can't *stop* crying", nor "I don't *think* anyone would care".
_NEGATION_BLOCKERS: Final = frozenset(
    {"why", "how", "what", "when", "if", "whether", "stop", "help", "that", "who", "where"}
    | {"think", "believe", "know", "guess", "suppose", "reckon", "anyone", "anybody"}
)
_HEDGE: Final = re.compile(
    r"\b(?:kind of|kinda|sort of|sorta|a bit|a little|a tad|slightly|somewhat|maybe|perhaps"
    r"|i guess|probably|possibly|mildly|ish)\b"
)
_PAST: Final = re.compile(r"\b(?:used to|no longer|anymore but|back then|years ago)\b")
# "embarrassed *for like a second* but then laughed it off": a passing state, said after it
_TRANSIENT: Final = re.compile(
    r"\b(?:for (?:like |just )?a (?:second|sec|moment|minute|bit)|laughed it off|shook it off"
    r"|got over it|it passed|but (?:then|now) i'?m (?:fine|ok|okay|good|better)"
    r"|but (?:it|everything) (?:went|turned out|ended up|was) (?:great|well|fine|ok|okay|good)"
    r"|it went (?:great|well))\b"
)

FIRST_PERSON: Final = frozenset(
    {"i", "i'm", "im", "i've", "ive", "i'd", "i'll", "me", "my", "myself", "mine", "we", "we're"}
    | {"us", "our", "ourselves", "i'mma", "imma"}
)
SECOND_PERSON: Final = frozenset(
    {"you", "you're", "youre", "u", "ur", "your", "yourself", "you've", "you'd", "you'll"}
)
THIRD_PERSON: Final = frozenset(
    {"he", "she", "they", "he's", "she's", "they're", "hes", "shes", "theyre", "him", "her"}
    | {"them", "his", "their", "he'd", "she'd", "they'd", "he'll", "she'll", "they'll"}
    | {"himself", "herself", "themselves", "someone", "somebody", "people", "everyone"}
    | {"everybody", "kids", "children", "anyone"}
)
# "my <one of these>" is someone else: "my friend is sad" is not the writer's sadness.
PEOPLE_NOUNS: Final = frozenset(
    {
        "friend",
        "friends",
        "mom",
        "mum",
        "mother",
        "dad",
        "father",
        "parents",
        "sister",
        "brother",
        "sibling",
        "wife",
        "husband",
        "partner",
        "boyfriend",
        "girlfriend",
        "bf",
        "gf",
        "son",
        "daughter",
        "kid",
        "child",
        "baby",
        "cousin",
        "aunt",
        "uncle",
        "grandma",
        "grandpa",
        "grandmother",
        "grandfather",
        "roommate",
        "flatmate",
        "coworker",
        "colleague",
        "boss",
        "manager",
        "teacher",
        "neighbour",
        "neighbor",
        "classmate",
        "bestie",
        "ex",
        "dog",
        "cat",
        "team",
        "character",
        "protagonist",
        "villain",
        "hero",
        "narrator",
        "guy",
        "girl",
        "man",
        "woman",
        "student",
        "students",
        "patient",
        "client",
        "therapist",
        "doctor",
        "nurse",
        "teammate",
        "player",
        "author",
    }
)


# Works the writer owns but does not live in: "the character in *my novel*".
WORKS: Final = frozenset(
    {"novel", "book", "story", "script", "screenplay", "poem", "song", "game", "campaign"}
    | {"fic", "fanfic", "comic", "manga", "play", "essay", "film", "movie", "show", "series"}
)


@dataclass(frozen=True)
class Text:
    """One message, normalised once; every sensor reads the same instance."""

    clean: str  # NFKC, control/format characters removed, capped at MAX_SCAN_CHARS
    folded: str  # case-folded, quotes straightened: what the regexes match
    origin: tuple[int, ...]  # folded index -> clean index, plus a sentinel at the end
    truncated: bool  # the raw text was longer than the cap
    quoted: tuple[tuple[int, int], ...]  # folded spans inside quotation marks

    def span(self, start: int, end: int) -> str:
        """The clean text behind ``folded[start:end]`` (a real substring of ``clean``)."""
        if end <= start:
            return ""
        return self.clean[self.origin[start] : self.origin[end - 1] + 1]

    def is_blank(self) -> bool:
        return not self.clean.strip()


def _coerce(raw: object) -> str:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, bytes | bytearray):
        return bytes(raw).decode("utf-8", errors="replace")
    return "" if raw is None else str(raw)


def _clean(raw: str) -> tuple[str, bool]:
    # Cap before NFKC too (generously: NFKC may shrink), so a huge paste costs nothing more.
    head = raw[: MAX_SCAN_CHARS * 2]
    try:
        text = unicodedata.normalize("NFKC", head)
    except (ValueError, TypeError):  # pragma: no cover - defensive: normalize takes any str
        text = head
    out: list[str] = []
    for ch in text:
        if ch in "\t\x0b\x0c":
            out.append(" ")
        elif ch == "\r":
            out.append("\n")
        elif ch == "\n" or unicodedata.category(ch) not in _DROP_CATEGORIES:
            out.append(ch)
        if len(out) >= MAX_SCAN_CHARS:
            break
    clean = "".join(out)
    truncated = len(raw) > len(head) or len(clean) >= MAX_SCAN_CHARS
    return clean, truncated


def normalise(raw: object) -> Text:
    """Read ``raw`` into a :class:`Text`; never raises."""
    clean, truncated = _clean(_coerce(raw))
    folded_parts: list[str] = []
    origin: list[int] = []
    for index, ch in enumerate(clean):
        folded = _QUOTES.get(ch) or ch.casefold()
        folded_parts.append(folded)
        origin.extend([index] * len(folded))
    folded_text = "".join(folded_parts)
    origin.append(len(clean))
    quoted = tuple(m.span() for m in _QUOTED.finditer(folded_text))
    return Text(clean, folded_text, tuple(origin), truncated, quoted)


def rebuild(clean: str, folded: str, origin: tuple[int, ...], truncated: bool) -> Text:
    """A :class:`Text` over a rewritten ``folded`` string (``origin`` maps each of its
    characters back into ``clean``, plus the end sentinel); quotations are found again."""
    quoted = tuple(m.span() for m in _QUOTED.finditer(folded))
    return Text(clean, folded, origin, truncated, quoted)


# ── context around one match ──────────────────────────────────────────────────


def _boundary_before(pattern: re.Pattern[str], folded: str, pos: int, reach: int) -> int:
    lo = max(0, pos - reach)
    last = lo
    for m in pattern.finditer(folded, lo, pos):
        last = m.end()
    return last


def sentence_start(text: Text, pos: int) -> int:
    return _boundary_before(_SENTENCE_END, text.folded, pos, 300)


def sentence_end(text: Text, pos: int) -> int:
    m = _SENTENCE_END.search(text.folded, pos, min(len(text.folded), pos + 300))
    return m.start() if m else min(len(text.folded), pos + 300)


def clause_start(text: Text, pos: int) -> int:
    return _boundary_before(_CLAUSE_END, text.folded, pos, 200)


def tokens_before(text: Text, pos: int, limit: int, *, clause: bool = True) -> list[re.Match[str]]:
    """Up to ``limit`` word tokens right before ``pos``, inside its clause (or sentence)."""
    start = clause_start(text, pos) if clause else sentence_start(text, pos)
    return list(WORD_RE.finditer(text.folded, start, pos))[-limit:]


def negation(text: Text, start: int, window: int = 3) -> tuple[int, int] | None:
    """The span of a negator among the few tokens before ``start``, or None.

    Two-word negators ("no longer", "do not") are found through their second word.
    """
    toks = tokens_before(text, start, window)
    for i in range(len(toks) - 1, -1, -1):
        word = toks[i].group()
        prev = toks[i - 1].group() if i > 0 else ""
        if word in NEGATORS or (word == "longer" and prev == "no"):
            between = {t.group() for t in toks[i + 1 :]}
            if between & _NEGATION_BLOCKERS:
                return None
            return toks[i].start(), start
        if word in _NEGATION_BLOCKERS:
            return None
    return None


def hedge(text: Text, start: int, end: int) -> tuple[int, int] | None:
    """A hedge ("kind of", "maybe", "a bit") before or inside the match, or later in its
    sentence ("I'm *a bit* sad", "I want to die, *maybe*")."""
    lo = max(clause_start(text, start), start - 40)
    m = _HEDGE.search(text.folded, lo, end)
    if m:
        return m.span()
    m = _HEDGE.search(text.folded, end, min(sentence_end(text, end) + 12, end + 30))
    return m.span() if m else None


def past(text: Text, start: int) -> tuple[int, int] | None:
    """ "I *used to* feel worthless", "embarrassed *for a second*": the state is over."""
    lo = max(sentence_start(text, start), start - 60)
    m = _PAST.search(text.folded, lo, start)
    if m is None:
        m = _TRANSIENT.search(text.folded, start, min(len(text.folded), start + 80))
    return m.span() if m else None


def in_quotes(text: Text, start: int, end: int) -> bool:
    return any(qs < start and end <= qe for qs, qe in text.quoted)


def person(text: Text, start: int) -> Person:
    """Whose state a match describes: the nearest person word before it in its sentence.

    "my friend said *she* wants to die" → third; "he makes *me* feel worthless" → first;
    "*you* seem sad" → second; no person word at all ("wanna die tbh") → implicit, which the
    sensors treat like the first person (a chat message is about its writer by default).
    "my" before a work ("the character in *my novel*") does not make the state the writer's.
    """
    toks = tokens_before(text, start, 12, clause=False)
    for i in range(len(toks) - 1, -1, -1):
        word = toks[i].group()
        following = toks[i + 1].group() if i + 1 < len(toks) else ""
        if word in ("my", "our") and following in WORKS:
            continue
        if word in FIRST_PERSON:
            return "first"
        if word in SECOND_PERSON:
            return "second"
        if word in THIRD_PERSON or word in PEOPLE_NOUNS:
            return "third"
    return "implicit"


def words(text: Text) -> list[str]:
    return WORD_RE.findall(text.folded)
