#!/usr/bin/env bash
# Idempotent set-up for `make run` / `make test`.
# - system packages the GUI tests need (apt, when root; otherwise prints the command)
# - .venv with torch==2.13.0 first (the local CPU build), then the package with [dev]
# A stamp keyed by the hash of pyproject.toml makes a second run a quick check.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s.%N)
VENV=${VENV:-.venv}
STAMPS="$VENV/.stamps"
elapsed() { awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }'; }

# ── python 3.11 ───────────────────────────────────────────────────────────────
find_python() {
  for cand in "${PYTHON:-}" python3.11 python3; do
    [ -n "$cand" ] || continue
    if command -v "$cand" >/dev/null 2>&1 &&
       "$cand" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' 2>/dev/null; then
      command -v "$cand"; return 0
    fi
  done
  return 1
}

# ── system packages (Qt runtime libraries; xvfb, trayer and xdotool for GUI/tray tests; an
#    emoji font so replies with emoji render under Xvfb; binutils (objdump) to measure the
#    .deb's Depends, desktop-file-utils and shellcheck for the packaging tests) ──
SYS_PKGS=(xvfb xauth libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxcb-image0
          libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-randr0 libxcb-xkb1
          libxkbcommon0 libxkbcommon-x11-0 libgl1 libegl1 libfontconfig1 libdbus-1-3
          libglib2.0-0 trayer xdotool fonts-noto-color-emoji binutils desktop-file-utils
          shellcheck)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${SYS_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "set-up: installing system packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "set-up: the GUI tests need system packages that are missing. Run:"
    echo "    sudo apt-get install -y --no-install-recommends ${missing[*]}"
    echo "set-up: continuing; GUI tests will be skipped until then."
  fi
fi

# ── the virtual environment ───────────────────────────────────────────────────
HASH=$(cat pyproject.toml | sha256sum | cut -c1-16)
if [ -f "$STAMPS/deps-$HASH" ] && [ -x "$VENV/bin/python" ]; then
  echo "set-up: up to date (check took $(elapsed) s)"
  exit 0
fi

PY=$(find_python) || { echo "set-up: Python 3.11 is required (set PYTHON=/path/to/python3.11)"; exit 1; }
if [ ! -x "$VENV/bin/python" ]; then
  echo "set-up: creating $VENV with $PY"
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)
# pip warns once per package about this machine's extra local indexes; hide only that line
pip_install() {
  "${PIP[@]}" install "$@" 2>&1 | { grep -v 'is neither a file nor a directory' || true; }
  return "${PIPESTATUS[0]}"
}
echo "set-up: torch==2.13.0 (the local CPU build; exactly this spec, nothing pulls CUDA)"
pip_install -q "torch==2.13.0"
# llama.cpp builds from source for THIS machine's CPU (-march=native: what runs here runs
# fastest). The installers do not ship that build: make package builds portable ones
# (packaging/llama_variants.py), since a native build from an AVX-512 server dies with
# SIGILL on most laptops.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
echo "set-up: the package with [dev] (first time: llama-cpp-python builds from source, ~10-15 min on 2 cores; pip caches the wheel)"
pip_install -q -e ".[dev]"
"$VENV/bin/python" -c "import torch; assert torch.__version__.startswith('2.13.0'), torch.__version__"
mkdir -p "$STAMPS"
rm -f "$STAMPS"/deps-*
touch "$STAMPS/deps-$HASH"
echo "set-up: done in $(elapsed) s"
