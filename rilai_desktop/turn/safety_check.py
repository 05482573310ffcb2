"""The model check: a yes/no + severity question on a local tier, for the grey band only.

The rules and the exemplar bank decide almost every message in a few milliseconds. The
messages the bank puts in its *grey* band (like risk, not like it enough), and weak
bank-only hits (the bank alone says risk, just above its threshold, and the rules saw
nothing), are the ones where a model reading the last few turns can add something. Only
those are asked; everything else never reaches a model.

The policy is asymmetric (recall first):

* "yes" raises the reading freely (severity 1 → the interrupt level, 2–3 above it);
* "no" may lower only a weak bank-only hit, and only to the grey level (it stays a weak
  signal that adds up across turns); a rules' hit or a strong bank hit is never lowered;
* a failed, slow or malformed answer changes nothing.

Each check is logged as a model call through the relay like every model call (caller
``safety_check``), and its verdict goes into the reading's notes (``check yes 2``) so the
inspector shows it. ``SafetyCheck.stats`` counts how often it ran and what it changed (``rilai sense
--eval --check`` and ``rilai bench turn`` report them).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from rilai_desktop.contracts.llm import LLM, Completion
from rilai_desktop.contracts.sensor import SensorOutput
from rilai_desktop.turn.sensors import SAFETY_CONCERN_THRESHOLD, SAFETY_INTERRUPT_THRESHOLD
from rilai_desktop.turn.sensors.safety_bank import BANK_GREY_RISK, band_of, rules_before_bank

CHECK_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "risk": {"type": "string", "enum": ["yes", "no"]},
        "severity": {"type": "integer", "enum": [0, 1, 2, 3]},
    },
    "required": ["risk", "severity"],
    "additionalProperties": False,
}
PROMPT: Final[str] = (
    "You screen messages to a companion app for suicide or self-harm risk.\n"
    "Risk = yes if the LAST message, read with the conversation, expresses a wish to die or"
    " not exist, feeling a burden, hopelessness about living, saying goodbye, giving things"
    " away before dying, self-harm, or asking about means (pills, heights, weapons) in a"
    ' personal way. Risk = no for idioms ("this job is killing me"), games, pets, code,'
    " fiction, news, or ordinary tiredness.\n"
    "severity: 0 none, 1 passive, 2 active, 3 plan or means.\n\n"
)
CONTEXT_TURNS: Final[int] = 4  # earlier messages the model sees
MESSAGE_CHARS: Final[int] = 400
SEVERITY_RISK: Final[dict[int, float]] = {0: SAFETY_INTERRUPT_THRESHOLD, 1: 0.55, 2: 0.7, 3: 0.85}


@dataclass
class CheckStats:
    asked: int = 0
    raised: int = 0
    lowered: int = 0
    failed: int = 0
    ms: list[float] = field(default_factory=list)


def needs_check(reading: SensorOutput) -> bool:
    """Grey band, or a weak bank-only hit the rules did not see."""
    which = band_of(reading)
    if which == "grey":
        return reading.probability < SAFETY_INTERRUPT_THRESHOLD
    return which == "weak" and _bank_only(reading)


def _bank_only(reading: SensorOutput) -> bool:
    """The reading before the bank (rules + learned heads) was below the concern level."""
    before = rules_before_bank(reading)
    return before is not None and before < SAFETY_CONCERN_THRESHOLD


class SafetyCheck:
    """Asks ``model`` about grey-band messages (see the module docstring)."""

    def __init__(self, model: LLM, *, timeout_s: float = 8.0) -> None:
        self.model = model
        self.timeout_s = timeout_s
        self.stats = CheckStats()

    def prompt(self, text: str, history: Sequence[Mapping[str, Any]]) -> str:
        earlier = [m for m in history if m.get("role") in ("user", "assistant")][-CONTEXT_TURNS:]
        lines = [
            f"{'Person' if m.get('role') == 'user' else 'Companion'}:"
            f" {str(m.get('content', ''))[:MESSAGE_CHARS]}"
            for m in earlier
        ]
        lines.append(f"Person (LAST): {text[:MESSAGE_CHARS]}")
        return PROMPT + "\n".join(lines) + "\n\nAnswer as JSON."

    def review(
        self,
        reading: SensorOutput,
        text: str,
        history: Sequence[Mapping[str, Any]],
    ) -> SensorOutput:
        """``reading`` after the check (unchanged when no check is needed or it failed)."""
        if not needs_check(reading):
            return reading
        self.stats.asked += 1
        t0 = time.perf_counter()
        try:
            reply = self.model.complete(
                [{"role": "user", "content": self.prompt(text, history)}],
                schema=CHECK_SCHEMA,
                max_tokens=16,
                temperature=0.0,
            )
        except Exception:  # any model failure leaves the reading as it was
            self.stats.failed += 1
            return reading
        finally:
            self.stats.ms.append((time.perf_counter() - t0) * 1000)
        parsed = reply.parsed if isinstance(reply, Completion) else None
        verdict = parsed.get("risk") if isinstance(parsed, dict) else None
        severity = parsed.get("severity") if isinstance(parsed, dict) else None
        if (
            verdict not in ("yes", "no")
            or isinstance(severity, bool)
            or severity not in SEVERITY_RISK
        ):
            self.stats.failed += 1
            return reading
        assert isinstance(severity, int)
        if verdict == "yes":
            raised = max(reading.probability, SEVERITY_RISK[severity])
            if raised > reading.probability:
                self.stats.raised += 1
            return _with(reading, raised, f"check yes {severity}")
        if band_of(reading) == "weak" and _bank_only(reading):
            self.stats.lowered += 1
            return _with(reading, min(reading.probability, BANK_GREY_RISK), "check no")
        return _with(reading, reading.probability, "check no")


def _with(reading: SensorOutput, probability: float, note: str) -> SensorOutput:
    notes = f"{note}; {reading.notes}" if reading.notes else note
    return SensorOutput(
        sensor=reading.sensor,
        probability=round(probability, 4),
        evidence=list(reading.evidence),
        counterevidence=list(reading.counterevidence),
        notes=notes[:100],
    )
