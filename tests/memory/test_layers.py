"""Seed 004's memory layer constants and AccessMemory over the short-term layers 1 and 2."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.layers import (
    MAX_VALUE_BYTES,
    MEMORY_LAYERS,
    AccessResult,
    ShortTermMemory,
    check_layer,
)


@pytest.fixture
def stm() -> ShortTermMemory:
    return ShortTermMemory()


def test_layer_map_matches_design() -> None:
    assert sorted(MEMORY_LAYERS) == [1, 2, 3, 4, 5, 6, 7]
    names = [MEMORY_LAYERS[n][0] for n in range(1, 8)]
    assert names == [
        "sensory",
        "working",
        "episodic",
        "semantic",
        "procedural",
        "conceptual",
        "identity",
    ]
    assert "sensor readings" in MEMORY_LAYERS[1][1]
    assert "workspace" in MEMORY_LAYERS[2][1]
    assert "knowledge bases" in MEMORY_LAYERS[4][1]
    assert "user model" in MEMORY_LAYERS[7][1]


@pytest.mark.parametrize("layer", [1, 2])
def test_write_then_read(stm: ShortTermMemory, layer: int) -> None:
    assert stm.access_memory(layer, "mood", "calm") == AccessResult(data="calm", success=True)
    assert stm.access_memory(layer, "mood") == AccessResult(data="calm", success=True)
    assert stm.access_memory(layer, "mood", "tense").data == "tense"
    assert stm.access_memory(layer, "mood").data == "tense"


@pytest.mark.parametrize("layer", [1, 2])
def test_read_missing(stm: ShortTermMemory, layer: int) -> None:
    assert stm.access_memory(layer, "nothing") == AccessResult(data="", success=False)


def test_layers_are_separate(stm: ShortTermMemory) -> None:
    stm.access_memory(1, "k", "sensory value")
    assert stm.access_memory(2, "k") == AccessResult(data="", success=False)
    stm.access_memory(2, "k", "working value")
    assert stm.access_memory(1, "k").data == "sensory value"


def test_empty_string_value_is_a_write(stm: ShortTermMemory) -> None:
    assert stm.access_memory(2, "k", "") == AccessResult(data="", success=True)
    assert stm.access_memory(2, "k") == AccessResult(data="", success=True)


@pytest.mark.parametrize("layer", [3, 4, 5, 6, 7])
def test_long_term_layers_unsupported(stm: ShortTermMemory, layer: int) -> None:
    assert stm.access_memory(layer, "k", "v") == AccessResult(data="", success=False)
    assert stm.access_memory(layer, "k") == AccessResult(data="", success=False)
    assert stm.snapshot(layer) == {}
    with pytest.raises(MemoryInputError, match="not a short-term layer"):
        stm.clear(layer)


@pytest.mark.parametrize("layer", [0, 8, -1, 100, True, 1.0, "1", None])
def test_invalid_layer(stm: ShortTermMemory, layer: Any) -> None:
    with pytest.raises(MemoryInputError, match="integer from 1 to 7"):
        stm.access_memory(layer, "k")
    with pytest.raises(MemoryInputError, match="integer from 1 to 7"):
        stm.access_memory(layer, "k", "v")
    with pytest.raises(MemoryInputError):
        stm.clear(layer)
    with pytest.raises(MemoryInputError):
        check_layer(layer)


@pytest.mark.parametrize(
    ("key", "match"),
    [
        ("", "non-empty"),
        (None, "non-empty"),
        (5, "non-empty"),
        ("k" * 201, "201 characters"),
        ("bad\ud800", "surrogate"),
    ],
)
def test_bad_keys(stm: ShortTermMemory, key: Any, match: str) -> None:
    for layer in (1, 2, 5):
        with pytest.raises(MemoryInputError, match=match):
            stm.access_memory(layer, key, "v")
    assert stm.snapshot(1) == {} and stm.snapshot(2) == {}


def test_key_limits_accepted(stm: ShortTermMemory) -> None:
    key = "k" * 200
    assert stm.access_memory(1, key, "v").success
    assert stm.access_memory(1, "🎉").success is False
    assert stm.access_memory(1, "🎉", "party").data == "party"


def test_value_limits(stm: ShortTermMemory) -> None:
    at_limit = "x" * MAX_VALUE_BYTES
    assert stm.access_memory(2, "big", at_limit).success
    with pytest.raises(MemoryInputError, match="102,401 bytes"):
        stm.access_memory(2, "big", at_limit + "x")
    # bytes, not characters: 4-byte emoji count four times
    with pytest.raises(MemoryInputError, match="bytes"):
        stm.access_memory(2, "emoji", "🎉" * (MAX_VALUE_BYTES // 4 + 1))
    assert stm.access_memory(2, "big").data == at_limit  # the refused write changed nothing
    with pytest.raises(MemoryInputError, match="string"):
        stm.access_memory(2, "n", 5)  # type: ignore[arg-type]
    with pytest.raises(MemoryInputError, match="surrogate"):
        stm.access_memory(2, "s", "bad \udc80")


@pytest.mark.parametrize(
    "value",
    [
        "'; DROP TABLE kb_points; --",
        "ünïcödé 日本語 🎉👩‍👩‍👧‍👦",
        "nul \x00 inside",
        "x" * 1000,
        '{"json": [1, 2, 3]}',
    ],
)
def test_hostile_values_verbatim(stm: ShortTermMemory, value: str) -> None:
    stm.access_memory(2, value[:200], value)
    assert stm.access_memory(2, value[:200]) == AccessResult(data=value, success=True)


def test_clear_resets_one_layer(stm: ShortTermMemory) -> None:
    stm.access_memory(1, "a", "1")
    stm.access_memory(1, "b", "2")
    stm.access_memory(2, "c", "3")
    assert stm.snapshot(1) == {"a": "1", "b": "2"}
    assert stm.clear(1) == 2
    assert stm.access_memory(1, "a") == AccessResult(data="", success=False)
    assert stm.access_memory(2, "c").data == "3"
    assert stm.clear(1) == 0


def test_snapshot_is_a_copy(stm: ShortTermMemory) -> None:
    stm.access_memory(2, "k", "v")
    snap = stm.snapshot(2)
    snap["k"] = "changed"
    assert stm.access_memory(2, "k").data == "v"


def test_max_keys() -> None:
    stm = ShortTermMemory(max_keys=2)
    stm.access_memory(1, "a", "1")
    stm.access_memory(1, "b", "2")
    assert stm.access_memory(1, "a", "updated").success  # existing keys can change
    with pytest.raises(MemoryInputError, match="already holds 2 keys"):
        stm.access_memory(1, "c", "3")
    assert stm.access_memory(2, "c", "3").success  # the limit is per layer
    stm.clear(1)
    assert stm.access_memory(1, "c", "3").success


def test_access_result_is_frozen() -> None:
    result = AccessResult(data="x", success=True)
    with pytest.raises(ValueError, match="frozen"):
        result.data = "y"  # type: ignore[misc]


def test_threads(stm: ShortTermMemory) -> None:
    def worker(n: int) -> None:
        for i in range(200):
            stm.access_memory(2, f"t{n}-{i}", str(i))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(stm.snapshot(2)) == 800
