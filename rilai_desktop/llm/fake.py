"""The LLM port's fake: a scripted model whose replies a test enqueues.

DESIGN: one small fake per port, shipped beside the real adapter; unit tests use it instead
of patching our own code. ``ScriptedLLM`` answers each ``complete`` call with the next queued
reply (or ``default``), records the request, and behaves like the real adapter where callers
can tell: ``as_messages`` checks, ``<think>`` splitting, ``stop``/``max_tokens`` truncation,
schema replies parsed and validated, streams (pieces are the raw generation, ``<think>``
included; ``result.text`` has it stripped). "Tokens" are whitespace-separated words. A
``guard`` is recorded with the request, not applied: scripted text is what a test wants.

``RoleModels`` hands out models by role, like the ``ModelRouter`` (what the turn and the
daemon ask for); ``agent_answer`` is a ScriptedLLM ``default`` that answers any agent's
label schema.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import takewhile
from typing import Any

from rilai_desktop.contracts.llm import (
    LLM,
    ChatMessage,
    Completion,
    CompletionStream,
    DecodeGuard,
    FinishReason,
    Usage,
)
from rilai_desktop.llm.errors import ModelCallError, ModelTimeoutError
from rilai_desktop.llm.messages import as_messages, split_reasoning

Reply = str | dict[str, Any]
# A reply computed from the request (e.g. the first label of an agent's enum): for a
# ``default`` that must fit many different schemas.
Responder = Callable[["Request"], Reply]


class _Timeout:
    """Queue marker: this call times out."""


@dataclass(frozen=True)
class Request:
    """One ``complete`` call as the fake received it (after ``as_messages``)."""

    messages: list[ChatMessage]
    schema: Mapping[str, Any] | None
    max_tokens: int
    temperature: float
    stop: tuple[str, ...] | None
    stream: bool
    guard: DecodeGuard | None = None


def _pieces(text: str) -> list[str]:
    """Word-sized pieces that keep their whitespace: ``"".join(_pieces(t)) == t``."""
    return re.findall(r"\s*\S+\s*", text) or ([text] if text else [])


def _prompt_words(messages: Sequence[ChatMessage]) -> list[str]:
    return "\n".join(m.content for m in messages).split()


class ScriptedLLM:
    """An in-memory LLM: ``enqueue`` replies, call ``complete``, inspect ``requests``."""

    def __init__(
        self,
        replies: Sequence[Reply] = (),
        *,
        default: Reply | Responder | None = None,
        model_id: str = "scripted",
    ) -> None:
        self._model_id = model_id
        # answered whenever the queue is empty (a callable is called with the request);
        # None: raise instead
        self.default = default
        self.requests: list[Request] = []
        self.prefills: list[list[ChatMessage]] = []  # prompts passed to prefill()
        self._queue: deque[Reply | Exception | _Timeout] = deque()
        for reply in replies:
            self.enqueue(reply)

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def pending(self) -> int:
        """How many queued replies (errors and timeouts included) are still unused."""
        return len(self._queue)

    def enqueue(self, reply: Reply) -> None:
        """Queue a text reply, or a dict for a schema call (sent as ``json.dumps(reply)``)."""
        if not isinstance(reply, str | dict):
            raise TypeError(f"enqueue() takes a str or a dict, not {type(reply).__name__}")
        if isinstance(reply, dict):
            json.dumps(reply)  # fail here, not at call time, if it is not JSON-able
        self._queue.append(reply)

    def enqueue_error(self, exc: Exception) -> None:
        """The next call raises ``exc`` (a stream raises it on its first iteration)."""
        self._queue.append(exc)

    def enqueue_timeout(self) -> None:
        """The next call raises ModelTimeoutError naming the model."""
        self._queue.append(_Timeout())

    def prefill(self, messages: Sequence[ChatMessage | Mapping[str, str]]) -> int:
        """Records the prompt (a scripted model has no cache): 0 tokens evaluated."""
        self.prefills.append(as_messages(messages))
        return 0

    def complete(
        self,
        messages: Sequence[ChatMessage | Mapping[str, str]],
        *,
        schema: Mapping[str, Any] | None = None,
        max_tokens: int = 256,
        temperature: float = 0.7,
        stop: Sequence[str] | None = None,
        stream: bool = False,
        guard: DecodeGuard | None = None,
    ) -> Completion | CompletionStream:
        start = time.perf_counter()
        msgs = as_messages(messages)
        prompt = _prompt_words(msgs)
        before = _prompt_words(self.requests[-1].messages) if self.requests else []
        same = takewhile(lambda ab: ab[0] == ab[1], zip(prompt, before, strict=False))
        cached = sum(1 for _ in same)  # words shared with the previous prompt's start
        stops = None if stop is None else tuple(stop)
        self.requests.append(Request(msgs, schema, max_tokens, temperature, stops, stream, guard))
        if self._queue:
            reply = self._queue.popleft()
        elif callable(self.default):
            reply = self.default(self.requests[-1])
        elif self.default is not None:
            reply = self.default
        else:
            raise ModelCallError(
                f"ScriptedLLM has no reply queued for call #{len(self.requests)}",
                recovery_suggestions=["enqueue() a reply per call, or pass default=..."],
            )

        def build() -> tuple[Completion, str]:  # and the raw generation, <think> included
            if isinstance(reply, _Timeout):
                raise ModelTimeoutError(
                    f"Model {self._model_id!r} did not answer in time (scripted timeout)",
                    context={"model": self._model_id},
                )
            if isinstance(reply, Exception):
                raise reply
            raw = reply if isinstance(reply, str) else json.dumps(reply)
            cuts = [raw.find(s) for s in stops or () if s and s in raw]
            raw = raw[: min(cuts)] if cuts else raw
            finish: FinishReason = "stop"
            if len(raw.split()) > max_tokens:
                raw, finish = "".join(_pieces(raw)[: max(max_tokens, 0)]).rstrip(), "length"
            text, reasoning = split_reasoning(raw)
            parsed = None if schema is None else _parse(text, schema, finish)
            usage = Usage(
                prompt_tokens=len(prompt),
                completion_tokens=len(raw.split()),
                cached_prompt_tokens=cached,
                reasoning_tokens=len(reasoning.split()) if reasoning else None,
            )
            ms = (time.perf_counter() - start) * 1000
            first_ms = ms if raw else None
            out = Completion(text, self._model_id, usage, ms, finish, parsed, reasoning, first_ms)
            return out, raw

        if not stream:
            return build()[0]
        done: list[Completion] = []

        def pieces() -> Iterator[str]:
            completion, raw = build()
            first_ms = (time.perf_counter() - start) * 1000 if raw else None
            yield from _pieces(raw)  # as generated, like the real adapter: <think> included
            ms = (time.perf_counter() - start) * 1000
            done.append(replace(completion, time_to_first_token_ms=first_ms, latency_ms=ms))

        return CompletionStream(pieces(), lambda: done[-1])


def _parse(text: str, schema: Mapping[str, Any], finish: FinishReason) -> Any:
    """Decode a schema call's reply and check it against the schema, as the grammar would."""
    try:
        parsed = json.loads(text, strict=False)
    except ValueError as exc:
        cut = " (cut short by max_tokens)" if finish == "length" else ""
        raise ModelCallError(
            f"ScriptedLLM reply for a schema call is not JSON{cut}: {exc}",
            context={"reply": text},
        ) from exc
    problem = schema_mismatch(parsed, schema)
    if problem is not None:
        raise ModelCallError(
            f"ScriptedLLM reply does not match the schema: {problem}", context={"reply": text}
        )
    return parsed


