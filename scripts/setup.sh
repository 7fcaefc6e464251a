#!/usr/bin/env bash
# Create .venv and install kgqa with its pinned dependencies. Idempotent: reruns only what changed.
# The slow llama-cpp-python compile (~10 min on 2 cores) happens once into a wheel cache and is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
WHEELS="${KGQA_WHEEL_CACHE:-$HOME/.cache/kgqa/wheels}"
LLAMA_VERSION=0.3.36
mkdir -p "$WHEELS"

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $("$PY" --version)"
  "$PY" -m venv .venv
  .venv/bin/pip install -q --upgrade pip wheel setuptools
fi

if ! ls "$WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
  echo "[setup] compiling llama-cpp-python $LLAMA_VERSION once (about 10 minutes on 2 cores); cached in $WHEELS"
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" .venv/bin/pip wheel -q --no-deps -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
fi

stamp=.venv/.kgqa-installed
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[setup] installing dependencies into .venv"
  # torch first, from the CPU build on this disk: a later resolver must not pull a CUDA build.
  .venv/bin/pip install -q "torch==2.13.0"
  .venv/bin/pip install -q --find-links "$WHEELS" -e ".[dev]"
  echo "$want" > "$stamp"
fi
# redis-server: the shared answer-cache tier (KGQA_REDIS_URL) and its tests. Debian's package, as root.
if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing redis-server (apt-get install -y redis-server)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null) || true
    # the package's own service is not needed: kgqa's tests and benches start private servers on free ports
    command -v service >/dev/null 2>&1 && service redis-server stop >/dev/null 2>&1 || true
  fi
  if ! command -v redis-server >/dev/null 2>&1; then
    {
      echo
      echo "########################################################################################"
      echo "# WARNING: no redis-server (needs root and apt-get: apt-get install -y redis-server)."
      echo "# The Redis answer-cache tests (tests/test_workers.py) will be SKIPPED."
      echo "########################################################################################"
      echo
    } >&2
  fi
fi
echo "[setup] ready: .venv/bin/kgqa"
