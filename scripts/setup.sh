#!/usr/bin/env bash
# Create .venv and install kgqa with its pinned dependencies. Idempotent: reruns only what changed.
# The slow llama-cpp-python compile (~10 min on 2 cores) happens once into a wheel cache and is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
WHEELS="${KGQA_WHEEL_CACHE:-$HOME/.cache/kgqa/wheels}"
LLAMA_VERSION=0.3.36
# llama.cpp's default build is -march=native: on an Intel Xeon with AMX (seen here, in a Firecracker VM) that
# compiles ggml's AMX kernels, and every generation then segfaults in ggml_backend_amx_mul_mat. On x86_64 the
# wheel is built for a fixed, portable instruction set instead (AVX2/FMA/F16C, no AVX-512 or AMX: every x86_64
# server here has it, and a 135M model loses little), in a cache folder of its own so that a native wheel
# built by an earlier set-up is never reused.
case "$(uname -m)" in
  x86_64)
    LLAMA_BUILD=x86_64-avx2
    LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" ;;
  *)
    LLAMA_BUILD="$(uname -m)-native"
    LLAMA_CMAKE_ARGS="" ;;
esac
LLAMA_WHEELS="$WHEELS/$LLAMA_BUILD"
mkdir -p "$LLAMA_WHEELS"

if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $("$PY" --version)"
  "$PY" -m venv .venv
  .venv/bin/pip install -q --upgrade pip wheel setuptools
fi

if ! ls "$LLAMA_WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
  echo "[setup] compiling llama-cpp-python $LLAMA_VERSION ($LLAMA_BUILD) once (about 10 minutes on 2 cores); cached in $LLAMA_WHEELS"
  CMAKE_ARGS="$LLAMA_CMAKE_ARGS" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    .venv/bin/pip wheel -q --no-deps --no-binary llama-cpp-python -w "$LLAMA_WHEELS" "llama-cpp-python==$LLAMA_VERSION"
fi

stamp=.venv/.kgqa-installed
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[setup] installing dependencies into .venv"
  # torch first, from the CPU build on this disk: a later resolver must not pull a CUDA build.
  .venv/bin/pip install -q "torch==2.13.0"
  # the wheel of this build, replacing one of another build that an earlier set-up installed
  .venv/bin/pip install -q --force-reinstall --no-deps "$LLAMA_WHEELS"/llama_cpp_python-"$LLAMA_VERSION"-*.whl
  .venv/bin/pip install -q --find-links "$LLAMA_WHEELS" -e ".[dev]"
  # one generation by the embedded model, in a process of its own: a llama.cpp build that crashes on this CPU
  # fails here, with this message, not later in the service or the tests
  if ! HF_HUB_OFFLINE=1 .venv/bin/python -c "
from kgqa.planner.llm import EmbeddedLLM
print('[setup] embedded model answers:', repr(EmbeddedLLM().complete('Say hi.', max_tokens=4).text))"; then
    echo "[setup] ERROR: the embedded model (llama-cpp-python $LLAMA_VERSION, $LLAMA_BUILD) crashed on this machine;" \
         "remove $LLAMA_WHEELS and set CMAKE flags for this CPU in scripts/setup.sh" >&2
    exit 1
  fi
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
