"""Runs one agent: a constrained model call → a label answer → a validated AgentOutput.

The model answers with a label, yes/no, a confidence and an optional span of the person's
message (``labels.py``); the observation and claims are composed from those by code.
Every call is bounded: the reply schema caps what the model may write, and a per-agent
timeout is enforced while the reply streams (the stream is closed, which releases the
model). Any failure — a model error, a timeout, a reply the contract refuses, a span that
copies the agent's own instructions or an earlier Rilai reply — becomes an AGENT_FAILED
event (``error`` and a short ``reason``) and a quiet output; it never crashes the turn.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rilai_desktop.contracts import AgentOutput, Claim, EventKind
from rilai_desktop.contracts.llm import LLM, ChatMessage, Completion, CompletionStream
from rilai_desktop.turn.agents.context import agent_messages
from rilai_desktop.turn.agents.grounding import Grounding, copied_run
from rilai_desktop.turn.agents.labels import (
    AgentCopied,
    compose_output,
    grounded_span,
    label_schema,
)
from rilai_desktop.turn.agents.registry import AgentSpec
from rilai_desktop.turn.state import Emit

# A label answer is ~25 tokens of keys and choices plus a span of a few words; the writer
# closes the span at SPAN_CHARS, so even an ASCII span of one token per character (the
# worst case, ~75 tokens in all, more with multi-byte pieces) closes inside this (96 was cut
# once by the property test). Unused tokens cost nothing.
MAX_TOKENS = 128
_MESSAGE = re.compile(r'^The person says: "(.*)"$', re.MULTILINE)


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
        return MAX_TOKENS

    def schema_for(self, spec: AgentSpec) -> dict[str, Any]:
        key = tuple(lab.name for lab in spec.labels)
        if key not in self._schemas:
            self._schemas[key] = label_schema(key)
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
        user_text: str | None = None,
        rilai_said: Sequence[str] = (),
        sensors: Mapping[str, float] | None = None,
        claims: Sequence[Claim] = (),
    ) -> AgentRun:
        """AGENT_STARTED, the model call (its own events), then AGENT_COMPLETED or FAILED.

        ``user_text`` is the person's message (spans are checked against it; read from the
        context when not given); ``rilai_said`` are Rilai's earlier replies (a span that
        copies one fails); ``sensors`` open the labels' gates; ``claims`` are the claims so
        far, read by an agent that declares ``active_claims``.
        """
        emit(
            EventKind.AGENT_STARTED,
            {"agent_id": spec.id, "wave": wave, "followup": bool(followup), "why": list(why)},
        )
        start = self._clock()
        messages = agent_messages(self.system_text, context, spec, followup=followup, claims=claims)
        message = user_text if user_text is not None else _message_of(context)
        dropped_span = ""
        try:
            if not spec.labels:
                raise ValueError(f"{spec.id} declares no labels (docs/agents.md)")
            completion = self._call(messages, self.schema_for(spec), self.max_tokens_for(spec))
            ms = (self._clock() - start) * 1000
            parsed = completion.parsed
            if not isinstance(parsed, dict):
                raise ValueError(f"the reply is not a JSON object: {completion.text[:80]!r}")
            raw_span = str(parsed.get("span") or "").strip()
            span = grounded_span(raw_span, message) if raw_span else None
            if raw_span and span is None:
                sources = [
                    ("its own instructions", f"{self.system_text}\n{messages[-1].content}"),
                    *(("an earlier Rilai reply", said) for said in rilai_said if said),
                ]
                copy = copied_run(raw_span, sources)
                if copy is not None:
                    raise AgentCopied(f"{copy}: {raw_span[:80]!r}")
                dropped_span = raw_span
            output = compose_output(
                spec, parsed, span, sensors=sensors, processing_time_ms=round(ms)
            )
            memory = output.memory_candidates or []
            grounding = Grounding.of(context, f"{self.system_text}\n{spec.prompt}")
            kept_memory = [m for m in memory if grounding.why_not_memory(m.content) is None]
            dropped_memory = [m.content for m in memory if m not in kept_memory]
            if dropped_memory:
                output = output.model_copy(update={"memory_candidates": kept_memory or None})
        except Exception as exc:  # a failing agent must never crash the turn
            ms = (self._clock() - start) * 1000
            error = f"{type(exc).__name__}: {exc}"[:500]
            emit(
                EventKind.AGENT_FAILED,
                {"agent_id": spec.id, "error": error, "wave": wave, "reason": failure_reason(exc)},
            )
            return AgentRun(AgentOutput.quiet(spec.id), True, error, 0, 0, 0, ms)
        payload = completed_payload(output, wave=wave)
        if dropped_span:
            payload["dropped_span"] = dropped_span
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
        "label": output.label,
        "present": output.present,
        "span": output.span,
    }


def failure_reason(exc: BaseException) -> str:
    """A short category for AGENT_FAILED (``rilai eval agents`` counts by it)."""
    if isinstance(exc, AgentCopied):
        return "copied"
    if isinstance(exc, AgentTimeout):
        return "timeout"
    if isinstance(exc, ValueError):
        return "invalid reply"
    return "model error"


def _message_of(context: str) -> str:
    """The person's message as the context quotes it (for callers that do not pass it)."""
    match = _MESSAGE.search(context)
    return match.group(1) if match else context
