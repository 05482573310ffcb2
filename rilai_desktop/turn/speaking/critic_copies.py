"""Copy measures that ``reply_checks`` (the "repeat" check) builds on: how much of a reply
copies Rilai's earlier sentences or their message, and a sentence that says their message
back in other words. The 0.5B voice does all of these once an example is in its prompt.
"""

from __future__ import annotations

from rilai_desktop.turn.deliberation.council_rules import words
from rilai_desktop.turn.speaking import critic_patterns as P

COPIED_SHARE = 0.6  # a reply with 60 % or more of its words in earlier sentences is a copy
# a sentence of 5+ words, 80 % of them theirs, says their message back. 75 % flagged the
# real voice's "Hi Dana, I'm glad you moved to Lisbon!" (6 of 8 words theirs), a greeting.
ECHO_SHARE = 0.8


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` with 4+ words, as lowercase words joined by spaces."""
    return [" ".join(words(s)) for s in P.SENTENCES.split(text[:50_000]) if len(words(s)) >= 4]


def copied_share(reply: str, earlier: frozenset[str]) -> float:
    """The share of the reply's words that sit in ``earlier`` sentences (word for word,
    4+ words): Rilai's earlier replies, or the person's message."""
    if not earlier:
        return 0.0
    total = len(words(reply[:50_000]))
    if not total:
        return 0.0
    copied = sum(len(s.split()) for s in sentences(reply) if s in earlier)
    return copied / total


def echoed_sentence(reply: str, their_text: str) -> str | None:
    """The first reply sentence that says their message back in other words: 5+ words with
    80 % of them in their message ("I finally got the joboffer I was hoping for!"), or 3+
    content words all from it ("Work was rough today.")."""
    theirs = set(words(their_text[:20_000]))
    their_stems = P.stems(their_text[:20_000])
    if not theirs:
        return None
    for sentence in P.SENTENCES.split(reply[:50_000]):
        said = words(sentence)
        content = P.stems(sentence)
        if len(said) >= 5 and sum(w in theirs for w in said) / len(said) >= ECHO_SHARE:
            return sentence.strip()
        if len(content) >= 3 and content <= their_stems:
            return sentence.strip()
    return None
