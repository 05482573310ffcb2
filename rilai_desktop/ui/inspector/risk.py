"""The conversation's safety risk for one turn, in words (no Qt).

Each turn's SENSORS_FAST_UPDATED logs the conversation's risk state under ``risk``
(``turn.safety_state.Assessment.as_payload``): the level after the turn, the careful
window's turns still to come, whether the turn was careful or protective, the situation
flags and the reasons. The inspector's Sensors tab and the "Why?" panel (``why_panel.py``)
read it here. An older log has no ``risk``: :func:`read_risk` says None and nothing is
shown.

The ``safety_risk`` reading's notes may carry the exemplar bank's band (``bank grey
+0.12 r0.05 ≈ "nearest"``) and the model check's verdict (``check yes 2`` / ``check
no``); they are read from the payload's ``notes`` (sensor name → note) when it has one.

Every reader here is forgiving: a missing or mistyped field reads as nothing, never an
error (the inspector may be replaying any log).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rilai_desktop.contracts import EngineEvent, EventKind
from rilai_desktop.ui.inspector.fields import as_dict, as_float, as_int, as_str, as_strs

QUIET_LEVEL = 0.005  # a level under this reads 0.00: "no safety concern"

# the situation flags (turn.safety_state), in the inspector's words
SITUATIONS = {
    "safety_repeat": "repeat (protective again soon after the last one)",
    "safety_presence": "asked Rilai to stay",
    "safety_retraction": "played it down",
    "safety_means": "means after distress",
}

# the assessment's reasons (turn.safety_state.assess), as the "Why?" panel says them to
# the person: plain, kind, and without numbers (a reason with a number is matched by its
# start). The first matching prefix wins.
REASON_WORDS: tuple[tuple[str, str], ...] = (
    ("stays with the earlier disclosure", "you came back to what you told me earlier"),
    (
        "a question about means after distress",
        "you asked about something that could hurt you soon after telling me things were hard",
    ),
    ("a question about means", "you asked about something that could hurt you"),
    ("weak signals added up", "a few small things you said added up"),
    ("asks Rilai to stay", "you asked me to stay with you"),
    ("plays the disclosure down", "you said it was nothing and I didn't want to let it drop"),
    (
        "concern-level words within",
        "what you said sounded serious so soon after you told me things were hard",
    ),
    ("safety_risk at the interrupt threshold", "what you wrote sounded like you might not be safe"),
    ("careful:", "you told me earlier that things were hard"),
)
HEAVY = "what you said sounded heavy"  # careful with no reason logged
WORRIED = "something you said worried me"  # a reason this version has no words for

_BANK = re.compile(
    r'bank (grey|weak|hit) ([+\-−]?\d+(?:\.\d+)?) r(\d+(?:\.\d+)?)(?: ≈ "([^"]*)("?))?'
)
_CHECK = re.compile(r"check (yes|no)(?: (\d))?")
BANDS = {
    "hit": "close to a risk example",
    "weak": "near a risk example",
    "grey": "in the grey band",
}


@dataclass(frozen=True)
class TurnRisk:
    """One turn's conversation risk, as its SENSORS_FAST_UPDATED logged it."""

    level: float  # after the turn, [0, 1]
    careful_left: int  # careful turns still to come after this one
    turn_risk: float | None  # this turn's safety_risk in context
    careful: bool  # this turn ran careful
    protect: bool  # this turn got the protective reply
    situation: tuple[str, ...]  # flags: safety_repeat, safety_presence, …
    reasons: tuple[str, ...]
    level_before: float | None  # the level the turn started from (aged), if logged
    bank: str = ""  # the exemplar bank's note in words, "" when none
    check: str = ""  # the model check's verdict in words, "" when none

    @property
    def quiet(self) -> bool:
        """Nothing to say: level 0, not careful, no careful turns left."""
        return (
            self.level < QUIET_LEVEL
            and not self.careful
            and not self.protect
            and self.careful_left <= 0
        )

    def verdict(self) -> str:
        """``protect`` / ``careful`` / ``not careful`` for this turn."""
        if self.protect:
            return "protect"
        return "careful" if self.careful else "not careful"

    def window(self) -> str:
        """The careful window after this turn, in words."""
        if self.careful_left > 0:
            return f"careful: {turns_left(self.careful_left)}"
        return "not careful"

    def situation_words(self) -> list[str]:
        return [situation_word(flag) for flag in self.situation]


