"""The model port: a tiny Protocol every model adapter (real or fake) implements.

It lives in ``contracts/`` because turn, memory and app all talk to a model through it,
and no engine package may import another (``llm/`` holds the adapters that satisfy it).

``complete(messages, schema=..., max_tokens=..., temperature=..., stop=..., stream=False,
guard=None)`` returns a :class:`Completion`; with ``stream=True`` it returns a
:class:`CompletionStream` that yields text pieces as they are generated and holds the final
Completion once exhausted. With a JSON ``schema`` the reply is constrained by a grammar and
``parsed`` holds the decoded object. ``reasoning`` is whatever the model put in
``<think>…</think>``, stripped out of ``text``. A :class:`DecodeGuard` (free text only)
bans copied spans and phrases while the reply is decoded (``llm/decode_guard.py`` compiles
and applies it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "LLM",
    "ChatMessage",
    "Completion",
    "CompletionStream",
    "DecodeGuard",
    "FinishReason",
    "Prefills",
    "Role",
    "Usage",
]

Role = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "error"]


@dataclass(frozen=True)
class DecodeGuard:
    """Spans and phrases a free-text reply may not write (see ``llm/decode_guard.py``)."""

    copy_ngram: int = 0  # ban runs of this many tokens from the prompt or the reply (0: off)
    phrases: tuple[str, ...] = ()  # never written, at a word start, exactly as cased here
    # parts of the prompt the reply may quote (what they said that memory recalled: banned,
    # the 1.5B answered "azuljo tiles for a littleodcast" to keep under the copy limit)
    allowed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.copy_ngram < 0 or self.copy_ngram == 1:
            raise ValueError(f"copy_ngram must be 0 (off) or at least 2, not {self.copy_ngram}")


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    reasoning_tokens: int | None = None


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0
    finish_reason: FinishReason = "stop"
    parsed: Any = None
    reasoning: str | None = None
    time_to_first_token_ms: float | None = None


class CompletionStream:
    """Iterate for text pieces; ``result`` is the final Completion once exhausted."""

    def __init__(self, pieces: Iterator[str], finish: Any) -> None:
        self._pieces = pieces
        self._finish = finish  # () -> Completion, called once the pieces are exhausted
        self._result: Completion | None = None

    def __iter__(self) -> Iterator[str]:
        yield from self._pieces
        if self._result is None:  # iterating again must not call finish twice
            self._result = self._finish()

    @property
    def result(self) -> Completion:
        if self._result is None:
            for _ in self:
                pass
        assert self._result is not None
        return self._result


@runtime_checkable
class LLM(Protocol):
    """What the rest of Rilai needs from a model."""

    @property
    def model_id(self) -> str: ...

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
    ) -> Completion | CompletionStream: ...


@runtime_checkable
class Prefills(Protocol):
    """A model that can evaluate a prompt into its cache ahead of the call that needs it.

    ``prefill(messages)`` evaluates the formatted prompt now (the chat template's
    generation prompt included) and returns how many tokens it had to evaluate (0 when
    all were cached). A later call whose prompt starts the same way reuses them. Used in
    idle time, so it must not change what any later call answers.
    """

    def prefill(self, messages: Sequence[ChatMessage | Mapping[str, str]]) -> int: ...
