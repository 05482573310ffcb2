"""`rilai doctor`'s embedding check follows ``embedding.backend``: the default "onnx" needs
onnxruntime and a whole ONNX export (no torch), "minilm" needs torch, "hash" nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rilai_desktop.cli.commands import doctor
from rilai_desktop.memory.embedding import MINILM_DIM, MINILM_ID
from rilai_desktop.memory.embedding_onnx import (
    DEFAULT_DIR,
    MANIFEST,
    MODEL_FILE,
    TOKENIZER_FILE,
)


def test_a_missing_export_fails_with_the_command_that_builds_it(tmp_path: Path) -> None:
    check = doctor.check_onnx_embedding(tmp_path / "minilm_onnx")
    assert check.name == "embedding" and check.status == "fail"
    assert "not built" in check.detail
    assert "tools/export_embedding_onnx.py" in check.fix


def test_a_damaged_export_fails(tmp_path: Path) -> None:
    folder = tmp_path / "minilm_onnx"
    folder.mkdir()
    for name in (MODEL_FILE, TOKENIZER_FILE):
        (folder / name).write_bytes(b"x" * 10)
    files = {name: {"size": 10, "sha256": "0" * 64} for name in (MODEL_FILE, TOKENIZER_FILE)}
    manifest = {"model_id": MINILM_ID, "dimension": MINILM_DIM, "max_seq_length": 256}
    (folder / MANIFEST).write_text(json.dumps({**manifest, "files": files}))
    check = doctor.check_onnx_embedding(folder)
    assert check.status == "fail", check
    assert "sha256" in check.detail or "sha256" in check.fix


def test_the_hash_backend_needs_no_library() -> None:
    check = doctor.check_embedding("hash")
    assert (check.name, check.status) == ("embedding", "skip")


def test_the_default_backend_is_checked_without_torch() -> None:
    """The check of the default backend never imports torch (an installer carries none);
    where set-up exported the model, it passes."""
    code = (
        "import sys; from rilai_desktop.cli.commands import doctor; "
        "c = doctor.check_embedding('onnx'); print(c.status, 'torch' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    status, torch_imported = done.stdout.split()
    assert torch_imported == "False", done.stdout
    if (DEFAULT_DIR / MANIFEST).is_file():
        assert status == "ok", done.stdout