def turns_left(count: int) -> str:
    return f"{count} turn{'' if count == 1 else 's'} left"


def situation_word(flag: str) -> str:
    """A situation flag in words (an unknown one: its name without ``safety_``)."""
    return SITUATIONS.get(flag) or flag.removeprefix("safety_").replace("_", " ")


def read_risk(payload: object) -> TurnRisk | None:
    """The risk a SENSORS_FAST_UPDATED ``payload`` logged, or None (an older event, or a
    ``risk`` that is not one)."""
    data = as_dict(payload)
    risk = data.get("risk")
    if not isinstance(risk, Mapping):
        return None
    fields = as_dict(risk)
    level = as_float(fields.get("level"))
    if level is None:
        return None
    turn_risk = as_float(fields.get("turn_risk"))
    before = as_float(as_dict(fields.get("before")).get("level"))
    note = as_str(as_dict(data.get("notes")).get("safety_risk"))
    return TurnRisk(
        level=_unit(level),
        careful_left=max(0, as_int(fields.get("careful_left"), 0) or 0),
        turn_risk=None if turn_risk is None else _unit(turn_risk),
        careful=fields.get("careful") is True,
        protect=fields.get("protect") is True,
        situation=tuple(as_strs(fields.get("situation"))),
        reasons=tuple(as_strs(fields.get("reasons"))),
        level_before=None if before is None else _unit(before),
        bank=bank_words(note),
        check=check_words(note),
    )


def turn_risk(events: Iterable[EngineEvent]) -> TurnRisk | None:
    """The risk the turn's SENSORS_FAST_UPDATED logged (the last one), from its events."""
    found: TurnRisk | None = None
    for event in events:
        if event.kind is EventKind.SENSORS_FAST_UPDATED:
            found = read_risk(event.payload) or found
    return found


def bank_words(note: str) -> str:
    """The exemplar bank's note (``bank grey +0.12 r0.05 ≈ "…"``) in words, or ""."""
    found = _BANK.search(note or "")
    if found is None:
        return ""
    band, margin, rules, nearest, closed = found.groups()
    words = f"{BANDS[band]} (margin {margin.replace('-', '−')}, rules {rules})"
    nearest = (nearest or "").strip()
    if nearest and not closed:
        nearest += "…"  # the note was cut at its 100 characters
    return words + (f", nearest “{nearest}”" if nearest else "")


def check_words(note: str) -> str:
    """The model check's verdict (``check yes 2`` / ``check no``) in words, or ""."""
    found = _CHECK.search(note or "")
    if found is None:
        return ""
    verdict, severity = found.groups()
    if verdict == "no":
        return "no risk"
    return "risk" + (f", severity {severity}" if severity else "")


def reason_words(reason: str) -> str:
    """One logged reason as the "Why?" panel says it to the person (no numbers)."""
    for start, words in REASON_WORDS:
        if reason.startswith(start):
            return words
    return WORRIED if any(c.isdigit() for c in reason) or not reason.strip() else reason.strip()


def why_sentence(risk: TurnRisk | None) -> str:
    """One sentence for a careful or protective turn ("" for any other), built from the
    reasons; the only number in it is the careful turns left."""
    if risk is None or not (risk.careful or risk.protect):
        return ""
    phrases: list[str] = []
    for reason in risk.reasons:
        words = reason_words(reason)
        if words not in phrases:
            phrases.append(words)
    said = _joined(phrases or [HEAVY])
    if risk.protect:
        left = f" (careful: {turns_left(risk.careful_left)})" if risk.careful_left > 0 else ""
        return f"I answered with support because {said}{left}."
    left = turns_left(risk.careful_left) if risk.careful_left > 0 else "the last careful turn"
    return f"Careful: {said} ({left})."


def _joined(phrases: list[str]) -> str:
    """'a'; 'a, and b'; 'a, b, and c' (the phrases are long: the comma keeps them apart)."""
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + ", and " + phrases[-1]


def _unit(value: float) -> float:
    return min(1.0, max(0.0, value))
