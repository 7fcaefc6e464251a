"""The kgqa service's Flask app: ``create_app(pipeline)``, its JSON API routes and the chat page.

``create_app(pipeline)`` builds the WSGI app around one shared, thread-safe :class:`Pipeline`, computing
uncached questions on its request threads; ``create_app(pipeline, compute=client)`` sends them to compute
processes instead (:mod:`kgqa.app.compute`) and serves only cache hits and I/O itself. Running it (waitress,
``serve(settings)``) is :mod:`kgqa.app.serving`. Every client error is a
JSON ``{"error": "..."}`` with a 4xx status; an unexpected failure is a generic 500, never a traceback.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from contextlib import nullcontext
from pathlib import Path

from flask import Flask, Response, g, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException

from kgqa.app.compute import ComputeClient
from kgqa.app.limits import SECURITY_HEADERS, Busy, ComputeGate, method_label
from kgqa.app.metrics import new_metrics, record
from kgqa.app.parsing import ClientError, json_body, json_type, parse_question
from kgqa.app.trust import Forbidden, bearer, client_key, is_operator, load_salt, operator
from kgqa.app.votes import RateLimiter, VoteLedger
from kgqa.planner.feedback import FeedbackConflict, FeedbackNotFound, give_feedback
from kgqa.planner.pipeline import Pipeline
from kgqa.types import InputError, Result

STATIC_DIR = Path(__file__).resolve().parent / "static"
log = logging.getLogger("kgqa.server")

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
    metrics = new_metrics()
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
        body = json_body()
        question, domain = parse_question(pipeline, body, "ask")
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
        record(metrics, [result])
        return jsonify(result.view())

    @app.post("/ask/batch")
    def ask_batch():
        body = json_body()
        items = body.get("questions")
        if not isinstance(items, list):
            raise ClientError("'questions' must be an array of strings or {\"question\", \"domain\"} objects")
        if not items:
            raise ClientError("'questions' is empty")
        if len(items) > settings.max_batch:
            raise ClientError(f"batch of {len(items)} questions is over the limit of {settings.max_batch}", 413)
        checked = [parse_question(pipeline, item, f"questions[{i}]") for i, item in enumerate(items)]
        with heavy(len(checked) > 1 or any(len(q) >= settings.compute_heavy_chars for q, _ in checked)), \
                compute.slot():
            if pool is None:
                results = pipeline.ask_batch([{"question": q, "domain": d} for q, d in checked])
            else:
                results = [Result.from_dict(r) for r in remote(pool.ask_batch,
                                                               [{"question": q, "domain": d} for q, d in checked])]
                for r, (_, d) in zip(results, checked):
                    pipeline.keep(r, d)
        record(metrics, results)
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
        body = json_body()
        question, domain = parse_question(pipeline, body, "feedback")
        vote, cypher = body.get("vote"), body.get("cypher")
        if vote is None:
            raise ClientError("feedback: 'vote' is required ('up' or 'down')")
        if not isinstance(vote, str) or vote not in ("up", "down"):
            raise ClientError(f"feedback: 'vote' must be 'up' or 'down', not {json.dumps(vote)[:40]}")
        if cypher is not None and not isinstance(cypher, str):
            raise ClientError(f"feedback: 'cypher' must be a string, not {json_type(cypher)}")
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
