"""packaging/llama_variants.py: the installers' portable llama.cpp builds, one per CPU level."""

from __future__ import annotations

import zipfile
from pathlib import Path

import llama_variants as lv
import pytest

ROOT = Path(__file__).resolve().parents[2]


def fake_wheel(folder: Path, version: str, names: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"llama_cpp_python-{version}-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("llama_cpp/__init__.py", "")
        for name in names:
            archive.writestr(f"llama_cpp/lib/{name}", b"\x7fELF " + name.encode())
    return wheel


def test_the_pin_comes_from_pyproject() -> None:
    spec = lv.llama_spec()
    assert spec.startswith("llama-cpp-python==") and spec.split("==")[1][0].isdigit()


def test_each_level_has_its_own_cmake_flags_and_none_is_native() -> None:
    assert set(lv.LEVELS) == {"avx2", "avx512"} and lv.DEFAULT_LEVEL == "avx2"
    assert all("-DGGML_NATIVE=OFF" in flags for flags in lv.LEVELS.values())
    assert "AVX512" not in lv.LEVELS["avx2"]
    # the runtime check asks for exactly what the avx512 build uses
    from rilai_desktop.llm.cpu_level import AVX512_FLAGS

    assert {"avx512_vnni", "avx512vbmi"} <= AVX512_FLAGS
    assert "VNNI" in lv.LEVELS["avx512"] and "VBMI" in lv.LEVELS["avx512"]


def test_a_wheel_in_the_wheelhouse_is_reused_and_its_libraries_unpacked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RILAI_WHEELHOUSE", str(tmp_path / "wheels"))
    version = lv.llama_spec().split("==")[1]
    names = ["libllama.so", "libllama.so.0", "libggml-cpu.so", "libggml-cpu.so.0"]
    for level in lv.LEVELS:
        fake_wheel(tmp_path / "wheels" / level, version, names)
    folders = lv.prepare(tmp_path / "work")  # nothing is built: the wheels are there
    assert set(folders) == set(lv.LEVELS)
    for folder in folders.values():
        assert sorted(p.name for p in folder.iterdir()) == sorted(names)
    assert lv.parse_env_value(lv.env_value(folders)) == folders


def test_a_wheel_without_libllama_is_refused(tmp_path: Path) -> None:
    wheel = fake_wheel(tmp_path / "w", "0.0.1", ["libsomething.so"])
    with pytest.raises(SystemExit, match="libllama"):
        lv.extract_libs(wheel, tmp_path / "out")


def test_a_missing_wheel_is_named_when_building_is_not_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RILAI_WHEELHOUSE", str(tmp_path / "empty"))
    with pytest.raises(SystemExit, match="no avx512 wheel"):
        lv.wheel_for("avx512", build=False)
