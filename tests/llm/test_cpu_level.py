"""rilai_desktop/llm/cpu_level.py: the installed bundle picks the llama.cpp build its CPU runs."""

from __future__ import annotations

from pathlib import Path

from rilai_desktop.llm.cpu_level import ENV, best_level, choose_llama_libs, cpu_flags

AVX2_CPU = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma f16c\n\nprocessor\t: 1\n"
AVX512_CPU = (
    "processor\t: 0\nflags\t\t: fpu avx2 fma f16c avx512f avx512dq avx512cd avx512bw "
    "avx512vl avx512_vnni avx512vbmi avx512ifma\n"
)
# Skylake-X: AVX-512 but no VNNI/VBMI — the avx512 build would die with SIGILL there
SKYLAKE_X = "flags\t\t: avx2 fma f16c avx512f avx512dq avx512cd avx512bw avx512vl\n"


def bundle(tmp_path: Path) -> Path:
    internal = tmp_path / "_internal"
    for level in ("lib", "lib-avx512"):
        (internal / "llama_cpp" / level).mkdir(parents=True)
        (internal / "llama_cpp" / level / "libllama.so").write_bytes(b"\x7fELF")
    return internal


def cpuinfo(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cpuinfo"
    path.write_text(text)
    return path


def test_flags_come_from_the_first_processor() -> None:
    assert cpu_flags(AVX2_CPU) == {"fpu", "sse2", "avx", "avx2", "fma", "f16c"}
    assert cpu_flags("no flags here") == frozenset()


def test_only_a_cpu_with_every_flag_of_the_avx512_build_gets_it() -> None:
    assert best_level(cpu_flags(AVX512_CPU)) == "avx512"
    assert best_level(cpu_flags(SKYLAKE_X)) == "avx2"
    assert best_level(cpu_flags(AVX2_CPU)) == "avx2"


def test_an_avx512_cpu_points_llama_cpp_at_the_avx512_folder(tmp_path: Path) -> None:
    internal, env = bundle(tmp_path), {}
    assert choose_llama_libs(internal, env, cpuinfo=cpuinfo(tmp_path, AVX512_CPU)) == "avx512"
    assert env == {ENV: str(internal / "llama_cpp" / "lib-avx512")}


def test_an_avx2_cpu_keeps_the_default_folder(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    level = choose_llama_libs(bundle(tmp_path), env, cpuinfo=cpuinfo(tmp_path, AVX2_CPU))
    assert level == "avx2" and env == {}


def test_a_bundle_without_the_avx512_folder_or_cpuinfo_uses_the_default(tmp_path: Path) -> None:
    internal, env = tmp_path / "_internal", {}
    assert choose_llama_libs(internal, env, cpuinfo=cpuinfo(tmp_path, AVX512_CPU)) == "avx2"
    assert choose_llama_libs(bundle(tmp_path), env, cpuinfo=tmp_path / "nowhere") == "avx2"
    assert env == {}


def test_the_persons_own_setting_wins(tmp_path: Path) -> None:
    env = {ENV: "/opt/my-llama"}
    assert choose_llama_libs(bundle(tmp_path), env, cpuinfo=cpuinfo(tmp_path, AVX512_CPU)) == (
        "preset"
    )
    assert env == {ENV: "/opt/my-llama"}
