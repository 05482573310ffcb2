"""Text hygiene for extraction: cleaning, sentences, words and the dedupe key."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

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
