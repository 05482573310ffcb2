"""The council's learned intent (issue 28): the understanding model's reading of the
message in its conversation (``turn/understanding``), taken where it is sure.

Order, in ``Council``:

1. the hard rules stay first and are never overridden: protect (safety), the silent turn
   (empty, a bare acknowledgement), a prompt injection;
2. ``mode="first"``: a sure classifier reading (top probability ≥ the model file's
   ``confidence``) decides the intent before the soft rules; ``mode="open"``: only where
   the soft rules leave it open; ``mode="off"``: never. The council's own mode ``"model"``
   (the default) takes the mode the model file was built with (chosen on the corpus's dev
   part by ``tools/train_understanding.py``);
3. otherwise the soft rules, then the model (only where both leave the intent open).

The same guards apply as to the model's answer: *protect* needs a safety signal (concern
level or a careful turn), *celebrate* is refused where ``no_celebration`` says so, and
*guide* becomes *witness* in a careful turn or when advice was declined.
"""

from __future__ import annotations

from typing import Final, Literal

from rilai_desktop.turn.deliberation.council_rules import (
    SAFETY_CONCERN_THRESHOLD,
    Ruling,
    advice_declined,
    after_disclosure,
    careful,
    celebration_cue,
    no_celebration,
)
from rilai_desktop.turn.state import TurnState

Mode = Literal["first", "open", "off"]
MODES: Final[tuple[str, ...]] = ("model", "first", "open", "off")


def doubts_celebration(state: TurnState) -> str:
    """Why the model's *celebrate* is not believed ("" when it is): no good-news phrase in
    the message and the classifier ranks celebrate below its top two. The medium model
    answered "im so bored" with celebrate ("Let's celebrate some good news together!",
    issue 28's test conversations); the classifier read it observe 0.40, meta, witness."""
    reading = state.intent_reading
    if reading is None or celebration_cue(state.user_text):
        return ""
    top = sorted(reading.probabilities, key=lambda k: -reading.probabilities[k])[:2]
    if "celebrate" in top:
        return ""
    return f"no good news in it and the classifier reads {top[0]}"


def is_hard(ruling: Ruling) -> bool:
    """Safety, silence and injection: what no classifier may change."""
    return ruling.intent == "protect" or not ruling.speak or not ruling.use_claims


def classified_intent(state: TurnState, ruling: Ruling, mode: str) -> tuple[str, str] | None:
    """(intent, reason) from the classifier, or None where it does not decide."""
    reading = state.intent_reading
    if reading is not None and mode == "model":
        mode = reading.mode
    if mode == "off" or reading is None or is_hard(ruling):
        return None
    if mode == "open" and ruling.intent is not None:
        return None
    if not reading.sure:
        return None
    intent, confidence = reading.intent, reading.confidence
    why = f"classifier {intent} {confidence:.2f} ≥ {reading.confidence_threshold:.2f}"
    if intent == "protect" and not (
        state.sensor("safety_risk") >= SAFETY_CONCERN_THRESHOLD or after_disclosure(state)
    ):
        return None
    if intent == "celebrate" and (why_not := no_celebration(state)):
        return "witness", f"{why}, but {why_not} → witness"
    if intent == "guide" and careful(state):
        return "witness", f"{why}, but careful after a safety disclosure → witness"
    if intent == "guide" and advice_declined(state):
        return "witness", f"{why}, but advice was declined → witness"
    if intent == "meta" and ruling.intent == "observe":
        return None  # a question about what Rilai remembers: the memory rule's answer
    return intent, f"{why} → {intent}"
