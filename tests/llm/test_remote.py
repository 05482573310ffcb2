"""The remote tier's adapter (issue 29) over httpx's MockTransport — a fake server, not a
mock of our code: the OpenAI chat shapes, the response_format it settles on, the schema
check, streaming, errors, and the fallback to the local model with an ERROR event."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import CompletionStream
from rilai_desktop.llm.errors import ModelCallError, ModelTimeoutError
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.llm.remote import RemoteModel, WithFallback

SCHEMA = {
    "type": "object",
    "properties": {"intent": {"type": "string", "enum": ["observe", "witness"]}},
    "required": ["intent"],
}


def answer(content: str, status: int = 200) -> httpx.Response:
    body = {"choices": [{"message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3}}  # fmt: skip
    return httpx.Response(status, json=body)


def model(handler: Any, **kw: Any) -> RemoteModel:
    return RemoteModel("http://tier.test/v1", model="big", model_id="remote-big",
                       transport=httpx.MockTransport(handler), **kw)  # fmt: skip


def test_a_plain_call_sends_the_openai_shape() -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        assert request.url.path == "/v1/chat/completions"
        assert request.headers["authorization"] == "Bearer k"
        return answer("Hello there.")

    got = model(handler, api_key="k").complete([{"role": "user", "content": "hi"}], max_tokens=9)
    assert got.text == "Hello there." and got.usage.prompt_tokens == 12
    assert seen[0]["model"] == "big" and seen[0]["max_tokens"] == 9 and not seen[0]["stream"]


def test_the_schema_goes_as_a_response_format_and_the_taken_one_is_kept() -> None:
    formats: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        fmt = json.loads(request.content)["response_format"]
        formats.append(fmt["type"])
        if fmt["type"] == "json_schema":  # a llama_cpp.server: only json_object + schema
            return httpx.Response(422, json={"detail": "type"})
        assert fmt["schema"] == SCHEMA
        return answer('{"intent": "witness"}')

    remote = model(handler)
    assert remote.complete([{"role": "user", "content": "x"}], schema=SCHEMA).parsed == {
        "intent": "witness"
    }
    remote.complete([{"role": "user", "content": "y"}], schema=SCHEMA)
    assert formats == ["json_schema", "json_object", "json_object"]
    assert remote.flavour == "json_object"


def test_a_reply_that_ignores_the_schema_fails() -> None:
    remote = model(lambda r: answer('{"intent": "celebrate"}'))
    with pytest.raises(ModelCallError, match="ignored the schema"):
        remote.complete([{"role": "user", "content": "x"}], schema=SCHEMA)
    with pytest.raises(ModelCallError, match="does not parse"):
        model(lambda r: answer("not json")).complete(
            [{"role": "user", "content": "x"}], schema=SCHEMA
        )


def test_server_errors_and_a_dead_server_are_model_call_errors() -> None:
    with pytest.raises(ModelCallError, match="answered 503"):
        model(lambda r: httpx.Response(503, text="busy")).complete(
            [{"role": "user", "content": "x"}]
        )

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(ModelCallError, match="did not answer"):
        model(down).complete([{"role": "user", "content": "x"}])

    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    with pytest.raises(ModelTimeoutError):
        model(slow).complete([{"role": "user", "content": "x"}])


def test_a_stream_reads_the_server_sent_events() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        chunks = [{"choices": [{"delta": {"content": p}, "finish_reason": None}]}
                  for p in ("Hel", "lo", ".")]  # fmt: skip
        lines = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return httpx.Response(200, content=lines.encode(),
                              headers={"content-type": "text/event-stream"})  # fmt: skip

    stream = model(handler).complete([{"role": "user", "content": "x"}], stream=True)
    assert isinstance(stream, CompletionStream)
    assert list(stream) == ["Hel", "lo", "."] and stream.result.text == "Hello."


def test_a_failing_tier_falls_back_to_the_local_model_and_says_so() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    events: list[tuple[EventKind, dict[str, Any]]] = []
    local = ScriptedLLM(default="A local reply.", model_id="local-medium")
    wrapped = WithFallback(model(down), lambda: local, tier="large",
                           on_event=lambda k, p: events.append((k, p)))  # fmt: skip
    got = wrapped.complete([{"role": "user", "content": "hi"}])
    assert got.text == "A local reply."
    errors = [p["error"] for k, p in events if k is EventKind.ERROR]
    assert len(errors) == 1 and "large tier's server at http://tier.test/v1" in errors[0]
    assert "answered locally with local-medium" in errors[0]
    stream = wrapped.complete([{"role": "user", "content": "hi"}], stream=True)
    assert "".join(stream) == "A local reply."
