"""What a model is asked to return for an agent, and how that becomes an AgentOutput.

The model fills only what only it can: an observation, urgency, confidence, a few typed
claims and an optional stance nudge. Ids, the agent id, salience and clamping are ours.
Integer ranges are ``enum`` lists because llama.cpp's schema → grammar conversion does not
enforce ``minimum``/``maximum`` (DESIGN.md); string lengths are kept short so a reply always
closes within its token budget. The result is validated by the AgentOutput contract.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from rilai_desktop.contracts.agent import AgentOutput, Claim, ClaimType
from rilai_desktop.contracts.workspace import STANCE_DIMENSIONS

MAX_CLAIMS = 2
OBSERVATION_CHARS = 140
CLAIM_CHARS = 80
STANCE_DELTA_LIMIT = 0.15
# A reply is at most ~300 characters of text plus keys; even a degenerate, repetitive
# reply closes well inside this budget (measured: <= 250 tokens on the small model).
AGENT_REPLY_MAX_TOKENS = 400


def agent_reply_schema() -> dict[str, Any]:
    """The JSON schema a model's agent reply is constrained to."""
    level = {"type": "integer", "enum": [0, 1, 2, 3]}
    return {
        "type": "object",
        "properties": {
            "observation": {"type": "string", "minLength": 1, "maxLength": OBSERVATION_CHARS},
            "urgency": level,
            "confidence": level,
            "claims": {
                "type": "array",
                "maxItems": MAX_CLAIMS,
                "items": {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "enum": [t.value for t in ClaimType]},
                        "text": {"type": "string", "minLength": 1, "maxLength": CLAIM_CHARS},
                    },
                    "required": ["type", "text"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["observation", "urgency", "confidence", "claims"],
        "additionalProperties": False,
    }


def _clamp(value: float) -> float:
    return max(-STANCE_DELTA_LIMIT, min(STANCE_DELTA_LIMIT, value))


def agent_output_from_reply(
    agent_id: str, reply: Mapping[str, Any], *, processing_time_ms: int = 0
) -> AgentOutput:
    """Build (and so validate) an AgentOutput from a parsed agent reply."""
    urgency = int(reply["urgency"])
    confidence = int(reply["confidence"])
    claims = [
        Claim(
            id=str(uuid.uuid4()),
            text=str(c["text"]).strip()[:200],
            type=ClaimType(c["type"]),
            source_agent=agent_id,
            urgency=urgency,
            confidence=confidence,
        )
        for c in reply.get("claims", [])
        if str(c.get("text", "")).strip()
    ]
    raw_delta = reply.get("stance_delta") or {}
    delta = {k: _clamp(float(v)) for k, v in raw_delta.items() if k in STANCE_DIMENSIONS}
    return AgentOutput(
        agent_id=agent_id,
        observation=str(reply["observation"]).strip()[:300] or "Quiet",
        salience=urgency * confidence / 9,
        urgency=urgency,
        confidence=confidence,
        claims=claims,
        stance_delta=delta or None,
        processing_time_ms=processing_time_ms,
    )
