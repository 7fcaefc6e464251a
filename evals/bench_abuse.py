"""Abuse bench: replays each attack class of issue 20 against a real ``kgqa serve`` on loopback.

A scratch home (the graphs linked read-only, empty learned state) holds one planted multi-slot template, as a
poisoned cache from an earlier run would. While each class runs, a prober reads ``/health`` every 50 ms:

* ``poison``: a quoted two-letter literal (``'th'``), then the victims (``'Matrix'``, quotes that would let a
  slot swallow a clause); a victim is poisoned when its rows differ from the rows the same code gives with no
  learned state at all (an in-process pipeline without caches), or its query holds clauses between quotes.
* ``pinned``: a question asked with the wrong domain, then without one; and one literal in two cases
  (``'Ch'`` after ``'ch'``); pinned when the second gets the first one's cached answer.
* ``redos``: questions of 1,000 and 2,000 characters of repeated quote fragments against the planted
  template; the lookup stage (``answer_cache`` + ``cache_retrieval``) of each, and the whole request.
* ``starvation``: concurrent batches and concurrent long questions (503 + Retry-After is the bound working).
* ``slow-clients``: sockets that send one header line every 2 s.
* ``methods``: 1,000 requests with odd method names, then the size of ``/metrics``.
* ``feedback``: the popular questions (the first pre-warmed ones; the movies graph is pre-warmed into the scratch
  plan cache first) are asked, then flooded with anonymous thumbs-down votes; ``feedback_demoted`` counts the plans
  the flood demoted and ``answers_changed`` the questions whose rows differ afterwards. Then one vote with the
  operator's token (``KGQA_ADMIN_TOKEN``, set for the server) must demote as before (``operator_demoted``).

The graph is checked before and after (content checksum and the files' bytes). Last line:
``abuse-bench poisoned= pinned= health_p99_ms= metrics_bytes= redos_max_ms= feedback_demoted= answers_changed=
operator_demoted= errors=``.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import random
import secrets
import socket
import string
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from kgqa.evals.bench_load import ServerProcess
from kgqa.evals.benchutil import command_line, key_value_line, md_table, percentile, remove_home, scratch_home

POISON = "Name the movies whose titles contain 'th'."
CROSSING = "Name the movies whose titles contain 'an' and 'e' and 'o'."
VICTIMS = ["Name the movies whose titles contain 'Matrix'.", "Name the movies whose titles contain 'Top'.",
           "Which movies have titles containing 'Cloud'?", CROSSING]
WRONG_DOMAIN = ("Who directed Cloud Atlas?", "nobel")
CASES = ("Name the movies whose titles contain 'ch'.", "Name the movies whose titles contain 'Ch'.")
PLANTED_Q = "Which movies have titles containing 'an' and 'e' and 'o' and 'u'?"
PLANTED_CY = ("MATCH (m:Movie) WHERE m.title CONTAINS 'an' AND m.title CONTAINS 'e' AND m.title CONTAINS 'o' "
              "AND m.title CONTAINS 'u' RETURN m.title")


@dataclass
class ClassRun:
    name: str
    requests: int = 0
    statuses: dict[str, int] = field(default_factory=dict)
    health_ms: list[float] = field(default_factory=list)
    health_failures: int = 0
    errors: int = 0
    note: str = ""

    def count(self, status: int | str) -> None:
        self.requests += 1
        self.statuses[str(status)] = self.statuses.get(str(status), 0) + 1
        if isinstance(status, str) or (status >= 500 and status != 503):
            self.errors += 1


def _conn(url: str, timeout: float) -> http.client.HTTPConnection:
    u = urlsplit(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)


def request(url: str, method: str, path: str, body: dict | None = None, timeout: float = 120.0):
    """Returns (status, headers, parsed JSON or text) of one request, or (error name, {}, None)."""
    conn = _conn(url, timeout)
    try:
        data = json.dumps(body).encode() if body is not None else None
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
        resp = conn.getresponse()
        raw = resp.read()
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw.decode("utf-8", "replace")
        return resp.status, dict(resp.getheaders()), parsed
    except (OSError, http.client.HTTPException) as err:
        return type(err).__name__, {}, None
    finally:
        conn.close()


def ask(url: str, question: str, domain: str | None = None, timeout: float = 120.0):
    return request(url, "POST", "/ask", {"question": question, **({"domain": domain} if domain else {})}, timeout)


class HealthProbe:
    """Reads ``/health`` every ``every_s`` on its own thread; latencies (ms) and failures per phase."""

    def __init__(self, url: str, every_s: float = 0.05, timeout_s: float = 5.0):
        self.url, self.every_s, self.timeout_s = url, every_s, timeout_s
        self.run: ClassRun | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            run = self.run
            t0 = time.perf_counter()
            status, _, _ = request(self.url, "GET", "/health", timeout=self.timeout_s)
            ms = (time.perf_counter() - t0) * 1000
            if run is not None:
                if status == 200:
                    run.health_ms.append(ms)
                else:
                    run.health_failures += 1
                    run.health_ms.append(self.timeout_s * 1000 if isinstance(status, str) else ms)
            self._stop.wait(max(0.0, self.every_s - ms / 1000))

    def __enter__(self) -> HealthProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def baseline(settings) -> dict[str, list[str]]:
    """{victim: sorted rows} from an in-process pipeline with no plan cache and no answer cache."""
    from kgqa.planner.pipeline import Pipeline

    pipe = Pipeline(settings.with_(vector_memory=False), domains=["movies"])
    try:
        return {q: sorted(map(str, pipe.ask(q, "movies").rows)) for q in VICTIMS}
    finally:
        for d in pipe.domains.values():
            d.graph.close()


def run_poison(url: str, run: ClassRun, clean: dict[str, list[str]]) -> int:
    """Returns how many victims were poisoned: rows other than ``clean``'s, or clauses inside a slot."""
    status, _, _ = ask(url, POISON, "movies")
    run.count(status)
    poisoned, changed = 0, []
    for q in VICTIMS:
        status, _, body = ask(url, q, "movies")
        run.count(status)
        if status != 200 or not isinstance(body, dict):
            continue
        cypher = body.get("cypher") or ""
        if sorted(map(str, body.get("rows") or [])) != clean[q] or "' and '" in cypher:
            poisoned += 1
            changed.append(q)
    run.note = f"{len(VICTIMS)} victims" + (f"; changed: {changed}" if changed else "")
    return poisoned


