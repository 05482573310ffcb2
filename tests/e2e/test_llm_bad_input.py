"""Bad model input on real files: each error names the file or limit and the fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rilai_desktop.app.build import build_router
from rilai_desktop.config import Settings
from rilai_desktop.contracts import EventKind
from rilai_desktop.contracts.llm import Completion
from rilai_desktop.llm.errors import (
    BadRequestError,
    ModelFileCorruptError,
    ModelFileMissingError,
    NoChatTemplateError,
    PromptTooLongError,
)
from rilai_desktop.llm.llama_cpp_adapter import LlamaCppModel, LlamaOptions
from rilai_desktop.paths import resolve_paths
from tests.e2e.conftest import model_path

pytestmark = [pytest.mark.e2e]
TEMPLATE_KEY = b"tokenizer.chat_template"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelFileMissingError) as info:
        LlamaCppModel(tmp_path / "nope.gguf")
    assert "nope.gguf" in info.value.message
    assert any("rilai models" in h for h in info.value.hints)


def test_not_a_gguf(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_text("this is a text file, not weights")
    with pytest.raises(ModelFileCorruptError, match="not a GGUF"):
        LlamaCppModel(bogus)


def test_truncated_gguf(tmp_path: Path) -> None:
    truncated = tmp_path / "truncated.gguf"
    with model_path("small").open("rb") as src:
        truncated.write_bytes(src.read(2 << 20))
    with pytest.raises(ModelFileCorruptError) as info:
        LlamaCppModel(truncated)
    assert "truncated.gguf" in info.value.message
    # with the manifest size known, the cheap check names it before llama.cpp is asked
    with pytest.raises(ModelFileCorruptError, match="truncated or damaged"):
        LlamaCppModel(truncated, expected_size=98362432)


@pytest.fixture(scope="module")
def no_template_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small model with its chat-template key renamed (same length, so the file stays
    valid): llama.cpp then finds no `tokenizer.chat_template`."""
    dest = tmp_path_factory.mktemp("notemplate") / "no-template.gguf"
    shutil.copyfile(model_path("small"), dest)
    with dest.open("r+b") as fh:
        head = fh.read(8 << 20)
        at = head.find(TEMPLATE_KEY + b"\x10") if TEMPLATE_KEY + b"\x10" in head else -1
        at = head.find(TEMPLATE_KEY) if at < 0 else at
        assert at > 0, "template key not found in the header"
        fh.seek(at + len(TEMPLATE_KEY) - 1)
        fh.write(b"X")
    return dest


def test_no_chat_template_uses_the_documented_fallback(no_template_gguf: Path) -> None:
    model = LlamaCppModel(no_template_gguf, options=LlamaOptions(n_ctx=512))
    try:
        assert model.has_chat_template is False
        prompt, _ = model.format_prompt(model_messages("hello"))
        assert "<|im_start|>user" in prompt  # the ChatML fallback's markers
        reply = model.complete(model_messages("Say hi."), max_tokens=8, temperature=0.0)
        assert isinstance(reply, Completion)
    finally:
        model.close()


def test_no_chat_template_is_an_error_when_configured(no_template_gguf: Path) -> None:
    with pytest.raises(NoChatTemplateError) as info:
        LlamaCppModel(no_template_gguf, options=LlamaOptions(template_fallback="error"))
    assert "no-template.gguf" in info.value.message
    assert any("chat_template_fallback" in h for h in info.value.hints)


def model_messages(text: str) -> list:
    from rilai_desktop.contracts.llm import ChatMessage

    return [ChatMessage("user", text)]


def test_prompt_longer_than_n_ctx() -> None:
    model = LlamaCppModel(model_path("small"), options=LlamaOptions(n_ctx=256))
    try:
        with pytest.raises(PromptTooLongError) as info:
            model.complete(model_messages("word " * 600), max_tokens=8)
        assert "256" in info.value.message
        assert any("llm.n_ctx" in h for h in info.value.hints)
        with pytest.raises(BadRequestError):
            model.complete([], max_tokens=8)
    finally:
        model.close()


def test_router_falls_back_to_a_smaller_tier_with_an_error_event(
    real_models: Path, tmp_path: Path
) -> None:
    paths = resolve_paths()
    paths.config_dir.mkdir(parents=True, exist_ok=True)
    # the large tier's file is not there (it points into an empty models dir)
    events: list[tuple[EventKind, dict]] = []
    router = build_router(
        paths, Settings(), on_event=lambda kind, payload: events.append((kind, payload))
    )
    router.models_dir = tmp_path  # nothing installed here ...
    small = model_path("small")
    shutil.copyfile(small, tmp_path / small.name)  # ... except the small tier
    try:
        model = router.for_tier("large")
        assert router.resolved["large"] == "small"
        assert model.model_id == router.manifest.tiers["small"]
        errors = [p for k, p in events if k is EventKind.ERROR]
        assert [e["failed_tier"] for e in errors] == ["large", "medium"]
        assert all(e["requested_tier"] == "large" for e in errors)
        reply = model.complete(model_messages("Hi"), max_tokens=4, temperature=0.0)
        assert isinstance(reply, Completion)
    finally:
        router.close()
