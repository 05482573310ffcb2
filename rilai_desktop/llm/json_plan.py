"""A JSON schema compiled into a plan the fast structured writer can follow.

The schemas Rilai sends to its models are small and closed: objects with a fixed property
order and ``additionalProperties: false``, strings with a length cap, ``enum`` lists for
everything bounded, and short arrays. For those, almost all of a reply is fixed by the
schema — the keys, the brackets, the quotes — and only the string contents and the choices
(which enum value, whether an optional property or one more array item comes) are the
model's. ``compile_schema`` turns such a schema into a tree of :class:`Node` s; the writer
(``llm/json_writer.py``) then feeds the fixed text to the model in one batch and spends a
decode step only where the model has a say.

A schema outside this subset raises :class:`UnsupportedSchema`; the adapter then uses the
llama.cpp grammar sampler, which handles any schema (slower).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_CHARS = 200  # a string without maxLength (bounded: a reply must close)


class UnsupportedSchema(ValueError):
    """The schema uses something the structured writer does not handle."""


@dataclass(frozen=True)
class StrNode:
    """A free string: ``min_chars``..``max_chars`` characters, quotes included by the writer."""

    min_chars: int
    max_chars: int


@dataclass(frozen=True)
class EnumNode:
    """One of a fixed set of JSON texts (``"pass"``, ``2``, ``-0.15``, ``true``)."""

    options: tuple[str, ...]


@dataclass(frozen=True)
class Prop:
    name: str
    node: Node
    required: bool

    @property
    def key(self) -> str:
        return json.dumps(self.name, ensure_ascii=False) + ":"


@dataclass(frozen=True)
class ObjNode:
    props: tuple[Prop, ...]


@dataclass(frozen=True)
class ArrNode:
    item: Node
    min_items: int
    max_items: int


Node = StrNode | EnumNode | ObjNode | ArrNode


def compile_schema(schema: Mapping[str, Any]) -> Node:
    """The plan for ``schema``, or :class:`UnsupportedSchema`."""
    return _node(schema, "$")


def _node(schema: Mapping[str, Any], where: str) -> Node:
    if not isinstance(schema, Mapping):
        raise UnsupportedSchema(f"{where}: not a schema object")
    for word in ("anyOf", "oneOf", "allOf", "$ref", "const", "pattern", "format", "not"):
        if word in schema:
            raise UnsupportedSchema(f"{where}: {word!r} is not supported")
    kind = schema.get("type")
    if "enum" in schema:
        options = schema["enum"]
        if not isinstance(options, list) or not options:
            raise UnsupportedSchema(f"{where}: enum must be a non-empty list")
        texts = tuple(dict.fromkeys(json.dumps(o, ensure_ascii=False) for o in options))
        if any(isinstance(o, (dict, list)) or o is None for o in options):
            raise UnsupportedSchema(f"{where}: enum values must be strings, numbers or booleans")
        return EnumNode(texts)
    if kind == "boolean":
        return EnumNode(("true", "false"))
    if kind == "string":
        low = int(schema.get("minLength", 0))
        high = int(schema.get("maxLength", DEFAULT_MAX_CHARS))
        if low < 0 or high < max(low, 1):
            raise UnsupportedSchema(f"{where}: bad string length bounds {low}..{high}")
        return StrNode(low, high)
    if kind == "object":
        if schema.get("additionalProperties", True) is not False:
            raise UnsupportedSchema(f"{where}: objects must set additionalProperties: false")
        props = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        if not required <= set(props):
            raise UnsupportedSchema(f"{where}: a required property is not defined")
        return ObjNode(
            tuple(
                Prop(name, _node(sub, f"{where}.{name}"), name in required)
                for name, sub in props.items()
            )
        )
    if kind == "array":
        if "items" not in schema:
            raise UnsupportedSchema(f"{where}: arrays need items")
        fewest = int(schema.get("minItems", 0))
        most = schema.get("maxItems")
        if most is None:
            raise UnsupportedSchema(f"{where}: arrays need maxItems (a reply must close)")
        if fewest < 0 or int(most) < max(fewest, 1):
            raise UnsupportedSchema(f"{where}: bad array bounds {fewest}..{most}")
        return ArrNode(_node(schema["items"], f"{where}[]"), fewest, int(most))
    raise UnsupportedSchema(f"{where}: type {kind!r} is not supported without an enum")


def validate_plan_output(node: Node, value: Any) -> bool:
    """Does a parsed value fit the plan? (The writer's own check, used by the tests.)"""
    if isinstance(node, StrNode):
        return isinstance(value, str) and node.min_chars <= len(value) <= node.max_chars
    if isinstance(node, EnumNode):
        return json.dumps(value, ensure_ascii=False) in node.options
    if isinstance(node, ArrNode):
        return (
            isinstance(value, list)
            and node.min_items <= len(value) <= node.max_items
            and all(validate_plan_output(node.item, v) for v in value)
        )
    if not isinstance(value, dict):
        return False
    names = [p.name for p in node.props]
    if any(k not in names for k in value) or list(value) != [n for n in names if n in value]:
        return False
    return all(
        (p.name in value and validate_plan_output(p.node, value[p.name]))
        or (p.name not in value and not p.required)
        for p in node.props
    )
