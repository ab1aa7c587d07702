#!/usr/bin/env bash
# Set up a separate virtual environment with the real lm-evaluation-harness CLI and tooleval.
#
# lm-eval and torch stay out of the uv project on purpose: uv would resolve a multi-GB CUDA
# build of torch. This venv gets the CPU build of torch instead. tooleval is installed into it
# editable and without dependencies: the lm-eval task only needs tooleval's prompt builder,
# parser and scorer, which use the standard library alone.
#
# Idempotent: an existing venv with the right lm-eval version is reused; tooleval is
# (re)linked every time, which takes a second.
#
# Usage: scripts/setup-lm-eval.sh [VENV_DIR]      (default: .venv-lmeval in the checkout)
# Prints the absolute path of the venv's lm_eval executable (and nothing else) on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${1:-.venv-lmeval}"
LM_EVAL_VERSION="0.4.13"
TORCH_VERSION="2.13.0"
PYTHON="${PYTHON:-python3}"

# pip's output goes to stderr (stdout is the lm_eval path only), without the one warning per
# package that pip prints for configured index folders that lack it.
quiet_pip() {
  "$VENV/bin/python" -m pip install --quiet "$@" 2>&1 |
    { grep -v "is ignored: it is neither a file nor a directory" >&2 || true; }
}

have_lm_eval() {
  [ -x "$VENV/bin/lm_eval" ] &&
    "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('lm_eval') != '$LM_EVAL_VERSION')" \
      >/dev/null 2>&1
}

if have_lm_eval; then
  echo "reusing $VENV (lm-eval $LM_EVAL_VERSION)" >&2
else
  [ -d "$VENV" ] || "$PYTHON" -m venv "$VENV"
  # The api extra is only needed for --model local-chat-completions; it is small.
  quiet_pip "torch==$TORCH_VERSION" "lm-eval[hf,api]==$LM_EVAL_VERSION" gguf
fi
quiet_pip --no-deps -e .
"$VENV/bin/python" -c "import tooleval.integrations.lm_eval.utils" ||
  { echo "error: tooleval's lm-eval task does not import in $VENV" >&2; exit 1; }
echo "$(cd "$VENV" && pwd)/bin/lm_eval"
