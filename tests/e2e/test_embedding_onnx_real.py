"""The real all-MiniLM-L6-v2 two ways: the ONNX export on onnxruntime against
sentence-transformers on torch (the registry package's weights; ~15 s: an export, two loads).

The full comparison (634 texts) is `rilai bench embedding`; docs/notes/embedding-onnx.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rilai_desktop.memory.embedding import MINILM_SHA256, EmbeddingService
from rilai_desktop.memory.embedding_onnx import MANIFEST, OnnxEmbedder
from rilai_desktop.paths import REPO_ROOT

pytestmark = pytest.mark.e2e
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

TEXTS = [
    "I planted garlic on my allotment today.",
    "Remember that my sister Anna moved to Lyon in March.",
    "今日はとても疲れました。😴",
    "Café crème, naïve façade — e\u0301 and a zero\u200bwidth space",
    "   leading and trailing spaces   ",
    "The garden was quiet after the rain. " * 120,  # far past 256 tokens
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("minilm_onnx")
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "tools" / "export_embedding_onnx.py"), "--out", str(out)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return out


def test_the_export_records_its_source_and_files(exported: Path) -> None:
    manifest = json.loads((exported / MANIFEST).read_text())
    assert manifest["source_sha256"] == MINILM_SHA256
    assert manifest["max_seq_length"] == 256 and manifest["pooling"] == "mean"
    assert set(manifest["files"]) == {"model.onnx", "tokenizer.json"}


def test_onnx_gives_torchs_vectors(exported: Path) -> None:
    ref = EmbeddingService(cache_size=0).embed(TEXTS)
    got = OnnxEmbedder(exported, cache_size=0).embed(TEXTS)
    cosines = (ref * got).sum(axis=1)
    assert float(cosines.min()) >= 0.999, cosines
    assert float(np.abs(ref - got).max()) < 1e-4
