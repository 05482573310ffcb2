"""A message that stays with an earlier safety disclosure, read inside the careful window.

"I keep thinking everyone would be better off without me." reaches the protective path; the
next message, "I haven't done anything. I just can't stop thinking it.", names nothing on
its own — every sensor reads 0 — yet it is the same disclosure, still open. Outside the
careful window such a message is ordinary rumination ("I can't stop thinking about it" after
an exam) and stays so; inside it (``CAREFUL_FLAG``), :func:`careful_reading` raises
``safety_risk`` to ``SAFETY_CONCERN_THRESHOLD`` with the person's words as evidence, so the
runner's SAFETY_INTERRUPT and the council's protect rule see it, logged like any reading.

Cues: the thought that will not stop ("can't stop thinking (about) it", "the thoughts won't
go away", "it keeps coming back"), dwelling on it ("I think about it all the time"), and an
answer about acting on it ("I haven't done anything (yet)", "I haven't acted on it").
"""

from __future__ import annotations

import re
from typing import Final

from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.sensors.fast import SAFETY_CONCERN_THRESHOLD

_IT: Final = r"(?:about )?(?:it|that|this|them|those thoughts|these thoughts|the thoughts)\b"
DWELL_CUES: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\b(?:can'?t|cannot|can not|couldn'?t) (?:stop|help) (?:thinking|think) {_IT}",
        rf"\b(?:keep|kept|am always|i'?m always) (?:thinking|coming back to) {_IT}",
        rf"\bi think {_IT} (?:all the time|constantly|every (?:day|night)|a lot)\b",
        r"\b(?:the|these|those|my) thoughts? (?:won'?t|don'?t|doesn'?t|never) (?:stop|go away"
        r"|leave)\b|\b(?:the|these|those) thoughts? (?:keep|keeps) (?:coming|getting)\b",
        r"\bit (?:keeps|kept) coming back\b|\bit won'?t (?:go away|stop|leave me)\b",
        r"\bi (?:haven'?t|have not|didn'?t|did not) (?:done|do) anything(?: yet)?\b"
        r"|\bi (?:haven'?t|have not) acted on it\b",
        r"\b(?:it'?s|it is) (?:always )?(?:there|in my head) (?:all the time|every day|always)\b",
    )
)


def dwelling(text: str) -> str | None:
    """The first words of ``text`` that stay with the disclosure, or None."""
    for cue in DWELL_CUES:
        found = cue.search(text)
        if found:
            return found.group(0)
    return None


def careful_reading(reading: SensorOutput, text: str) -> SensorOutput:
    """``reading`` raised to the concern level when ``text`` dwells on the disclosure
    (call it only in a careful turn); otherwise ``reading`` unchanged."""
    if reading.probability >= SAFETY_CONCERN_THRESHOLD:
        return reading
    span = dwelling(text)
    if span is None:
        return reading
    return SensorOutput(
        sensor=reading.sensor,
        probability=SAFETY_CONCERN_THRESHOLD,
        evidence=[span, *reading.evidence][:5],
        counterevidence=list(reading.counterevidence),
        notes="careful: stays with the earlier disclosure",
    )
