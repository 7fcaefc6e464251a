"""The kgqa service: a small JSON API and a web chat page, on Flask behind waitress.

``create_app(pipeline)`` builds the WSGI app around one shared, thread-safe :class:`Pipeline`, computing
uncached questions on its request threads; ``create_app(pipeline, compute=client)`` sends them to compute
processes instead (:mod:`kgqa.app.compute`) and serves only cache hits and I/O itself. ``serve(settings)``
opens the graphs, starts the compute processes and runs waitress. Every client error is a
JSON ``{"error": "..."}`` with a 4xx status; an unexpected failure is a generic 500, never a traceback.
"""

from __future__ import annotations

import bisect
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, Response, g, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException

from kgqa.app.compute import ComputeClient, ComputePool, freeze_heap, warm
from kgqa.app.limits import SECURITY_HEADERS, Busy, ComputeGate, create_hardened_server, method_label
from kgqa.app.trust import Forbidden, bearer, client_key, is_operator, load_salt, operator
from kgqa.app.votes import RateLimiter, VoteLedger
from kgqa.planner.feedback import FeedbackConflict, FeedbackNotFound, give_feedback
from kgqa.planner.pipeline import Pipeline
from kgqa.settings import Settings
from kgqa.types import InputError, Result

STATIC_DIR = Path(__file__).resolve().parent / "static"
log = logging.getLogger("kgqa.server")


class ClientError(Exception):
    """A request the API refuses, with its HTTP status."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


# -- metrics: a tiny thread-safe Prometheus registry ----------------------------------------------
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
STAGE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)


@dataclass
class _Histogram:
    buckets: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    total: float = 0.0
    n: int = 0

    def __post_init__(self) -> None:
        self.counts = [0] * len(self.buckets)

    def observe(self, value: float) -> None:
        i = bisect.bisect_left(self.buckets, value)
        if i < len(self.counts):
            self.counts[i] += 1
        self.total += value
        self.n += 1


def _labels(labels: tuple[tuple[str, str], ...]) -> str:
    if not labels:
        return ""
    esc = (str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") for _, v in labels)
    return "{" + ",".join(f'{k}="{v}"' for (k, _), v in zip(labels, esc)) + "}"


def _num(v: float) -> str:
    return repr(float(v)) if not float(v).is_integer() else str(int(v))


class Metrics:
    """Counters, gauges and histograms with labels, rendered in the Prometheus text format 0.0.4."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._help: dict[str, tuple[str, str]] = {}  # name -> (type, help)
        self._counters: dict[str, dict[tuple, float]] = {}
        self._hists: dict[str, dict[tuple, _Histogram]] = {}
        self._buckets: dict[str, tuple[float, ...]] = {}

    def counter(self, name: str, help_: str) -> None:
        self._help[name] = ("counter", help_)
        self._counters.setdefault(name, {})

    def histogram(self, name: str, help_: str, buckets: tuple[float, ...]) -> None:
        self._help[name] = ("histogram", help_)
        self._hists.setdefault(name, {})
        self._buckets[name] = buckets

    def inc(self, name: str, value: float = 1.0, **labels: str) -> None:
        key = tuple(sorted(labels.items()))
        with self._lock:
            series = self._counters[name]
            series[key] = series.get(key, 0.0) + value

    def observe(self, name: str, value: float, **labels: str) -> None:
        key = tuple(sorted(labels.items()))
        with self._lock:
            series = self._hists[name]
            if key not in series:
                series[key] = _Histogram(self._buckets[name])
            series[key].observe(value)

    def value(self, name: str, **labels: str) -> float:
        with self._lock:
            return self._counters[name].get(tuple(sorted(labels.items())), 0.0)

    def total(self, name: str) -> float:
        """A counter summed over all its label values."""
        with self._lock:
            return sum(self._counters[name].values())

    def render(self, gauges: Iterable[tuple[str, str, dict[str, str], float]] = ()) -> str:
        """The exposition text; ``gauges`` are (name, help, labels, value) computed at scrape time."""
        out: list[str] = []
        with self._lock:
            for name, series in self._counters.items():
                out += [f"# HELP {name} {self._help[name][1]}", f"# TYPE {name} counter"]
                out += [f"{name}{_labels(k)} {_num(v)}" for k, v in sorted(series.items())]
            for name, series in self._hists.items():
                out += [f"# HELP {name} {self._help[name][1]}", f"# TYPE {name} histogram"]
                for key, h in sorted(series.items()):
                    running = 0
                    for bound, c in zip(h.buckets, h.counts):
                        running += c
                        out.append(f"{name}_bucket{_labels(key + (('le', _num(bound)),))} {running}")
                    out.append(f"{name}_bucket{_labels(key + (('le', '+Inf'),))} {h.n}")
                    out.append(f"{name}_sum{_labels(key)} {_num(round(h.total, 6))}")
                    out.append(f"{name}_count{_labels(key)} {h.n}")
        seen: set[str] = set()
        for name, help_, labels, value in gauges:
            if name not in seen:
                out += [f"# HELP {name} {help_}", f"# TYPE {name} gauge"]
                seen.add(name)
            out.append(f"{name}{_labels(tuple(sorted(labels.items())))} {_num(value)}")
        return "\n".join(out) + "\n"


