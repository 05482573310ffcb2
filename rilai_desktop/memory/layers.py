"""Seed 004's seven memory layers, and its AccessMemory API for the short-term ones.

The layers map onto Rilai as DESIGN.md says (``MEMORY_LAYERS``). Only layers 1 (sensory:
this turn's sensor readings) and 2 (working: the workspace) are reachable through
``access_memory``, as in the seed; they are in-process key/value stores, kept for the
life of the process and lost when it ends. Their client is the local API's
``POST /memory/access`` (docs/api.md); the turn neither reads nor clears them (its sensor
readings are in the turn's state and events), so a layer is emptied only by ``clear``.
The other layers have their own
APIs (``RelationshipMemory``, ``KnowledgeBases``, the item and category layers), and
``access_memory`` answers ``AccessResult(data="", success=False)`` for them.
"""

from __future__ import annotations

import threading
from typing import Any

from pydantic import BaseModel, ConfigDict

from rilai_desktop.errors import MemoryInputError

MEMORY_LAYERS: dict[int, tuple[str, str]] = {
    1: ("sensory", "this turn's sensor readings"),
    2: ("working", "the workspace"),
    3: ("episodic", "episodes (memory_episodes, RelationshipMemory)"),
    4: ("semantic", "items and the named knowledge bases (memory_items, kb_points)"),
    5: ("procedural", "agent manifests and habits"),
    6: ("conceptual", "categories (memory_categories)"),
    7: ("identity", "the user model and Rilai's self-model (memory_user_facts)"),
}
SHORT_TERM_LAYERS: tuple[int, ...] = (1, 2)
MAX_KEY_CHARS = 200
MAX_VALUE_BYTES = 100 * 1024
DEFAULT_MAX_KEYS = 10_000


class AccessResult(BaseModel):
    """Seed 004 AccessMemory response."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data: str
    success: bool


def _bad(message: str, hint: str) -> MemoryInputError:
    return MemoryInputError(message, recovery_suggestions=[hint])


def check_layer(layer: Any) -> int:
    if isinstance(layer, bool) or not isinstance(layer, int) or layer not in MEMORY_LAYERS:
        raise _bad(
            f"Memory layer must be an integer from 1 to 7, got {layer!r}",
            "Layers: " + ", ".join(f"{n} {name}" for n, (name, _) in MEMORY_LAYERS.items()),
        )
    return layer


def _check_utf8(name: str, value: str) -> bytes:
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        raise _bad(
            f"{name} contains an unpaired surrogate (not valid Unicode)",
            "Decode the text properly (UTF-8) first",
        ) from None


class ShortTermMemory:
    """Layers 1 (sensory) and 2 (working) as in-process key/value stores; thread-safe."""

    def __init__(self, *, max_keys: int = DEFAULT_MAX_KEYS) -> None:
        self.max_keys = max_keys
        self._lock = threading.Lock()
        self._stores: dict[int, dict[str, str]] = {n: {} for n in SHORT_TERM_LAYERS}

    def access_memory(self, layer: int, key: str, value: str | None = None) -> AccessResult:
        """Read (``value`` None) or write a key of a layer (seed 004 AccessMemory).

        A read of a missing key answers ``("", False)``; a write answers the value stored.
        Layers 3–7 are not reachable here and answer ``("", False)``.
        """
        layer = check_layer(layer)
        if not isinstance(key, str) or not key:
            raise _bad(f"key must be a non-empty string, got {key!r}", "Pass a key such as 'mood'")
        if len(key) > MAX_KEY_CHARS:
            raise _bad(
                f"key has {len(key):,} characters (limit {MAX_KEY_CHARS})",
                f"Use a key of at most {MAX_KEY_CHARS} characters",
            )
        _check_utf8("key", key)
        if value is not None:
            if not isinstance(value, str):
                raise _bad(
                    f"value must be a string, not {type(value).__name__}",
                    "Serialise the value (e.g. json.dumps) before storing it",
                )
            size = len(_check_utf8("value", value))
            if size > MAX_VALUE_BYTES:
                raise _bad(
                    f"value is {size:,} bytes (limit {MAX_VALUE_BYTES:,} bytes, 100 KB)",
                    "Store a summary, or put large content in the context store",
                )
        store = self._stores.get(layer)
        if store is None:
            return AccessResult(data="", success=False)
        with self._lock:
            if value is None:
                found = store.get(key)
                return AccessResult(data=found or "", success=found is not None)
            if key not in store and len(store) >= self.max_keys:
                raise _bad(
                    f"layer {layer} already holds {self.max_keys:,} keys; nothing was written",
                    f"Clear the layer (clear({layer})) or reuse keys",
                )
            store[key] = value
            return AccessResult(data=value, success=True)

    def clear(self, layer: int) -> int:
        """Empty layer 1 or 2; returns how many keys it held."""
        layer = check_layer(layer)
        store = self._stores.get(layer)
        if store is None:
            raise _bad(
                f"Layer {layer} ({MEMORY_LAYERS[layer][0]}) is not a short-term layer",
                "Only layers 1 (sensory) and 2 (working) can be cleared",
            )
        with self._lock:
            count = len(store)
            store.clear()
            return count

    def snapshot(self, layer: int) -> dict[str, str]:
        """A copy of layer 1 or 2 (for the inspector); {} for the other layers."""
        layer = check_layer(layer)
        with self._lock:
            return dict(self._stores.get(layer, {}))


__all__ = [
    "DEFAULT_MAX_KEYS",
    "MAX_KEY_CHARS",
    "MAX_VALUE_BYTES",
    "MEMORY_LAYERS",
    "SHORT_TERM_LAYERS",
    "AccessResult",
    "ShortTermMemory",
    "check_layer",
]
