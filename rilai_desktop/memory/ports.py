"""What memory needs from the rest of the app, as structural types (no imports of store/llm).

The composition root passes the EventLog (which is both a ``Database`` and an
``contracts.EventSink``: memory's events are appended inside the write transaction)
and the model router's LLMs; tests pass the same or the fakes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Database(Protocol):
    """The shared SQLite connection and a write transaction that nests (joins the outer)."""

    @property
    def connection(self) -> sqlite3.Connection: ...

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...


class Embedder(Protocol):
    """Text -> L2-normalised float32 vectors of a fixed dimension."""

    @property
    def dimension(self) -> int: ...

    @property
    def model_id(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...

    def embed_one(self, text: str) -> Vectors: ...


class TextModel(Protocol):
    """The slice of the model port memory uses (``contracts.llm.LLM`` satisfies it).

    ``complete(...)`` returns an object with ``.text`` (the reply; JSON when ``schema`` is
    given). Errors are RilaiErrors; memory wraps them in its own (ExtractionError...).
    """

    @property
    def model_id(self) -> str: ...

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        schema: Mapping[str, Any] | None = None,
        max_tokens: int = 256,
        temperature: float = 0.7,
        stop: Sequence[str] | None = None,
        stream: bool = False,
    ) -> Any: ...