def _new_metrics() -> Metrics:
    m = Metrics()
    m.counter("kgqa_http_requests_total", "HTTP requests by endpoint, method and status code.")
    m.histogram("kgqa_http_request_duration_seconds", "HTTP request latency by endpoint.", HTTP_BUCKETS)
    m.counter("kgqa_questions_total", "Questions answered, by domain and result status.")
    m.histogram("kgqa_stage_duration_seconds", "Pipeline stage latency (Result.timings_ms).", STAGE_BUCKETS)
    m.counter("kgqa_answer_cache_hits_total", "Questions served from the answer cache.")
    m.counter("kgqa_plan_cache_hits_total", "Questions whose plan came from the plan cache (template reuse).")
    m.counter("kgqa_llm_calls_total", "LLM calls made while answering questions.")
    m.counter("kgqa_feedback_total", "Thumbs up/down votes accepted (applied or recorded), by vote.")
    m.counter("kgqa_busy_rejections_total", "Requests refused with 503 because no compute slot was free in time.")
    for name in ("kgqa_answer_cache_hits_total", "kgqa_plan_cache_hits_total", "kgqa_llm_calls_total"):
        m.inc(name, 0.0)  # unlabelled counters are exposed from the start
    return m


def _record(metrics: Metrics, results: Iterable[Result]) -> None:
    for r in results:
        metrics.inc("kgqa_questions_total", domain=r.domain or "none", status=r.status)
        for stage, ms in r.timings_ms.items():
            metrics.observe("kgqa_stage_duration_seconds", ms / 1000.0, stage=stage)
        if r.cache.get("answer_hit"):
            metrics.inc("kgqa_answer_cache_hits_total")
        if r.cache.get("plan_hit"):
            metrics.inc("kgqa_plan_cache_hits_total")
        metrics.inc("kgqa_llm_calls_total", float(r.cache.get("llm_calls") or 0))


# -- request parsing ------------------------------------------------------------------------------
def _json_body() -> dict[str, Any]:
    """The request's JSON object, or a ClientError: 415 wrong type, 400 bad UTF-8 / JSON / shape."""
    if request.mimetype != "application/json":
        raise ClientError("Content-Type must be application/json", 415)
    raw = request.get_data(cache=False)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ClientError("request body is not valid UTF-8") from None
    try:
        body = json.loads(text)
    except json.JSONDecodeError as err:
        raise ClientError(f"request body is not valid JSON ({err.msg} at line {err.lineno} "
                          f"column {err.colno})") from None
    except (ValueError, RecursionError) as err:  # a 5000-digit number, nesting deeper than the parser goes
        raise ClientError(f"request body is not valid JSON ({type(err).__name__})") from None
    if not isinstance(body, dict):
        raise ClientError("request body must be a JSON object")
    return body


