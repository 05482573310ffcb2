"""Keeps a tiny model's hallucinations and parroting out of the council.

The agents run on a 135M-parameter model. Measured on real turns, it invents context
("They mention wanting to disappear" for a message about loneliness, "The new policy has
been implemented") and copies its own instructions back as claims. A claim reaches the
council only if it is *grounded*:

- it shares a content word with what the agent was shown (the message, the last exchange,
  the recalled facts), or it takes a stance on how to respond (listen, advice, ask, safety,
  support, …: the axes of ``claims.stances`` plus a few response words); and
- it is not *parroted*: at most half of its content words may come from the agent's own
  instructions without also being in the context.

- it is not degenerate: no phrase of three words repeated ("you're not safe, you're not
  safe, …"), no stray brackets, and it is about the person, not the model talking about
  itself ("I'm not sure how to respond…").

Labelled agents (``labels.py``) write only a short span; ``copied_run`` tells when
it copies the agent's own instructions or an earlier Rilai reply (the run then fails).

Memory candidates pass the same checks and must also share a content word with the context
(``why_not_memory``). Dropped claims and memories are kept in the AGENT_COMPLETED event
(``dropped_claims``, ``dropped_memory``) for /why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rilai_desktop.contracts import Claim
from rilai_desktop.turn.deliberation.claims import normalise, stances

RESPONSE_WORDS = frozenset(
    normalise(
        "listen listening advice advise suggest suggestion ask question clarify support"
        " safety safe validate acknowledge reassure comfort gentle space celebrate praise"
        " boundary pace slow pause check warmth empathy feeling feelings emotion emotions"
        " help helpful reply respond tone"
    )
)
PARROT_SHARE = 0.5
_SELF_TALK = re.compile(r"^\s*(?:i|i'm|i am|i'll|i will|as an ai)\b", re.IGNORECASE)
_JUNK = re.compile(r"[\[\]{}<>|]")
_WORDS = re.compile(r"[\w']+")


def _repeats(text: str) -> bool:
    words = _WORDS.findall(text.casefold())
    grams = [tuple(words[i : i + 3]) for i in range(len(words) - 2)]
    return len(grams) != len(set(grams))


@dataclass(frozen=True)
class Grounding:
    context_words: frozenset[str]
    instruction_words: frozenset[str]

    @classmethod
    def of(cls, context: str, instructions: str) -> Grounding:
        return cls(normalise(context), normalise(instructions))

    def why_not(self, text: str) -> str | None:
        """None when the claim may go on; else the reason it is dropped."""
        words = normalise(text)
        if not words:
            return "no content"
        if _repeats(text) or _JUNK.search(text):
            return "degenerate text"
        if _SELF_TALK.match(text):
            return "the model talking about itself"
        copied = (words & self.instruction_words) - self.context_words
        if len(copied) / len(words) > PARROT_SHARE:
            return "repeats the agent's instructions"
        if words & self.context_words or words & RESPONSE_WORDS or stances(text):
            return None
        return "not grounded in the message or memory"

    def why_not_memory(self, text: str) -> str | None:
        """Stricter for what would be remembered: it must share a content word with what
        the agent was shown (measured: the small model's "I'm here to help you. I'm here…"
        was stored as a fact about the person and recalled into later turns)."""
        reason = self.why_not(text)
        if reason is None and not normalise(text) & self.context_words:
            return "not grounded in the message or memory"
        return reason


def split_grounded(
    claims: Sequence[Claim], grounding: Grounding
) -> tuple[list[Claim], list[dict[str, str]]]:
    kept: list[Claim] = []
    dropped: list[dict[str, str]] = []
    for claim in claims:
        reason = grounding.why_not(claim.text)
        if reason is None:
            kept.append(claim)
        else:
            dropped.append({"text": claim.text, "reason": reason})
    return kept, dropped


COPY_RUN_WORDS = 3  # a shared run of this many words or more …
COPY_SHARE = 0.5  # … covering at least this share of the text is a copy


def _longest_run(words: Sequence[str], source: Sequence[str]) -> int:
    """The longest run of consecutive words ``words`` shares with ``source``."""
    best = 0
    prev = [0] * (len(source) + 1)
    for w in words:
        cur = [0] * (len(source) + 1)
        for j, s in enumerate(source, 1):
            if w == s:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def copied_run(text: str, sources: Sequence[tuple[str, str]]) -> str | None:
    """Why ``text`` is a copy of one of ``sources`` ((name, text) pairs), or None.

    A copy is a run of ≥ COPY_RUN_WORDS consecutive words shared with a source that
    covers at least COPY_SHARE of the text: "You read the person's overall emotional
    state" from an agent's own prompt, "I'm glad you're thinking about your new job" from
    Rilai's last reply (both measured, issue 16). Sources are cut to their first 2,000
    characters (a prompt or a reply excerpt); the text to 300.
    """
    words = _WORDS.findall(text[:300].casefold())
    if len(words) < COPY_RUN_WORDS:
        return None
    for name, source in sources:
        run = _longest_run(words, _WORDS.findall(source[:2000].casefold()))
        if run >= COPY_RUN_WORDS and run >= COPY_SHARE * len(words):
            return f"copies {name} ({run} of {len(words)} words in a row)"
    return None
