"""The model port: a tiny Protocol every model adapter (real or fake) implements.

``complete(messages, schema=..., max_tokens=..., temperature=..., stop=..., stream=False,
guard=None)`` returns a :class:`Completion`; with ``stream=True`` it returns a
:class:`CompletionStream` that yields text pieces as they are generated and holds the final
Completion once exhausted. With a JSON ``schema`` the reply is constrained by a grammar and
``parsed`` holds the decoded object. ``reasoning`` is whatever the model put in
``<think>…</think>``, stripped out of ``text``. A :class:`DecodeGuard` (free text only)
bans copied spans and phrases while the reply is decoded (``decode_guard.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from rilai_desktop.llm.decode_guard import DecodeGuard

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
    "as_messages",
    "split_reasoning",
]

Role = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "error"]


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


def as_messages(messages: Sequence[ChatMessage | Mapping[str, str]]) -> list[ChatMessage]:
    """Normalise dicts to ChatMessages; refuse an empty list or an unknown role."""
    from rilai_desktop.llm.errors import BadRequestError

    if not messages:
        raise BadRequestError(
            "The message list is empty; nothing to send to the model",
            recovery_suggestions=["Pass at least one {'role': 'user', 'content': ...} message"],
        )
    out: list[ChatMessage] = []
    for m in messages:
        if isinstance(m, ChatMessage):
            out.append(m)
            continue
        role, content = m.get("role"), m.get("content")
        if role not in ("system", "user", "assistant") or not isinstance(content, str):
            raise BadRequestError(
                f"Bad chat message {dict(m)!r}: role must be system/user/assistant and"
                " content a string"
            )
        out.append(ChatMessage(role, content))  # type: ignore[arg-type]
    return out


_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL)


def split_reasoning(text: str) -> tuple[str, str | None]:
    """Strip ``<think>…</think>`` blocks out of ``text``; return (text, reasoning)."""
    found = _THINK.findall(text)
    if not found:
        return text, None
    cleaned = _THINK.sub("", text).strip()
    return cleaned, "\n".join(s.strip() for s in found).strip() or None
