"""A model that answers badly on purpose (the malformed-output proof, issue 30 item 3).

``FaultyLLM(inner, case)`` wraps a ScriptedLLM that gives good answers and turns each one
into the ``case`` of bad output before the caller sees it. It returns what an adapter
without a grammar could hand over (a remote endpoint, a model that ignored its grammar):
``parsed`` set to whatever JSON the text holds, unchecked against the schema, so wrong
types and out-of-range enums reach the stage instead of being refused by the fake.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from rilai_desktop.contracts.llm import (
    ChatMessage,
    Completion,
    CompletionStream,
    DecodeGuard,
)
from rilai_desktop.llm.errors import ModelCallError, ModelTimeoutError
from rilai_desktop.llm.fake import ScriptedLLM

CASES = (
    "truncated_json",
    "wrong_types",
    "bad_enum",
    "empty",
    "huge",
    "invalid_utf8",
    "stream_cut",
    "stream_broken",
    "timeout",
    "call_error",
)
HUGE_CHARS = 100_000
# bytes a model could emit that are not UTF-8, decoded as a careless adapter would: lone
# surrogates (surrogateescape) beside U+FFFD replacement characters
BAD_BYTES = b"caf\xc3 \xff\xfe ok \xed\xa0\x80 end"
BAD_TEXT = BAD_BYTES.decode("utf-8", errors="surrogateescape") + " \ufffd\ufffd"


def _wrong(value: Any) -> Any:
    """A value of another JSON type than ``value``'s."""
    if isinstance(value, bool):
        return "maybe"
    if isinstance(value, int | float):
        return "lots"
    if isinstance(value, str):
        return {"nested": [value]}
    if isinstance(value, list):
        return "not a list"
    if isinstance(value, dict):
        return [1, 2, 3]
    return 12345


def _out_of_range(value: Any, schema: Mapping[str, Any]) -> Any:
    """A value of the right type that the schema's enum or bounds exclude."""
    if "enum" in schema:
        return "__not_one_of_them__" if isinstance(value, str) or value is None else 999_999
    if isinstance(value, int | float) and not isinstance(value, bool):
        return schema.get("maximum", 1) * 1000 + 7 if value >= 0 else -999_999
    if isinstance(value, str) and "maxLength" in schema:
        return "x" * (int(schema["maxLength"]) + 50)
    if isinstance(value, list):
        return [_out_of_range(v, schema.get("items", {})) for v in value]
    return value


def _spoil_strings(value: Any, case: str) -> Any:
    """Every string in ``value`` (lists included) made huge or given invalid Unicode."""
    if isinstance(value, list):
        return [_spoil_strings(v, case) for v in value]
    if not isinstance(value, str):
        return value
    if case == "huge":
        return ("word " * (HUGE_CHARS // 5))[:HUGE_CHARS]
    return f"{value} {BAD_TEXT}"


def _map_fields(parsed: Any, schema: Mapping[str, Any] | None, case: str) -> Any:
    if not isinstance(parsed, dict):
        return parsed
    props: Mapping[str, Any] = (schema or {}).get("properties", {})
    out: dict[str, Any] = {}
    for key, value in parsed.items():
        sub = props.get(key, {})
        if case == "wrong_types":
            out[key] = _wrong(value)
        elif case == "bad_enum":
            out[key] = _out_of_range(value, sub)
        elif case in ("huge", "invalid_utf8"):
            out[key] = _spoil_strings(value, case)
        else:
            out[key] = value
    return out


def _as_text(parsed: Any) -> str:
    """JSON text for ``parsed`` that keeps lone surrogates (json.dumps would escape them)."""
    return json.dumps(parsed, ensure_ascii=False)


class FaultyLLM:
    """``inner``'s answers, spoilt as ``case`` says, on every call."""

    def __init__(self, inner: ScriptedLLM, case: str) -> None:
        if case not in CASES:
            raise ValueError(f"unknown case {case!r}")
        self.inner, self.case = inner, case
        self.calls = 0

    @property
    def model_id(self) -> str:
        return f"faulty-{self.case}"

    def prefill(self, messages: Sequence[ChatMessage | Mapping[str, str]]) -> int:
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
        self.calls += 1
        case = self.case
        if case == "timeout":
            raise ModelTimeoutError(f"Model {self.model_id!r} did not answer in time")
        if case == "call_error":
            raise ModelCallError(f"{self.model_id} failed: llama_decode returned -3")
        good = self.inner.complete(
            messages, schema=schema, max_tokens=max_tokens, temperature=temperature, stop=stop
        )
        assert isinstance(good, Completion)
        bad = self._spoil(good, schema)
        if not stream:
            return bad
        return CompletionStream(self._pieces(bad), lambda: bad)

    def _spoil(self, good: Completion, schema: Mapping[str, Any] | None) -> Completion:
        case, text = self.case, good.text
        if case in ("wrong_types", "bad_enum") or (
            schema is not None and case in ("huge", "invalid_utf8")
        ):
            if schema is not None:
                parsed = _map_fields(good.parsed, schema, case)
                return replace(good, text=_as_text(parsed), parsed=parsed)
            if case == "wrong_types":  # a text call answered with JSON
                return replace(good, text=json.dumps({"reply": 42, "items": [None]}))
            return replace(good, text=f"{text} \u0000\u00ff\uffff")  # bad_enum: odd codepoints
        if case in ("truncated_json", "stream_cut"):
            raw = good.text if good.text else "It sounds like"
            cut = raw[: max(1, len(raw) // 2)]
            cut = cut[:-1] if cut[-1:].isspace() else cut  # stop inside a word
            return replace(good, text=cut, parsed=None, finish_reason="length")
        if case == "empty":
            return replace(good, text="", parsed=None)
        if case == "huge":
            return replace(good, text=("word " * (HUGE_CHARS // 5))[:HUGE_CHARS])
        if case == "invalid_utf8":
            return replace(good, text=f"{text} {BAD_TEXT}")
        return good  # stream_broken spoils the stream, not the completion

    def _pieces(self, bad: Completion) -> Iterator[str]:
        words = bad.text.split(" ")
        for i, word in enumerate(words):
            if self.case == "stream_broken" and i == len(words) // 2:
                yield word[: max(1, len(word) // 2)]
                raise ModelCallError(f"{self.model_id}: the stream broke off mid-token")
            yield word if i == len(words) - 1 else word + " "
