"""Load benchmark (issue 6, issue 18): the real server under many concurrent users on loopback.

Starts ``kgqa serve --port 0`` (waitress, the production path; gunicorn with ``--workers N``) in a
subprocess on a scratch KGQA home (the real graphs, empty caches), warms it with one pass over a small set of
*repeat* questions, then runs N client threads (keep-alive HTTP/1.1, one connection each, opened before the
clock starts; the clients start one after another over the first second rather than in lockstep) for a
bounded time and request count. The clients are independent users of two kinds, in one run:

* ``--cached-only`` (default 40) users re-ask popular questions (the repeats, answer-cache hits), each at
  exponentially distributed intervals of mean ``--think`` (default 0.1 s: about 400 req/s offered in all).
  A question's latency counts from when it was due, so a slow cached answer that delays the user's next
  question is not hidden (no coordinated omission). ``--think 0``: back to back, the closed loop that
  measures the server's cached capacity (latency then grows with the number of users).
* the other users ask never-asked questions back to back (``--cached-share``: the probability that one of
  their questions is a repeat instead; default 0), from a pool generated from the graphs' own entities
  (movies, people, products, suppliers, laureates, years) across the three domains, so the compute
  processes are busy for the whole run.

Why not every client mixing repeats and new questions (the issue-6 bench, ``--cached-only 0 --think 0
--cached-share 0.5``): each client then spends nearly all its time waiting for its uncached answers
(seconds), so the cached throughput it reports is the workload's, not the server's.

Requests are classed cached/uncached by the response's ``cache.answer_hit`` flag, not by intent; the
cached requests sent and answered while an uncached request was in flight are reported on their own row.
req/s counts the answers within the load's window. Reported: throughput, p50/p99 latency overall and per
class, errors (non-200 other than 503, non-JSON, ``status == "error"``, transport failures, timeouts;
target 0), refusals (503 with ``Retry-After``: the compute queue's designed answer, counted apart; the client
moves on to its next question) and the server's own ``/metrics`` (requests by status, cache hit ratio, LLM
calls, mean server-side latency).

    kgqa bench load [--clients 50] [--cached-only 40] [--think 0.1] [--duration 180] [--quick]
                    [--workers N] [--redis] [--out DIR] [--url http://127.0.0.1:PORT/]

Last line: ``load-bench clients=<n> workers=<n> rps=<x> cached_p99_ms=<x> uncached_p99_ms=<x> errors=<n> ...``.
"""

from __future__ import annotations

import argparse
import bisect
import http.client
import itertools
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from kgqa.evals.benchutil import command_line, key_value_line, md_table, remove_home, scratch_home, summarize

REPO = Path(__file__).resolve().parent.parent
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
REFUSED = "refused_503"  # the status of a 503 + Retry-After sample
REPEATS = (  # asked once in the warm-up, then served from the answer cache
    ("Who directed The Matrix?", "movies"), ("Which movies did Tom Hanks act in?", "movies"),
    ("When was Cast Away released?", "movies"), ("Who acted in Apollo 13?", None),
    ("Which products does 'Exotic Liquids' supply?", "northwind"), ("What is the unit price of Chai?", None),
    ("List all suppliers that supply products in the 'Beverages' category.", "northwind"),
    ("What are the top 5 products by unit price?", None),
    ("Where was Marie Curie born?", "nobel"), ("Which Nobel Prizes did Marie Curie win?", None),
    ("When was Albert Einstein born?", "nobel"), ("Who won the Nobel Prize in Physics in 1921?", None),
)


