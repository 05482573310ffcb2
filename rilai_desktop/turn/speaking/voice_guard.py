"""What the voice may not write, enforced while it decodes (a :class:`DecodeGuard`).

The critics (``critics.py``) review a finished reply and a failing one is regenerated: on
a 2-core CPU a regeneration costs most of a turn. Measured over the 20 bench messages,
most regenerations were for a handful of failures the 0.5B coder voice makes on its first
attempt: saying their message back, copying its own earlier replies (a fallback reply,
once in the conversation, came back word for word), reading its private notes aloud,
"You should…" to someone who asked for no advice, and "I'm a programming assistant" or a
stock refusal. This module turns those into decode-time bans, so the first attempt is far
more likely to pass:

- no run of :data:`COPY_NGRAM` tokens copied from the prompt (their message, the
  conversation, the notes, the system prompt) or repeated within the reply;
- :data:`ALWAYS_BANNED`: someone else's identity and stock refusals;
- :data:`ADVICE_BANNED` when the critics would reject advice this turn
  (:func:`~rilai_desktop.turn.deliberation.council_rules.no_advice_reason`).

The critics still review every reply: a guard matches token ids, and the same words
tokenized another way can slip through.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rilai_desktop.contracts.llm import DecodeGuard
from rilai_desktop.turn.deliberation.council_rules import no_advice_reason
from rilai_desktop.turn.speaking.voice_prompt import memory_lines
from rilai_desktop.turn.state import TurnState

# ~5 words: a name or a short quote ("your sister Maya") stays possible, a sentence does not.
COPY_NGRAM: Final[int] = 6

ALWAYS_BANNED: Final[tuple[str, ...]] = (
    "programming assistant",
    "coding assistant",
    "AI language model",
    "Qwen",
    "Alibaba",
    "can't assist with",
    "cannot assist with",
    "not able to assist",
    "unable to assist",
    "can't help with that",
    "Rilai:",
    "Private notes",
    ";",  # the notes' list separator: copied, it became "You can; You can; You can;" loops
    # help desk and self-description (reply_checks fails them; issue 16's real replies)
    "further assistance",
    "any other questions",
    "keep you informed",
    "latest developments",
    "share my knowledge",
    "designed to provide",
    "hesitate to ask",
)

# The openings of ADVICE_STRONG (critic_patterns.py) the voice actually writes, as cased.
ADVICE_BANNED: Final[tuple[str, ...]] = (
    "you should",
    "You should",
    "you need to",
    "You need to",
    "you have to",
    "You have to",
    "make sure",
    "Make sure",
    "I recommend",
    "I suggest",
    "I would suggest",
    "I'd suggest",
    "Try",
    "Have you tried",
    "have you tried",
    "Have you considered",
    "have you considered",
    "It's important",  # "It's important to/that you…": the voice's way into a lecture
    "it's important",
    "It is important",
    "it is important",
    "Here are some",
    "here are some",
    "Remember to",
    "Don't forget to",
    "Consider",
)


def voice_guard(state: TurnState, avoid: Sequence[str] = ()) -> DecodeGuard:
    """The guard for this turn's reply; ``avoid``: the openings of attempts the critics
    rejected (a regeneration from the same notes otherwise came back word for word). What
    memory recalled of them may be quoted (the reply checks do not count it as notes
    either): a name, a place, "the history of azulejo tiles" are theirs to hear back."""
    phrases = ALWAYS_BANNED + (ADVICE_BANNED if no_advice_reason(state) else ()) + tuple(avoid)
    quotable = tuple(memory_lines(state.recall)) if state.recall is not None else ()
    return DecodeGuard(copy_ngram=COPY_NGRAM, phrases=phrases, allowed=quotable)
