"""Cheap checks and metadata for GGUF files, before llama.cpp is asked to load them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rilai_desktop.llm.errors import ModelFileCorruptError, ModelFileMissingError

GGUF_MAGIC = b"GGUF"
# Documented fallback when a GGUF carries no chat template: ChatML, which the Qwen and
# SmolLM2 families use. A base (non-instruct) model will still not chat; `rilai models add`
# says when a file has no template.
CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def check_file(path: Path, *, expected_size: int | None = None, hint: str = "") -> None:
    """Raise a clear error for a missing, truncated or non-GGUF file."""
    fix = hint or "Run `rilai models install` for the tier, or `rilai models add PATH`"
    if not path.is_file():
        raise ModelFileMissingError(
            f"Model file not found: {path}",
            context={"path": str(path)},
            recovery_suggestions=[fix],
        )
    with path.open("rb") as fh:
        magic = fh.read(4)
    if magic != GGUF_MAGIC:
        raise ModelFileCorruptError(
            f"{path} is not a GGUF file (it starts with {magic!r}, not b'GGUF')",
            context={"path": str(path)},
            recovery_suggestions=["Point the tier at a .gguf model file", fix],
        )
    size = path.stat().st_size
    if expected_size is not None and size != expected_size:
        raise ModelFileCorruptError(
            f"{path} is {size} bytes, the manifest says {expected_size}: truncated or damaged",
            context={"path": str(path), "size": size, "expected": expected_size},
            recovery_suggestions=["Delete it and reinstall: " + fix],
        )


@dataclass(frozen=True)
class GGUFInfo:
    path: str
    size: int
    architecture: str | None
    size_label: str | None
    name: str | None
    context_length: int | None
    has_chat_template: bool

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def read_info(path: Path) -> GGUFInfo:
    """Read a GGUF's metadata by loading only its vocabulary (fast, little memory)."""
    check_file(path)
    from llama_cpp import Llama

    try:
        llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
    except (ValueError, RuntimeError) as exc:
        raise ModelFileCorruptError(
            f"llama.cpp cannot read {path}: {exc} (truncated or damaged?)",
            context={"path": str(path)},
        ) from exc
    meta: dict[str, str] = dict(llm.metadata)
    llm.close()
    arch = meta.get("general.architecture")
    ctx = meta.get(f"{arch}.context_length") if arch else None
    return GGUFInfo(
        path=str(path),
        size=path.stat().st_size,
        architecture=arch,
        size_label=meta.get("general.size_label"),
        name=meta.get("general.name"),
        context_length=int(ctx) if ctx and ctx.isdigit() else None,
        has_chat_template="tokenizer.chat_template" in meta,
    )
