"""ScriptedLLM: the LLM port's fake, which every caller's unit tests lean on."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rilai_desktop.contracts.llm import LLM, ChatMessage, Completion, CompletionStream
from rilai_desktop.llm.errors import (
    BadRequestError,
    ModelCallError,
    ModelTimeoutError,
    PromptTooLongError,
)
from rilai_desktop.llm.fake import Request, ScriptedLLM, schema_mismatch

HI = [{"role": "user", "content": "hi"}]

MOOD = {
    "type": "object",
    "properties": {
        "mood": {"type": "string", "enum": ["calm", "tense"]},
        "intensity": {"type": "number", "minimum": 0, "maximum": 1},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 2},
    },
    "required": ["mood", "intensity"],
    "additionalProperties": False,
}


def ask(llm: ScriptedLLM, messages: Any = HI, **kwargs: Any) -> Completion:
    out = llm.complete(messages, **kwargs)
    assert isinstance(out, Completion)
    return out


def ask_stream(llm: ScriptedLLM, messages: Any = HI, **kwargs: Any) -> CompletionStream:
    out = llm.complete(messages, stream=True, **kwargs)
    assert isinstance(out, CompletionStream)
    return out


# ── the queue ────────────────────────────────────────────────────────────────


def test_it_is_an_llm_named_scripted_by_default() -> None:
    assert isinstance(ScriptedLLM(), LLM)
    assert ScriptedLLM().model_id == "scripted"
    assert ScriptedLLM(model_id="qwen-tiny").model_id == "qwen-tiny"


def test_replies_come_back_in_queue_order() -> None:
    llm = ScriptedLLM(["first"])
    llm.enqueue("second")
    llm.enqueue("third")
    assert llm.pending == 3
    assert [ask(llm).text for _ in range(3)] == ["first", "second", "third"]
    assert llm.pending == 0


def test_completion_names_the_model_and_times_the_call() -> None:
    llm = ScriptedLLM(["ok"], model_id="m-1")
    out = ask(llm)
    assert out.model == "m-1"
    assert out.finish_reason == "stop"
    assert 0 <= out.latency_ms < 1000
    assert out.time_to_first_token_ms is not None
    assert out.parsed is None and out.reasoning is None


def test_an_empty_queue_without_default_raises() -> None:
    llm = ScriptedLLM()
    with pytest.raises(ModelCallError, match="ScriptedLLM has no reply queued"):
        ask(llm)


def test_the_default_answers_once_the_queue_is_empty() -> None:
    llm = ScriptedLLM(["queued"], default="fallback")
    assert [ask(llm).text for _ in range(3)] == ["queued", "fallback", "fallback"]


def test_a_dict_default_serves_schema_calls() -> None:
    llm = ScriptedLLM(default={"mood": "calm", "intensity": 0.2})
    assert ask(llm, schema=MOOD).parsed == {"mood": "calm", "intensity": 0.2}
    assert ask(llm, schema=MOOD).parsed == {"mood": "calm", "intensity": 0.2}


def test_enqueue_refuses_what_is_not_a_reply() -> None:
    llm = ScriptedLLM()
    with pytest.raises(TypeError):
        llm.enqueue(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        llm.enqueue({"when": object()})  # not JSON-able: fails at enqueue, not mid-test
    assert llm.pending == 0


# ── errors and timeouts ──────────────────────────────────────────────────────


def test_an_enqueued_error_is_raised_on_its_call() -> None:
    llm = ScriptedLLM(["before"])
    llm.enqueue_error(PromptTooLongError("prompt is 9000 tokens, context is 4096"))
    llm.enqueue("after")
    assert ask(llm).text == "before"
    with pytest.raises(PromptTooLongError, match="9000"):
        ask(llm)
    assert ask(llm).text == "after"


def test_an_enqueued_timeout_raises_model_timeout_naming_the_model() -> None:
    llm = ScriptedLLM(model_id="big-model")
    llm.enqueue_timeout()
    with pytest.raises(ModelTimeoutError) as info:
        ask(llm)
    assert info.value.code == "RIL-028"
    assert isinstance(info.value, ModelCallError)
    assert "big-model" in info.value.message
    assert info.value.context["model"] == "big-model"


# ── requests ─────────────────────────────────────────────────────────────────


def test_every_request_is_recorded_with_its_arguments() -> None:
    llm = ScriptedLLM(["a", "b"])
    ask(llm, [{"role": "system", "content": "sys"}, ChatMessage("user", "q")])
    ask(llm, schema=None, max_tokens=12, temperature=0.0, stop=["\n", "END"])
    first, second = llm.requests
    assert first == Request(
        messages=[ChatMessage("system", "sys"), ChatMessage("user", "q")],
        schema=None,
        max_tokens=256,
        temperature=0.7,
        stop=None,
        stream=False,
    )
    assert (second.max_tokens, second.temperature, second.stop) == (12, 0.0, ("\n", "END"))
    with pytest.raises(AttributeError):
        second.max_tokens = 1  # type: ignore[misc]  # frozen


def test_requests_that_fail_are_recorded_too() -> None:
    llm = ScriptedLLM()
    llm.enqueue_timeout()
    with pytest.raises(ModelTimeoutError):
        ask(llm, schema=MOOD)
    with pytest.raises(ModelCallError):
        ask(llm, stream=False)  # nothing queued
    assert [r.schema for r in llm.requests] == [MOOD, None]


@pytest.mark.parametrize("bad", [[], [{"role": "robot", "content": "x"}]])
def test_bad_messages_raise_bad_request_like_the_real_adapter(bad: Any) -> None:
    llm = ScriptedLLM(["kept"])
    with pytest.raises(BadRequestError) as info:
        llm.complete(bad)
    assert info.value.code == "RIL-026"
    assert llm.requests == []
    assert llm.pending == 1  # the reply was not used up


# ── usage ────────────────────────────────────────────────────────────────────


def test_usage_counts_words_and_the_cached_prefix() -> None:
    llm = ScriptedLLM(default="one two three")
    system = {"role": "system", "content": "you are Rilai, a companion"}
    first = ask(llm, [system, {"role": "user", "content": "hello there"}])
    assert first.usage.prompt_tokens == 7
    assert first.usage.completion_tokens == 3
    assert first.usage.cached_prompt_tokens == 0
    assert first.usage.reasoning_tokens is None
    second = ask(llm, [system, {"role": "user", "content": "hello again friend"}])
    assert second.usage.prompt_tokens == 8
    assert second.usage.cached_prompt_tokens == 6  # the system prompt and "hello"
    third = ask(llm, [{"role": "user", "content": "different"}])
    assert third.usage.cached_prompt_tokens == 0


# ── truncation ───────────────────────────────────────────────────────────────


def test_max_tokens_truncates_and_reports_length() -> None:
    llm = ScriptedLLM(["one two  three four five", "one two three"])
    out = ask(llm, max_tokens=3)
    assert out.text == "one two  three"
    assert out.finish_reason == "length"
    assert out.usage.completion_tokens == 3
    exact = ask(llm, max_tokens=3)
    assert exact.text == "one two three"
    assert exact.finish_reason == "stop"


def test_stop_strings_cut_the_reply_at_the_first_occurrence() -> None:
    llm = ScriptedLLM(default="Sure thing.\nUser: and then END here")
    assert ask(llm, stop=["\nUser:"]).text == "Sure thing."
    assert ask(llm, stop=["END", "\n"]).text == "Sure thing."  # the earliest of the stops wins
    assert ask(llm, stop=["", "absent"]).text == "Sure thing.\nUser: and then END here"
    out = ask(llm, stop=["then"])
    assert out.finish_reason == "stop"
    assert out.usage.completion_tokens == 4


# ── reasoning ────────────────────────────────────────────────────────────────


def test_think_blocks_are_split_into_reasoning() -> None:
    llm = ScriptedLLM(["<think>they sound tired</think>\nGet some rest."])
    out = ask(llm)
    assert out.text == "Get some rest."
    assert out.reasoning == "they sound tired"
    assert out.usage.reasoning_tokens == 3
    assert out.usage.completion_tokens == 6  # the whole generation, thinking included


def test_max_tokens_inside_a_think_block_leaves_only_reasoning() -> None:
    llm = ScriptedLLM(["<think>a long chain of thought</think>Answer"])
    out = ask(llm, max_tokens=3)
    assert out.finish_reason == "length"
    assert out.text == ""
    assert out.reasoning == "a long chain"  # "<think>a" is one word


# ── schema calls ─────────────────────────────────────────────────────────────


def test_a_dict_for_a_schema_call_is_parsed() -> None:
    reply = {"mood": "tense", "intensity": 0.8, "tags": ["work"]}
    llm = ScriptedLLM([reply])
    out = ask(llm, schema=MOOD)
    assert out.parsed == reply
    assert out.text == json.dumps(reply)
    assert llm.requests[0].schema == MOOD


def test_a_dict_without_a_schema_is_just_json_text() -> None:
    out = ask(ScriptedLLM([{"a": 1}]))
    assert out.text == '{"a": 1}'
    assert out.parsed is None


def test_a_json_text_reply_for_a_schema_call_is_parsed_and_checked() -> None:
    llm = ScriptedLLM(['{"mood": "calm", "intensity": 0}', '{"mood": "sleepy", "intensity": 0}'])
    assert ask(llm, schema=MOOD).parsed == {"mood": "calm", "intensity": 0}
    with pytest.raises(ModelCallError, match="sleepy"):
        ask(llm, schema=MOOD)


def test_a_text_reply_that_is_not_json_fails_a_schema_call() -> None:
    llm = ScriptedLLM(["I feel calm"])
    with pytest.raises(ModelCallError, match="not JSON") as info:
        ask(llm, schema=MOOD)
    assert info.value.code == "RIL-027"


def test_a_schema_reply_cut_by_max_tokens_fails() -> None:
    llm = ScriptedLLM([{"mood": "calm", "intensity": 0.5, "tags": ["a", "b"]}])
    with pytest.raises(ModelCallError, match="max_tokens"):
        ask(llm, schema=MOOD, max_tokens=3)


def test_think_before_a_json_text_reply_is_split_off_first() -> None:
    llm = ScriptedLLM(['<think>pick calm</think>{"mood": "calm", "intensity": 1}'])
    out = ask(llm, schema=MOOD)
    assert out.parsed == {"mood": "calm", "intensity": 1}
    assert out.reasoning == "pick calm"


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ({"mood": "calm"}, "missing required key 'intensity'"),
        ({"mood": "calm", "intensity": 0.5, "extra": 1}, "unexpected key 'extra'"),
        ({"mood": "angry", "intensity": 0.5}, "$.mood: 'angry' is not one of"),
        ({"mood": 3, "intensity": 0.5}, "$.mood: expected string, got int"),
        ({"mood": "calm", "intensity": "high"}, "$.intensity: expected number"),
        ({"mood": "calm", "intensity": True}, "$.intensity: expected number, got bool"),
        ({"mood": "calm", "intensity": 1.5}, "above maximum"),
        ({"mood": "calm", "intensity": -1}, "below minimum"),
        ({"mood": "calm", "intensity": 0, "tags": "work"}, "$.tags: expected array"),
        ({"mood": "calm", "intensity": 0, "tags": ["a", "b", "c"]}, "above maxItems"),
        ({"mood": "calm", "intensity": 0, "tags": ["ok", 5]}, "$.tags[1]: expected string"),
        (
            {"mood": "calm", "intensity": 0, "tags": ["overlong!"]},
            "$.tags[0]: 9 is above maxLength",
        ),
    ],
)
def test_a_reply_of_the_wrong_shape_fails_the_schema_call(
    reply: dict[str, Any], problem: str
) -> None:
    llm = ScriptedLLM([reply])
    with pytest.raises(ModelCallError, match="does not match the schema") as info:
        ask(llm, schema=MOOD)
    assert problem in info.value.message


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        ({"type": "integer"}, 3, 3.5),
        ({"type": "integer"}, -2, False),
        ({"type": "boolean"}, False, 0),
        ({"type": "null"}, None, "null"),
        ({"type": ["string", "null"]}, None, 1),
        ({"type": "string", "maxLength": 3}, "abc", "abcd"),
        ({"type": "array", "minItems": 1}, [0], []),
        ({"type": "array", "items": {"type": "integer", "minimum": 1}}, [1, 2], [1, 0]),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, 7, 7.5),
        ({"type": "object", "additionalProperties": {"type": "integer"}}, {"a": 1}, {"a": "x"}),
        ({"enum": ["a", None]}, None, "b"),
        (
            {"type": "object", "properties": {"n": {"type": "object", "required": ["x"]}}},
            {},
            {"n": {}},
        ),
    ],
)
def test_schema_mismatch_covers_the_subset_we_use(schema: Any, good: Any, bad: Any) -> None:
    assert schema_mismatch(good, schema) is None
    assert schema_mismatch(bad, schema) is not None


def test_schema_mismatch_explains_anyof_failures() -> None:
    problem = schema_mismatch(2.5, {"anyOf": [{"type": "string"}, {"type": "null"}]})
    assert problem is not None
    assert "matches no anyOf branch" in problem
    assert "expected string" in problem and "expected null" in problem


# ── streaming ────────────────────────────────────────────────────────────────


def test_a_stream_yields_pieces_and_its_result_matches_the_plain_call() -> None:
    reply = "Well, hello  there!\nHow are you?"
    plain = ask(ScriptedLLM([reply]))
    stream = ask_stream(ScriptedLLM([reply]))
    pieces = list(stream)
    assert len(pieces) > 1
    assert pieces[:2] == ["Well, ", "hello  "]  # word by word, spaces kept
    assert "".join(pieces) == plain.text == stream.result.text == reply
    result = stream.result
    assert (result.finish_reason, result.usage, result.model) == (
        plain.finish_reason,
        plain.usage,
        plain.model,
    )
    assert result.time_to_first_token_ms is not None
    assert result.time_to_first_token_ms <= result.latency_ms


def test_a_stream_yields_the_raw_generation_think_included() -> None:
    # Like the llama.cpp adapter: pieces are what the model generated; result.text is clean.
    reply = "<think>short</think>Hello there."
    plain = ask(ScriptedLLM([reply]))
    stream = ask_stream(ScriptedLLM([reply]))
    assert "".join(stream) == reply
    assert stream.result.text == plain.text == "Hello there."
    assert stream.result.reasoning == plain.reasoning == "short"


def test_a_stream_result_without_iterating() -> None:
    llm = ScriptedLLM(["one two three four"])
    stream = ask_stream(llm, max_tokens=2)
    assert stream.result.text == "one two"
    assert stream.result.finish_reason == "length"
    assert llm.requests[0].stream is True


def test_a_stream_of_a_schema_reply_is_parsed() -> None:
    stream = ask_stream(ScriptedLLM([{"mood": "calm", "intensity": 0.1}]), schema=MOOD)
    assert "".join(stream) == '{"mood": "calm", "intensity": 0.1}'
    assert stream.result.parsed == {"mood": "calm", "intensity": 0.1}


def test_a_streamed_error_is_raised_on_the_first_iteration() -> None:
    llm = ScriptedLLM()
    llm.enqueue_error(ModelCallError("the model crashed"))
    stream = ask_stream(llm)  # no error yet
    with pytest.raises(ModelCallError, match="crashed"):
        next(iter(stream))


def test_a_streamed_timeout_is_raised_on_the_first_iteration() -> None:
    llm = ScriptedLLM()
    llm.enqueue_timeout()
    stream = ask_stream(llm)
    with pytest.raises(ModelTimeoutError):
        list(stream)
