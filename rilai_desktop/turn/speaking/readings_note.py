"""The reader's facts in the voice's notes (``agents/reading.py``, issue 28).

"Earlier they told you (…): Their grandfather died last month." Only facts from their
earlier messages (one about this message made the voice say it back). The facts are what
they wrote, grounded by code, so the reply may use their words (they are not private); the
opening and the refusal line are instructions and must never be said back (``private``).
"""

from __future__ import annotations

from typing import Final

from rilai_desktop.turn.speaking.prompt_text import clean_text
from rilai_desktop.turn.state import TurnState

READINGS_OPENING: Final[str] = (
    "Earlier they told you (background to keep to; never repeat it back or contradict it):"
)
FACT_CHARS: Final[int] = 100
MAX_FACTS: Final[int] = 3


def refusal_line(state: TurnState) -> str:
    wanted = clean_text(state.not_wanted, 40).rstrip(".")
    return f"They said they do not want {wanted}: give none." if wanted else ""


def facts(state: TurnState) -> list[str]:
    kept = (clean_text(f, FACT_CHARS) for f in state.readings[:MAX_FACTS])
    return [f for f in kept if f]


def readings_block(state: TurnState) -> str:
    """The block for the notes; "" when the reader kept nothing."""
    lines = facts(state)
    parts = [READINGS_OPENING, *lines] if lines else []
    if line := refusal_line(state):
        parts.append(line)
    return " ".join(parts)


def private(state: TurnState) -> list[str]:
    """What of the block the reply must never say back."""
    line = refusal_line(state)
    return [READINGS_OPENING, *([line] if line else [])]