def _question(pipeline: Pipeline, item: Any, where: str) -> tuple[str, str | None]:
    """Validate one question (and optional domain) -> (question, domain)."""
    if isinstance(item, dict):
        question, domain = item.get("question"), item.get("domain")
    else:
        question, domain = item, None
    if question is None:
        raise ClientError(f"{where}: 'question' is required")
    if not isinstance(question, str):
        raise ClientError(f"{where}: 'question' must be a string, not {_json_type(question)}")
    try:
        question.encode("utf-8")
    except UnicodeEncodeError:  # "\ud800" in JSON decodes to a lone surrogate, which is not text
        raise ClientError(f"{where}: 'question' is not valid Unicode text") from None
    if domain is not None and not isinstance(domain, str):
        raise ClientError(f"{where}: 'domain' must be a string, not {_json_type(domain)}")
    limit = pipeline.settings.max_question_chars
    if len(question) > limit:
        raise ClientError(f"{where}: question is longer than {limit} characters", 413)
    if domain in ("", "auto"):
        domain = None
    try:
        pipeline.validate(question, domain)
    except InputError as err:
        raise ClientError(f"{where}: {err}") from None
    return question, domain


def _json_type(value: Any) -> str:
    return {bool: "boolean", int: "number", float: "number", list: "array", dict: "object",
            type(None): "null"}.get(type(value), type(value).__name__)


