"""The anchor people compare Rilai with: one plain chat completion of the same voice model.

A short two-line companion system prompt, then the conversation as the plain model led it
(the user's messages and its own earlier replies), then the message. The real side
(``LlamaPlainChat``) drives the bare ``llama_cpp.Llama`` that `rilai bench turn` times its
bare completion on (``bench.turn.BareVoice``: same file, ``n_ctx``, threads, temperature,
and a reset before each call); ``LLMPlainChat`` does the same through the LLM port (the
tests' ScriptedLLM). Neither ever calls a network.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rilai_desktop.contracts.llm import LLM, Completion

PLAIN_SYSTEM = (
    "You are a warm, caring companion chatting with one person.\n"
    "Reply in one to four short, natural sentences, the way a good friend would."
)
PLAIN_TEMPERATURE = 0.6  # bench turn's bare completion (and the voice's own temperature)
PLAIN_MAX_TOKENS = 256  # room to finish a few sentences; the plain model stops by itself


@dataclass(frozen=True)
class PlainReply:
    text: str
    ms: float
    ttft_ms: float | None
    tokens: int


class PlainChat(Protocol):
    model_id: str

    def reply(self, messages: Sequence[dict[str, str]]) -> PlainReply: ...


def plain_messages(history: Sequence[tuple[str, str]], message: str) -> list[dict[str, str]]:
    """The system prompt, the (user, plain reply) exchanges so far, and the message."""
    messages = [{"role": "system", "content": PLAIN_SYSTEM}]
    for user, reply in history:
        messages.append({"role": "user", "content": user})
        if reply:
            messages.append({"role": "assistant", "content": reply})
    messages.append({"role": "user", "content": message})
    return messages


class LlamaPlainChat:
    """A bare ``llama_cpp.Llama`` (built by ``bench.turn.BareVoice``), streamed."""

    def __init__(self, llm: Any, model_id: str) -> None:
        self.llm = llm
        self.model_id = model_id

    def reply(self, messages: Sequence[dict[str, str]]) -> PlainReply:
        self.llm.reset()  # as bench turn's bare completion: every call starts cold
        t0 = time.perf_counter()
        ttft: float | None = None
        pieces: list[str] = []
        chunks = 0
        for chunk in self.llm.create_chat_completion(
            messages=list(messages),
            max_tokens=PLAIN_MAX_TOKENS,
            temperature=PLAIN_TEMPERATURE,
            stream=True,
        ):
            delta = chunk["choices"][0].get("delta", {}).get("content")
            if delta:
                if ttft is None:
                    ttft = (time.perf_counter() - t0) * 1000
                pieces.append(delta)
                chunks += 1  # llama-cpp-python streams one token per chunk
        ms = (time.perf_counter() - t0) * 1000
        return PlainReply("".join(pieces).strip(), ms, ttft, chunks)


class LLMPlainChat:
    """The same through the LLM port (a ScriptedLLM in the tests)."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.model_id = llm.model_id

    def reply(self, messages: Sequence[dict[str, str]]) -> PlainReply:
        t0 = time.perf_counter()
        out = self.llm.complete(
            messages, max_tokens=PLAIN_MAX_TOKENS, temperature=PLAIN_TEMPERATURE, stream=True
        )
        ttft: float | None = None
        if isinstance(out, Completion):
            completion = out
        else:
            for _piece in out:
                if ttft is None:
                    ttft = (time.perf_counter() - t0) * 1000
            completion = out.result
        ms = (time.perf_counter() - t0) * 1000
        return PlainReply(completion.text.strip(), ms, ttft, completion.usage.completion_tokens)
