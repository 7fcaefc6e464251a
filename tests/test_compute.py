"""The compute processes (``app/compute.py``): real spawned processes answering over their Unix socket, a
server that sends them its cache misses and answers repeats itself, 503 when none starts a question in
time, and a compute process killed with SIGKILL replaced by the supervisor."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import time
import urllib.parse

import pytest

from kgqa.app.compute import ComputeClient, ComputePool
from kgqa.app.limits import Busy
from kgqa.app.server import create_app
from kgqa.app.serving import BackgroundServer
from kgqa.planner.pipeline import build_pipeline
from kgqa.settings import Settings


@pytest.fixture(scope="module")
def home(built_graphs, tmp_path_factory):
    home = tmp_path_factory.mktemp("compute-home")
    (home / "graphs").symlink_to(next(iter(built_graphs.values())).parent, target_is_directory=True)
    return home


@pytest.fixture(scope="module")
def pool(home):
    settings = Settings(home=home, vector_memory=False, compute_wait_s=60)
    p = ComputePool(settings, processes=2).start()
    try:
        assert p.wait_ready(600), "the compute processes did not start"
        yield p
    finally:
        p.stop()


def _post(url: str, path: str, body: dict) -> tuple[int, dict, dict]:
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read()), dict(resp.getheaders())
    finally:
        conn.close()


def test_pool_answers_in_separate_niced_processes(pool):
    client = pool.client()
    pids = {client.ping() for _ in range(20)}
    assert pids <= set(pool.pids) and os.getpid() not in pids
    for pid in pool.pids:
        with open(f"/proc/{pid}/stat") as f:
            assert int(f.read().rsplit(")", 1)[1].split()[16]) == 10  # niceness field
    r = client.ask("Who directed The Matrix?", "movies")
    assert r["status"] == "answered" and "Wachowski" in r["answer"] and r["cache"]["answer_hit"] is False
    batch = client.ask_batch([{"question": "When was Cast Away released?", "domain": "movies"},
                              {"question": "What is the unit price of Chai?", "domain": None}])
    assert [b["status"] for b in batch] == ["answered", "answered"] and batch[1]["domain"] == "northwind"


def test_server_sends_misses_to_the_pool_and_serves_repeats_itself(pool, home):
    pipeline = build_pipeline(Settings(home=home, vector_memory=False))
    app = create_app(pipeline, pool.client())
    with BackgroundServer(app) as srv:
        q = {"question": "Which movies did Keanu Reeves act in?"}  # routed: stored under both keys
        status, first, _ = _post(srv.url, "/ask", q)
        assert status == 200 and first["status"] == "answered" and not first["cache"]["answer_hit"]
        assert first["domain"] == "movies"
        status, again, _ = _post(srv.url, "/ask", q)
        assert status == 200 and again["cache"]["answer_hit"] and again["rows"] == first["rows"]
        status, direct, _ = _post(srv.url, "/ask", q | {"domain": "movies"})
        assert status == 200 and direct["cache"]["answer_hit"]
        status, out, _ = _post(srv.url, "/ask/batch", {"questions": ["Who acted in Apollo 13?"]})
        assert status == 200 and out["results"][0]["status"] == "answered"
        status, hit, _ = _post(srv.url, "/ask", {"question": "Who acted in Apollo 13?"})
        assert hit["cache"]["answer_hit"]  # the batch's answer is kept by the serving process
    assert pipeline.answer_cache.stats()["entries"] >= 4


def test_no_compute_process_in_time_is_503_with_retry_after(home, tmp_path):
    client = ComputeClient(str(tmp_path / "nothing.sock"), wait_s=1)
    with pytest.raises(Busy, match="not running"):
        client.ask("Who directed The Matrix?", "movies")
    # a pool of one, held by a client that connected and sends nothing (the process waits up to 10 s for
    # its task): a question that waits longer than wait_s is refused, and answered once the process is free
    settings = Settings(home=home, vector_memory=False, compute_wait_s=0.5)
    p = ComputePool(settings, processes=1).start()
    try:
        assert p.wait_ready(600)
        app = create_app(build_pipeline(Settings(home=home, vector_memory=False)), p.client())
        with BackgroundServer(app) as srv, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as holder:
            holder.connect(p.path)
            time.sleep(0.3)  # accepted by the only compute process
            t0 = time.perf_counter()
            status, body, headers = _post(srv.url, "/ask", {"question": "Who directed Top Gun?", "domain": "movies"})
            assert time.perf_counter() - t0 < 5
            assert status == 503 and int(headers["Retry-After"]) >= 1 and "compute" in body["error"]
            holder.close()
            status, body, _ = _post(srv.url, "/ask", {"question": "Who directed Top Gun?", "domain": "movies"})
            assert status == 200 and body["status"] == "answered"
    finally:
        p.stop()


def test_a_killed_compute_process_is_replaced(home):
    p = ComputePool(Settings(home=home, vector_memory=False), processes=1).start()
    try:
        assert p.wait_ready(600)
        client = p.client()
        first = client.ping()
        os.kill(first, signal.SIGKILL)
        deadline, pid = time.monotonic() + 300, first
        while pid == first and time.monotonic() < deadline:
            try:
                pid = client.ping()
            except Busy:
                time.sleep(0.5)
        assert pid != first
        assert client.ask("Who directed The Matrix?", "movies")["status"] == "answered"
    finally:
        p.stop()
    assert not os.path.exists(p.path)