# -- the question pool ------------------------------------------------------------------------------
def question_pool(graphs_dir: Path, seed: int = 7) -> list[tuple[str, str | None]]:
    """Distinct questions built from each graph's entities (read-only), shuffled; domain given to half."""
    from kgqa.kg.db import Graph

    def values(domain: str, cypher: str) -> list:
        with Graph(graphs_dir / domain, read_only=True, pool_size=1) as g:
            return [r[0] for r in g.query(cypher, row_cap=100_000).rows if r[0] not in (None, "")]

    templates: list[tuple[str, str, list]] = []
    if (graphs_dir / "movies").exists():
        titles = values("movies", "MATCH (m:Movie) RETURN m.title")
        people = values("movies", "MATCH (p:Person)-[:ACTED_IN|DIRECTED]->() RETURN DISTINCT p.name")
        templates += [("movies", t, titles) for t in ("Who directed {}?", "Who acted in {}?", "When was {} released?")]
        templates += [("movies", t, people) for t in ("Which movies did {} act in?", "When was {} born?")]
    if (graphs_dir / "northwind").exists():
        products = values("northwind", "MATCH (p:Product) RETURN p.productName")
        suppliers = values("northwind", "MATCH (s:Supplier) RETURN s.companyName")
        templates += [("northwind", t, products) for t in ("What is the unit price of {}?", "Which category is {} in?",
                                                          "Who supplies {}?")]
        templates += [("northwind", "Which products does '{}' supply?", suppliers)]
    if (graphs_dir / "nobel").exists():
        laureates = values("nobel", "MATCH (l:Laureate) RETURN l.knownName")
        years = sorted({int(y) for y in values("nobel", "MATCH (p:Prize) RETURN p.awardYear")})
        templates += [("nobel", t, laureates) for t in ("Where was {} born?", "Which Nobel Prizes did {} win?",
                                                       "When was {} born?", "What is {}'s full name?")]
        templates += [("nobel", "Who won the Nobel Prize in Physics in {}?", years)]
    repeats = {q.lower() for q, _ in REPEATS}
    rng = random.Random(seed)
    pool, seen = [], set()
    for domain, template, fill in templates:
        for v in fill:
            q = template.format(v)
            if q.lower() not in seen and q.lower() not in repeats:
                seen.add(q.lower())
                pool.append((q, domain if rng.random() < 0.5 else None))
    rng.shuffle(pool)
    return pool


# -- clients ----------------------------------------------------------------------------------------
@dataclass
class Sample:
    ms: float
    cached: bool | None  # answer-cache hit per the response; None when there was no usable response
    ok: bool
    status: str  # result status, or the failure ("http_500", "timeout", "ConnectionResetError", ...)
    at: float = 0.0  # when the request was sent, in seconds since the load began
    question: tuple[str, str | None] | None = None  # what was asked (question, domain)


@dataclass
class LoadResult:
    clients: int
    seconds: float
    samples: list[Sample] = field(default_factory=list)
    pool_used: int = 0
    pool_size: int = 0
    window: float = 0.0  # the load's duration; requests in flight at its end are answered after it

    @property
    def errors(self) -> int:
        """Failures: non-200 other than 503, non-JSON, status ``error``, transport failures, timeouts."""
        return sum(not s.ok for s in self.samples)

    @property
    def refused(self) -> int:
        """503 answers with ``Retry-After`` (the compute queue's bound): a designed answer, not an error."""
        return sum(s.status == REFUSED for s in self.samples)

    @property
    def rps(self) -> float:
        """Requests answered within the load's window, per second of it."""
        return self.throughput()

    def throughput(self, cached: bool | None = ...) -> float:
        """Requests of a class (``cached`` as in :meth:`latency`) answered within the window, per second of
        it (without a window: all of them per second of the whole run, its tail included)."""
        picked = [s for s in self.samples if cached is ... or s.cached is cached]
        if self.window <= 0:
            return len(picked) / self.seconds if self.seconds else 0.0
        return sum(s.at + s.ms / 1000 <= self.window for s in picked) / self.window

    def latency(self, cached: bool | None = ...) -> dict[str, float]:
        return summarize(s.ms for s in self.samples if cached is ... or s.cached is cached)

    def during_uncached(self) -> list[Sample]:
        """The cached samples sent and answered while at least one uncached request (computed, not refused)
        was in flight: the hits that had compute work beside them."""
        spans: list[list[float]] = []
        for a, b in sorted((s.at, s.at + s.ms / 1000) for s in self.samples if s.cached is False):
            if spans and a <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], b)
            else:
                spans.append([a, b])
        starts = [a for a, _ in spans]
        out = []
        for s in self.samples:
            if s.cached:
                i = bisect.bisect_right(starts, s.at) - 1
                if i >= 0 and s.at + s.ms / 1000 <= spans[i][1]:
                    out.append(s)
        return out


def connection(url: str, timeout: float) -> http.client.HTTPConnection:
    """Returns an unopened keep-alive HTTP connection to ``url``'s host and port."""
    u = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)


