"""Soak benchmark (issue 18, item 4): ``kgqa bench load``'s clients for minutes against gunicorn workers
sharing Redis, with one worker and one compute process killed with SIGKILL halfway.

Starts a private ``redis-server`` and ``kgqa serve --workers N`` on a scratch KGQA home, warms it, then runs
the load clients of :mod:`kgqa.evals.bench_load` for ``--duration`` seconds (each client mixing repeats and
new questions half and half, back to back: the issue-6 workload). Halfway it reads the plan
cache's committed entries from its SQLite file, kills one gunicorn worker and one compute process with
SIGKILL, and keeps loading. Reported:

* requests, errors (as in ``bench load``) and 503 refusals; requests that failed at the transport level
  within ``KILL_WINDOW_S`` of the kill (connections the killed worker held) are counted apart;
* the RSS of every process (master, workers, compute supervisor and processes) at start and at end;
* whether every committed plan-cache entry is still there after the kill, and ``PRAGMA integrity_check``;
* the answer cache seen from each live worker (a keep-alive connection stays on one worker, whose pid
  ``/health`` gives): the shared entry count in its ``/cache/stats``, and the same answers to a sample of the
  questions asked during the soak, each an answer-cache hit.

    kgqa bench soak [--clients 50] [--duration 300] [--workers 4] [--out DIR]

Last line: ``soak-bench clients= workers= seconds= requests= errors= refused_503= killed_worker_failures=
plan_entries_committed= plan_entries_lost= integrity= cache_identical= workers_seen= rss_start_mb= rss_end_mb=``.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import signal
import sqlite3
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from kgqa.evals.bench_load import (
    REPEATS,
    ServerProcess,
    connection,
    question_pool,
    run_load,
    scrape_metrics,
    server_figures,
    warm_up,
)
from kgqa.evals.benchutil import command_line, key_value_line, md_table, remove_home, scratch_home

KILL_WINDOW_S = 3.0  # transport failures this soon after the kill are the killed worker's connections
TRANSPORT_FAILURES = ("ConnectionResetError", "RemoteDisconnected", "BrokenPipeError", "BadStatusLine",
                      "ConnectionRefusedError", "IncompleteRead")


# -- processes -------------------------------------------------------------------------------------
def rss_mb(pid: int) -> float | None:
    """Returns the resident set size of ``pid`` in MiB, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def children(pid: int) -> list[int]:
    """Returns the pids of the live children of ``pid``."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                out.append(int(entry))
    return sorted(out)


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def processes(master: int) -> dict[int, str]:
    """Returns {pid: role} for the gunicorn master, its workers, the compute supervisor and its processes."""
    roles = {master: "master"}
    for pid in children(master):
        if "kgqa.app.compute" in cmdline(pid):
            roles[pid] = "compute supervisor"
            for c in children(pid):
                if "resource_tracker" not in cmdline(c):
                    roles[c] = "compute"
        else:
            roles[pid] = "worker"
    return roles


# -- the plan cache --------------------------------------------------------------------------------
def committed_plans(state_dir: Path) -> dict[int, str]:
    """Returns {id: dedupe key} of the plan cache's committed rows, read through a separate connection."""
    conn = sqlite3.connect(f"file:{state_dir / 'plan_cache.sqlite'}?mode=ro", uri=True, timeout=30)
    try:
        return dict(conn.execute("SELECT id, dedupe FROM plans").fetchall())
    finally:
        conn.close()


