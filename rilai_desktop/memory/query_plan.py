"""What a question asks of memory: the people it names, and its words without their names.

"What did Caroline research?" over a conversation between Caroline and Melanie: the name
is in nearly every turn that *addresses* Caroline ("Wow, Caroline, that looks amazing!"),
so left in the query it dominates both BM25 and the embedding, and the turn in which
Caroline says what she researched ranks below ten greetings. A plan takes the names of
known speakers out of the words that are matched and turns them into a preference for
what that person said (``named``): the retriever boosts their turn records.

Names are matched on the speaker's first word, case-insensitively, with or without a
possessive ("Caroline's"); "I", "me", "my" name the user when the user has turns of their
own under a speaker recorded as ``user``. The verbs of asking ("say", "told", "remember")
are not matched either: they are how the question asks, not what it is about.

``order``: "when did X *first*…" prefers the oldest of the candidates, "what does X do
*these days*" the newest (by the date the thing was said; the retriever's ``order`` weight).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rilai_desktop.memory._sql import STOPWORDS

_SELF = re.compile(r"\b(?:i|me|my|mine|myself)\b", re.IGNORECASE)
USER_SPEAKERS = frozenset({"user", "you", "me"})
# how a question asks memory, not what it asks about: "what did I *say* I was researching?"
# matched "Sara *says* green is a bad idea" (porter: say = says) above the research turn
_ASKING = re.compile(
    r"\b(?:say|said|says|tell|told|mention(?:ed)?|remember|recall|remind)\b", re.IGNORECASE
)


_EARLIEST = re.compile(r"\b(?:first|earliest|originally|initially)\b", re.IGNORECASE)
_LATEST = re.compile(
    r"\b(?:latest|most recent(?:ly)?|last time|these days|now|currently|still)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class QueryPlan:
    text: str  # the question as asked
    matched: str  # the words to match: the question without the names it uses
    named: frozenset[str]  # speakers (as recorded) the question is about
    order: int = 0  # -1: "first/earliest" prefers the oldest; 1: "latest/now" the newest

    @property
    def about_someone(self) -> bool:
        return bool(self.named)


def _name_pattern(speaker: str) -> re.Pattern[str] | None:
    first = speaker.strip().split()[0] if speaker.strip() else ""
    if len(first) < 2 or first.lower() in USER_SPEAKERS:
        return None
    return re.compile(rf"\b{re.escape(first)}(?:['’]s)?\b", re.IGNORECASE)


def plan(query: str, speakers: Iterable[str]) -> QueryPlan:
    """The plan for ``query`` given the speakers memory has turn records of."""
    matched = query
    named: set[str] = set()
    for speaker in speakers:
        pattern = _name_pattern(speaker)
        if pattern is not None and pattern.search(matched):
            named.add(speaker)
            matched = pattern.sub(" ", matched)
        elif speaker.strip().lower() in USER_SPEAKERS and _SELF.search(query):
            named.add(speaker)
    matched = " ".join(_ASKING.sub(" ", matched).split())
    if not any(w.lower() not in STOPWORDS for w in re.findall(r"\w+", matched)):
        matched = query  # nothing left but a name and small words: match the question
    order = -1 if _EARLIEST.search(query) else 1 if _LATEST.search(query) else 0
    return QueryPlan(query, matched, frozenset(named), order)
