"""The LLM port (contracts/llm.py): the scripted fake and, where its GGUF file is installed,
the llama.cpp adapter on the small model (RILAI_MODELS_DIR, else the repo's models/)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rilai_desktop.contracts.llm import LLM, ChatMessage, Completion, CompletionStream
from rilai_desktop.llm.errors import BadRequestError
from rilai_desktop.llm.fake import Request, ScriptedLLM
from tests.conftest import REAL_MODELS_DIR

SMALL_FILE = REAL_MODELS_DIR / "SmolLM2-135M-Instruct.Q4_1.gguf"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
    "additionalProperties": False,
}
PROMPT = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Tell me a long story about a dragon who learns to sing."},
]


def _scripted() -> LLM:
    def answer(request: Request) -> str | dict[str, Any]:
        if request.schema is not None:
            return {"answer": "yes"}
        return "Once upon a time a small dragon sang to the mountains every single morning."

    return ScriptedLLM(default=answer)


def _llama_small() -> LLM:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is not installed")
    if not SMALL_FILE.is_file():
        pytest.skip(f"the small model is not installed ({SMALL_FILE}): rilai models install")
    from rilai_desktop.llm.llama_cpp_adapter import LlamaCppModel, LlamaOptions

    return LlamaCppModel(SMALL_FILE, options=LlamaOptions(n_ctx=1024))


MODELS: dict[str, Callable[[], LLM]] = {"ScriptedLLM": _scripted, "llama.cpp-small": _llama_small}


@pytest.fixture(
    scope="module",
    # the llama.cpp case opens the installed small model: e2e, out of `make check`
    params=[
        pytest.param(name, marks=[pytest.mark.e2e] if "llama" in name else []) for name in MODELS
    ],
)
def model(request: pytest.FixtureRequest) -> Iterator[LLM]:
    llm = MODELS[request.param]()
    yield llm
    close = getattr(llm, "close", None)
    if callable(close):
        close()


def _complete(model: LLM, **kw: Any) -> Completion:
    out = model.complete(PROMPT, temperature=0.0, **kw)
    assert isinstance(out, Completion)
    return out


def test_it_is_an_llm_with_a_name(model: LLM) -> None:
    assert isinstance(model, LLM)
    assert isinstance(model.model_id, str) and model.model_id


def test_a_completion_is_text_with_usage(model: LLM) -> None:
    out = _complete(model, max_tokens=24)
    assert isinstance(out.text, str) and out.text.strip()
    assert out.finish_reason in ("stop", "length")
    assert out.usage.prompt_tokens > 0
    assert 0 < out.usage.completion_tokens <= 24
    assert out.latency_ms >= 0.0
    assert "<think>" not in out.text


def test_max_tokens_cuts_the_reply_with_finish_reason_length(model: LLM) -> None:
    out = _complete(model, max_tokens=4)
    assert out.finish_reason == "length"
    assert out.usage.completion_tokens <= 4


def test_messages_may_be_dicts_or_chat_messages(model: LLM) -> None:
    typed = [ChatMessage(m["role"], m["content"]) for m in PROMPT]  # type: ignore[arg-type]
    a = model.complete(typed, temperature=0.0, max_tokens=8)
    b = model.complete(PROMPT, temperature=0.0, max_tokens=8)
    assert isinstance(a, Completion) and isinstance(b, Completion)


@pytest.mark.parametrize(
    "messages", [[], [{"role": "robot", "content": "hi"}], [{"role": "user", "content": 3}]]
)
def test_a_bad_request_is_refused_before_the_model_runs(model: LLM, messages: Any) -> None:
    with pytest.raises(BadRequestError):
        model.complete(messages)


def test_a_schema_call_returns_parsed_json_that_fits(model: LLM) -> None:
    out = _complete(model, schema=SCHEMA, max_tokens=32)
    assert isinstance(out.parsed, dict) and out.parsed["answer"] in ("yes", "no")
    assert json.loads(out.text) == out.parsed


def test_a_stream_yields_pieces_then_holds_the_completion(model: LLM) -> None:
    stream = model.complete(PROMPT, temperature=0.0, max_tokens=16, stream=True)
    assert isinstance(stream, CompletionStream)
    pieces = list(stream)
    assert pieces and all(isinstance(p, str) for p in pieces)
    result = stream.result
    assert isinstance(result, Completion)
    assert result.text.strip() and result.text.strip() in "".join(pieces)
    assert result.usage.completion_tokens <= 16
