"""Identity slips: a reply that speaks *as* the person ("I moved to Lisbon", "my sister Maya").

A small voice model reads "I just moved to Lisbon for a new job" in the conversation and
answers "I moved to Lisbon last year and it took a while to settle in": the person's life
told back in Rilai's first person. Blind judges found it in the replies of both voice
tiers. The check is deterministic: a first-person clause of the reply ("I …", "my …")
that takes the same verb or noun the person used after their own "I"/"my" and shares at
least one more content word with that clause is a slip; so is one that shares three of
their content words under another verb ("I was studying the history of azulejo tiles"),
or that Rilai says it remembers doing ("I remember working night shifts as a nurse").
Second person ends a clause ("I'm glad you moved to Lisbon" is about them, and fine), so
are sentence ends and commas.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

CLAUSE_WORDS: Final[int] = 7  # words read after a first-person pronoun
MIN_SHARED: Final[int] = 2  # content words a slip shares with the person's clause
PARAPHRASE_SHARED: Final[int] = 3  # ... when its verb is not theirs
LONG_CLAUSE: Final[int] = 12  # words read for the paraphrase rule

_WORD = re.compile(r"[a-z0-9']+")
_CLAUSE_END = re.compile(r"[.!?;,:…\n]|\b(?:but|and\s+you|because|though)\b")
_PRONOUN: Final[frozenset[str]] = frozenset(
    {"i", "i'm", "im", "i've", "ive", "i'd", "my", "we", "we've", "we're", "our"}
)
_ADVERBS: Final[frozenset[str]] = frozenset(
    {"just", "really", "also", "still", "actually", "recently", "finally", "only", "even"}
)
_SECOND: Final[frozenset[str]] = frozenset(
    {"you", "your", "you're", "youre", "you've", "yours", "yourself"}
)
_STOP: Final[frozenset[str]] = frozenset(
    {
        "a", "an", "the", "and", "or", "but", "so", "to", "of", "in", "on", "at", "for", "with",
        "from", "by", "about", "as", "into", "over", "after", "before", "just", "really", "very",
        "still", "also", "too", "then", "now", "here", "there", "this", "that", "these", "those",
        "it", "its", "it's", "is", "am", "are", "was", "were", "be", "been", "being", "have",
        "has", "had", "do", "does", "did", "will", "would", "can", "could", "should", "may",
        "might", "must", "not", "no", "never", "don't", "didn't", "i'm", "i've", "i'd", "i",
        "my", "me", "we", "our", "us", "they", "them", "their", "he", "she", "his", "her", "him",
        "some", "any", "all", "much", "many", "more", "most", "one", "two", "lot", "lots",
        "kind", "bit", "get", "got", "go", "going", "went", "feel", "feeling", "felt", "think",
        "know", "like", "want", "wanted", "need", "yet", "again", "even", "quite", "pretty",
    }
)  # fmt: skip
_NO_SLIP_LEADS: Final[frozenset[str]] = frozenset(
    # Rilai speaking about itself or about the exchange, never a life told back
    {"hear", "heard", "understand", "see", "sorry", "glad", "remember", "recall", "wonder",
     "hope", "can", "can't", "cannot", "don't", "am", "appreciate", "notice", "noticed",
     "mean", "meant", "guess", "imagine", "know", "think", "thought", "want", "wish",
     "love", "like", "get", "here", "would", "could", "will", "might", "may", "talked",
     "spoke", "said"}
)  # fmt: skip
# "I remember working nights as a nurse": remembering a doing is a past of one's own
_REMEMBERING: Final[frozenset[str]] = frozenset({"remember", "recall", "miss", "loved"})


def _clauses(text: str, window: int = CLAUSE_WORDS) -> Iterable[list[str]]:
    """Word lists that follow a first-person pronoun, cut at the clause's end."""
    for part in _CLAUSE_END.split(text.lower().replace("’", "'")):
        tokens = _WORD.findall(part)
        for i, tok in enumerate(tokens):
            if tok not in _PRONOUN:
                continue
            clause: list[str] = []
            for word in tokens[i + 1 : i + 1 + window]:
                if word in _SECOND or word in _PRONOUN:
                    break
                clause.append(word)
            if clause:
                yield clause


def _content(words: Sequence[str]) -> list[str]:
    return [w for w in words if w not in _STOP and len(w) > 1]


def _stem(word: str) -> str:
    """A rough stem for matching a remembered doing with their verb: working -> work."""
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word


def identity_slips(reply: str, theirs: Sequence[str]) -> list[str]:
    """The reply's first-person clauses that tell the person's own statements back as
    Rilai's (each as the reply's words, for a finding's detail); [] when there is none."""
    their_clauses = [set(_content(c)) for text in theirs for c in _clauses(text, LONG_CLAUSE)]
    their_clauses = [c for c in their_clauses if len(c) >= MIN_SHARED]
    if not their_clauses:
        return []
    slips: list[str] = []
    for clause in _clauses(reply, LONG_CLAUSE):
        while clause and clause[0] in _ADVERBS:
            clause = clause[1:]
        remembered = len(clause) > 1 and clause[0] in _REMEMBERING and clause[1].endswith("ing")
        if remembered:
            clause = clause[1:]  # what Rilai says it remembers doing is told as its own
        words = _content(clause)
        if not words or clause[0] in _NO_SLIP_LEADS:
            continue
        lead = words[0]
        near = set(_content(clause[:CLAUSE_WORDS]))
        for theirs_words in their_clauses:
            shared = len(set(words) & theirs_words)
            if remembered and (shared or _stem(lead) in {_stem(w) for w in theirs_words}):
                # "I remember working as a nurse" for "I work night shifts as a nurse"
                slips.append(" ".join(clause[:CLAUSE_WORDS]))
                break
            # the same verb and one more word nearby, or three of their words under another
            # verb ("I was looking into the history of azulejo tiles" for "researching")
            if lead in theirs_words and len(near & theirs_words) >= MIN_SHARED:
                slips.append(" ".join(clause[:CLAUSE_WORDS]))
                break
            if shared >= PARAPHRASE_SHARED:
                slips.append(" ".join(clause))
                break
    return slips
