#!/usr/bin/env bash
# Set up a separate virtual environment with llama-cpp-python's OpenAI-compatible server, the
# real serving stack that the tests marked real_server start on loopback (tests/test_real_server*.py).
#
# llama-cpp-python ships no Linux wheel on PyPI, so it is compiled here: about 270 CPU-seconds
# (2.6 minutes on 2 idle cores, 663 MiB peak memory; several times that on a loaded machine).
# The build is portable: -DGGML_NATIVE=ON (the default, -march=native) made a library that died
# with SIGILL on the first generation on one of our 2-core VMs. On x86-64 it targets AVX2 + FMA
# + F16C (x86-64-v3) when this CPU has them, else plain x86-64. The multimodal library (llava,
# mtmd) is not built; the server loads it only for vision models.
#
# Built once, reused: the wheel is kept in a cache folder named after the version and the build
# flags (TOOLEVAL_WHEEL_CACHE, default ~/.cache/tooleval/wheels), so a new venv, another
# checkout or a CI run on the same machine installs it in seconds. pip's own wheel cache is not
# used for this build: it keys wheels by source only and may hold a -march=native build.
#
# Idempotent: an existing venv with the right version and flags is reused.
#
# Usage: scripts/setup-llama-server.sh [--cached-only] [VENV_DIR]
#   VENV_DIR defaults to .venv-llama-server in the checkout. With --cached-only nothing is
#   compiled: without a ready venv or a cached wheel it says so on stderr and exits 3 (what
#   .ci/run uses to run the real_server tests only where a built server is at hand).
# Prints the absolute path of the venv's python executable (and nothing else) on stdout; start
# the server with: "$PY" -m llama_cpp.server --model FILE.gguf ...
set -euo pipefail
cd "$(dirname "$0")/.."

CACHED_ONLY=0
if [ "${1:-}" = "--cached-only" ]; then
  CACHED_ONLY=1
  shift
fi
VENV="${1:-.venv-llama-server}"
VERSION="0.3.36"
PYTHON="${PYTHON:-python3}"

cmake_args() {
  local args="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
  if [ "$(uname -m)" = "x86_64" ]; then
    if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo && grep -qw f16c /proc/cpuinfo; then
      args="$args -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
    else
      args="$args -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF"
    fi
    args="$args -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
  fi
  echo "$args"
}

CMAKE_FLAGS="$(cmake_args)"
STAMP="$VERSION $CMAKE_FLAGS"
FLAGS_ID="$(printf '%s' "$STAMP" | sha256sum | cut -c1-12)"
WHEELS="${TOOLEVAL_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tooleval/wheels}/llama-cpp-python-$FLAGS_ID"

# pip's output goes to stderr (stdout is the python path only), without the one warning per
# package that pip prints for configured index folders that lack it.
quiet_pip() {
  "$@" 2>&1 | { grep -v "is ignored: it is neither a file nor a directory" >&2 || true; }
  return "${PIPESTATUS[0]}"
}

have_server() {
  [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/tooleval-build" 2>/dev/null)" = "$STAMP" ] &&
    "$VENV/bin/python" -c "import llama_cpp.server.app" >/dev/null 2>&1
}

build_wheel() {
  local tmp="$WHEELS.partial.$$"
  echo "compiling llama-cpp-python $VERSION (about 270 CPU-seconds: 2.6 min on 2 idle cores) with: $CMAKE_FLAGS" >&2
  rm -rf "$tmp" && mkdir -p "$tmp"
  CMAKE_ARGS="$CMAKE_FLAGS" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    quiet_pip "$VENV/bin/python" -m pip wheel --quiet --no-cache-dir --no-deps \
    --no-binary llama-cpp-python -w "$tmp" "llama-cpp-python==$VERSION"
  rm -rf "$WHEELS" && mv "$tmp" "$WHEELS"  # complete wheels only, never a half-built folder
}

if have_server; then
  echo "reusing $VENV (llama-cpp-python $VERSION)" >&2
else
  if ! ls "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl >/dev/null 2>&1; then
    if [ "$CACHED_ONLY" = 1 ]; then
      echo "no built llama-cpp-python $VERSION for these flags in $WHEELS (--cached-only)" >&2
      exit 3
    fi
    [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
    build_wheel
  fi
  [ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
  rm -f "$VENV/tooleval-build"
  echo "installing llama-cpp-python $VERSION from $WHEELS" >&2
  quiet_pip "$VENV/bin/python" -m pip install --quiet --find-links "$WHEELS" --no-index \
    --no-deps "llama-cpp-python==$VERSION"
  quiet_pip "$VENV/bin/python" -m pip install --quiet --find-links "$WHEELS" \
    "llama-cpp-python[server]==$VERSION"
  "$VENV/bin/python" -c "import llama_cpp.server.app" ||
    { echo "error: llama_cpp.server does not import in $VENV" >&2; exit 1; }
  echo "$STAMP" >"$VENV/tooleval-build"
fi
echo "$(cd "$VENV" && pwd)/bin/python"
