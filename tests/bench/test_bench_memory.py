"""`rilai bench memory` on tiny sizes with the hashed embedder (no torch model loads).

Only the report's structure is checked, never a timing threshold: the machine is shared.
"""

from __future__ import annotations

import functools
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rilai_desktop.cli.bench import memory as mb
from rilai_desktop.config import Settings, load_settings
from rilai_desktop.errors import MemoryInputError
from rilai_desktop.memory.extraction import RuleExtractor
from rilai_desktop.paths import Paths, resolve_paths
from tests.cli_runner import Run, RunWith


@pytest.fixture
def hash_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RILAI_EMBEDDING__BACKEND", "hash")


@pytest.fixture
def paths(rilai_home: Path) -> Paths:
    return resolve_paths()


def _settings(paths: Paths) -> Settings:
    return load_settings(paths.settings_file, os.environ, {}).settings


def _positive(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x) and x > 0


def _check_stats(st: dict[str, Any]) -> None:
    assert set(st) == {"p50_ms", "p95_ms", "min_ms", "mean_ms"}
    assert all(math.isfinite(v) and v >= 0 for v in st.values())
    assert st["min_ms"] <= st["p50_ms"] <= st["p95_ms"]


def test_run_bench_report(hash_backend: None, paths: Paths, tmp_path: Path) -> None:
    lines: list[str] = []
    rep = mb.run_bench(
        _settings(paths),
        [300, 200],
        repeats=2,
        queries=12,
        ingest_turns=60,
        workdir=tmp_path,
        progress=lines.append,
    )
    assert rep["benchmark"] == "memory"
    assert rep["backend"] == "hash"
    assert "HashEmbedder" in rep["bare_encoder"]
    assert rep["torch_threads"] is None
    assert rep["items"] == [200, 300]
    assert [r["items"] for r in rep["sizes"]] == [200, 300]
    assert lines and all(line.startswith("[bench memory") for line in lines)
    for size in rep["sizes"]:
        assert size["mode"] == "full"
        build = size["build"]
        assert build["index_kind"] == "flat"
        assert build["rebuild_ms"] >= 0 and build["insert_s"] >= 0
        s = size["search"]
        assert s["queries"] == 12 and s["k"] == 10 and s["candidates"] == 50
        assert s["ours_embedded_queries"] == 12, "every measured query really embedded"
        assert s["ours_mean_hits"] == 10
        for part in ("ours", "bare_encode", "bare_faiss", "bare_fts", "bare_sum"):
            _check_stats(s[part])
        assert _positive(s["ratio_p50"]) and _positive(s["ratio_p95"])
        ann = size["ann"]
        assert ann["kind"] == "ivf" and ann["queries"] == 12
        assert 0.0 <= ann["recall_at_10"] <= 1.0
        assert ann["pass"] == (ann["recall_at_10"] >= mb.RECALL_BAR)
        assert [sw["nprobe"] for sw in ann["sweep"]] == list(mb.NPROBES)
        assert ann["passing_nprobes"] == [sw["nprobe"] for sw in ann["sweep"] if sw["pass"]]
        _check_stats(ann["ivf"])
        _check_stats(ann["exact_flat"])
        assert ann["build_s"] >= 0
    ing = rep["ingest"]
    assert ing["turns"] == 60 and ing["sessions"] == 3 and ing["repeats"] == 2
    assert ing["drafts_ours"] == ing["drafts_bare"] > 0
    for key in ("ours_texts_per_s", "bare_texts_per_s", "bare_per_session_texts_per_s"):
        assert _positive(ing[key]), key
    assert _positive(ing["ratio"]) and _positive(ing["ratio_vs_per_session"])
    assert ing["pass"] == (ing["ratio"] >= mb.INGEST_BAR)
    # 100K was not measured: the search bar is reported, not judged
    assert rep["bars"][0]["pass"] is None and rep["bars"][0]["value"] is None
    assert len(rep["bars"]) == 1 + len(rep["sizes"]) + 1
    judged = [b["pass"] for b in rep["bars"] if b["pass"] is not None]
    assert rep["pass"] == all(judged)
    assert not list(tmp_path.iterdir()), "the throwaway directory is removed"


def test_index_only_above_full_max(hash_backend: None, paths: Paths, tmp_path: Path) -> None:
    rep = mb.run_bench(
        _settings(paths),
        [50, 400],
        repeats=1,
        queries=8,
        ingest_turns=20,
        full_max=100,
        workdir=tmp_path,
    )
    modes = {r["items"]: r["mode"] for r in rep["sizes"]}
    assert modes == {50: "full", 400: "index_only"}
    only = rep["sizes"][1]
    assert only["search"] is None and 0.0 <= only["ann"]["recall_at_10"] <= 1.0


def test_cli_json_and_table(hash_backend: None, run_with: RunWith, paths: Paths) -> None:
    small = functools.partial(mb.run, queries=10, ingest_turns=40)
    result = run_with(small, "bench", "memory", "--items", "250", "--repeats", "1", "--json")
    assert result.code == 0, result
    data = result.json()
    assert data["benchmark"] == "memory"
    assert data["items"] == [250]
    assert data["sizes"][0]["search"]["queries"] == 10
    assert "[bench memory" in result.err  # progress goes to stderr
    assert not paths.db_path.exists(), "the benchmark never touches the real database"

    result = run_with(small, "bench", "memory", "--items", "250", "--repeats", "1")
    assert result.code == 0, result
    out = result.out
    assert "ours retrieve(mode=rag)" in out and "bare sum (per query)" in out
    assert "HashEmbedder" in out and "hash backend" in out
    assert "summary" in out and "overall:" in out
    assert "PASS" in out or "FAIL" in out


def test_bad_items(hash_backend: None, run: Run) -> None:
    result = run("bench", "memory", "--items", "ten,20")
    assert result.code == 2
    assert "--items" in result.err
    with pytest.raises(MemoryInputError):
        mb.parse_items("5")
    assert mb.parse_items("100_000, 10000,10000") == [10_000, 100_000]


def test_synthetic_data() -> None:
    assert len(set(mb.synthetic_queries(500))) == 500
    turns = mb.synthetic_turns(300)
    assert len({t.text for t in turns}) == 300
    drafts = RuleExtractor().extract(turns)
    kinds = {d.kind for d in drafts}
    # the rule extractor recognises most of them, and a few are plain utterances
    assert len(drafts) >= 0.8 * len(turns)
    assert {"preference", "biography", "commitment", "decision", "goal", "utterance"} <= kinds
    vecs = mb.clustered_vectors(1000, 32, clusters=5)
    assert vecs.shape == (1000, 32) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    q = mb.near_queries(vecs, 20)
    assert q.shape == (20, 32)