_TYPES: dict[str, Any] = dict(
    object=dict, array=list, string=str, integer=int, number=(int, float), boolean=bool
)
_TYPES["null"] = type(None)
_SIZE_KEYS = {str: ("minLength", "maxLength"), list: ("minItems", "maxItems")}


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES.get(kind, ()))


def schema_mismatch(value: Any, schema: Mapping[str, Any], path: str = "$") -> str | None:
    """The first way ``value`` breaks ``schema`` (the JSON Schema subset we use), or None.

    Checks type, properties, required, additionalProperties, enum, items, minimum/maximum,
    minLength/maxLength, minItems/maxItems and anyOf; other keywords are ignored.
    """
    if "anyOf" in schema:
        problems = [schema_mismatch(value, s, path) for s in schema["anyOf"]]
        if all(problems):
            return f"{path}: matches no anyOf branch ({'; '.join(map(str, problems))})"
    if "type" in schema:
        kinds = [schema["type"]] if isinstance(schema["type"], str) else list(schema["type"])
        if not any(_is(value, k) for k in kinds):
            got = f"{type(value).__name__} {value!r}"
            return f"{path}: expected {' or '.join(kinds)}, got {got}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{path}: {value!r} is not one of {list(schema['enum'])!r}"
    children: list[tuple[Any, Any, str]] = []  # (value, schema, path) to check next
    if isinstance(value, dict):
        props: Mapping[str, Any] = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value:
                return f"{path}: missing required key {key!r}"
        for key, item in value.items():
            sub = props.get(key, schema.get("additionalProperties", True))
            if sub is False:
                return f"{path}: unexpected key {key!r} (additionalProperties is false)"
            children.append((item, sub, f"{path}.{key}"))
    if isinstance(value, list):
        children += [(v, schema.get("items", True), f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, int | float | str | list) and not isinstance(value, bool):
        size, (low, high) = (
            (len(value), _SIZE_KEYS[type(value)])
            if isinstance(value, str | list)
            else (value, ("minimum", "maximum"))
        )
        if low in schema and size < schema[low]:
            return f"{path}: {size!r} is below {low} {schema[low]!r}"
        if high in schema and size > schema[high]:
            return f"{path}: {size!r} is above {high} {schema[high]!r}"
    for item, sub, where in children:
        if isinstance(sub, Mapping) and (problem := schema_mismatch(item, sub, where)):
            return problem
    return None


class RoleModels:
    """``for_role(role)``: the model given for that role, else the default."""

    def __init__(self, default: LLM, roles: Mapping[str, LLM] | None = None) -> None:
        self.default = default
        self.roles = dict(roles or {})

    def for_role(self, role: str, replica: int = 0) -> LLM:
        return self.roles.get(f"{role}#{replica}" if replica else role) or self.roles.get(
            role, self.default
        )


def agent_answer(present: str = "yes", confidence: int = 2, pick: int = 0) -> Responder:
    """A ScriptedLLM ``default`` for the agents' role: answers every agent's label schema
    with its ``pick``-th label (cycled), ``present`` and ``confidence``."""

    def answer(request: Request) -> Reply:
        props = (request.schema or {}).get("properties", {})
        labels = props.get("label", {}).get("enum")
        if not labels:
            raise ValueError("agent_answer() answers agent label schemas only")
        return {"present": present, "label": labels[pick % len(labels)], "confidence": confidence}

    return answer
