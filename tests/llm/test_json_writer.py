"""The structured writer against a toy token model: valid JSON that fits the plan, always."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rilai_desktop.contracts.agent_schema import agent_reply_schema
from rilai_desktop.llm.json_plan import (
    ArrNode,
    EnumNode,
    ObjNode,
    StrNode,
    UnsupportedSchema,
    compile_schema,
    validate_plan_output,
)
from rilai_desktop.llm.json_writer import JsonWriter, ReplyCut, VocabTable

# A toy vocabulary: every printable ASCII character, a few multi-character pieces (one that
# closes a string, one with a quote inside, one with a backslash), and an end-of-text token.
_MULTI = ["the ", "ing", '."', '","', "\\n", '{"', "pass", "fail"]
VOCAB: list[bytes] = [bytes([c]) for c in range(0x20, 0x7F)] + [m.encode() for m in _MULTI]
EOT = len(VOCAB)
VOCAB.append(b"")
SPECIAL = [False] * EOT + [True]


class ToyModel:
    """Greedy longest-match tokenizer; its logits favour continuing ``target``."""

    def __init__(self, target: str, *, noise: float = 0.0, seed: int = 0) -> None:
        self.target = target
        self.seen: list[int] = []
        self.evals: list[int] = []  # batch sizes
        self.noise = noise
        self.rng = np.random.default_rng(seed)

    def tokenize(self, text: str) -> list[int]:
        data, out, i = text.encode(), [], 0
        while i < len(data):
            best = max(
                (t for t, p in enumerate(VOCAB[:EOT]) if data.startswith(p, i)),
                key=lambda t: len(VOCAB[t]),
            )
            out.append(best)
            i += len(VOCAB[best])
        return out

    def eval(self, tokens: Sequence[int]) -> None:
        self.seen += list(tokens)
        self.evals.append(len(tokens))

    def text(self) -> bytes:
        return b"".join(VOCAB[t] for t in self.seen)

    def logits(self) -> np.ndarray[Any, Any]:
        out = self.rng.normal(0, self.noise, len(VOCAB)) if self.noise else np.zeros(len(VOCAB))
        done = self.text()
        target = self.target.encode()
        if target.startswith(done) and len(done) < len(target):
            rest = target[len(done) :]
            for t, piece in enumerate(VOCAB[:EOT]):
                if piece and rest.startswith(piece):
                    out[t] += 5.0 + len(piece)  # prefer the longest continuation
        else:
            out[EOT] += 8.0  # off target: the model would like to stop
        return out


TABLE = VocabTable.build(VOCAB, SPECIAL)


def write(node: Any, model: ToyModel, *, max_tokens: int = 400, temperature: float = 0.0) -> str:
    writer = JsonWriter(model, TABLE, temperature=temperature, seed=1, max_tokens=max_tokens)
    return b"".join(writer.write(node)).decode()


AGENT = agent_reply_schema(
    ("stance_delta", "memory_candidates"), observation_chars=90, claim_chars=80, max_claims=1
)


def test_vocab_table_marks_string_safe_and_closing_pieces() -> None:
    ids = {p: i for i, p in enumerate(VOCAB)}
    assert TABLE.content_ok[ids[b"the "]] and not TABLE.closes[ids[b"the "]]
    assert TABLE.closes[ids[b'."']] and TABLE.length[ids[b'."']] == 1
    assert TABLE.closes[ids[b'"']] and TABLE.length[ids[b'"']] == 0
    assert TABLE.closes[ids[b'{"']]  # "{" is string-safe content, then the quote
    for bad in (b'","', b"\\n", b"\\"):
        assert not TABLE.content_ok[ids[bad]] and not TABLE.closes[ids[bad]]
    assert not TABLE.content_ok[EOT] and not TABLE.closes[EOT]


def test_a_reply_the_model_wants_is_written_exactly_and_fixed_text_is_batched() -> None:
    reply = {
        "observation": "They sound tired of the pressure.",
        "urgency": 2,
        "confidence": 1,
        "claims": [{"type": "concern", "text": "Work is wearing them down."}],
        "stance": {"dimension": "strain", "change": 0.1},
    }
    target = json.dumps(reply, separators=(",", ":"))
    model = ToyModel(target)
    writer = JsonWriter(model, TABLE, temperature=0.0, seed=1, max_tokens=400)
    out = b"".join(writer.write(compile_schema(AGENT))).decode()
    assert out == target
    # only the model's choices cost a decode step: far fewer than the reply's tokens
    assert writer.decode_steps < len(model.tokenize(target)) * 0.7
    assert max(model.evals) > 3  # fixed text went in as batches


def test_optional_fields_can_be_left_out() -> None:
    reply = {
        "observation": "Nothing here for me.",
        "urgency": 0,
        "confidence": 0,
        "claims": [{"type": "observation", "text": "A light greeting."}],
    }
    target = json.dumps(reply, separators=(",", ":"))
    out = write(compile_schema(AGENT), ToyModel(target))
    assert json.loads(out) == reply


def test_a_string_that_runs_long_is_closed_at_its_cap() -> None:
    node = compile_schema(
        {
            "type": "object",
            "properties": {"note": {"type": "string", "minLength": 1, "maxLength": 12}},
            "required": ["note"],
            "additionalProperties": False,
        }
    )
    out = write(node, ToyModel('{"note":"' + "the " * 20 + '"}'))
    parsed = json.loads(out)
    assert 1 <= len(parsed["note"]) <= 12 and validate_plan_output(node, parsed)


def test_an_enum_with_a_shared_prefix_follows_the_model() -> None:
    node = compile_schema({"type": "number", "enum": [-0.1, -0.15, 0.1]})
    assert write(node, ToyModel("-0.15,")) == "-0.15"
    assert write(node, ToyModel("-0.1,")) == "-0.1"


def test_the_token_limit_cuts_the_reply() -> None:
    model = ToyModel('{"observation":"' + "x" * 80)
    with pytest.raises(ReplyCut):
        write(compile_schema(AGENT), model, max_tokens=10)


@settings(max_examples=60, deadline=None)
@given(
    target=st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=200),
    noise=st.floats(0.0, 6.0),
    seed=st.integers(0, 10_000),
    temperature=st.sampled_from([0.0, 0.2, 1.0]),
)
def test_whatever_the_model_prefers_the_reply_parses_and_fits_the_plan(
    target: str, noise: float, seed: int, temperature: float
) -> None:
    node = compile_schema(AGENT)
    out = write(node, ToyModel(target, noise=noise, seed=seed), temperature=temperature)
    assert validate_plan_output(node, json.loads(out))


def test_compile_schema_covers_the_shapes_rilai_uses() -> None:
    node = compile_schema(AGENT)
    assert isinstance(node, ObjNode)
    names = [p.name for p in node.props]
    assert names == ["observation", "urgency", "confidence", "claims", "stance", "memory"]
    assert isinstance(node.props[0].node, StrNode) and node.props[0].node.max_chars == 90
    assert isinstance(node.props[1].node, EnumNode) and node.props[1].node.options[0] == "0"
    claims = node.props[3].node
    assert isinstance(claims, ArrNode) and (claims.min_items, claims.max_items) == (0, 1)
    assert compile_schema({"type": "boolean"}) == EnumNode(("true", "false"))


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer"},
        {"type": "object", "properties": {}},  # additionalProperties not false
        {"type": "array", "items": {"type": "string"}},  # no maxItems
        {"anyOf": [{"type": "string"}]},
        {"type": "string", "pattern": "^a"},
        {"type": "string", "maxLength": 0},
    ],
)
def test_schemas_outside_the_subset_are_refused(schema: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedSchema):
        compile_schema(schema)


def test_a_quote_first_token_closes_and_the_quote_joins_the_fixed_text() -> None:
    node = compile_schema(
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "maxLength": 20},
                "b": {"type": "string", "enum": ["pass", "fail"]},
            },
            "required": ["a", "b"],
            "additionalProperties": False,
        }
    )
    model = ToyModel('{"a":"the","b":"fail"}')
    assert write(node, model) == '{"a":"the","b":"fail"}'
    quote_comma = VOCAB.index(b'","')
    # the model's `","` ended the string; the fixed text was tokenised as `","` + `b` + ...
    assert quote_comma in model.seen


# ── the agents' label answer (issue 16) ──────────────────────────────────────


def _label_node() -> Any:
    from rilai_desktop.turn.agents.labels import label_schema

    return compile_schema(label_schema(["lonely", "low", "happy", "hurt"]))


@pytest.mark.parametrize(
    "reply",
    [
        {"present": "yes", "label": "lonely", "confidence": 2, "span": "evenings are hard"},
        {"present": "no", "label": "happy", "confidence": 0},
        {"present": "yes", "label": "hurt", "confidence": 3},
    ],
)
def test_a_label_answer_round_trips_through_the_plan(reply: dict[str, Any]) -> None:
    """Fixed key order, enums and the optional capped span: what the model wants is written
    exactly, and only its choices and the span's words cost decode steps."""
    node = _label_node()
    target = json.dumps(reply, separators=(",", ":"))
    model = ToyModel(target)
    writer = JsonWriter(model, TABLE, temperature=0.0, seed=1, max_tokens=96)
    out = b"".join(writer.write(node)).decode()
    assert json.loads(out) == reply
    assert validate_plan_output(node, json.loads(out))
    # present, label (two steps where options share a first token), confidence, span or not
    assert writer.decode_steps <= 5 + len(reply.get("span", ""))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_a_label_answer_always_fits_the_plan_whatever_the_model_prefers(seed: int) -> None:
    from rilai_desktop.turn.agents.labels import SPAN_CHARS
    from rilai_desktop.turn.agents.runner import MAX_TOKENS

    node = _label_node()
    model = ToyModel("}", noise=3.0, seed=seed)
    writer = JsonWriter(model, TABLE, temperature=1.0, seed=seed, max_tokens=MAX_TOKENS)
    parsed = json.loads(b"".join(writer.write(node)).decode())
    assert validate_plan_output(node, parsed)
    assert parsed["label"] in ("lonely", "low", "happy", "hurt")
    assert len(parsed.get("span", "")) <= SPAN_CHARS
