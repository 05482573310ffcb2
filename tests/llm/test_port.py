"""The LLM port: message normalisation, <think> splitting, streams, the Protocol."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rilai_desktop.contracts.llm import (
    LLM,
    ChatMessage,
    Completion,
    CompletionStream,
)
from rilai_desktop.llm.errors import BadRequestError, ModelError
from rilai_desktop.llm.fake import ScriptedLLM
from rilai_desktop.llm.messages import as_messages, split_reasoning

# ── as_messages ──────────────────────────────────────────────────────────────


def test_as_messages_turns_dicts_into_chat_messages() -> None:
    out = as_messages([{"role": "system", "content": "be kind"}, {"role": "user", "content": "hi"}])
    assert out == [ChatMessage("system", "be kind"), ChatMessage("user", "hi")]


def test_as_messages_keeps_chat_messages_and_mixes_with_dicts() -> None:
    first = ChatMessage("user", "hello")
    out = as_messages([first, {"role": "assistant", "content": "hey"}])
    assert out[0] is first
    assert out[1] == ChatMessage("assistant", "hey")


def test_as_messages_returns_a_new_list() -> None:
    given = [ChatMessage("user", "x")]
    out = as_messages(given)
    assert out == given
    assert out is not given


def test_as_messages_refuses_an_empty_list() -> None:
    with pytest.raises(BadRequestError) as info:
        as_messages([])
    assert info.value.code == "RIL-026"
    assert isinstance(info.value, ModelError)
    assert "empty" in info.value.message
    assert info.value.recovery_suggestions  # tells the caller what to pass


@pytest.mark.parametrize(
    "bad",
    [
        {"role": "tool", "content": "x"},
        {"role": "USER", "content": "x"},
        {"content": "no role"},
        {"role": "user"},
        {"role": "user", "content": 3},
    ],
)
def test_as_messages_refuses_a_bad_role_or_content(bad: dict[str, object]) -> None:
    with pytest.raises(BadRequestError) as info:
        as_messages([{"role": "user", "content": "fine"}, bad])  # type: ignore[list-item]
    assert info.value.code == "RIL-026"
    assert "role must be system/user/assistant" in info.value.message


def test_chat_message_as_dict() -> None:
    assert ChatMessage("user", "hi").as_dict() == {"role": "user", "content": "hi"}


# ── split_reasoning ──────────────────────────────────────────────────────────


def test_split_reasoning_without_think_leaves_text_alone() -> None:
    assert split_reasoning("  just an answer \n") == ("  just an answer \n", None)
    assert split_reasoning("") == ("", None)


def test_split_reasoning_with_one_block() -> None:
    text, reasoning = split_reasoning("<think>\nthey seem tired\n</think>\n\nGet some rest.")
    assert text == "Get some rest."
    assert reasoning == "they seem tired"


def test_split_reasoning_with_several_blocks() -> None:
    text, reasoning = split_reasoning("<think>one</think>A <think> two </think>B")
    assert reasoning == "one\ntwo"
    assert "think" not in text
    assert text.startswith("A") and text.endswith("B")


def test_split_reasoning_with_an_unclosed_block() -> None:
    # A reply cut off by max_tokens mid-thought: everything after <think> is reasoning.
    assert split_reasoning("<think>still pondering the") == ("", "still pondering the")
    assert split_reasoning("Sure. <think>hmm\nmore") == ("Sure.", "hmm\nmore")


def test_split_reasoning_with_an_empty_block() -> None:
    assert split_reasoning("<think>  </think>Hi") == ("Hi", None)


# ── CompletionStream ─────────────────────────────────────────────────────────


def _stream(pieces: list[str], calls: list[int]) -> tuple[CompletionStream, Iterator[str]]:
    source = iter(pieces)

    def finish() -> Completion:
        calls.append(1)
        return Completion("".join(pieces), "m")

    return CompletionStream(source, finish), source


def test_stream_yields_the_pieces_then_holds_the_result() -> None:
    calls: list[int] = []
    stream, _ = _stream(["a", "b", "c"], calls)
    assert list(stream) == ["a", "b", "c"]
    assert calls == [1]
    assert stream.result.text == "abc"


def test_stream_result_drains_the_iterator() -> None:
    calls: list[int] = []
    stream, source = _stream(["a", "b", "c"], calls)
    assert stream.result.text == "abc"  # never iterated by hand
    assert next(source, None) is None  # the pieces were consumed
    assert calls == [1]


def test_stream_result_after_a_partial_read_drains_the_rest() -> None:
    calls: list[int] = []
    stream, source = _stream(["a", "b", "c"], calls)
    for piece in stream:
        assert piece == "a"
        break
    assert stream.result.text == "abc"
    assert next(source, None) is None
    assert calls == [1]


def test_stream_finish_is_called_once_even_if_iterated_again() -> None:
    calls: list[int] = []
    stream, _ = _stream(["a"], calls)
    assert list(stream) == ["a"]
    assert list(stream) == []
    first = stream.result
    assert stream.result is first
    assert calls == [1]


# ── the Protocol ─────────────────────────────────────────────────────────────


def test_the_fake_is_an_llm() -> None:
    assert isinstance(ScriptedLLM(), LLM)


def test_an_object_without_complete_is_not_an_llm() -> None:
    class NotAModel:
        model_id = "nope"

    assert not isinstance(NotAModel(), LLM)
