"""The vector index (memory/vector_index.py): both of its kinds, exact flat and IVF, behave
the same for what memory relies on (ids in, nearest ids out, saved and checked back)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.vector_index import (
    StaleIndexError,
    VectorIndex,
    ids_checksum,
    ivf_nlist,
)

DIM, N = 16, 300


def _vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


IDS = np.arange(1000, 1000 + N, dtype=np.int64)
VECTORS = _vectors(N, 0)
NLIST = ivf_nlist(N)

KINDS: dict[str, Callable[[], VectorIndex]] = {
    "flat": lambda: VectorIndex.build(DIM, IDS, VECTORS),
    # every list probed: IVF answers exactly, so both kinds meet one contract
    "ivf": lambda: VectorIndex.build(DIM, IDS, VECTORS, exact_max=10, nprobe=NLIST),
}


@pytest.fixture(params=list(KINDS))
def index(request: pytest.FixtureRequest) -> VectorIndex:
    built = KINDS[request.param]()
    assert built.kind == request.param
    return built


def test_it_holds_exactly_the_ids_it_was_given(index: VectorIndex) -> None:
    assert len(index) == N
    assert sorted(index.ids().tolist()) == IDS.tolist()


def test_each_vector_finds_its_own_id_first(index: VectorIndex) -> None:
    scores, ids = index.search(VECTORS[:20], k=3)
    assert scores.shape == ids.shape == (20, 3)
    assert ids[:, 0].tolist() == IDS[:20].tolist()
    assert np.allclose(scores[:, 0], 1.0, atol=1e-4)
    assert np.all(scores[:, 0] >= scores[:, 1])  # best first


def test_added_ids_are_found_and_removed_ids_are_gone(index: VectorIndex) -> None:
    extra = _vectors(2, 7)
    index.add(np.array([5, 6]), extra)
    assert len(index) == N + 2
    assert index.search(extra[0], k=1)[1][0, 0] == 5
    assert index.remove(np.array([5, 1000])) == 2
    assert len(index) == N
    assert 5 not in index.search(extra[0], k=5)[1][0]
    assert index.remove(np.array([], dtype=np.int64)) == 0


def test_replace_moves_an_id_to_its_new_vector(index: VectorIndex) -> None:
    new = _vectors(1, 9)
    index.add(np.array([1000]), new, replace=True)
    assert len(index) == N
    assert index.search(new, k=1)[1][0, 0] == 1000


def test_missing_slots_are_minus_one() -> None:
    for kind in ("flat", "ivf"):
        empty = VectorIndex(DIM, kind=kind)  # type: ignore[arg-type]
        scores, ids = empty.search(VECTORS[:2], k=4)
        assert ids.tolist() == [[-1] * 4] * 2 and not scores.any()
    small = VectorIndex.build(DIM, IDS[:2], VECTORS[:2])
    assert small.search(VECTORS[0], k=4)[1][0].tolist()[2:] == [-1, -1]


@pytest.mark.parametrize(
    "bad",
    [np.ones((1, DIM + 1), np.float32), np.full((1, DIM), np.nan, np.float32)],
    ids=["wrong-dimension", "nan"],
)
def test_bad_vectors_are_refused(index: VectorIndex, bad: np.ndarray) -> None:
    with pytest.raises(MemoryInputError):
        index.search(bad, k=1)
    with pytest.raises(MemoryInputError):
        index.add(np.array([1]), bad)
    assert len(index) == N


def test_k_must_be_positive(index: VectorIndex) -> None:
    with pytest.raises(MemoryInputError):
        index.search(VECTORS[0], k=0)


def test_saved_and_checked_back_it_answers_the_same(index: VectorIndex, tmp_path: Path) -> None:
    path = tmp_path / "index.faiss"
    meta = index.save(path, model_id="m")
    assert meta["count"] == N and meta["kind"] == index.kind
    loaded = VectorIndex.load_checked(
        path,
        dimension=DIM,
        model_id="m",
        expected_count=N,
        expected_checksum=ids_checksum(index.ids()),
        nprobe=NLIST,
    )
    assert loaded.kind == index.kind and len(loaded) == N
    assert np.array_equal(loaded.search(VECTORS[:5], k=2)[1], index.search(VECTORS[:5], k=2)[1])
    with pytest.raises(StaleIndexError):
        VectorIndex.load_checked(
            path,
            dimension=DIM,
            model_id="other",
            expected_count=N,
            expected_checksum=meta["ids_sha256"],
        )
    with pytest.raises(StaleIndexError):
        VectorIndex.load_checked(
            path,
            dimension=DIM,
            model_id="m",
            expected_count=N - 1,
            expected_checksum=meta["ids_sha256"],
        )
