"""all-MiniLM-L6-v2 without torch: its ONNX export run by onnxruntime (backend "onnx").

The same model as ``EmbeddingService`` ("minilm"), the same vectors (cosine ≥ 0.999 to the
torch path on every text measured; docs/notes/embedding-onnx.md), the same ``model_id``, so
an index built by one is searched by the other. What it needs at run time is onnxruntime,
tokenizers and numpy; torch and sentence-transformers only build the file.

The folder (default ``minilm_onnx/`` beside this module, git-ignored) is written at build
time by ``tools/export_embedding_onnx.py`` from the registry package's weights:
``model.onnx`` (BERT + mean pooling over the attention mask + L2 normalisation, exactly the
model's sentence-transformers head), ``tokenizer.json`` (the model's own) and
``embedding.json`` (dimension, max_seq_length, each file's sha256 and size). Nothing is
ever downloaded: a missing or damaged folder raises :class:`EmbeddingError` saying how to
build it, or to use ``embedding.backend = "minilm"``.

Tokens: truncated at ``max_seq_length`` (256, ``sentence_bert_config.json``) and padded to
the longest text of a batch, as sentence-transformers does; texts are batched longest first
(as ``SentenceTransformer.encode`` sorts them), so a batch pads little. onnxruntime runs with
``threads`` intra-op threads and one inter-op thread (llama.cpp owns the other core); the
tokenizer does not parallelise (``TOKENIZERS_PARALLELISM=false``, as for the torch path).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Final

import numpy as np

from rilai_desktop.errors import EmbeddingError
from rilai_desktop.memory.embedding import MINILM_DIM, MINILM_ID, _CachedEmbedder, verify_sha256
from rilai_desktop.memory.ports import Vectors

DEFAULT_DIR: Final[Path] = Path(__file__).resolve().parent / "minilm_onnx"
MODEL_FILE: Final[str] = "model.onnx"
TOKENIZER_FILE: Final[str] = "tokenizer.json"
MANIFEST: Final[str] = "embedding.json"
EXPORT_COMMAND: Final[str] = ".venv/bin/python tools/export_embedding_onnx.py"


def import_onnxruntime() -> Any:
    """onnxruntime with its telemetry off. Left on, importing it writes a device id and a
    database under ``~/.cache/Microsoft/DeveloperTools/.onnxruntime`` (the installed
    bundle's test found them: nothing may be written outside Rilai's own folders); it reads
    ORT_DISABLE_TELEMETRY when it loads, so the variable is set before the import."""
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    import onnxruntime

    onnxruntime.disable_telemetry_events()
    return onnxruntime


def _missing(path: Path, what: str) -> EmbeddingError:
    return EmbeddingError(
        f"The ONNX embedding model is not built: {what} ({path})",
        context={"path": str(path)},
        recovery_suggestions=[
            f"Build it from the installed weights: {EXPORT_COMMAND} (needs torch once)",
            'Or use the torch embedder: set embedding.backend = "minilm"',
        ],
    )


class OnnxEmbedder(_CachedEmbedder):
    """all-MiniLM-L6-v2 (384 dims) through onnxruntime on the CPU, loaded lazily."""

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        threads: int = 1,
        batch_size: int = 64,
        cache_size: int = 20_000,
        verified_stamp: Path | None = None,
    ) -> None:
        super().__init__(cache_size)
        self.dimension = MINILM_DIM
        self.model_id = MINILM_ID
        self.threads = threads
        self.batch_size = batch_size
        self.model_dir = DEFAULT_DIR if model_dir is None else model_dir
        self._verified_stamp = verified_stamp
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: set[str] = set()
        self._load_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def manifest(self) -> dict[str, Any]:
        """``embedding.json``, checked against this model: raises EmbeddingError if not."""
        path = self.model_dir / MANIFEST
        if not path.is_file():
            raise _missing(path, f"{MANIFEST} is missing")
        try:
            manifest = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise _missing(path, f"{MANIFEST} is unreadable: {exc}") from exc
        if not isinstance(manifest, dict):
            raise _missing(path, f"{MANIFEST} is not a JSON object")
        if manifest.get("model_id") != MINILM_ID or manifest.get("dimension") != MINILM_DIM:
            raise _missing(
                path,
                f"it is {manifest.get('model_id')!r} with {manifest.get('dimension')!r} dims, "
                f"not {MINILM_ID} ({MINILM_DIM})",
            )
        return manifest

    def verify(self) -> dict[str, Any]:
        """Every file present, of its recorded size and sha256 (cached in the stamp)."""
        manifest = self.manifest()
        files = manifest.get("files")
        if not isinstance(files, dict):
            raise _missing(self.model_dir / MANIFEST, "it lists no files")
        for name in (MODEL_FILE, TOKENIZER_FILE):
            path = self.model_dir / name
            facts = files.get(name)
            if not path.is_file() or not isinstance(facts, dict):
                raise _missing(path, f"{name} is missing")
            if path.stat().st_size != facts.get("size"):
                raise _missing(path, f"{name} has {path.stat().st_size:,} bytes, not its size")
            verify_sha256(
                path,
                str(facts.get("sha256")),
                self._verified_stamp,
                fix=f"rebuild: {EXPORT_COMMAND}",
            )
        return manifest

    def load(self) -> Any:
        with self._load_lock:
            if self._session is not None:
                return self._session
            manifest = self.verify()
            # tokenizers would batch on every core (rayon): keep to the threads given
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            try:
                from tokenizers import Tokenizer

                ort = import_onnxruntime()
            except ImportError as exc:
                raise EmbeddingError(
                    f"The ONNX embedder needs onnxruntime and tokenizers: {exc}",
                    recovery_suggestions=[
                        "pip install onnxruntime tokenizers",
                        'Or use the torch embedder: set embedding.backend = "minilm"',
                    ],
                ) from exc
            try:
                tokenizer = Tokenizer.from_file(str(self.model_dir / TOKENIZER_FILE))
                tokenizer.enable_truncation(max_length=int(manifest["max_seq_length"]))
                pad_id = tokenizer.token_to_id("[PAD]")
                tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token="[PAD]")
                options = ort.SessionOptions()
                options.intra_op_num_threads = self.threads
                options.inter_op_num_threads = 1
                options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
                options.log_severity_level = 3
                session = ort.InferenceSession(
                    str(self.model_dir / MODEL_FILE),
                    sess_options=options,
                    providers=["CPUExecutionProvider"],
                )
            except Exception as exc:
                raise EmbeddingError(
                    f"Could not load the ONNX embedding model from {self.model_dir}: {exc}",
                    context={"path": str(self.model_dir)},
                    recovery_suggestions=[f"Rebuild it: {EXPORT_COMMAND}", "Run `rilai doctor`"],
                ) from exc
            self._tokenizer = tokenizer
            self._input_names = {i.name for i in session.get_inputs()}
            self._session = session
            return session

    def _run(self, texts: list[str]) -> Vectors:
        encodings = self._tokenizer.encode_batch(texts)
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        (out,) = self._session.run(
            ["sentence_embedding"], {k: v for k, v in feeds.items() if k in self._input_names}
        )
        return np.asarray(out, dtype=np.float32)

    def _encode(self, texts: list[str]) -> Vectors:
        self.load()
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        try:
            for start in range(0, len(order), self.batch_size):
                rows = order[start : start + self.batch_size]
                out[rows] = self._run([texts[i] for i in rows])
        except Exception as exc:
            raise EmbeddingError(f"Embedding failed: {exc}") from exc
        return out
