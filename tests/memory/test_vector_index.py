"""VectorIndex: flat and IVF, ids, replacement, bad vectors, the checked file and its sidecar."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rilai_desktop.errors import MemoryInputError, VectorIndexError
from rilai_desktop.memory.vector_index import (
    StaleIndexError,
    VectorIndex,
    ids_checksum,
    ivf_nlist,
    sidecar_path,
)

DIM = 16


def unit_vectors(n: int, dim: int = DIM, seed: int = 0) -> np.ndarray[Any, np.dtype[np.float32]]:
    rng = np.random.default_rng(seed)
    vecs = rng.normal(size=(n, dim)).astype(np.float32)
    out: np.ndarray[Any, np.dtype[np.float32]] = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    return out


def build(
    kind: str, n: int = 400
) -> tuple[VectorIndex, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    vecs = unit_vectors(n)
    ids = np.arange(100, 100 + n, dtype=np.int64)
    if kind == "ivf":
        # exact_max below n forces IVF; probing every list makes its answers exact
        index = VectorIndex.build(DIM, ids, vecs, exact_max=n // 2, nprobe=ivf_nlist(n))
    else:
        index = VectorIndex.build(DIM, ids, vecs)
    assert index.kind == kind
    return index, ids, vecs


@pytest.fixture(params=["flat", "ivf"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_build_picks_flat_up_to_exact_max_and_ivf_beyond() -> None:
    vecs = unit_vectors(40)
    ids = np.arange(40)
    assert VectorIndex.build(DIM, ids, vecs, exact_max=40).kind == "flat"
    assert VectorIndex.build(DIM, ids, vecs, exact_max=39).kind == "ivf"
    assert ivf_nlist(1) == 16
    assert ivf_nlist(100_000) == 1024


def test_ids_search_add_remove(kind: str) -> None:
    index, ids, vecs = build(kind)
    assert len(index) == len(ids)
    assert sorted(index.ids().tolist()) == ids.tolist()

    scores, found = index.search(vecs[7], 3)
    assert scores.shape == (1, 3) and found.shape == (1, 3)
    assert found[0][0] == ids[7]
    assert scores[0][0] == pytest.approx(1.0, abs=1e-5)
    assert scores[0][0] >= scores[0][1] >= scores[0][2]

    # several queries at once
    _, found = index.search(vecs[[1, 2, 3]], 1)
    assert found[:, 0].tolist() == ids[[1, 2, 3]].tolist()

    assert index.remove(np.array([ids[7], 999_999])) == 1
    assert len(index) == len(ids) - 1
    assert ids[7] not in index.ids()
    _, found = index.search(vecs[7], 1)
    assert found[0][0] != ids[7]
    assert index.remove(np.array([], dtype=np.int64)) == 0

    index.add(np.array([5]), vecs[7])
    assert len(index) == len(ids)
    _, found = index.search(vecs[7], 1)
    assert found[0][0] == 5


def test_re_adding_an_id_with_replace_replaces_its_vector(kind: str) -> None:
    index, ids, vecs = build(kind)
    target = int(ids[0])
    index.add(np.array([target]), vecs[-1], replace=True)
    assert len(index) == len(ids)  # replaced, not duplicated
    assert index.ids().tolist().count(target) == 1
    scores, found = index.search(vecs[-1], 2)
    assert set(found[0].tolist()) == {target, int(ids[-1])}
    assert scores[0][0] == pytest.approx(1.0, abs=1e-5)
    _, found = index.search(vecs[0], 1)
    assert found[0][0] != target  # the old vector is gone


def test_empty_index_and_k_larger_than_the_index() -> None:
    index = VectorIndex(DIM)
    assert len(index) == 0
    assert index.ids().tolist() == []
    scores, found = index.search(unit_vectors(1), 4)
    assert found.tolist() == [[-1, -1, -1, -1]]
    assert scores.tolist() == [[0.0, 0.0, 0.0, 0.0]]
    index.add(np.array([1, 2]), unit_vectors(2))
    _, found = index.search(unit_vectors(1), 5)
    assert sorted(found[0].tolist()) == [-1, -1, -1, 1, 2]


def test_dimension_mismatch_is_refused(kind: str) -> None:
    index, _, _ = build(kind)
    with pytest.raises(MemoryInputError) as err:
        index.add(np.array([1]), np.ones((1, DIM + 1), dtype=np.float32))
    assert "dimension 16" in err.value.message
    assert err.value.recovery_suggestions
    with pytest.raises(MemoryInputError):
        index.search(np.ones(DIM - 1, dtype=np.float32), 1)
    with pytest.raises(MemoryInputError):
        index.add(np.array([1, 2]), unit_vectors(3))  # ids and vectors disagree
    with pytest.raises(MemoryInputError):
        index.search(unit_vectors(1), 0)
    with pytest.raises(MemoryInputError):
        VectorIndex(0)
    with pytest.raises(MemoryInputError):
        VectorIndex.build(DIM, np.arange(2), unit_vectors(3))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_vectors_are_refused(kind: str, bad: float) -> None:
    index, ids, _ = build(kind)
    vec = unit_vectors(1)
    vec[0, 3] = bad
    with pytest.raises(MemoryInputError, match="NaN or infinity"):
        index.add(np.array([1]), vec)
    with pytest.raises(MemoryInputError):
        index.search(vec, 1)
    assert len(index) == len(ids)


def save_and_meta(index: VectorIndex, path: Path, model_id: str = "m1") -> dict[str, Any]:
    return index.save(path, model_id=model_id)


def load(path: Path, meta: dict[str, Any], **overrides: Any) -> VectorIndex:
    args: dict[str, Any] = {
        "dimension": meta["dimension"],
        "model_id": meta["model_id"],
        "expected_count": meta["count"],
        "expected_checksum": meta["ids_sha256"],
    }
    args.update(overrides)
    return VectorIndex.load_checked(path, **args)


def test_save_and_load_checked_round_trip(kind: str, tmp_path: Path) -> None:
    index, ids, vecs = build(kind)
    path = tmp_path / "idx" / "index.faiss"
    meta = save_and_meta(index, path)
    assert path.is_file() and sidecar_path(path).is_file()
    assert json.loads(sidecar_path(path).read_text()) == meta
    assert meta["kind"] == kind
    assert meta["count"] == len(ids)
    assert meta["ids_sha256"] == ids_checksum(ids)
    assert meta["dimension"] == DIM and meta["model_id"] == "m1"
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".")] == []  # no temps

    loaded = load(path, meta)
    assert loaded.kind == kind
    assert len(loaded) == len(ids)
    assert sorted(loaded.ids().tolist()) == ids.tolist()
    _, found = loaded.search(vecs[11], 1)
    assert found[0][0] == ids[11]
    # still a working index after loading
    loaded.remove(np.array([ids[11]]))
    assert len(loaded) == len(ids) - 1


def test_checksum_is_order_independent() -> None:
    assert ids_checksum(np.array([3, 1, 2])) == ids_checksum(np.array([1, 2, 3]))
    assert ids_checksum(np.array([1, 2, 3])) != ids_checksum(np.array([1, 2, 4]))


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    index, _, _ = build("flat", n=50)
    path = tmp_path / "index.faiss"
    return path, save_and_meta(index, path)


def stale_reason(path: Path, meta: dict[str, Any], **overrides: Any) -> str:
    with pytest.raises(StaleIndexError) as err:
        load(path, meta, **overrides)
    assert isinstance(err.value, VectorIndexError)
    assert err.value.code == "MEM-008"
    assert err.value.recovery_suggestions
    assert err.value.context["reason"] == err.value.reason
    return err.value.reason


def test_stale_missing_index_file(saved: tuple[Path, dict[str, Any]]) -> None:
    path, meta = saved
    path.unlink()
    assert stale_reason(path, meta) == "the index file is missing"


def test_stale_missing_sidecar(saved: tuple[Path, dict[str, Any]]) -> None:
    path, meta = saved
    sidecar_path(path).unlink()
    assert stale_reason(path, meta) == "the sidecar file is missing"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("{not json", "unreadable"),
        ("", "unreadable"),
        ("[1, 2, 3]", "unknown format"),
        ('{"version": 99}', "unknown format"),
    ],
)
def test_stale_garbage_sidecar(
    saved: tuple[Path, dict[str, Any]], text: str, fragment: str
) -> None:
    path, meta = saved
    sidecar_path(path).write_text(text)
    assert fragment in stale_reason(path, meta)


def test_stale_count_mismatch(saved: tuple[Path, dict[str, Any]]) -> None:
    path, meta = saved
    reason = stale_reason(path, meta, expected_count=meta["count"] + 1)
    assert f"holds {meta['count']} items but the database has {meta['count'] + 1}" in reason


def test_stale_checksum_mismatch(saved: tuple[Path, dict[str, Any]]) -> None:
    path, meta = saved
    other = ids_checksum(np.arange(meta["count"]))
    assert "a different set" in stale_reason(path, meta, expected_checksum=other)


def test_stale_when_the_file_holds_other_ids_than_its_sidecar_says(tmp_path: Path) -> None:
    path = tmp_path / "index.faiss"
    meta = save_and_meta(VectorIndex.build(DIM, np.arange(5), unit_vectors(5)), path)
    # the sidecar claims another set of 5 ids, and SQLite agrees with the sidecar
    fake = ids_checksum(np.arange(10, 15))
    sidecar_path(path).write_text(json.dumps({**meta, "ids_sha256": fake}))
    reason = stale_reason(path, meta, expected_checksum=fake)
    assert reason == "the ids in the file do not match its sidecar"


def test_stale_when_vectors_in_the_file_disagree_with_the_sidecar(tmp_path: Path) -> None:
    path = tmp_path / "index.faiss"
    meta = save_and_meta(VectorIndex.build(DIM, np.arange(5), unit_vectors(5)), path)
    # a file from another save (3 vectors) beside this sidecar (5)
    VectorIndex.build(DIM, np.arange(3), unit_vectors(3)).save(
        tmp_path / "other.faiss", model_id="m1"
    )
    os.replace(tmp_path / "other.faiss", path)
    assert "holds 3 vectors" in stale_reason(path, meta)


@pytest.mark.parametrize(
    "overrides", [{"model_id": "another-model"}, {"dimension": DIM * 2}], ids=["model", "dim"]
)
def test_stale_after_a_model_or_dimension_change(
    saved: tuple[Path, dict[str, Any]], overrides: dict[str, Any]
) -> None:
    path, meta = saved
    reason = stale_reason(path, meta, **overrides)
    assert reason.startswith("it was built for m1/16 dims")


@pytest.mark.parametrize("how", ["random", "truncated"])
def test_stale_when_the_index_bytes_are_corrupted(
    saved: tuple[Path, dict[str, Any]], how: str
) -> None:
    path, meta = saved
    if how == "random":
        path.write_bytes(np.random.default_rng(7).bytes(4096))
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert sidecar_path(path).is_file()  # the sidecar alone still looks right
    assert stale_reason(path, meta).startswith("the index file is corrupt")


def test_save_into_an_unwritable_place_is_a_vector_index_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    index = VectorIndex.build(DIM, np.arange(3), unit_vectors(3))
    with pytest.raises(VectorIndexError):
        index.save(blocker / "index.faiss", model_id="m1")  # its folder cannot be made
    target = tmp_path / "dir-as-target"
    target.mkdir()
    with pytest.raises(VectorIndexError) as err:
        index.save(target, model_id="m1")  # os.replace onto a directory fails
    assert err.value.code == "MEM-008"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".index-")] == []
