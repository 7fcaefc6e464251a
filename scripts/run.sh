#!/usr/bin/env bash
# The run command: set up .venv, build the graphs, pre-warm empty caches, and serve on the embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
.venv/bin/kgqa load --domain all
if .venv/bin/kgqa prewarm --help >/dev/null 2>&1; then
  .venv/bin/kgqa prewarm --domain all --if-empty
fi
exec .venv/bin/kgqa serve "$@"
