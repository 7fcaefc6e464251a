"""Serving at scale: the Redis answer-cache tier against a real ``redis-server``, the plan cache written by
several processes at once, and ``kgqa serve --workers 2`` end to end (shared answers, a worker killed with
SIGKILL, SIGTERM draining a request in flight)."""

from __future__ import annotations

import http.client
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kgqa.cache.answer_cache import AnswerCache
from kgqa.cache.plan_cache import PlanCache
from kgqa.cache.plan_entry import PlanEntry
from kgqa.evals.servers import missing, redis_server

REPO = Path(__file__).resolve().parent.parent
NO_REDIS = missing().get("redis")
needs_redis = pytest.mark.skipif(NO_REDIS is not None, reason=f"NO REDIS: {NO_REDIS} - the Redis tier is NOT tested")


def _value(question: str, rows: int = 80) -> dict:
    return {"question": question, "domain": "movies", "status": "answered", "answer": "Lana Wachowski, ...",
            "cypher": "MATCH (p:Person)-[:DIRECTED]->(m:Movie) RETURN p.name", "columns": ["p.name"],
            "rows": [[f"Person number {i}"] for i in range(rows)], "cache": {"answer_hit": False}}


@needs_redis
def test_redis_tier_shares_compressed_entries_with_ttl_versions_and_stats():
    from kgqa.cache.redis_tier import TieredAnswerCache

    with redis_server() as url:
        mk = lambda: TieredAnswerCache(AnswerCache(prune_rows=50, compress=True), url, ttl_s=120)  # noqa: E731
        a, b = mk(), mk()  # two workers
        assert a.get("Who directed The Matrix?", "movies", "v1") is None
        assert a.put("Who directed The Matrix?", "movies", "v1", _value("Who directed The Matrix?"))
        got = b.get("who directed the matrix", "movies", "v1")  # normalized key, another process's entry
        assert got is not None and got["rows"][0] == ["Person number 0"] and len(got["rows"]) == 50
        assert got["cache"]["rows_pruned"] is True
        key = a.rkey("Who directed The Matrix?", "movies", "v1")
        raw = a.redis.get(key)
        assert raw[0] == 2 and len(raw) < len(json.dumps(_value("x")))  # zlib-compressed, as in the LRU
        assert 0 < a.redis.ttl(key) <= 120
        assert b.get("Who directed The Matrix?", "movies", "v2") is None  # another KG version: never served
        b.put("Who directed The Matrix?", "movies", "v2", _value("Who directed The Matrix?"))
        assert a.invalidate("movies", keep_version="v2") >= 1
        assert a.redis.get(key) is None and len(a.shared_keys()) == 1
        b.flush_counts()  # another worker's counts reach the shared hash from its own thread, a moment later
        stats = a.stats()
        assert stats["shared"]["hits"] == 1 and stats["shared"]["misses"] == 2 and stats["shared"]["puts"] == 2
        assert stats["entries"] == 1 and a.health()["redis"] == "up"
        assert b.discard("Who directed The Matrix?", "movies", "v2") and a.shared_keys() == []
    # the server is gone: answers keep coming from the process's own cache, and health says why
    assert a.put("Q2", "movies", "v1", _value("Q2"))
    t0 = time.perf_counter()
    assert a.get("Q2", "movies", "v1")["rows"][0] == ["Person number 0"]
    assert a.get("Q3", "movies", "v1") is None
    assert time.perf_counter() - t0 < 2.0  # one connect timeout, then the tier is skipped until retry_s
    health = a.health()
    assert health["redis"] == "down" and health["error"] and "in-process" in health["fallback"]
    assert a.stats()["tier"]["redis"] == "down"


@needs_redis
def test_redis_tier_hit_from_the_process_lru_never_waits_for_redis():
    """A hit from the process's own LRU makes no Redis round trip on the request's path: while Redis is busy
    (a 0.4 s script; every command waits behind it), hits still come back at once, and every hit and miss
    is in the shared counts once Redis answers again."""
    from kgqa.cache.redis_tier import TieredAnswerCache

    with redis_server() as url:
        a, b = (TieredAnswerCache(AnswerCache(prune_rows=50, compress=True), url, ttl_s=120) for _ in range(2))
        a.put("Who directed The Matrix?", "movies", "v1", _value("Who directed The Matrix?"))
        assert a.get("Who directed The Matrix?", "movies", "v1") is not None and b.get("Q0", "movies", "v1") is None
        busy = threading.Thread(target=lambda: a.redis.eval(
            "local t = redis.call('TIME') local stop = t[1] * 1e6 + t[2] + 400000 "
            "while true do local n = redis.call('TIME') if n[1] * 1e6 + n[2] >= stop then break end end", 0))
        busy.start()
        time.sleep(0.1)  # the script is running: Redis answers nothing until it ends
        t0 = time.perf_counter()
        hits = [a.get("Who directed The Matrix?", "movies", "v1") for _ in range(50)]
        served_s = time.perf_counter() - t0
        busy.join()
        assert all(h is not None and h["rows"][0] == ["Person number 0"] for h in hits)
        assert served_s < 0.2, f"50 LRU hits took {served_s:.3f} s while Redis was busy"
        assert a.health()["redis"] == "up"  # waiting for a busy server is not an outage
        b.flush_counts()
        shared = a.stats()["shared"]  # stats() writes this process's pending counts first
        assert (shared["hits"], shared["misses"], shared["puts"]) == (51, 1, 1)


