"""Their words as notes about them: first person turned into the third ("I miss my sister"
→ "they miss their sister").

Memory keeps what the person said in their own words, and an episode's summary quotes them.
Put into the voice's private notes as they are, those first-person lines made the 0.5B
voice answer *as* the person ("I've been feeling kinda lonely since I moved…", measured
in `rilai bench turn`). The notes now speak about them. Crude on purpose (no parser): the
notes are never shown, and the voice only needs to know whose words they are.
"""

from __future__ import annotations

import re
from typing import Final

_SWAPS: Final[dict[str, str]] = {
    "i am": "they are",
    "i'm": "they're",
    "i was": "they were",
    "i've": "they've",
    "i'd": "they'd",
    "i'll": "they'll",
    "i": "they",
    "me": "them",
    "my": "their",
    "mine": "theirs",
    "myself": "themselves",
}
_FIRST = re.compile(
    r"\bI\s+am\b|\bI\s+was\b|\bI['’](?:m|ve|d|ll)\b|\bI\b|\b(?:me|my|mine|myself)\b", re.IGNORECASE
)
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)$")
_RILAI_TAG = re.compile(r"\s*\(Rilai:[^)]*\)")
_THEY_SAID = re.compile(r"^They said:\s*")


_TO_YOU: Final[dict[str, str]] = {
    "i am": "you are",
    "i'm": "you're",
    "i was": "you were",
    "i've": "you've",
    "i'd": "you'd",
    "i'll": "you'll",
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
}


def second_person(text: str) -> str:
    """``text`` said back to them: "I've been researching my podcast" → "you've been
    researching your podcast" (a fallback that answers a memory question)."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        return _TO_YOU.get(" ".join(word.replace("’", "'").lower().split()), word)

    return _FIRST.sub(swap, text)


def third_person(text: str) -> str:
    """``text`` with first-person words turned into "they/them/their"."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        out = _SWAPS.get(" ".join(word.replace("’", "'").lower().split()), word)
        starts = _SENTENCE_START.search(text[: match.start()]) is not None
        return out[:1].upper() + out[1:] if starts else out

    return _FIRST.sub(swap, text)


def episode_note(summary: str) -> str:
    """An episode summary ("They said: … (Rilai: witness)") as a note: "they said …"."""
    text = _RILAI_TAG.sub("", summary).strip()
    if _THEY_SAID.match(text):
        said = third_person(_THEY_SAID.sub("", text))
        return "they said " + (said[:1].lower() + said[1:] if said[1:2].islower() else said)
    return third_person(text)