def integrity(state_dir: Path) -> str:
    conn = sqlite3.connect(f"file:{state_dir / 'plan_cache.sqlite'}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


# -- the answer cache seen from each worker --------------------------------------------------------
def _get(conn: http.client.HTTPConnection, path: str) -> dict:
    conn.request("GET", path)
    return json.loads(conn.getresponse().read())


def worker_views(url: str, questions: list[tuple[str, str | None]], workers: int,
                 timeout_s: float = 60.0) -> dict[int, dict]:
    """Returns {worker pid: {"entries", "hits", "digest"}}: on one keep-alive connection per worker, its
    ``/cache/stats`` shared entry count, and whether each of ``questions`` was an answer-cache hit, with a
    digest of the answers and rows it gave."""
    views: dict[int, dict] = {}
    deadline = time.monotonic() + timeout_s
    while len(views) < workers and time.monotonic() < deadline:
        conn = connection(url, 60)
        try:
            pid = int(_get(conn, "/health")["pid"])
            if pid in views:
                continue
            stats = _get(conn, "/cache/stats")["answer_cache"]
            digest, hits = hashlib.sha1(), 0
            for q, d in questions:
                body = json.dumps({"question": q} | ({"domain": d} if d else {}))
                conn.request("POST", "/ask", body=body, headers={"Content-Type": "application/json"})
                r = json.loads(conn.getresponse().read())
                hits += bool((r.get("cache") or {}).get("answer_hit"))
                digest.update(json.dumps([r.get("domain"), r.get("answer"), r.get("rows")], default=str).encode())
            views[pid] = {"entries": (stats.get("shared") or {}).get("entries"), "hits": hits,
                          "digest": digest.hexdigest()[:12]}
        finally:
            conn.close()
    return views


# -- the run ---------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    from kgqa.evals.servers import redis_server
    from kgqa.settings import Settings

    settings = Settings.from_env()
    ap = argparse.ArgumentParser(prog="kgqa bench soak", description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--duration", type=float, default=300.0, help="seconds of load (default 300)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--quick", action="store_true", help="60 s of load")
    ap.add_argument("--sample", type=int, default=30, help="questions checked on every worker after the soak")
    ap.add_argument("--out", type=Path, default=settings.reports_dir)
    args = ap.parse_args(argv)
    duration = 60.0 if args.quick else args.duration
    command = command_line("kgqa bench soak", argv if argv is not None else sys.argv[1:])

    pool = question_pool(settings.graphs_dir)
    stack = ExitStack()
    kill: dict = {}
    try:
        redis_url = stack.enter_context(redis_server())
        home = scratch_home(settings.graphs_dir, prefix="kgqa-soak-")
        stack.callback(remove_home, home)
        print(f"starting kgqa serve --workers {args.workers} (home {home}, redis {redis_url}) ...", flush=True)
        server = ServerProcess(home, workers=args.workers, redis_url=redis_url)
        stack.callback(server.stop)  # closed first: the server, then its home, then Redis
        url = server.url
        warm_up(url, REPEATS)
        warm_up(url, REPEATS * args.workers)
        roles = processes(server.proc.pid)
        rss_start = {pid: rss_mb(pid) for pid in roles}

        started: dict[str, float] = {}
        clock = threading.Event()

        def on_start(t: float) -> None:
            started["t"] = t
            clock.set()

        def killer() -> None:
            clock.wait()
            time.sleep(max(0.0, started["t"] + duration / 2 - time.perf_counter()))
            kill["plans"] = committed_plans(home / "state")
            now = processes(server.proc.pid)
            worker = min(p for p, r in now.items() if r == "worker")
            compute = [p for p, r in now.items() if r == "compute"]
            kill["at"] = time.perf_counter() - started["t"]  # on run_load's clock
            os.kill(worker, signal.SIGKILL)
            kill["worker"] = worker
            if compute:
                os.kill(compute[0], signal.SIGKILL)
                kill["compute"] = compute[0]
            print(f"killed worker {worker} and compute process {kill.get('compute')} with SIGKILL "
                  f"({len(kill['plans'])} plan-cache entries committed)", flush=True)

        print(f"{url}: {args.clients} clients for {duration:.0f} s; SIGKILL halfway ...", flush=True)
        k = threading.Thread(target=killer, daemon=True)
        k.start()
        result = run_load(url, clients=args.clients, duration_s=duration, pool=pool, on_start=on_start)
        k.join()
        kill_at = kill["at"]
        time.sleep(2.0)  # the master has started the replacement worker
        roles_end = processes(server.proc.pid)
        rss_end = {pid: rss_mb(pid) for pid in roles_end}
        asked = [(s_q, s_d) for s_q, s_d in REPEATS]
        computed = {s.question for s in result.samples if s.cached is False and s.status in ("answered", "dont_know")}
        fresh = sorted(computed - set(asked), key=str)[: max(0, args.sample - len(asked))]
        views = worker_views(url, asked + fresh, args.workers)
        figures = server_figures(scrape_metrics(url))
        after = committed_plans(home / "state")
        check = integrity(home / "state")
    finally:
        stack.close()

    lost = [i for i in kill["plans"] if after.get(i) != kill["plans"][i]]
    kill_failures = [s for s in result.samples if not s.ok and s.status in TRANSPORT_FAILURES
                     and s.at <= kill_at + KILL_WINDOW_S and s.at + s.ms / 1000 >= kill_at]
    errors = result.errors - len(kill_failures)
    after_kill = [s for s in result.samples if s.at > kill_at + KILL_WINDOW_S]
    failures = sorted((round(s.at, 2), round(s.ms), s.status) for s in result.samples if not s.ok)
    identical = (len({(v["entries"], v["digest"]) for v in views.values()}) == 1
                 and all(v["hits"] == len(asked + fresh) for v in views.values()))
    all_pids = sorted(set(roles) | set(roles_end))
    rows = [[pid, roles.get(pid) or roles_end.get(pid),
             "-" if rss_start.get(pid) is None else round(rss_start[pid], 1),
             "killed" if pid in (kill.get("worker"), kill.get("compute")) else
             ("-" if rss_end.get(pid) is None else round(rss_end[pid], 1))] for pid in all_pids]
    workers_start = [rss_start[p] for p, r in roles.items() if r == "worker"]
    workers_end = [rss_end[p] for p, r in roles_end.items() if r == "worker" and p in roles and rss_end[p]]
    cached = result.latency(True)
    report = "\n".join([
        "## Soak: workers, Redis, SIGKILL under load",
        "",
        f"`kgqa serve --workers {args.workers}` with a private Redis, {args.clients} load clients "
        f"(`kgqa bench load`'s, each mixing repeats and new questions) for {result.seconds:.0f} s; at {kill_at:.0f} s one worker "
        f"({kill.get('worker')}) and one compute process ({kill.get('compute')}) were killed with SIGKILL.",
        "",
        f"    {command}",
        "",
        md_table(["pid", "process", "RSS start MiB", "RSS end MiB"], rows, digits=1),
        "",
        f"Requests **{len(result.samples)}** ({result.rps:.1f}/s; cached p50 {cached['p50']:.1f} ms, p99 "
        f"{cached['p99']:.1f} ms), errors **{errors}**, 503 refusals {result.refused}, transport failures of "
        f"the killed worker's connections {len(kill_failures)}; after the kill {len(after_kill)} requests, "
        f"{sum(not s.ok for s in after_kill)} failed. Fresh questions used: {result.pool_used} of "
        f"{result.pool_size} (when they run out, clients ask repeats only).",
        "",
        "Failures (sent at s, took ms, status): " + (", ".join(f"{a} s/{m} ms/{st}" for a, m, st in failures)
                                                     or "none") + ".",
        "",
        f"Plan cache: {len(kill['plans'])} entries committed before the kill, {len(lost)} lost, {len(after)} "
        f"after; integrity_check: {check}.",
        "",
        md_table(["worker pid", "shared entries", "sample hits", "answers digest"],
                 [[pid, v["entries"], f"{v['hits']}/{len(asked + fresh)}", v["digest"]]
                  for pid, v in sorted(views.items())]),
        "",
        md_table(["server /metrics", "value"], [[k, round(v, 4)] for k, v in figures.items()], digits=4),
        "",
    ])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "soak.md").write_text(report)
    print(report)
    print(key_value_line("soak-bench", {
        "clients": args.clients, "workers": args.workers, "seconds": round(result.seconds, 1),
        "requests": len(result.samples), "errors": errors, "refused_503": result.refused,
        "killed_worker_failures": len(kill_failures), "after_kill_failed": sum(not s.ok for s in after_kill),
        "plan_entries_committed": len(kill["plans"]), "plan_entries_lost": len(lost), "integrity": check,
        "cache_identical": str(identical).lower(), "workers_seen": len(views),
        "rss_start_mb": "/".join(f"{x:.0f}" for x in workers_start),
        "rss_end_mb": "/".join(f"{x:.0f}" for x in workers_end),
        "cached_p99_ms": round(cached["p99"], 1), "fresh_used": result.pool_used}, digits=1), flush=True)
    ok = errors == 0 and not lost and check == "ok" and identical and len(views) == args.workers
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