def run_pinned(url: str, run: ClassRun) -> int:
    """Returns how many answers were pinned from another key."""
    pinned = 0
    q, wrong = WRONG_DOMAIN
    status, _, first = ask(url, q, wrong)
    run.count(status)
    status, _, routed = ask(url, q)
    run.count(status)
    if status == 200 and isinstance(routed, dict) and (routed.get("domain") == wrong
                                                       or routed.get("status") == "dont_know"):
        pinned += 1
    lower, upper = CASES
    s1, _, a = ask(url, lower, "movies")
    s2, _, b = ask(url, upper, "movies")
    run.count(s1)
    run.count(s2)
    if s2 == 200 and isinstance(b, dict) and b.get("cache", {}).get("answer_hit"):
        pinned += 1  # 'Ch' served from the key of 'ch'
    run.note = f"wrong-domain first answer: {(first or {}).get('status') if isinstance(first, dict) else first}"
    return pinned


def adversarial_questions() -> list[str]:
    """Questions of ~1,000 and ~2,000 characters made of repeated quote fragments (the planted template's
    prefix, then fragments that a backtracking ``'(.+?)'`` slot pattern tries every split of)."""
    head = "Which movies have titles containing '"
    out = []
    for n in (1000, 2000):
        for frag in ("an' and '", "' and '", "e' '"):
            body = (frag * (n // len(frag) + 1))[: n - len(head) - 3]
            out.append(head + body + "'?")
    return out


def run_redos(url: str, run: ClassRun) -> float:
    """Returns the largest lookup-stage time (ms) of the adversarial questions; notes the slowest request."""
    worst_lookup, worst_request = 0.0, 0.0
    for q in adversarial_questions():
        t0 = time.perf_counter()
        status, _, body = ask(url, q, "movies")
        worst_request = max(worst_request, (time.perf_counter() - t0) * 1000)
        run.count(status)
        if status == 200 and isinstance(body, dict):
            t = body.get("timings_ms") or {}
            worst_lookup = max(worst_lookup, t.get("answer_cache", 0.0) + t.get("cache_retrieval", 0.0))
    run.note = f"slowest request {worst_request:.0f} ms"
    return worst_lookup


def run_starvation(url: str, run: ClassRun, batches: int, batch_size: int, long_questions: int) -> None:
    pool = [f"Who directed movie number {i}?" for i in range(batch_size)]
    quoted = "Which movies have titles containing " + " and ".join(f"'{c}{i}'" for i, c in
                                                                   zip(range(200), string.ascii_lowercase * 10))
    quoted = quoted[:1990] + "?"

    def one_batch(i: int):
        return request(url, "POST", "/ask/batch",
                       {"questions": [{"question": f"{q} ({i})", "domain": "movies"} for q in pool]}, timeout=600)

    retry_after = set()
    with ThreadPoolExecutor(batches + long_questions) as ex:
        futures = [ex.submit(one_batch, i) for i in range(batches)]
        futures += [ex.submit(ask, url, quoted.replace("?", f" {i}?"), "movies", 600) for i in range(long_questions)]
        for f in futures:
            status, headers, _ = f.result()
            run.count(status)
            if status == 503:
                retry_after.add(headers.get("Retry-After"))
    run.note = f"{batches} batches x {batch_size}, {long_questions} long questions; Retry-After {sorted(retry_after)}"


def run_slow_clients(url: str, run: ClassRun, sockets: int, seconds: float) -> None:
    u = urlsplit(url)
    conns = []
    for _ in range(sockets):
        try:
            s = socket.create_connection((u.hostname, u.port), timeout=5)
            s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            conns.append(s)
        except OSError:
            run.count("connect_failed")
    closed, t_end, line = 0, time.monotonic() + seconds, 0
    while time.monotonic() < t_end and conns:
        time.sleep(2.0)
        line += 1
        alive = []
        for s in conns:
            try:
                s.sendall(f"X-Drip-{line}: {line}\r\n".encode())
                alive.append(s)
            except OSError:
                closed += 1
                s.close()
        conns = alive
    for s in conns:
        s.close()
    run.requests += sockets
    run.note = f"{sockets} sockets, {closed} closed by the server within {seconds:.0f} s"


def run_methods(url: str, run: ClassRun, n: int) -> int:
    """Sends ``n`` requests with random method names (some over the header bound); returns /metrics bytes."""
    u = urlsplit(url)
    rng = random.Random(20)
    for i in range(n):
        size = rng.choice((8, 64, 1024, 200_000)) if i % 10 else 200_000
        method = "".join(rng.choice(string.ascii_uppercase) for _ in range(size))
        try:
            with socket.create_connection((u.hostname, u.port), timeout=10) as s:
                s.sendall(f"{method} /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                head = s.recv(64).decode("latin-1")
            code = int(head.split(" ")[1]) if head.startswith("HTTP/") else "no_response"
        except OSError as err:
            code = type(err).__name__ if not isinstance(err, (ConnectionResetError, BrokenPipeError)) else 400
        run.count(code)
    status, _, text = request(url, "GET", "/metrics")
    return len(text.encode()) if status == 200 and isinstance(text, str) else -1


def prewarm_movies(home: Path, budget: int) -> int:
    """Pre-warms the movies graph into the scratch home's plan cache (schema templates only); returns the live
    pre-warmed plans."""
    from kgqa.autogen.job import prewarm_into
    from kgqa.cache.plan_cache import PlanCache
    from kgqa.planner.version import compiler_version
    from kgqa.settings import Settings

    settings = Settings.from_env(home=home).with_(vector_memory=False)
    with PlanCache(home / "state", code_version=compiler_version()) as pc:
        prewarm_into(settings, pc, ["movies"], budget, llm=None)
        return len(live_prewarmed(pc))


def live_prewarmed(pc) -> list:
    return [e for e in pc.entries("movies") if e.provenance == "prewarm" and not e.demoted]


def demoted_ids(home: Path) -> set[int]:
    from kgqa.cache.plan_cache import PlanCache

    with PlanCache(home / "state") as pc:
        return {e.id for e in pc.entries("movies") if e.demoted}


def run_feedback(url: str, run: ClassRun, home: Path, token: str, popular: int, votes: int,
                 prewarmed: int) -> dict[str, int]:
    """Floods the popular questions with anonymous thumbs-down votes, then votes once as the operator; returns
    {"feedback_demoted", "answers_changed", "operator_demoted", "prewarmed_live"}."""
    from kgqa.cache.plan_cache import PlanCache

    with PlanCache(home / "state") as pc:
        questions = [e.question for e in sorted(live_prewarmed(pc), key=lambda e: e.id)][:popular]
    before_rows = {}
    for q in questions:
        status, _, body = ask(url, q, "movies")
        run.count(status)
        before_rows[q] = sorted(map(str, body.get("rows") or [])) if isinstance(body, dict) else None
    demoted_before = demoted_ids(home)
    for _ in range(votes):
        for q in questions:
            status, _, _ = request(url, "POST", "/feedback", {"question": q, "domain": "movies", "vote": "down"})
            run.count(status)
    flood_demoted = demoted_ids(home) - demoted_before
    changed = 0
    for q in questions:
        status, _, body = ask(url, q, "movies")
        run.count(status)
        if not isinstance(body, dict) or sorted(map(str, body.get("rows") or [])) != before_rows[q]:
            changed += 1
    with PlanCache(home / "state") as pc:
        live = len(live_prewarmed(pc))
    # the operator's vote on the first question demotes as it always did
    conn = _conn(url, 120)
    try:
        conn.request("POST", "/feedback", body=json.dumps({"question": questions[0], "domain": "movies",
                                                           "vote": "down"}).encode(),
                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
        op_status = conn.getresponse().status
    finally:
        conn.close()
    run.count(op_status)
    operator = demoted_ids(home) - demoted_before - flood_demoted
    run.note = (f"{len(questions)} popular questions x {votes} anonymous thumbs-down; operator vote {op_status}; "
                f"{live} of {prewarmed} pre-warmed plans live after the flood")
    return {"feedback_demoted": len(flood_demoted), "answers_changed": changed, "operator_demoted": len(operator),
            "prewarmed_live": live}


def graph_fingerprint(graphs_dir: Path) -> dict[str, str]:
    """{domain: content checksum + sha256 of the graph's files}."""
    from kgqa.kg.db import Graph
    from kgqa.kg.registry import registered
    from kgqa.kg.schema import graph_checksum

    out = {}
    for name in sorted(registered(graphs_dir)):
        path = graphs_dir / name
        with Graph(path, read_only=True) as g:
            content = graph_checksum(g)
        h = hashlib.sha256()
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(str(f.relative_to(path)).encode())
            h.update(f.read_bytes())
        out[name] = f"{content[:16]}/{h.hexdigest()[:16]}"
    return out


def plant_template(home: Path) -> None:
    """Stores a verified four-string-slot template in the scratch home's plan cache (a poisoned cache from an
    earlier run), stamped with the current compiler version so the server tries it."""
    from kgqa.cache.plan_cache import PlanCache
    from kgqa.cache.plan_entry import PlanEntry
    from kgqa.cache.templates import make_template
    from kgqa.kg.registry import registered
    from kgqa.planner.version import compiler_version

    version = registered(home / "graphs")["movies"].version
    tpl = make_template(PLANTED_Q, PLANTED_CY)
    with PlanCache(home / "state", code_version=compiler_version()) as pc:
        for aspect in ("general", "lookup", "attribute", "relation", "aggregation"):
            pc.add(PlanEntry(question=PLANTED_Q, cypher=PLANTED_CY, domain="movies", aspect=aspect,
                             kg_version=version, template=tpl.to_dict(), provenance="online"))


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.table import Table

    from kgqa.settings import Settings

    settings = Settings.from_env()
    ap = argparse.ArgumentParser(prog="kgqa bench abuse", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer batches, sockets and odd methods")
    ap.add_argument("--out", type=Path, default=settings.reports_dir)
    args = ap.parse_args(argv)
    batches, batch_size, long_q = (4, 10, 8) if args.quick else (9, 40, 16)
    sockets, drip_s, methods = (120, 16.0, 300) if args.quick else (120, 24.0, 1000)
    popular, votes, prewarm_budget = (8, 5, 24) if args.quick else (12, 10, 40)
    command = command_line("kgqa bench abuse", argv if argv is not None else sys.argv[1:])

    before = graph_fingerprint(settings.graphs_dir)
    clean = baseline(settings)
    home = scratch_home(settings.graphs_dir, prefix="kgqa-abuse-", artifacts_from=settings.state_dir)
    server = None
    runs: list[ClassRun] = []
    figures = {"poisoned": 0, "pinned": 0, "redos_max_ms": 0.0, "metrics_bytes": 0}
    token = secrets.token_hex(16)
    try:
        plant_template(home)
        print(f"starting kgqa serve on loopback (home {home}) ...", flush=True)
        server = ServerProcess(home, env={"KGQA_ADMIN_TOKEN": token})
        url = server.url
        ask(url, "Who directed The Matrix?", "movies")  # load what a first question loads
        with HealthProbe(url) as probe:
            for name, fn in (
                    ("poison", lambda r: figures.__setitem__("poisoned", run_poison(url, r, clean))),
                    ("pinned", lambda r: figures.__setitem__("pinned", run_pinned(url, r))),
                    ("redos", lambda r: figures.__setitem__("redos_max_ms", run_redos(url, r))),
                    ("starvation", lambda r: run_starvation(url, r, batches, batch_size, long_q)),
                    ("slow-clients", lambda r: run_slow_clients(url, r, sockets, drip_s)),
                    ("methods", lambda r: figures.__setitem__("metrics_bytes", run_methods(url, r, methods))),
                    ("feedback", lambda r: figures.update(run_feedback(url, r, home, token, popular, votes,
                                                                      figures.get("prewarmed", 0))))):
                run = ClassRun(name)
                if name == "feedback":
                    print(f"  pre-warming movies into the scratch plan cache (budget {prewarm_budget}) ...", flush=True)
                    figures["prewarmed"] = prewarm_movies(home, prewarm_budget)
                probe.run = run
                print(f"  {name} ...", flush=True)
                fn(run)
                time.sleep(0.3)
                probe.run = None
                runs.append(run)
    finally:
        if server is not None:
            server.stop()
        remove_home(home)
    after = graph_fingerprint(settings.graphs_dir)

    table = Table(title="abuse bench (issue 20): each class against a real server, /health probed every 50 ms")
    for col in ("class", "requests", "statuses", "errors", "health p50 ms", "health p99 ms", "health fails", "note"):
        table.add_column(col)
    rows = []
    for r in runs:
        row = [r.name, r.requests, " ".join(f"{k}:{v}" for k, v in sorted(r.statuses.items())), r.errors,
               round(percentile(r.health_ms, 50), 1), round(percentile(r.health_ms, 99), 1), r.health_failures,
               r.note]
        rows.append(row)
        table.add_row(*(str(v) for v in row))
    console = Console(width=180)
    console.print(table)
    same = before == after
    console.print(f"graph before: {before}\ngraph after:  {after}\nbyte-identical: {same}")
    health_p99 = max((percentile(r.health_ms, 99) for r in runs), default=0.0)
    errors = sum(r.errors + r.health_failures for r in runs) + (0 if same else 1)
    summary = {"poisoned": figures["poisoned"], "pinned": figures["pinned"], "health_p99_ms": round(health_p99, 1),
               "metrics_bytes": figures["metrics_bytes"], "redos_max_ms": round(figures["redos_max_ms"], 1),
               "feedback_demoted": figures.get("feedback_demoted", 0), "answers_changed": figures.get("answers_changed", 0),
               "operator_demoted": figures.get("operator_demoted", 0), "errors": errors}
    args.out.mkdir(parents=True, exist_ok=True)
    headers = ["class", "requests", "statuses", "errors", "health p50 ms", "health p99 ms", "health fails", "note"]
    (args.out / "abuse.md").write_text(
        f"# Abuse bench\n\n`{command}`\n\n{md_table(headers, rows)}\n\nGraph before: `{before}`\n\n"
        f"Graph after: `{after}` (byte-identical: {same})\n\n" + key_value_line("abuse-bench", summary) + "\n")
    print(key_value_line("abuse-bench", summary))
    ok = (summary["poisoned"] == 0 and summary["pinned"] == 0 and errors == 0 and summary["feedback_demoted"] == 0
          and summary["answers_changed"] == 0 and summary["operator_demoted"] > 0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
