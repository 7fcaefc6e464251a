#!/usr/bin/env bash
# The test command: set up .venv (idempotent), make sure Chromium is there for the browser test, then run the
# whole suite. tests/test_browser.py drives /usr/bin/chromium through Playwright (the `playwright` package
# comes with the dev extras; no browser download): when this script cannot install Chromium (it needs root and
# apt-get), it says so loudly and that test skips.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

CHROMIUM=/usr/bin/chromium  # the path tests/test_browser.py looks for
if [ ! -x "$CHROMIUM" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[test] installing Chromium for the browser test (apt-get install -y chromium)"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || true
  fi
  if [ ! -x "$CHROMIUM" ]; then
    why="needs root and apt-get"
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && why="apt-get install -y chromium failed"
    {
      echo
      echo "########################################################################################"
      echo "# WARNING: no Chromium at $CHROMIUM ($why)."
      echo "# The browser test (tests/test_browser.py) will be SKIPPED: the chat page is NOT tested."
      echo "# Install it (as root: apt-get install -y chromium) and run this script again."
      echo "########################################################################################"
      echo
    } >&2
  fi
fi

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
exec .venv/bin/pytest -q "$@"
