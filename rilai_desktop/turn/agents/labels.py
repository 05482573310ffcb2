"""What a 135M agent is asked for, and how code turns its choice into an AgentOutput.

Measured on real turns (issue 16): asked for a free-text observation and a claim, the small
model copied its own instructions ("You read the person's overall emotional state, a…") or
Rilai's previous reply back; nothing it wrote reached the council usefully. What it can do
reliably is *choose*: so an agent now answers one short question with

- ``present``: "yes" / "no" — does what it looks for show in this message;
- ``label``: one of its own labels, declared in its manifest (``labels:``);
- ``confidence``: 0–3;
- ``span`` (optional): a few words of the person's message, kept only if they really are
  a substring of it (checked here), and a failure if they copy the agent's instructions or
  an earlier Rilai reply (``grounding.copied_run``).

Everything the council and deliberation read — the observation, the claim's text, type and
urgency, the stance nudge, a memory candidate — is composed here, from the label's entry
in the manifest (text a person wrote). The structured writer (``llm/json_writer.py``)
constrains the reply to the enums, so the model spends a decode step only on its choices
and the span.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final

from rilai_desktop.contracts import AgentOutput, Claim, ClaimType
from rilai_desktop.contracts.memory import MemoryCandidate
from rilai_desktop.turn.agents.registry import AgentSpec, Label

PRESENT: Final[tuple[str, str]] = ("yes", "no")
LEVELS: Final[list[int]] = [0, 1, 2, 3]
SPAN_CHARS: Final[int] = 48  # a few words; the writer closes the string at this cap
MIN_CLAIM_CONFIDENCE: Final[int] = 1  # "present" at confidence 0 is not a claim
MEMORY_CONFIDENCE: Final[int] = 2  # a memory candidate needs a span and this much
MEMORY_IMPORTANCE: Final[float] = 0.3
_SPACES = re.compile(r"\s+")


class AgentCopied(ValueError):
    """The agent's free text copies its own instructions or an earlier Rilai reply."""


def label_schema(labels: Sequence[str]) -> dict[str, Any]:
    """The JSON schema of an agent's answer: fixed key order, enums, one capped string."""
    return {
        "type": "object",
        "properties": {
            "present": {"type": "string", "enum": list(PRESENT)},
            "label": {"type": "string", "enum": list(labels)},
            "confidence": {"type": "integer", "enum": LEVELS},
            "span": {"type": "string", "minLength": 1, "maxLength": SPAN_CHARS},
        },
        "required": ["present", "label", "confidence"],
        "additionalProperties": False,
    }


def _flat(text: str) -> str:
    return _SPACES.sub(" ", text.replace("\u2019", "'").replace("\u2018", "'")).strip()


def grounded_span(span: str, message: str) -> str | None:
    """The span as it appears in the person's message (case and spacing aside), or None.

    The model may write "Evenings are hard" for "…but evenings are hard."; what is kept is
    the message's own text, so nothing the model invented can ride along.
    """
    needle = _flat(span).strip(" .,;:!?\"'").casefold()
    if len(needle) < 2:
        return None
    hay = _flat(message)
    at = hay.casefold().find(needle)
    if at < 0:
        return None
    before_ok = at == 0 or not hay[at - 1].isalnum()
    end = at + len(needle)
    after_ok = end >= len(hay) or not hay[end].isalnum()
    return hay[at:end] if before_ok and after_ok else None


def compose_output(
    spec: AgentSpec,
    reply: Mapping[str, Any],
    span: str | None,
    *,
    sensors: Mapping[str, float] | None = None,
    processing_time_ms: int = 0,
) -> AgentOutput:
    """The AgentOutput for a parsed answer; ``span`` is already grounded (or None).

    A claim is made only when the label is present with confidence ≥ 1; its text, type and
    urgency are the label's manifest entry. Quiet otherwise (urgency 0, no claims), with the
    label still recorded for /why and ``rilai eval agents``. A label with a ``gate`` speaks
    only when ``sensors`` read at least its floors.
    """
    name = str(reply.get("label", ""))
    label = spec.label(name)
    if label is None:
        raise ValueError(f"label {name!r} is not one of {[lab.name for lab in spec.labels]}")
    present = reply.get("present") == "yes"
    confidence = max(0, min(3, int(reply.get("confidence", 0))))
    readings = sensors or {}
    gated = any(readings.get(name, 0.0) < floor for name, floor in label.gate.items())
    speaks = present and confidence >= MIN_CLAIM_CONFIDENCE and not gated
    claims = [_claim(spec.id, label, confidence)] if speaks else []
    quote = f" ('{span}')" if span else ""
    status = "gated by the sensors" if present and gated else "not here"
    observation = (label.claim if speaks else f"{status}: {label.claim}") + quote
    outputs = set(spec.manifest.outputs)
    delta = dict(label.stance) if speaks and "stance_delta" in outputs else {}
    memory = (
        [
            MemoryCandidate(
                type="user_fact",
                content=f'{label.claim}: "{span}"'[:300],
                importance=MEMORY_IMPORTANCE,
                source_agent=spec.id,
            )
        ]
        if speaks and span and confidence >= MEMORY_CONFIDENCE and "memory_candidates" in outputs
        else []
    )
    urgency = label.urgency if speaks else 0
    return AgentOutput(
        agent_id=spec.id,
        observation=observation[:300],
        salience=urgency * confidence / 9,
        urgency=urgency,
        confidence=confidence if speaks else 0,
        claims=claims,
        stance_delta=delta or None,
        memory_candidates=memory or None,
        processing_time_ms=processing_time_ms,
        label=label.name,
        present=present,
        span=span,
    )


def _claim(agent_id: str, label: Label, confidence: int) -> Claim:
    return Claim(
        id=str(uuid.uuid4()),
        text=label.claim[:200],
        type=ClaimType(label.type),
        source_agent=agent_id,
        urgency=label.urgency,
        confidence=confidence,
    )
