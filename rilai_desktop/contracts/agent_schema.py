"""What a model is asked to return for an agent, and how that becomes an AgentOutput.

The model fills only what only it can: an observation, urgency, confidence, a few typed
claims and an optional stance nudge. Ids, the agent id, salience and clamping are ours.
Integer ranges are ``enum`` lists because llama.cpp's schema → grammar conversion does not
enforce ``minimum``/``maximum`` (DESIGN.md); string lengths are kept short so a reply always
closes within its token budget. The result is validated by the AgentOutput contract.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from rilai_desktop.contracts.agent import AgentOutput, Claim, ClaimType
from rilai_desktop.contracts.memory import MemoryCandidate
from rilai_desktop.contracts.numbers import clamp
from rilai_desktop.contracts.workspace import STANCE_DIMENSIONS

MAX_CLAIMS = 2
OBSERVATION_CHARS = 140
CLAIM_CHARS = 80
STANCE_DELTA_LIMIT = 0.15
# A reply is at most ~300 characters of text plus keys; even a degenerate, repetitive
# reply closes well inside this budget (measured: <= 250 tokens on the small model).
AGENT_REPLY_MAX_TOKENS = 400
MEMORY_CHARS = 120
STANCE_STEPS = (-0.15, -0.1, -0.05, 0.05, 0.1, 0.15)
MEMORY_TYPES = ("user_fact", "goal", "episodic")
IMPORTANCE_STEPS = (0.3, 0.6, 0.9)


def agent_reply_schema(
    outputs: Sequence[str] = (),
    *,
    observation_chars: int = OBSERVATION_CHARS,
    claim_chars: int = CLAIM_CHARS,
    max_claims: int = MAX_CLAIMS,
    min_claims: int = 0,
) -> dict[str, Any]:
    """The JSON schema a model's agent reply is constrained to.

    ``outputs`` are the manifest's ``outputs``: an agent that may emit ``stance_delta``
    gets an optional ``stance`` field (one dimension, one step), one that may emit
    ``memory_candidates`` an optional ``memory`` list of at most one entry. Agents
    without them pay no tokens for them.
    """
    schema = _base_schema(observation_chars, claim_chars, max_claims)
    if min_claims:  # a tiny model otherwise takes the empty list as the easy way out
        schema["properties"]["claims"]["minItems"] = min_claims
    props = schema["properties"]
    if "stance_delta" in outputs:
        props["stance"] = {
            "type": "object",
            "properties": {
                "dimension": {"type": "string", "enum": list(STANCE_DIMENSIONS)},
                "change": {"type": "number", "enum": list(STANCE_STEPS)},
            },
            "required": ["dimension", "change"],
            "additionalProperties": False,
        }
    if "memory_candidates" in outputs:
        props["memory"] = {
            "type": "array",
            "maxItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": list(MEMORY_TYPES)},
                    "content": {"type": "string", "minLength": 1, "maxLength": MEMORY_CHARS},
                    "importance": {"type": "number", "enum": list(IMPORTANCE_STEPS)},
                },
                "required": ["type", "content", "importance"],
                "additionalProperties": False,
            },
        }
    return schema


def _base_schema(observation_chars: int, claim_chars: int, max_claims: int) -> dict[str, Any]:
    level = {"type": "integer", "enum": [0, 1, 2, 3]}
    return {
        "type": "object",
        "properties": {
            "observation": {"type": "string", "minLength": 1, "maxLength": observation_chars},
            "urgency": level,
            "confidence": level,
            "claims": {
                "type": "array",
                "maxItems": max_claims,
                "items": {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "enum": [t.value for t in ClaimType]},
                        "text": {"type": "string", "minLength": 1, "maxLength": claim_chars},
                    },
                    "required": ["type", "text"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["observation", "urgency", "confidence", "claims"],
        "additionalProperties": False,
    }


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
    raw_delta = dict(reply.get("stance_delta") or {})
    stance = reply.get("stance")
    if isinstance(stance, Mapping) and stance.get("dimension") in STANCE_DIMENSIONS:
        raw_delta[str(stance["dimension"])] = float(stance.get("change", 0.0))
    limit = STANCE_DELTA_LIMIT  # a NaN or infinite change is no change
    delta = {
        k: clamp(float(v), -limit, limit, fallback=0.0)
        for k, v in raw_delta.items()
        if k in STANCE_DIMENSIONS
    }
    memory = [
        MemoryCandidate(
            type=m["type"],
            content=str(m["content"]).strip(),
            importance=clamp(float(m.get("importance", 0.5)), fallback=0.5),
            source_agent=agent_id,
        )
        for m in reply.get("memory") or []
        if isinstance(m, Mapping)
        and m.get("type") in MEMORY_TYPES
        and str(m.get("content", "")).strip()
    ]
    return AgentOutput(
        agent_id=agent_id,
        observation=str(reply["observation"]).strip()[:300] or "Quiet",
        salience=urgency * confidence / 9,
        urgency=urgency,
        confidence=confidence,
        claims=claims,
        stance_delta=delta or None,
        memory_candidates=memory or None,
        processing_time_ms=processing_time_ms,
    )