# -- the app --------------------------------------------------------------------------------------
def create_app(pipeline: Pipeline, compute: ComputeClient | None = None, *, votes: VoteLedger | None = None) -> Flask:
    """Returns the WSGI app serving ``pipeline`` (shared by all request threads). With ``compute``, uncached
    questions and batches are computed by the compute processes behind it and stored in this process's
    answer cache; without, on the request threads, ``compute_slots`` at a time. ``votes``: the feedback
    ledger (default: the one in the state folder, shared by every worker)."""
    from kgqa.app.openapi import openapi_spec

    settings = pipeline.settings
    app = Flask(__name__, static_folder=str(STATIC_DIR), static_url_path="/static")
    app.json.sort_keys = False
    # A whole batch of maximum-size questions, JSON-escaped, plus room for the envelope.
    app.config["MAX_CONTENT_LENGTH"] = max(settings.max_batch, 1) * (settings.max_question_chars * 6 + 256) + 65536
    metrics = _new_metrics()
    gate = ComputeGate(settings.heavy_slots, settings.heavy_queue, settings.heavy_wait_s)
    started = time.time()
    # an answer-cache hit is served before this gate; heavy requests (batches, long questions) have a gate
    # of their own first, with a short queue. In-process: compute_slots questions compute at once. With
    # compute processes: at most compute_queue questions of this process are out there (waiting or
    # computing; the client bounds the wait), always fewer than the request threads
    pool = compute
    if pool is None:
        compute = ComputeGate(settings.compute_slots, settings.compute_queue, settings.compute_wait_s)
    else:
        compute = ComputeGate(max(1, min(settings.compute_queue, settings.threads - 4)), 0, 0)
    inflight = Inflight()
    votes = votes or VoteLedger(settings.state_dir, quorum=settings.feedback_quorum,
                                max_votes=settings.feedback_max_votes)
    limiter = RateLimiter(settings.feedback_per_minute)
    salt: list[bytes] = []
    app.extensions["kgqa"] = {"pipeline": pipeline, "metrics": metrics, "gate": gate, "compute": compute,
                              "inflight": inflight, "pool": pool, "votes": votes}

    def who() -> str:
        """The hashed key of the client making this request."""
        if not salt:
            salt.append(load_salt(settings.state_dir))
        return client_key(salt[0], request.remote_addr)

    def token() -> str | None:
        return bearer(request.headers.get("Authorization"))

    @app.before_request
    def _start_timer() -> None:
        g.t0 = time.perf_counter()
        inflight.enter()
        g.counted = True

    @app.teardown_request
    def _done(_exc) -> None:
        if g.pop("counted", False):
            inflight.leave()

    @app.after_request
    def _count(resp: Response) -> Response:
        endpoint = request.url_rule.rule if request.url_rule is not None else "unmatched"
        # labels from fixed sets only: routes, standard methods ("other" for the rest), status codes
        metrics.inc("kgqa_http_requests_total", endpoint=endpoint, method=method_label(request.method),
                    status=str(resp.status_code))
        if "t0" in g:
            metrics.observe("kgqa_http_request_duration_seconds", time.perf_counter() - g.t0, endpoint=endpoint)
        for name, value in SECURITY_HEADERS.items():
            resp.headers.setdefault(name, value)
        return resp

    def heavy(is_heavy: bool):
        """The compute gate for a heavy request (a batch, a long question), nothing for the others: heavy
        requests never hold more than the gate's slots and queue of the server's threads."""
        return gate.slot() if is_heavy else nullcontext()

    def remote(call, *args):
        """``call(*args)`` on the compute pool; its Busy carries this gate's Retry-After estimate."""
        try:
            return call(*args)
        except Busy as err:
            raise Busy(err.message, max(err.retry_after_s, compute.retry_after_s())) from None

    @app.errorhandler(Busy)
    def _busy(err: Busy):
        metrics.inc("kgqa_busy_rejections_total")
        resp = jsonify(error=err.message, retry_after_s=err.retry_after_s)
        resp.status_code = 503
        resp.headers["Retry-After"] = str(err.retry_after_s)
        return resp

    @app.errorhandler(ClientError)
    def _client_error(err: ClientError):
        return jsonify(error=err.message), err.status

    @app.errorhandler(Forbidden)
    def _forbidden(err: Forbidden):
        resp = jsonify(error=err.message)
        resp.status_code = err.status
        if err.status == 401:
            resp.headers["WWW-Authenticate"] = "Bearer"
        return resp

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        message = {404: "not found", 405: f"method {method_label(request.method)} not allowed here",
                   413: "request body too large"}.get(err.code or 500, err.description or err.name)
        resp = jsonify(error=message)
        resp.status_code = err.code or 500
        if err.code == 405 and getattr(err, "valid_methods", None):
            resp.headers["Allow"] = ", ".join(err.valid_methods)
        return resp

    @app.errorhandler(Exception)
    def _server_error(err: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return jsonify(error="internal server error"), 500

    @app.get("/")
    def index():
        return send_from_directory(STATIC_DIR, "index.html")

    @app.post("/ask")
    def ask():
        body = _json_body()
        question, domain = _question(pipeline, body, "ask")
        # a hit never waits behind compile or LLM work; a client's own pending thumbs-down skips its cached copy
        own_down = votes.pending(who(), domain, pipeline.validate(question, domain))
        result = None if own_down else pipeline.cached(question, domain)
        if result is None:
            with heavy(len(question) >= settings.compute_heavy_chars), compute.slot():
                if pool is None:
                    result = pipeline.ask(question, domain, use_answer_cache=False)
                else:
                    result = Result.from_dict(remote(pool.ask, question, domain))
                    pipeline.keep(result, domain)
        _record(metrics, [result])
        return jsonify(result.view())

    @app.post("/ask/batch")
    def ask_batch():
        body = _json_body()
        items = body.get("questions")
        if not isinstance(items, list):
            raise ClientError("'questions' must be an array of strings or {\"question\", \"domain\"} objects")
        if not items:
            raise ClientError("'questions' is empty")
        if len(items) > settings.max_batch:
            raise ClientError(f"batch of {len(items)} questions is over the limit of {settings.max_batch}", 413)
        checked = [_question(pipeline, item, f"questions[{i}]") for i, item in enumerate(items)]
        with heavy(len(checked) > 1 or any(len(q) >= settings.compute_heavy_chars for q, _ in checked)), \
                compute.slot():
            if pool is None:
                results = pipeline.ask_batch([{"question": q, "domain": d} for q, d in checked])
            else:
                results = [Result.from_dict(r) for r in remote(pool.ask_batch,
                                                               [{"question": q, "domain": d} for q, d in checked])]
                for r, (_, d) in zip(results, checked):
                    pipeline.keep(r, d)
        _record(metrics, results)
        return jsonify(results=[r.view() for r in results])

    @app.post("/feedback")
    def feedback():
        client, trusted = who(), is_operator(settings.admin_token, token())
        wait = 0.0 if trusted else limiter.take(client)  # the operator is not rate-limited
        if wait > 0:
            resp = jsonify(error=f"feedback: more than {settings.feedback_per_minute} votes a minute from this "
                                 "client; try again later")
            resp.status_code = 429
            resp.headers["Retry-After"] = str(max(1, round(wait + 0.5)))
            return resp
        body = _json_body()
        question, domain = _question(pipeline, body, "feedback")
        vote, cypher = body.get("vote"), body.get("cypher")
        if vote is None:
            raise ClientError("feedback: 'vote' is required ('up' or 'down')")
        if not isinstance(vote, str) or vote not in ("up", "down"):
            raise ClientError(f"feedback: 'vote' must be 'up' or 'down', not {json.dumps(vote)[:40]}")
        if cypher is not None and not isinstance(cypher, str):
            raise ClientError(f"feedback: 'cypher' must be a string, not {_json_type(cypher)}")
        if cypher is not None and len(cypher) > settings.feedback_max_cypher_chars:
            raise ClientError(f"feedback: 'cypher' is longer than {settings.feedback_max_cypher_chars} characters", 413)
        name, r = _answer_on_record(pipeline.validate(question, domain), domain)
        if cypher is not None and " ".join(cypher.split()) != " ".join((r.cypher or "").split()):
            raise ClientError("feedback: the answer to this question has changed since it was shown (its Cypher "
                              "differs); ask again and vote on the new answer", 409)
        answer = (name, r.kg_version or "", r.question, r.cypher or "")
        if not trusted:
            tally = votes.record(client, *answer, vote)
            held = not tally.reached if vote == "down" else _revives(name, r.cypher)
            if held:  # recorded only: it changes nothing for anyone else
                metrics.inc("kgqa_feedback_total", vote=vote)
                need = (f"{tally.quorum} clients agree or the operator confirms it"
                        if vote == "down" and tally.quorum else "the operator confirms it")
                message = ("Thanks: your vote is recorded; your own next ask of this question is answered afresh. "
                           f"It changes the answer for everyone when {need}." if vote == "down" else
                           f"Thanks: your vote is recorded. This plan was voted down before; it comes back for "
                           f"everyone when {need}.")
                return jsonify(vote=vote, question=r.question, domain=name, kg_version=r.kg_version,
                               action="recorded", applied=False, clients=tally.clients, quorum=tally.quorum,
                               message=message), 202
        try:
            out = give_feedback(pipeline, question, name, vote, cypher=cypher)
        except FeedbackNotFound as err:
            raise ClientError(f"feedback: {err}", 404) from None
        except FeedbackConflict as err:
            raise ClientError(f"feedback: {err}", 409) from None
        except InputError as err:
            raise ClientError(f"feedback: {err}") from None
        if trusted:
            votes.record(client, *answer, vote, operator=True, applied=True)
        votes.mark_applied(*answer, vote)
        metrics.inc("kgqa_feedback_total", vote=vote)
        return jsonify(out.to_dict() | {"applied": True})

    def _answer_on_record(question: str, domain: str | None) -> tuple[str, Result]:
        """(domain, result) of the service's own stored answer to ``question``, or a 404."""
        for name in [domain] if domain else [None, *pipeline.domains]:
            hit = pipeline.cached_answer(question, name, peek=True)
            if hit is not None:
                return hit[0], Result.from_dict(hit[1])
        where = f" in domain {domain!r}" if domain else ""
        raise ClientError(f"feedback: no answer to this question is on record{where}: ask it first (answers are "
                          "kept until they are evicted or the graph is rebuilt)", 404)

    def _revives(domain: str, cypher: str | None) -> bool:
        """Whether a thumbs-up on ``cypher`` would bring back a plan voted down before (operator only)."""
        cache = pipeline.plan_cache
        return bool(cypher) and hasattr(cache, "with_cypher") and any(
            e.demoted for e in cache.with_cypher(domain, cypher))

    @app.get("/health")
    def health():
        tier = pipeline.answer_cache.health() if hasattr(pipeline.answer_cache, "health") else None
        return jsonify(status="ok" if tier is None or tier["redis"] == "up" else "degraded",
                       uptime_s=round(time.time() - started, 1), pid=os.getpid(),
                       compute=compute.stats(), heavy=gate.stats(),
                       domains={n: {"kg_version": d.graph.version, "engine": getattr(d.graph, "engine", "kuzu")}
                                for n, d in pipeline.domains.items()},
                       answer_cache_tier=tier, llm_loaded=getattr(pipeline, "_llm", None) is not None)

    @app.post("/domains/reload")
    def reload_domains():
        operator(settings.admin_token, token(), "POST /domains/reload")
        return jsonify(pipeline.reload())

    @app.get("/domains")
    def domains():
        pipeline.reload()  # the registry is the truth: a graph loaded or removed since shows at once
        out = []
        for name, d in pipeline.domains.items():
            view = d.view
            out.append({
                "name": name,
                "description": pipeline.descriptions.get(name),
                "kg_version": d.graph.version,
                "nodes": [{"label": label, "key": _safe(view.key, label), "display": _safe(view.display, label),
                           "properties": props} for label, props in view.nodes.items()],
                "relationships": [{"type": rel, "from": src, "to": dst}
                                  for rel, ends in view.rels.items() for src, dst in ends],
            })
        return jsonify(domains=out)

    @app.get("/cache/stats")
    def cache_stats():
        def stats(cache):  # figures only: no file system path of the host
            if cache is None or not hasattr(cache, "stats"):
                return None
            return {k: v for k, v in cache.stats().items() if k != "path"}
        return jsonify(plan_cache=stats(pipeline.plan_cache), answer_cache=stats(pipeline.answer_cache))

    @app.get("/metrics")
    def metrics_text():
        asked = metrics.total("kgqa_questions_total")
        gauges = [("kgqa_up", "1 while the service is serving.", {}, 1)]
        for cache, counter in (("answer", "kgqa_answer_cache_hits_total"), ("plan", "kgqa_plan_cache_hits_total")):
            ratio = metrics.value(counter) / asked if asked else 0.0
            gauges.append(("kgqa_cache_hit_ratio", "Share of questions served by each cache since start.",
                           {"cache": cache}, round(ratio, 6)))
        if pipeline.answer_cache is not None and hasattr(pipeline.answer_cache, "stats"):
            s = pipeline.answer_cache.stats()
            gauges += [("kgqa_answer_cache_entries", "Entries in the answer cache (the shared tier's with Redis).",
                        {}, s.get("entries", 0)),
                       ("kgqa_answer_cache_stored_bytes", "Bytes held by the answer cache.", {},
                        s.get("stored_bytes", 0))]
            if "tier" in s:
                shared = s.get("shared") or {}
                gauges += [("kgqa_answer_cache_tier_up", "1 while the shared Redis answer-cache tier answers.", {},
                            int(s["tier"]["redis"] == "up"))]
                gauges += [("kgqa_answer_cache_lookups", "Answer-cache lookups of every worker, by result.",
                            {"result": k}, shared.get(k, 0)) for k in ("hits", "misses")]
        if pipeline.plan_cache is not None and hasattr(pipeline.plan_cache, "stats"):
            gauges.append(("kgqa_plan_cache_entries", "Verified plans in the plan cache.", {},
                           pipeline.plan_cache.stats().get("entries", 0)))
        gauges.append(("kgqa_llm_loaded", "1 once the LLM has been loaded.", {},
                       int(getattr(pipeline, "_llm", None) is not None)))
        compute = gate.stats()
        gauges += [("kgqa_compute_requests", "Requests computing answers now, and waiting for a slot.",
                    {"state": state}, compute[state]) for state in ("running", "waiting")]
        return Response(metrics.render(gauges), mimetype="text/plain",
                        headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"})

    @app.get("/openapi.json")
    def openapi():
        return jsonify(openapi_spec(settings, list(pipeline.domains)))

    return app


def _safe(fn, label: str) -> str | None:
    try:
        return fn(label)
    except (KeyError, AttributeError):
        return None


class Inflight:
    """Counts requests in progress; :meth:`wait_idle` is the SIGTERM drain."""

    def __init__(self) -> None:
        self._n = 0
        self._cond = threading.Condition()

    def enter(self) -> None:
        with self._cond:
            self._n += 1

    def leave(self) -> None:
        with self._cond:
            self._n -= 1
            self._cond.notify_all()

    @property
    def count(self) -> int:
        return self._n

    def wait_idle(self, timeout_s: float) -> bool:
        """Returns True once no request is in progress, False after ``timeout_s``."""
        with self._cond:
            return self._cond.wait_for(lambda: self._n <= 0, timeout=timeout_s)


# -- running --------------------------------------------------------------------------------------
class BackgroundServer:
    """A waitress server for ``app`` on a background thread (tests, the browser check).

    ``with BackgroundServer(app) as srv: srv.url`` — port 0 picks a free loopback port. The server has the
    service's bounds (:func:`kgqa.app.limits.create_hardened_server`) from ``settings`` (default: the app's
    pipeline's).
    """

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0, threads: int | None = None,
                 settings: Settings | None = None):
        settings = settings or app.extensions["kgqa"]["pipeline"].settings
        self.server = hardened_server(app, settings, host=host, port=port, threads=threads)
        self.url = f"http://{host}:{self.server.effective_port}/"
        self.thread = threading.Thread(target=self.server.run, name="kgqa-waitress", daemon=True)

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        from waitress import wasyncore

        srv = self.server
        if self.thread.is_alive() and getattr(srv, "trigger", None) is not None:
            # close the sockets from the loop's own thread (closing them from here races its select() into
            # EBADF); an empty socket map ends the loop
            try:
                srv.trigger.pull_trigger(lambda: wasyncore.close_all(srv._map))
            except OSError:
                pass  # the loop closed its trigger between the check and the pull: it is ending already
            self.thread.join(timeout=5)
        if self.thread.is_alive():
            srv.close()
            self.thread.join(timeout=5)
        srv.task_dispatcher.shutdown()


def hardened_server(app: Flask, settings: Settings, *, host: str | None = None, port: int | None = None,
                    threads: int | None = None):
    """Returns the waitress server for ``app`` with the connection, idle, request and header bounds of
    ``settings`` (``host``/``port``/``threads`` override theirs)."""
    return create_hardened_server(
        app, host=settings.host if host is None else host, port=settings.port if port is None else port,
        threads=threads or settings.threads, connection_limit=settings.http_connection_limit,
        idle_timeout_s=settings.http_idle_timeout_s, request_timeout_s=settings.http_request_timeout_s,
        max_header_bytes=settings.http_max_header_bytes)


def serve(settings: Settings) -> None:
    """Open the graphs and caches, start the compute processes (``compute_processes``; 0: compute on the
    request threads, warmed here), and serve the API and chat page with waitress in this process, bounded
    against slow clients (:func:`hardened_server`; ``kgqa serve --workers N`` > 1 is
    :mod:`kgqa.app.workers`). SIGTERM drains: the listening socket closes, requests in progress finish (up to
    ``drain_s``), then the process exits and stops the compute processes."""
    from waitress import wasyncore

    from kgqa.planner.pipeline import build_pipeline

    sys.setswitchinterval(0.001)  # a cache hit's thread gets the GIL back quickly from other threads
    pool = ComputePool(settings).start() if settings.compute_processes > 0 else None
    try:
        pipeline = build_pipeline(settings)
        if pool is None:
            warm(pipeline)
        elif not pool.wait_ready():
            raise RuntimeError("the compute processes did not start")
        # kill -HUP re-reads the domain registry (as POST /domains/reload does), off the signal handler's frame
        signal.signal(signal.SIGHUP, lambda *_: threading.Thread(target=pipeline.reload, daemon=True).start())
        app = create_app(pipeline, pool.client() if pool is not None else None)
        freeze_heap()
        server = hardened_server(app, settings)
        inflight: Inflight = app.extensions["kgqa"]["inflight"]

        def drain() -> None:
            server.trigger.pull_trigger(lambda: wasyncore.dispatcher.close(server))  # no new connections
            drained = inflight.wait_idle(settings.drain_s)
            print(f"kgqa: SIGTERM, {'drained' if drained else 'drain timed out with'} "
                  f"{inflight.count} requests in progress; stopping", flush=True)
            server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))

        signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=drain, daemon=True).start())
        print(f"kgqa serving {', '.join(pipeline.domains)} on http://{settings.host}:{server.effective_port}/"
              + (f" ({pool.processes} compute processes)" if pool is not None else ""), flush=True)
        try:
            server.run()
        finally:
            server.close()
    finally:
        if pool is not None:
            pool.stop()
