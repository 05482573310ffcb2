"""``check_file``: the cheap checks before llama.cpp is asked to load a GGUF."""

from __future__ import annotations

from pathlib import Path

import pytest

from rilai_desktop.llm.errors import ModelError, ModelFileCorruptError, ModelFileMissingError
from rilai_desktop.llm.gguf import CHATML_TEMPLATE, GGUF_MAGIC, check_file

DEFAULT_FIX = "Run `rilai models install` for the tier, or `rilai models add PATH`"


def gguf(path: Path, size: int = 64) -> Path:
    path.write_bytes(GGUF_MAGIC + b"\x03\x00\x00\x00" + b"\x00" * (size - 8))
    return path


def test_a_gguf_file_passes(tmp_path: Path) -> None:
    path = gguf(tmp_path / "m.gguf", 64)
    check_file(path)
    check_file(path, expected_size=64)


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "models" / "nope.gguf"
    with pytest.raises(ModelFileMissingError) as info:
        check_file(path)
    err = info.value
    assert err.code == "RIL-021" and isinstance(err, ModelError)
    assert str(path) in err.message and "not found" in err.message
    assert err.context == {"path": str(path)}
    assert err.hints == [DEFAULT_FIX]


def test_missing_file_uses_the_callers_hint(tmp_path: Path) -> None:
    with pytest.raises(ModelFileMissingError) as info:
        check_file(tmp_path / "nope.gguf", hint="rilai models install small")
    assert info.value.hints == ["rilai models install small"]


def test_a_directory_is_missing_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(ModelFileMissingError):
        check_file(tmp_path)


@pytest.mark.parametrize(
    "content", [b"", b"GG", b"PK\x03\x04 a zip", b"<html>404 Not Found</html>", b"gguf lower"]
)
def test_not_a_gguf(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "fake.gguf"
    path.write_bytes(content)
    with pytest.raises(ModelFileCorruptError) as info:
        check_file(path, expected_size=len(content))
    err = info.value
    assert err.code == "RIL-022" and isinstance(err, ModelError)
    assert "not a GGUF" in err.message and str(path) in err.message
    assert repr(content[:4]) in err.message  # says what it starts with instead
    assert err.context == {"path": str(path)}
    assert err.hints[-1] == DEFAULT_FIX


@pytest.mark.parametrize("actual", [63, 65, 8])
def test_wrong_size_is_truncated_or_damaged(tmp_path: Path, actual: int) -> None:
    path = gguf(tmp_path / "m.gguf", actual)
    with pytest.raises(ModelFileCorruptError) as info:
        check_file(path, expected_size=64, hint="rilai models install medium")
    err = info.value
    assert err.code == "RIL-022"
    assert "truncated" in err.message and str(path) in err.message
    assert f"{actual} bytes" in err.message and "64" in err.message
    assert err.context == {"path": str(path), "size": actual, "expected": 64}
    assert any("rilai models install medium" in h for h in err.hints)


def test_magic_is_checked_before_size(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(b"NOPE")
    with pytest.raises(ModelFileCorruptError, match="not a GGUF"):
        check_file(path, expected_size=1000)


def test_chatml_fallback_template_shape() -> None:
    assert "<|im_start|>" in CHATML_TEMPLATE and "<|im_end|>" in CHATML_TEMPLATE
    assert "add_generation_prompt" in CHATML_TEMPLATE