def _ask(conn: http.client.HTTPConnection, question: str, domain: str | None) -> tuple[int, bytes]:
    code, raw, _ = _ask_headers(conn, question, domain)
    return code, raw


def _ask_headers(conn: http.client.HTTPConnection, question: str, domain: str | None) -> tuple[int, bytes, dict]:
    body = json.dumps({"question": question} | ({"domain": domain} if domain else {}))
    conn.request("POST", "/ask", body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    return resp.status, resp.read(), dict(resp.getheaders())


def run_load(url: str, *, clients: int, duration_s: float, cached_share: float = 0.5,
             pool: list[tuple[str, str | None]], repeats=REPEATS, max_requests: int = 1_000_000,
             request_timeout_s: float = 120.0, seed: int = 11, stagger_s: float = 1.0,
             cached_only: int = 0, think_s: float = 0.0, on_start=None) -> LoadResult:
    """Returns the samples of ``clients`` threads asking for ``duration_s`` seconds (or ``max_requests`` in
    all), each connected before the clock starts and starting ``stagger_s / clients`` after the previous one.
    The first ``cached_only`` of them ask repeats only: back to back when ``think_s`` is 0, else each at
    exponentially distributed intervals of mean ``think_s`` (a user reading between questions), its latency
    measured from the time the question was due, so a request sent late because the previous cached answer
    was slow counts its wait (after an uncached answer, which a repeat gets on a worker that has not seen it
    without Redis, the user's clock restarts). The others ask a repeat with probability ``cached_share`` and a never-asked question
    otherwise, back to back. ``on_start(t)`` is called with the clock's start (``time.perf_counter()``). See
    the module doc."""
    host = urllib.parse.urlsplit(url).hostname
    if host not in LOOPBACK:
        raise ValueError(f"the load test only targets loopback, not {host!r}")
    fresh = iter(pool)
    fresh_lock, out_lock = threading.Lock(), threading.Lock()
    result = LoadResult(clients, 0.0, pool_size=len(pool), window=duration_s)
    budget = itertools.count()
    clock: dict[str, float] = {}

    def start_clock() -> None:
        clock["start"] = time.perf_counter()
        clock["stop"] = clock["start"] + duration_s
        if on_start is not None:
            on_start(clock["start"])

    connected = threading.Barrier(clients, action=start_clock)

    def next_question(rng: random.Random, share: float) -> tuple[str, str | None]:
        if rng.random() >= share:
            with fresh_lock:
                item = next(fresh, None)
                if item is not None:
                    result.pool_used += 1
                    return item
        return repeats[rng.randrange(len(repeats))]

    def client(i: int) -> None:
        rng = random.Random(seed * 1000 + i)
        paced = i < cached_only and think_s > 0
        conn = connection(url, request_timeout_s)
        mine: list[Sample] = []
        try:  # connected (one GET /health) before the clock starts: 50 simultaneous connects are no answer's cost
            conn.request("GET", "/health")
            conn.getresponse().read()
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = connection(url, request_timeout_s)
        connected.wait()
        t_start, stop_at = clock["start"], clock["stop"]
        time.sleep(i * stagger_s / max(1, clients))  # users start one after another, not in lockstep
        due = time.perf_counter()
        while time.perf_counter() < stop_at and next(budget) < max_requests:
            late = False
            if paced:
                if mine and not mine[-1].cached:  # after a computed (or refused) answer the user's clock restarts:
                    due = max(due, time.perf_counter())  # its seconds are the uncached class's, not the next hit's
                due += rng.expovariate(1.0 / think_s)
                if due >= stop_at:
                    break
                late = time.perf_counter() > due  # the previous answer came after this question was due
                time.sleep(max(0.0, due - time.perf_counter()))
            question, domain = next_question(rng, 1.0 if i < cached_only else cached_share)
            t0 = due if late else time.perf_counter()  # a late question counts its wait for the server
            try:
                code, raw, headers = _ask_headers(conn, question, domain)
                ms = (time.perf_counter() - t0) * 1000
                if code == 503 and headers.get("Retry-After", "").isdigit():
                    mine.append(Sample(ms, None, True, REFUSED, t0 - t_start, (question, domain)))  # the client moves on
                    continue
                try:
                    body = json.loads(raw)
                except ValueError:
                    mine.append(Sample(ms, None, False, f"http_{code}_not_json", t0 - t_start))
                    continue
                status = body.get("status", f"http_{code}") if code == 200 else f"http_{code}"
                cached = bool((body.get("cache") or {}).get("answer_hit")) if code == 200 else None
                mine.append(Sample(ms, cached, code == 200 and status != "error", status, t0 - t_start,
                                   (question, domain)))
            except (OSError, http.client.HTTPException) as err:
                ms = (time.perf_counter() - t0) * 1000
                mine.append(Sample(ms, None, False, "timeout" if "timed out" in str(err) else type(err).__name__,
                                     t0 - t_start))
                conn.close()
                conn = connection(url, request_timeout_s)
        conn.close()
        with out_lock:
            result.samples.extend(mine)

    threads = [threading.Thread(target=client, args=(i,), name=f"load-client-{i}") for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result.seconds = time.perf_counter() - clock["start"]
    return result


def warm_up(url: str, repeats=REPEATS, timeout_s: float = 120.0) -> float:
    """Ask each repeat question once, each on a connection of its own (filling the answer cache of whichever
    worker accepts it); returns the seconds it took."""
    t0 = time.perf_counter()
    for q, d in repeats:
        conn = connection(url, timeout_s)
        try:
            _ask(conn, q, d)
        finally:
            conn.close()
    return time.perf_counter() - t0


# -- the server -------------------------------------------------------------------------------------
class ServerProcess:
    """``python -m app.cli serve --port 0`` on loopback with ``KGQA_HOME=home``; the URL read from its banner."""

    def __init__(self, home: Path, *, start_timeout_s: float = 600.0, workers: int = 1, redis_url: str = "",
                 env: dict[str, str] | None = None):
        env = dict(os.environ, KGQA_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                   TOKENIZERS_PARALLELISM="false", PYTHONUNBUFFERED="1", **(env or {}))
        if redis_url:
            env["KGQA_REDIS_URL"] = redis_url
        self.proc = subprocess.Popen([sys.executable, "-m", "kgqa.app.cli", "serve", "--host", "127.0.0.1", "--port", "0",
                                      "--workers", str(workers)],
                                     cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.url, self.log = "", []
        deadline = time.monotonic() + start_timeout_s
        for line in self.proc.stdout:
            self.log.append(line.rstrip())
            m = re.search(r"on (http://127\.0\.0\.1:\d+/)", line)
            if m:
                self.url = m.group(1)
                break
            if time.monotonic() > deadline:
                break
        if not self.url:
            self.stop()
            raise RuntimeError("kgqa serve did not start:\n" + "\n".join(self.log[-20:]))
        self._drain = threading.Thread(target=lambda: [self.log.append(x.rstrip()) for x in self.proc.stdout],
                                       daemon=True)
        self._drain.start()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def scrape_metrics(url: str) -> dict[str, float]:
    conn = connection(url, 30)
    try:
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    out: dict[str, float] = {}
    for line in text.splitlines():
        m = re.match(r"^([a-zA-Z_:][\w:]*(?:\{[^}]*\})?) (\S+)$", line)
        if m and not line.startswith("#"):
            out[m.group(1)] = float(m.group(2))
    return out


def server_figures(metrics: dict[str, float]) -> dict[str, float]:
    """The headline server-side figures from a /metrics scrape."""
    ask = {k: v for k, v in metrics.items() if k.startswith("kgqa_http_requests_total") and 'endpoint="/ask"' in k}
    n = metrics.get('kgqa_http_request_duration_seconds_count{endpoint="/ask"}', 0.0)
    total = metrics.get('kgqa_http_request_duration_seconds_sum{endpoint="/ask"}', 0.0)
    return {
        "ask_requests": sum(ask.values()),
        "ask_non_200": sum(v for k, v in ask.items() if 'status="200"' not in k),
        "server_mean_ms": 1000 * total / n if n else 0.0,
        "answer_cache_hit_ratio": metrics.get('kgqa_cache_hit_ratio{cache="answer"}', 0.0),
        "plan_cache_hit_ratio": metrics.get('kgqa_cache_hit_ratio{cache="plan"}', 0.0),
        "llm_calls": metrics.get("kgqa_llm_calls_total", 0.0),
        "questions_error": sum(v for k, v in metrics.items()
                               if k.startswith("kgqa_questions_total") and 'status="error"' in k),
    }


# -- report -----------------------------------------------------------------------------------------
def workload(result: LoadResult, *, cached_only: int, cached_share: float, think_s: float) -> str:
    """Returns how the load was built, in words (the report's paragraph)."""
    others = result.clients - cached_only
    parts = []
    if cached_only:
        pace = (f"each at exponentially distributed intervals of mean {think_s * 1000:.0f} ms (about "
                f"{cached_only / think_s:.0f} req/s offered in all; latency counted from when a question was due, "
                "so a late answer also delays the user's next question's clock)" if think_s > 0 else
                "back to back (closed loop: their throughput is the server's cached capacity, their latency "
                "grows with their number)")
        parts.append(f"{cached_only} users re-ask popular questions (the {len(REPEATS)} repeats, answer-cache "
                     f"hits), {pace}")
    if others:
        what = ("never-asked questions" if cached_share <= 0 else
                f"a repeat with probability {cached_share:g}, else a never-asked question")
        parts.append(f"{others} users ask {what} back to back (generated from the graphs' entities, "
                     f"{result.pool_used} of {result.pool_size} used), so the compute processes are busy throughout")
    return "; ".join(parts) + "."


def render(result: LoadResult, server: dict[str, float], command: str, warmup_s: float, *, workers: int = 1,
           redis: bool = False, cached_only: int = 0, cached_share: float = 0.5, think_s: float = 0.0) -> str:
    rows = []
    overlap = result.during_uncached()
    during = summarize(s.ms for s in overlap)
    window = result.window or result.seconds
    for name, sel in (("all", ...), ("cached (answer-cache hit)", True), ("uncached (computed)", False),
                      ("refused (503 + Retry-After)", None)):
        s = result.latency(sel)
        rows.append([name, int(s["n"]), result.throughput(sel), s["p50"], s["p99"], s["mean"], s["max"]])
    rows.insert(2, ["cached, while uncached ran", int(during["n"]),
                    sum(s.at + s.ms / 1000 <= window for s in overlap) / window if window else 0.0, during["p50"], during["p99"],
                    during["mean"], during["max"]])
    table = md_table(["requests", "n", "req/s", "p50 ms", "p99 ms", "mean ms", "max ms"], rows, digits=1)
    statuses = Counter(s.status for s in result.samples)
    srv = md_table(["server /metrics", "value"], [[k, round(v, 4)] for k, v in server.items()], digits=4)
    return "\n".join([
        "## Load: concurrent clients on the real server",
        "",
        (f"`kgqa serve --workers {workers}` (gunicorn, preloaded, 64 threads each" if workers > 1 else
         "`kgqa serve` (waitress, 64 threads") + (", answer cache shared in Redis)" if redis else ")") +
        " on loopback with the three graphs and empty caches; the serving processes answer answer-cache hits and "
        "send uncached questions to the compute processes (`KGQA_COMPUTE_PROCESSES`, niced), "
        f"warmed by one pass over {len(REPEATS)} repeat questions ({warmup_s:.1f} s). {result.clients} client "
        f"threads (independent users), one keep-alive connection each, for {result.window or result.seconds:.0f} s "
        f"(the last answers came {max(0.0, result.seconds - result.window):.1f} s after): "
        + workload(result, cached_only=cached_only, cached_share=cached_share, think_s=think_s) +
        " Requests are classed by the response's `cache.answer_hit`; req/s counts the answers within the load's "
        "window; latency is client-side wall time per request; \"while uncached ran\": the cached requests "
        "sent and answered while an uncached request was in flight.",
        "",
        f"    {command}",
        "",
        table,
        "",
        f"Errors: **{result.errors}** (non-200 other than 503, non-JSON, status `error`, transport failure or "
        f"timeout). Refused: **{result.refused}** (503 with `Retry-After`: no compute process started the question "
        "within `KGQA_COMPUTE_WAIT_S`; the client moves on to its next question). "
        "Result statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())) + ".",
        "",
        srv,
        "",
    ])


def main(argv: list[str] | None = None) -> int:
    from kgqa.settings import Settings

    settings = Settings.from_env()
    ap = argparse.ArgumentParser(prog="kgqa bench load", description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--duration", type=float, default=180.0, help="seconds of load (default 180)")
    ap.add_argument("--quick", action="store_true", help="45 s of load")
    ap.add_argument("--cached-only", type=int, default=40,
                    help="of the clients, how many re-ask popular questions only (default 40)")
    ap.add_argument("--think", type=float, default=0.1,
                    help="mean seconds between a popular-question user's questions (default 0.1; 0: back to back)")
    ap.add_argument("--cached-share", type=float, default=0.0,
                    help="probability that another client's question is a repeat (default 0: new questions only)")
    ap.add_argument("--max-requests", type=int, default=200_000, help="hard cap on requests in all")
    ap.add_argument("--request-timeout", type=float, default=120.0, help="client timeout per request (s)")
    ap.add_argument("--url", help="an already running loopback server instead of starting one")
    ap.add_argument("--workers", type=int, default=1, help="kgqa serve --workers N (gunicorn when > 1)")
    ap.add_argument("--redis", action="store_true",
                    help="start a private redis-server and serve with KGQA_REDIS_URL (the shared answer-cache tier)")
    ap.add_argument("--out", type=Path, default=settings.reports_dir)
    args = ap.parse_args(argv)
    duration = 45.0 if args.quick else args.duration
    cached_only = max(0, min(args.cached_only, args.clients))
    command = command_line("kgqa bench load", argv if argv is not None else sys.argv[1:])

    pool = question_pool(settings.graphs_dir)
    from contextlib import ExitStack

    stack = ExitStack()
    try:
        if args.url:
            url = args.url if args.url.endswith("/") else args.url + "/"
        else:
            redis_url = ""
            if args.redis:
                from kgqa.evals.servers import redis_server

                redis_url = stack.enter_context(redis_server())
            home = scratch_home(settings.graphs_dir, prefix="kgqa-load-")
            stack.callback(remove_home, home)
            print(f"starting kgqa serve --workers {args.workers} on loopback (home {home}"
                  f"{', redis ' + redis_url if redis_url else ''}) ...", flush=True)
            server = ServerProcess(home, workers=args.workers, redis_url=redis_url)
            stack.callback(server.stop)  # closed first: the server, then its home, then Redis
            url = server.url
        warmup = warm_up(url, REPEATS, args.request_timeout)
        # every worker answers the repeats once from the cache before the clock starts
        warm_up(url, REPEATS * max(1, args.workers), args.request_timeout)
        print(f"{url}: {args.clients} clients for {duration:.0f} s ...", flush=True)
        result = run_load(url, clients=args.clients, duration_s=duration, cached_share=args.cached_share,
                          pool=pool, max_requests=args.max_requests, request_timeout_s=args.request_timeout,
                          cached_only=cached_only, think_s=args.think)
        figures = server_figures(scrape_metrics(url))
    finally:
        stack.close()

    report = render(result, figures, command, warmup, workers=args.workers, redis=args.redis,
                    cached_only=cached_only, cached_share=args.cached_share, think_s=args.think)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "load.md").write_text(report)
    print(report)
    overall, cached, uncached = result.latency(), result.latency(True), result.latency(False)
    during = summarize(s.ms for s in result.during_uncached())
    print(key_value_line("load-bench", {
        "clients": args.clients, "workers": args.workers, "rps": round(result.rps, 2),
        "cached_p99_ms": round(cached["p99"], 1), "uncached_p99_ms": round(uncached["p99"], 1),
        "errors": result.errors, "refused_503": result.refused, "redis": str(bool(args.redis)).lower(),
        "requests": len(result.samples), "cached_only_clients": cached_only, "think_ms": round(args.think * 1000),
        "cached_rps": round(result.throughput(True), 2), "uncached_rps": round(result.throughput(False), 2),
        "cached_p50_ms": round(cached["p50"], 1), "cached_during_uncached": int(during["n"]),
        "cached_during_uncached_p99_ms": round(during["p99"], 1), "uncached_p50_ms": round(uncached["p50"], 1),
        "p50_ms": round(overall["p50"], 1), "p99_ms": round(overall["p99"], 1),
        "llm_calls": int(figures["llm_calls"])}, digits=1), flush=True)
    return 0 if result.errors == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
