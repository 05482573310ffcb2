"""A tier on another machine (issue 29): the LLM port over an OpenAI-compatible server
(llama.cpp's ``llama-server`` or ``llama_cpp.server``, vLLM, Ollama), and the fallback that
keeps a turn alive when that server is down or slow.

``RemoteModel`` sends ``POST {endpoint}/chat/completions``. A structured call asks the
server to constrain its output to the schema. It tries ``response_format: {"type":
"json_schema", …}`` (OpenAI, vLLM, llama-server) and, if the server refuses that with 400 or
422, ``{"type": "json_object", "schema": …}`` (``llama_cpp.server``); the flavour that
worked is kept. The reply is then parsed and checked against the schema as a local one is
(``fake.schema_mismatch``): a server that ignores the schema fails the call, and is not
trusted. Streaming reads the server-sent events. A connection error, a timeout or a 5xx
is a ``ModelCallError`` (``ModelTimeoutError`` for time).

``WithFallback`` wraps the remote model and the local one for the same tier. A call that
fails remotely runs on the local model, with an ERROR event that says so ("the large tier's
server at … did not answer: …; answered locally"). A streamed reply that breaks after
its first piece cannot be replayed, so the error goes to the caller; the turn's own
fallbacks take it from there.

Nothing here runs unless the person added an endpoint (``rilai models add NAME --endpoint
URL``): by default no tier leaves this computer.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import httpx

from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import (
    LLM,
    ChatMessage,
    Completion,
    CompletionStream,
    DecodeGuard,
    Usage,
)
from rilai_desktop.llm.errors import ModelCallError, ModelTimeoutError
from rilai_desktop.llm.fake import schema_mismatch
from rilai_desktop.llm.messages import as_messages, split_reasoning

OnModelEvent = Callable[[EventKind, dict[str, Any]], None]
TIMEOUT_S: Final[float] = 60.0
CONNECT_S: Final[float] = 3.0
FLAVOURS: Final[tuple[str, ...]] = ("json_schema", "json_object")


def read_key(path: str | Path | None) -> str | None:
    """The API key in ``path`` (first line), or None."""
    if not path:
        return None
    return Path(path).read_text(encoding="utf-8").strip().splitlines()[0].strip() or None


class RemoteModel:
    """The LLM port over an OpenAI-compatible ``/v1`` endpoint."""

    def __init__(
        self,
        endpoint: str,
        *,
        model: str,
        model_id: str,
        api_key: str | None = None,
        timeout_s: float = TIMEOUT_S,
        transport: httpx.BaseTransport | None = None,
        on_event: OnModelEvent | None = None,
    ) -> None:
        self.endpoint = endpoint.rstrip("/")
        self.model = model
        self._model_id = model_id
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=self.endpoint,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=CONNECT_S),
            transport=transport,
        )
        self._on_event = on_event
        self.flavour: str | None = None  # the response_format the server took

    @property
    def model_id(self) -> str:
        return self._model_id

    def close(self) -> None:
        self._http.close()

    def _body(self, messages: list[ChatMessage], **kw: Any) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.as_dict() for m in messages],
            "max_tokens": kw["max_tokens"],
            "temperature": kw["temperature"],
            "stream": kw["stream"],
        }
        if kw.get("stop"):
            body["stop"] = list(kw["stop"])
        return body

    @staticmethod
    def _format(flavour: str, schema: Mapping[str, Any]) -> dict[str, Any]:
        if flavour == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
        return {"type": "json_object", "schema": schema}

    def _post(self, body: dict[str, Any], schema: Mapping[str, Any] | None, stream: bool) -> Any:
        flavours = [self.flavour] if self.flavour else list(FLAVOURS)
        for i, flavour in enumerate(flavours if schema is not None else [None]):
            if schema is not None and flavour is not None:
                body["response_format"] = self._format(flavour, schema)
            try:
                request = self._http.build_request("POST", "/chat/completions", json=body)
                response = self._http.send(request, stream=stream)
            except httpx.TimeoutException as exc:
                raise ModelTimeoutError(f"{self._model_id} at {self.endpoint} timed out") from exc
            except httpx.HTTPError as exc:
                raise ModelCallError(
                    f"{self._model_id} at {self.endpoint} did not answer: {exc}"
                ) from exc
            detail = ""
            if response.status_code >= 400:
                detail = response.read()[:300].decode("utf-8", "replace")
                response.close()
            # llama_cpp.server answers a response_format it does not know with a 500
            refused = schema is not None and (
                response.status_code in (400, 422)
                or (response.status_code == 500 and "response_format" in detail)
            )
            if refused and i + 1 < len(flavours):
                continue  # the other response_format
            if response.status_code >= 400:
                raise ModelCallError(
                    f"{self._model_id} at {self.endpoint} answered {response.status_code}: {detail}"
                )
            if schema is not None:
                self.flavour = flavour
            return response
        raise ModelCallError(f"{self._model_id} at {self.endpoint}: no response format taken")

    def _emit(self, kind: EventKind, payload: dict[str, Any]) -> None:
        if self._on_event is not None:
            self._on_event(kind, {"model": self._model_id, **payload})

    def complete(
        self,
        messages: Sequence[ChatMessage | Mapping[str, str]],
        *,
        schema: Mapping[str, Any] | None = None,
        max_tokens: int = 256,
        temperature: float = 0.7,
        stop: Sequence[str] | None = None,
        stream: bool = False,
        guard: DecodeGuard | None = None,  # a local decoder's: the server cannot apply it
    ) -> Completion | CompletionStream:
        msgs = as_messages(messages)
        body = self._body(msgs, max_tokens=max_tokens, temperature=temperature, stop=stop,
                          stream=stream)  # fmt: skip
        self._emit(EventKind.MODEL_CALL_STARTED, {"prompt_tokens": 0, "cached_prompt_tokens": 0,
                                                  "schema": schema is not None})  # fmt: skip
        t0 = time.perf_counter()
        if not stream:
            response = self._post(body, schema, stream=False)
            try:
                data = response.json()
            except ValueError as exc:
                raise ModelCallError(f"{self._model_id}: the answer is not JSON") from exc
            choice = (data.get("choices") or [{}])[0]
            text = str((choice.get("message") or {}).get("content") or "")
            return self._finish(
                text, choice.get("finish_reason"), data.get("usage"), schema, t0, None
            )
        response = self._post(body, schema, stream=True)
        parts: list[str] = []
        state: dict[str, Any] = {"finish": None, "first": None, "usage": None}

        def pieces() -> Iterator[str]:
            try:
                for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    raw = line[5:].strip()
                    if raw == "[DONE]":
                        break
                    chunk = json.loads(raw)
                    state["usage"] = chunk.get("usage") or state["usage"]
                    choice = (chunk.get("choices") or [{}])[0]
                    state["finish"] = choice.get("finish_reason") or state["finish"]
                    piece = (choice.get("delta") or {}).get("content") or ""
                    if piece:
                        state["first"] = state["first"] or time.perf_counter()
                        parts.append(piece)
                        yield piece
            except httpx.HTTPError as exc:
                raise ModelCallError(f"{self._model_id}: the stream broke: {exc}") from exc
            finally:
                response.close()

        return CompletionStream(
            pieces(),
            lambda: self._finish(
                "".join(parts), state["finish"], state["usage"], schema, t0, state["first"]
            ),
        )

    def _finish(
        self,
        raw: str,
        finish: Any,
        usage: Any,
        schema: Mapping[str, Any] | None,
        t0: float,
        first: float | None,
    ) -> Completion:
        text, reasoning = split_reasoning(raw)
        counts = usage if isinstance(usage, dict) else {}
        used = Usage(int(counts.get("prompt_tokens", 0) or 0),
                     int(counts.get("completion_tokens", 0) or len(raw.split())))  # fmt: skip
        completion = Completion(
            text=text,
            model=self._model_id,
            usage=used,
            latency_ms=(time.perf_counter() - t0) * 1000,
            finish_reason="length" if finish == "length" else "stop",
            reasoning=reasoning,
            time_to_first_token_ms=None if first is None else (first - t0) * 1000,
        )
        done = {
            "prompt_tokens": used.prompt_tokens,
            "completion_tokens": used.completion_tokens,
            "latency_ms": round(completion.latency_ms),
            "finish_reason": completion.finish_reason,
        }
        self._emit(EventKind.MODEL_CALL_COMPLETED, done)
        if schema is None:
            return completion
        try:
            parsed = json.loads(text, strict=False)
        except json.JSONDecodeError as exc:
            raise ModelCallError(f"{self._model_id} returned JSON that does not parse") from exc
        if (why := schema_mismatch(parsed, schema)) is not None:
            raise ModelCallError(f"{self._model_id} ignored the schema: {why}")
        return Completion(**{**completion.__dict__, "parsed": parsed})


class WithFallback:
    """The remote model, and the local one when the remote call fails (an ERROR event)."""

    def __init__(
        self, remote: LLM, local: Callable[[], LLM], *, tier: str, on_event: OnModelEvent | None
    ) -> None:
        self.remote, self._local, self.tier = remote, local, tier
        self._on_event = on_event

    @property
    def model_id(self) -> str:
        return self.remote.model_id

    def complete(self, messages: Any, **kw: Any) -> Completion | CompletionStream:
        try:
            answer = self.remote.complete(messages, **kw)
            if isinstance(answer, CompletionStream):
                return self._guarded(answer, messages, kw)
            return answer
        except ModelCallError as exc:
            return self._locally(exc, messages, kw)

    def _locally(
        self, exc: Exception, messages: Any, kw: dict[str, Any]
    ) -> Completion | CompletionStream:
        local = self._local()
        if self._on_event is not None:
            endpoint = getattr(self.remote, "endpoint", "its server")
            self._on_event(EventKind.ERROR, {"error": (
                f"the {self.tier} tier's server at {endpoint} did not answer "
                f"({getattr(exc, 'message', exc)}); answered locally with {local.model_id}"
            )[:500]})  # fmt: skip
        return local.complete(messages, **kw)

    def _guarded(
        self, stream: CompletionStream, messages: Any, kw: dict[str, Any]
    ) -> Completion | CompletionStream:
        """A stream that fails before its first piece falls back whole; later, it raises."""
        pieces = iter(stream)
        try:
            first = next(pieces)
        except StopIteration:
            return stream
        except ModelCallError as exc:
            return self._locally(exc, messages, kw)

        def rest() -> Iterator[str]:
            yield first
            yield from pieces

        return CompletionStream(rest(), lambda: stream.result)
