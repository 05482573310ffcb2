"""Which of the installed bundle's portable llama.cpp builds this CPU runs best.

The installers ship llama.cpp twice (``packaging/llama_variants.py``): ``llama_cpp/lib/``
for any x86-64 CPU with AVX2 (the default) and ``llama_cpp/lib-avx512/`` for CPUs with the
AVX-512 subsets it was built with. Before anything imports llama_cpp, the bundle's entry
point calls :func:`choose_llama_libs`, which points llama-cpp-python's own
``LLAMA_CPP_LIB_PATH`` at the better folder when the CPU has every flag it needs. A person's
own ``LLAMA_CPP_LIB_PATH`` is left alone. Outside Linux (no /proc/cpuinfo) the default
build is used. A checkout never calls this: its llama.cpp is built for its own CPU.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path
from typing import Final

ENV: Final = "LLAMA_CPP_LIB_PATH"
# what the avx512 build uses (-DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON),
# as /proc/cpuinfo names the flags
AVX512_FLAGS: Final = frozenset(
    {"avx512f", "avx512bw", "avx512dq", "avx512cd", "avx512vl", "avx512_vnni", "avx512vbmi"}
)


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The first processor's flags in a /proc/cpuinfo text (empty when there are none)."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def best_level(flags: frozenset[str]) -> str:
    return "avx512" if AVX512_FLAGS.issubset(flags) else "avx2"


def choose_llama_libs(
    internal: Path,
    env: MutableMapping[str, str],
    *,
    cpuinfo: Path = Path("/proc/cpuinfo"),
) -> str:
    """Set ``env[LLAMA_CPP_LIB_PATH]`` for this CPU; return the level in use ("avx2",
    "avx512", or "preset" when the variable was already set)."""
    if env.get(ENV):
        return "preset"
    try:
        flags = cpu_flags(cpuinfo.read_text(errors="replace"))
    except OSError:
        return "avx2"
    level = best_level(flags)
    folder = internal / "llama_cpp" / f"lib-{level}"
    if level != "avx2" and any(folder.glob("libllama.*")):
        env[ENV] = str(folder)
        return level
    return "avx2"