def _writer(path: str, worker: int, n: int) -> None:
    cache = PlanCache(path)
    for i in range(n):
        cache.add(PlanEntry(question=f"question {worker}-{i}", cypher=f"MATCH (n) RETURN {worker * 1000 + i}",
                            domain="movies", kg_version="v1"))
    cache.close()


def test_plan_cache_takes_writes_from_several_processes(tmp_path):
    path = str(tmp_path / "plan_cache.sqlite")
    PlanCache(path).close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(path, w, 40)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    with PlanCache(path) as cache:
        questions = {e.question for e in cache.entries("movies")}
    assert questions == {f"question {w}-{i}" for w in range(4) for i in range(40)}


# -- the real service with two workers ------------------------------------------------------------------
def _request(url: str, method: str, path: str, body: dict | None = None, timeout: float = 300) -> tuple[int, dict]:
    host, port = url.split("//")[1].rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None,
                     {"Content-Type": "application/json"} if body is not None else {})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


@pytest.fixture()
def scratch_home(built_graphs, tmp_path):
    home = tmp_path / "home"
    (home / "state").mkdir(parents=True)
    (home / "graphs").symlink_to(next(iter(built_graphs.values())).parent.resolve(), target_is_directory=True)
    return home


@needs_redis
@pytest.mark.slow
def test_serve_workers_share_redis_survive_kill_and_drain(scratch_home):
    with redis_server() as url:
        env = dict(os.environ, KGQA_HOME=str(scratch_home), KGQA_REDIS_URL=url, KGQA_DRAIN_S="60",
                   KGQA_VECTOR_MEMORY="false", PYTHONUNBUFFERED="1")
        proc = subprocess.Popen([sys.executable, "-m", "kgqa.app.cli", "serve", "--workers", "2", "--port", "0",
                                 "--threads", "4"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        log: list[str] = []
        try:
            base = ""
            for line in proc.stdout:
                log.append(line)
                if "kgqa serving" in line:
                    base = line.rsplit(" on ", 1)[1].strip()
                    break
            assert base, "".join(log)
            threading.Thread(target=lambda: [log.append(x) for x in proc.stdout], daemon=True).start()
            q = {"question": "Who directed The Matrix?", "domain": "movies"}
            status, first = _request(base, "POST", "/ask", q)
            assert status == 200 and first["status"] == "answered" and not first["cache"]["answer_hit"]
            pids, hits = set(), 0
            deadline = time.monotonic() + 240
            while (len(pids) < 2 or hits < 6) and time.monotonic() < deadline:  # both workers answer from Redis
                status, r = _request(base, "POST", "/ask", q)
                assert status == 200 and r["cache"]["answer_hit"] and r["rows"] == first["rows"]
                hits += 1
                status, h = _request(base, "GET", "/health")
                assert h["answer_cache_tier"]["redis"] == "up"
                pids.add(h["pid"])
            assert len(pids) == 2, "only one worker answered"
            deadline = time.monotonic() + 10  # each worker adds its counts from a thread, off the request's path
            while True:
                status, stats = _request(base, "GET", "/cache/stats")
                shared = stats["answer_cache"]["shared"]
                if shared["hits"] >= hits or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert shared["entries"] == 1 and shared["hits"] >= hits and shared["puts"] == 1
            # kill -9 one worker: the other keeps serving, the master starts a new one
            os.kill(pids.pop(), signal.SIGKILL)
            for _ in range(5):
                status, r = _request(base, "POST", "/ask", q)
                assert status == 200 and r["cache"]["answer_hit"]
            # SIGTERM drains: a request in flight completes, then the service exits
            slow: dict = {}
            t = threading.Thread(target=lambda: slow.update(zip(("status", "body"), _request(
                base, "POST", "/ask", {"question": "Which movies did Keanu Reeves act in?", "domain": "movies"}))))
            t.start()
            time.sleep(0.3)
            proc.send_signal(signal.SIGTERM)
            t.join(120)
            assert slow.get("status") == 200 and slow["body"]["status"] in ("answered", "dont_know")
            assert proc.wait(120) == 0
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
