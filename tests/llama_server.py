"""A real ``llama_cpp.server`` on a free loopback port, running the small embedded model, for tests."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kgqa.evals.servers import stop_process
from kgqa.planner.llm import default_model_path

SERVER_MODULES = ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")


def free_port() -> int:
    """Returns a loopback port that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def llama_server(log_dir: Path, *, n_threads: int, n_ctx: int, wait_s: float = 90) -> Iterator[str]:
    """Yields the OpenAI-compatible base URL of a started server; stops it afterwards. Skips the test when
    the server's extra modules are missing; fails with the server's log when it does not come up."""
    missing = [m for m in SERVER_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"llama_cpp.server needs {missing}")
    port = free_port()
    log = (Path(log_dir) / "server.log").open("wb")  # verbose: a pipe would fill up
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(default_model_path()),
                             "--host", "127.0.0.1", "--port", str(port), "--n_threads", str(n_threads),
                             "--n_ctx", str(n_ctx)], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.time() + wait_s
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {open(log.name, errors='replace').read()[-2000:]}")
            if time.time() > deadline:
                pytest.fail(f"llama_cpp.server did not come up in {wait_s:g} s")
            time.sleep(0.5)
        yield url
    finally:
        stop_process(proc)
        log.close()
