"""Runs one agent: a grammar-constrained model call → a validated AgentOutput, or quiet.

Every call is bounded: the reply schema caps what the model may write, and a per-agent
timeout is enforced while the reply streams (the stream is closed, which releases the
model). Any failure — a model error, a timeout, a reply the contract refuses — becomes
an AGENT_FAILED event and a quiet output; it never crashes the turn.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rilai_desktop.contracts import AgentOutput, EventKind
from rilai_desktop.contracts.agent_schema import agent_output_from_reply, agent_reply_schema
from rilai_desktop.llm.port import LLM, ChatMessage, Completion, CompletionStream
from rilai_desktop.turn.agent_context import agent_messages
from rilai_desktop.turn.grounding import Grounding, split_grounded
from rilai_desktop.turn.registry import AgentSpec
from rilai_desktop.turn.state import Emit

# Lean on purpose: with the grammar each generated token costs ~23 ms on the small model
# (measured), and a turn runs six or more agents. One short observation and exactly one
# short claim: the 135M model answers an optional list with [] almost always; a forced
# claim that says nothing useful is dropped by grounding or ranks low (urgency 0).
OBSERVATION_CHARS = 48
CLAIM_CHARS = 64
MAX_CLAIMS = 1
MAX_TOKENS = 120
# The optional fields' worst case on top (a memory entry of up to 120 characters, a stance
# step): the grammar bounds every string, so a reply that uses them still closes in budget.
EXTRA_TOKENS = {"memory_candidates": 60, "stance_delta": 20}


class AgentTimeout(Exception):
    """The agent's reply did not finish within its time limit."""


@dataclass(frozen=True)
class AgentRun:
    output: AgentOutput
    failed: bool
    error: str
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    ms: float


class AgentRunner:
    def __init__(
        self,
        model: LLM,
        system_text: str,
        *,
        timeout_s: float = 20.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.model = model
        self.system_text = system_text
        self.timeout_s = timeout_s
        self._clock = clock
        self._schemas: dict[tuple[str, ...], dict[str, Any]] = {}

    @staticmethod
    def max_tokens_for(spec: AgentSpec) -> int:
        return MAX_TOKENS + sum(EXTRA_TOKENS.get(o, 0) for o in set(spec.manifest.outputs))

    def schema_for(self, spec: AgentSpec) -> dict[str, Any]:
        key = tuple(sorted(o for o in spec.manifest.outputs if o != "claims"))
        if key not in self._schemas:
            self._schemas[key] = agent_reply_schema(
                key,
                observation_chars=OBSERVATION_CHARS,
                claim_chars=CLAIM_CHARS,
                max_claims=MAX_CLAIMS,
                min_claims=1,
            )
        return self._schemas[key]

    def run(
        self,
        spec: AgentSpec,
        context: str,
        emit: Emit,
        *,
        wave: int,
        followup: str = "",
        why: tuple[str, ...] = (),
    ) -> AgentRun:
        """AGENT_STARTED, the model call (its own events), then AGENT_COMPLETED or FAILED."""
        emit(
            EventKind.AGENT_STARTED,
            {"agent_id": spec.id, "wave": wave, "followup": bool(followup), "why": list(why)},
        )
        start = self._clock()
        messages = agent_messages(self.system_text, context, spec, followup=followup)
        try:
            completion = self._call(messages, self.schema_for(spec), self.max_tokens_for(spec))
            ms = (self._clock() - start) * 1000
            if not isinstance(completion.parsed, dict):
                raise ValueError(f"the reply is not a JSON object: {completion.text[:80]!r}")
            output = agent_output_from_reply(
                spec.id, completion.parsed, processing_time_ms=round(ms)
            )
            grounding = Grounding.of(context, f"{self.system_text}\n{spec.prompt}")
            kept, dropped = split_grounded(output.claims, grounding)
            if dropped:
                output = output.model_copy(update={"claims": kept})
            memory = output.memory_candidates or []
            kept_memory = [m for m in memory if grounding.why_not_memory(m.content) is None]
            dropped_memory = [m.content for m in memory if m not in kept_memory]
            if dropped_memory:
                output = output.model_copy(update={"memory_candidates": kept_memory or None})
        except Exception as exc:  # a failing agent must never crash the turn
            ms = (self._clock() - start) * 1000
            error = f"{type(exc).__name__}: {exc}"[:500]
            emit(EventKind.AGENT_FAILED, {"agent_id": spec.id, "error": error, "wave": wave})
            return AgentRun(AgentOutput.quiet(spec.id), True, error, 0, 0, 0, ms)
        payload = completed_payload(output, wave=wave)
        if dropped:
            payload["dropped_claims"] = dropped
        if dropped_memory:
            payload["dropped_memory"] = dropped_memory
        emit(EventKind.AGENT_COMPLETED, payload)
        usage = completion.usage
        return AgentRun(
            output,
            False,
            "",
            usage.prompt_tokens,
            usage.cached_prompt_tokens,
            usage.completion_tokens,
            ms,
        )

    def _call(
        self, messages: list[ChatMessage], schema: dict[str, Any], max_tokens: int = MAX_TOKENS
    ) -> Completion:
        stream = self.model.complete(
            messages, schema=schema, max_tokens=max_tokens, temperature=0.2, stream=True
        )
        if isinstance(stream, Completion):  # an adapter that does not stream
            return stream
        deadline = self._clock() + self.timeout_s
        pieces = iter(stream)
        try:
            for _ in pieces:
                if self._clock() > deadline:
                    raise AgentTimeout(f"no complete reply within {self.timeout_s:g} s")
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()  # releases the model even when we stop early
        assert isinstance(stream, CompletionStream)
        return stream.result


def completed_payload(output: AgentOutput, *, wave: int) -> dict[str, Any]:
    """The AGENT_COMPLETED payload: the seed's fields plus wave and memory candidates."""
    return {
        "agent_id": output.agent_id,
        "observation": output.observation,
        "salience": output.salience,
        "urgency": output.urgency,
        "confidence": output.confidence,
        "claims": [c.model_dump(mode="json") for c in output.claims],
        "stance_delta": output.stance_delta,
        "memory_candidates": [m.model_dump(mode="json") for m in output.memory_candidates or []],
        "processing_time_ms": output.processing_time_ms,
        "wave": wave,
    }
