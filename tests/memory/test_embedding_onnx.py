"""OnnxEmbedder (the "onnx" embedding backend) on a tiny model built here.

The tiny model has the export's interface (input_ids, attention_mask, token_type_ids ->
sentence_embedding) and the same head — mean over the attention mask, then L2 — over a
384-wide lookup table, with a word-level tokenizer; so the embedder's own work (the
manifest and sha checks, tokenising, truncation, padding, batching order, the cache, its
errors) is tested without torch or the real weights. The real MiniLM against torch:
tests/e2e/test_embedding_onnx_real.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
tokenizers = pytest.importorskip("tokenizers")

from rilai_desktop.errors import EmbeddingError, MemoryInputError  # noqa: E402
from rilai_desktop.memory.embedding import MINILM_DIM, MINILM_ID  # noqa: E402
from rilai_desktop.memory.embedding_onnx import (  # noqa: E402
    MANIFEST,
    MODEL_FILE,
    TOKENIZER_FILE,
    OnnxEmbedder,
)

WORDS = ["tea", "green", "lemon", "garden", "rain", "dog", "biscuit", "walk", "today", "café"]
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
VOCAB = {tok: i for i, tok in enumerate([*SPECIAL, *WORDS])}
MAX_TOKENS = 6  # [CLS] + 4 words + [SEP]


def table() -> np.ndarray:
    return np.random.default_rng(3).normal(size=(len(VOCAB), MINILM_DIM)).astype(np.float32)


def write_model(path: Path) -> None:
    from onnx import TensorProto, helper, numpy_helper

    ints = [
        helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    out = helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", 384])
    inits = [
        numpy_helper.from_array(table(), "table"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "last"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "tokens_axis"),
        numpy_helper.from_array(np.array(1e-9, dtype=np.float32), "tiny"),
        numpy_helper.from_array(np.array(1e-12, dtype=np.float32), "tinier"),
    ]
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["tok"]),
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["maskf", "last"], ["mask3"]),
        helper.make_node("Mul", ["tok", "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "tokens_axis"], ["summed"], keepdims=0),
        helper.make_node("ReduceSum", ["mask3", "tokens_axis"], ["count"], keepdims=0),
        helper.make_node("Max", ["count", "tiny"], ["count1"]),
        helper.make_node("Div", ["summed", "count1"], ["mean"]),
        helper.make_node("ReduceL2", ["mean"], ["norm"], axes=[-1], keepdims=1),
        helper.make_node("Max", ["norm", "tinier"], ["norm1"]),
        helper.make_node("Div", ["mean", "norm1"], ["sentence_embedding"]),
    ]
    graph = helper.make_graph(nodes, "tiny", ints, [out], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())


def write_tokenizer(path: Path) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    tok = Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tok.save(str(path))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(folder: Path, **overrides: object) -> None:
    manifest: dict[str, object] = {
        "model_id": MINILM_ID,
        "dimension": MINILM_DIM,
        "max_seq_length": MAX_TOKENS,
        "pooling": "mean",
        "normalize": True,
        "files": {
            name: {"sha256": sha(folder / name), "size": (folder / name).stat().st_size}
            for name in (MODEL_FILE, TOKENIZER_FILE)
        },
    }
    manifest.update(overrides)
    (folder / MANIFEST).write_text(json.dumps(manifest))


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "minilm_onnx"
    folder.mkdir()
    write_model(folder / MODEL_FILE)
    write_tokenizer(folder / TOKENIZER_FILE)
    write_manifest(folder)
    return folder


def expected(text: str) -> np.ndarray:
    """What the head computes, by hand: mean of [CLS] word... [SEP] rows (truncated), L2."""
    ids = [VOCAB["[CLS]"], *[VOCAB.get(w, 1) for w in text.lower().split()][: MAX_TOKENS - 2]]
    vec = table()[[*ids, VOCAB["[SEP]"]]].mean(axis=0)
    return vec / np.linalg.norm(vec)


def test_vectors_are_the_masked_mean_normalised_whatever_the_batch(model_dir: Path) -> None:
    texts = ["tea", "green tea lemon", "dog walk today", "rain", "Garden RAIN café"]
    emb = OnnxEmbedder(model_dir, batch_size=2, cache_size=0)
    batched = emb.embed(texts)
    assert batched.dtype == np.float32 and batched.shape == (5, MINILM_DIM)
    assert emb.dimension == MINILM_DIM and emb.model_id == MINILM_ID
    for row, text in zip(batched, texts, strict=True):
        # padding to the batch's longest text changes nothing; rows keep the input order
        np.testing.assert_allclose(row, expected(text), atol=1e-6)
        np.testing.assert_allclose(row, emb.embed_one(text)[0], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-6)


def test_a_long_text_is_cut_at_max_seq_length(model_dir: Path) -> None:
    emb = OnnxEmbedder(model_dir, cache_size=0)
    long = "tea green lemon garden rain dog biscuit walk"
    cut = "tea green lemon garden"
    np.testing.assert_allclose(emb.embed([long])[0], emb.embed([cut])[0], atol=1e-6)
    np.testing.assert_allclose(emb.embed([long])[0], expected(long), atol=1e-6)


def test_unknown_words_and_unicode_embed(model_dir: Path) -> None:
    vecs = OnnxEmbedder(model_dir).embed(["😀 東京", "zzz café"])
    assert np.all(np.isfinite(vecs))
    np.testing.assert_allclose(vecs[1], expected("zzz café"), atol=1e-6)


def test_the_cache_and_the_input_checks_are_the_shared_ones(model_dir: Path) -> None:
    emb = OnnxEmbedder(model_dir)
    emb.embed(["tea", "tea", "rain"])
    emb.embed(["rain"])
    assert emb.encoded_texts == 2
    with pytest.raises(MemoryInputError, match="empty"):
        emb.embed(["  "])
    with pytest.raises(MemoryInputError, match="not one string"):
        emb.embed("tea")


def test_a_missing_folder_says_how_to_build_it(tmp_path: Path) -> None:
    emb = OnnxEmbedder(tmp_path / "nowhere")
    with pytest.raises(EmbeddingError) as err:
        emb.embed(["tea"])
    assert "not built" in err.value.message
    hints = " ".join(err.value.recovery_suggestions)
    assert "tools/export_embedding_onnx.py" in hints and 'backend = "minilm"' in hints
    assert not emb.loaded


def test_a_missing_model_file_is_named(model_dir: Path) -> None:
    (model_dir / MODEL_FILE).unlink()
    with pytest.raises(EmbeddingError, match=r"model\.onnx is missing"):
        OnnxEmbedder(model_dir).embed(["tea"])


def test_a_damaged_file_is_refused_and_never_stamped(model_dir: Path, tmp_path: Path) -> None:
    path = model_dir / MODEL_FILE
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # same size, other bytes
    path.write_bytes(bytes(data))
    stamp = tmp_path / "verified.json"
    with pytest.raises(EmbeddingError, match="sha256") as err:
        OnnxEmbedder(model_dir, verified_stamp=stamp).embed(["tea"])
    assert any("export_embedding_onnx" in h for h in err.value.recovery_suggestions)
    assert not stamp.exists() or str(path) not in stamp.read_text()


def test_a_verified_folder_is_stamped_once(model_dir: Path, tmp_path: Path) -> None:
    stamp = tmp_path / "verified.json"
    OnnxEmbedder(model_dir, verified_stamp=stamp).embed(["tea"])
    stamped = json.loads(stamp.read_text())
    assert sorted(k.split(":")[0] for k in stamped) == sorted(
        str(model_dir / n) for n in (MODEL_FILE, TOKENIZER_FILE)
    )


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"model_id": "other-model"}, "other-model"),
        ({"dimension": 768}, "768"),
        ({"files": 3}, "lists no files"),
    ],
)
def test_a_manifest_for_another_model_is_refused(
    model_dir: Path, overrides: dict[str, object], match: str
) -> None:
    write_manifest(model_dir, **overrides)
    with pytest.raises(EmbeddingError, match=match):
        OnnxEmbedder(model_dir).embed(["tea"])


def test_an_unreadable_manifest_is_refused(model_dir: Path) -> None:
    (model_dir / MANIFEST).write_text("{not json")
    with pytest.raises(EmbeddingError, match="unreadable"):
        OnnxEmbedder(model_dir).verify()


@pytest.mark.parametrize(
    ("backend", "kind", "libs"),
    [
        ("onnx", "OnnxEmbedder", ["lib:onnxruntime"]),
        ("minilm", "EmbeddingService", ["lib:torch", "lib:sentence_transformers"]),
        ("hash", "HashEmbedder", ["lib:torch", "lib:sentence_transformers"]),
    ],
)
def test_the_backend_setting_picks_the_embedder_and_its_self_test_libraries(
    tmp_path: Path, backend: str, kind: str, libs: list[str]
) -> None:
    from rilai_desktop.app.build import build_embedder
    from rilai_desktop.app.self_test.libraries import default_libraries, embedder_libraries
    from rilai_desktop.config import Settings
    from rilai_desktop.paths import Paths

    settings = Settings.model_validate({"embedding": {"backend": backend, "torch_threads": 2}})
    paths = Paths(
        data_dir=tmp_path / "d", config_dir=tmp_path / "c", cache_dir=tmp_path / "k",
        log_dir=tmp_path / "l", home_override=tmp_path,
    )  # fmt: skip
    embedder = build_embedder(paths, settings)
    assert type(embedder).__name__ == kind
    assert getattr(embedder, "threads", 2) == 2  # nothing is loaded by building it
    assert not getattr(embedder, "loaded", False)
    assert embedder_libraries(settings) == libs
    names = [f"lib:{lib.name}" for lib in default_libraries(settings, lambda _: None)]  # type: ignore[arg-type,return-value]
    assert set(libs) <= set(names)
    assert ("lib:torch" in names) == (backend != "onnx")


def test_onnxruntime_writes_nothing_into_the_home_folder(tmp_path: Path) -> None:
    """Imported the app's way, onnxruntime leaves no device id or database under
    ~/.cache/Microsoft (it writes both on a plain import: found by the installed bundle's
    offline test)."""
    pytest.importorskip("onnxruntime")
    env = {
        k: v for k, v in os.environ.items() if k not in {"XDG_CACHE_HOME", "ORT_DISABLE_TELEMETRY"}
    }
    env["HOME"] = str(tmp_path)
    code = (
        "from rilai_desktop.memory.embedding_onnx import import_onnxruntime; "
        "ort = import_onnxruntime(); print(ort.__version__)"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
