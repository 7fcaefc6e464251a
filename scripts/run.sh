#!/usr/bin/env bash
# The run command: set up .venv, build the graphs, pre-warm empty caches, and serve on the embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
.venv/bin/kgqa load --domain all
.venv/bin/kgqa prewarm --domain all --if-empty   # the offline pre-warm job, only for empty plan caches
exec .venv/bin/kgqa serve "$@"
