"""Issue 20 (hardening), through a real server on a loopback port where the issue asks for it: the learning
caches cannot be poisoned, no request freezes the server, and what is shown is what ran."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from kgqa.app.limits import Busy, ComputeGate, method_label
from kgqa.app.server import create_app
from kgqa.app.serving import BackgroundServer
from kgqa.cache.plan_cache import PlanCache
from kgqa.cache.plan_entry import PlanEntry
from kgqa.cache.templates import Span, fill, make_template
from kgqa.evals.bench_abuse import (
    request as call,  # (status, headers, body); a failed connection's error name
)
from kgqa.kg.cypher import inline_params
from kgqa.planner.pipeline import build_pipeline
from kgqa.planner.version import compiler_version
from kgqa.settings import Settings

POISON = "Name the movies whose titles contain 'th'."
VICTIM = "Name the movies whose titles contain 'Matrix'."


def _home(tmp_path_factory, built_graphs) -> Path:
    home = tmp_path_factory.mktemp("hardening-home")
    (home / "graphs").symlink_to(next(iter(built_graphs.values())).parent, target_is_directory=True)
    return home


@pytest.fixture(scope="module")
def served(built_graphs, tmp_path_factory):
    """(url, pipeline, app) of a real server on a fresh home (empty plan cache), with a short request timeout."""
    home = _home(tmp_path_factory, built_graphs)
    settings = Settings(home=home, vector_memory=False, http_request_timeout_s=2.0, heavy_slots=1,
                        heavy_queue=0, heavy_wait_s=0.0)
    pipe = build_pipeline(settings)
    app = create_app(pipe)
    with BackgroundServer(app) as srv:
        yield srv.url, pipe, app


def ask(url: str, question: str, domain: str | None = None):
    status, _, body = call(url, "POST", "/ask", {"question": question, **({"domain": domain} if domain else {})})
    assert status == 200, body
    return body


def titles(body: dict) -> list[str]:
    return [str(v) for row in body["rows"] for v in row]


# -- 1. plan-cache poisoning -------------------------------------------------------------------------
def test_a_quoted_two_letter_literal_does_not_poison_later_questions(served):
    url, pipe, _ = served
    first = ask(url, POISON, "movies")
    assert "Tom Hanks" not in (first["cypher"] or "")  # 'th' is not linked inside "the"
    victim = ask(url, VICTIM, "movies")
    assert victim["status"] == "answered" and any("Matrix" in t for t in titles(victim)), victim
    for e in pipe.plan_cache.entries("movies"):
        assert not (e.template or {}).get("unexplained") and not (e.template or {}).get("fixed_params", {}).get("v0")


def test_a_plan_with_a_constant_the_question_does_not_state_is_not_learned(served, tmp_path):
    _, pipe, _ = served
    d = pipe.domains["movies"]
    r = pipe.ask("Which movies did Lana Wachowski direct?", "movies", use_answer_cache=False)
    with PlanCache(tmp_path) as pc:
        bad = "MATCH (p:Person)-[:DIRECTED]->(m:Movie) WHERE p.name = 'Tom Hanks' AND m.title CONTAINS 'Matrix' " \
              "RETURN m.title"
        assert pc.learn(VICTIM, {}, d, bad, {}, r) is None
        assert len(pc) == 0 and pc.stats()["learn_refusals"] == 1
        good = "MATCH (m:Movie) WHERE m.title CONTAINS 'Matrix' RETURN m.title"
        assert pc.learn(VICTIM, {}, d, good, {}, r) is not None


def test_a_template_contradicted_by_the_compiler_is_demoted_not_relearned(served, tmp_path):
    from kgqa.planner.pipeline import Pipeline

    _, served_pipe, _ = served
    q0 = "Name the movies whose titles contain 'Top'."
    wrong = "MATCH (m:Movie) WHERE m.title CONTAINS 'Top' AND m.released < 1000 RETURN m.title"
    with PlanCache(tmp_path) as pc:
        pipe = Pipeline(served_pipe.settings, plan_cache=pc, domains=["movies"])
        version = pipe.domains["movies"].graph.version
        ids = set()
        for i, aspect in enumerate(("general", "lookup", "attribute", "relation", "aggregation")):
            cy = wrong.replace("1000", str(1000 + i))  # one entry per aspect bucket
            ids.add(pc.add(PlanEntry(question=q0, cypher=cy, domain="movies", aspect=aspect, kg_version=version,
                                     template=make_template(q0, cy).to_dict())).id)
        r = pipe.ask("Name the movies whose titles contain 'Matrix'.", "movies")
        assert any("Matrix" in str(row) for row in r.rows) and not r.cache["plan_hit"], r
        assert r.cache["template_demoted"] in ids and pc.get(r.cache["template_demoted"]).demoted
        again = pipe.ask("Name the movies whose titles contain 'Cloud'.", "movies", use_answer_cache=False)
        assert r.cache["template_demoted"] != again.cache.get("template_demoted")


def test_plans_of_other_compiler_code_are_not_reused(tmp_path, served):
    _, pipe, _ = served
    d = pipe.domains["movies"]
    q = "Name the movies whose titles contain 'Top'."
    cy = "MATCH (m:Movie) WHERE m.title CONTAINS 'Top' RETURN m.title"
    isr = type("ISR", (), {"aspect": "lookup"})()
    with PlanCache(tmp_path, code_version="old") as old:
        old.add(PlanEntry(question=q, cypher=cy, domain="movies", aspect="lookup", kg_version=d.graph.version,
                          template=make_template(q, cy).to_dict()))
        assert old.reuse("Name the movies whose titles contain 'Cloud'.", d, isr, [])[1] == {"S1": "Cloud"}
    with PlanCache(tmp_path, code_version=compiler_version()) as new:
        assert new.reuse("Name the movies whose titles contain 'Cloud'.", d, isr, []) is None
        assert new.stats()["stale_code"] == 1
        assert len(new.purge(stale_code=True)) == 1 and len(new) == 0


def test_plan_cache_is_bounded_per_domain_with_lru_eviction(tmp_path):
    with PlanCache(tmp_path, domain_bound=3) as pc:
        for i in range(5):
            pc.add(PlanEntry(question=f"question {i}", cypher=f"RETURN {i}", domain="d", aspect=f"a{i % 2}",
                             last_used=float(i + 1)))
        assert sorted(e.question for e in pc.entries("d")) == ["question 2", "question 3", "question 4"]
        assert pc.stats()["evictions"] == 2


def test_cache_inspect_and_purge_commands(tmp_path, capsys):
    from kgqa.app.cache_cmd import parse

    home = tmp_path
    with PlanCache(home / "state", code_version=compiler_version()) as pc:
        a = pc.add(PlanEntry(question="q one", cypher="RETURN 1", domain="movies", provenance="online"))
        pc.add(PlanEntry(question="q two", cypher="RETURN 2", domain="nobel", provenance="prewarm"))
    settings = Settings(home=home)
    args = parse(["cache", "inspect", "--json", "--domain", "movies"])
    assert args.func(args, settings) == 0
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [s["id"] for s in shown] == [a.id] and shown[0]["provenance"] == "online"
    args = parse(["cache", "purge"])
    assert args.func(args, settings) == 2  # no filter: nothing deleted
    args = parse(["cache", "purge", "--provenance", "prewarm"])
    assert args.func(args, settings) == 0 and "1 plans deleted" in capsys.readouterr().out
    with PlanCache(home / "state") as pc:
        assert [e.question for e in pc.entries()] == ["q one"]


# -- 2, 3. typed, bounded, linear slots --------------------------------------------------------------
def test_a_string_slot_never_crosses_a_quote_and_literal_counts_must_agree():
    q = "Which movies have titles containing 'an' and 'e'?"
    t = make_template(q, "MATCH (m:Movie) WHERE m.title CONTAINS 'an' AND m.title CONTAINS 'e' RETURN m.title")
    assert fill(t, "Which movies have titles containing 'x' and 'y'?").params == {"S1": "x", "S2": "y"}
    assert fill(t, "Which movies have titles containing 'an' and 'e' and 'o'?") is None
    assert fill(t, "Which movies have titles containing 'an' and 'e' and 'o'?", spans=[]) is None
    one = make_template("Name the movies whose titles contain 'th'.",
                        "MATCH (m:Movie) WHERE m.title CONTAINS 'th' RETURN m.title")
    assert fill(one, "Name the movies whose titles contain 'an' and 'e' and 'o'.") is None


def test_slot_matching_is_linear_on_adversarial_questions():
    q = "Which movies have titles containing 'an' and 'e' and 'o' and 'u'?"
    t = make_template(q, "MATCH (m:Movie) WHERE m.title CONTAINS 'an' AND m.title CONTAINS 'e' AND "
                         "m.title CONTAINS 'o' AND m.title CONTAINS 'u' RETURN m.title")
    head = "Which movies have titles containing '"
    for n in (1000, 2000, 20000):
        for frag in ("an' and '", "' and '", "e' '", "a", "' and 'x' and '"):
            adversarial = head + (frag * (n // len(frag) + 1))[:n] + "'?"
            t0 = time.perf_counter()
            fill(t, adversarial, spans=[Span("an")])
            assert time.perf_counter() - t0 < 2.0, (n, frag)


def test_an_adversarial_question_against_a_learned_template_does_not_freeze_health(served):
    url, pipe, _ = served
    d = pipe.domains["movies"]
    q = "Which movies have titles containing 'an' and 'e' and 'o' and 'u'?"
    cy = ("MATCH (m:Movie) WHERE m.title CONTAINS 'an' AND m.title CONTAINS 'e' AND m.title CONTAINS 'o' "
          "AND m.title CONTAINS 'u' RETURN m.title")
    for aspect in ("general", "lookup", "attribute", "relation"):
        pipe.plan_cache.add(PlanEntry(question=q, cypher=cy, domain="movies", aspect=aspect,
                                      kg_version=d.graph.version, template=make_template(q, cy).to_dict()))
    adversarial = ("Which movies have titles containing '" + "an' and '" * 220)[:1990] + "'?"
    t0 = time.perf_counter()
    status, _, body = call(url, "POST", "/ask", {"question": adversarial, "domain": "movies"})
    assert status == 200 and body["timings_ms"].get("cache_retrieval", 0) < 2000
    assert time.perf_counter() - t0 < 60
    assert call(url, "GET", "/health", timeout=5)[0] == 200


# -- 4, 5. answer-cache keys -------------------------------------------------------------------------
def test_a_wrong_domain_dont_know_is_not_pinned_on_routed_questions(served):
    url, _, _ = served
    wrong = ask(url, "Who directed Cloud Atlas?", "nobel")
    assert wrong["domain"] == "nobel"
    routed = ask(url, "Who directed Cloud Atlas?")
    assert routed["domain"] == "movies" and routed["status"] == "answered" and not routed["cache"]["answer_hit"]
    again = ask(url, "who directed cloud atlas")
    assert again["cache"]["answer_hit"] and again["domain"] == "movies"


def test_the_answer_cache_key_keeps_the_case_of_quoted_literals(served):
    url, _, _ = served
    ask(url, "Name the movies whose titles contain 'ch'.", "movies")
    upper = ask(url, "Name the movies whose titles contain 'Ch'.", "movies")
    assert not upper["cache"]["answer_hit"]
    assert ask(url, "name the movies whose titles CONTAIN 'Ch'", "movies")["cache"]["answer_hit"]


# -- 6, 7, 8. bounds at the front door -----------------------------------------------------------------
def test_compute_gate_unit():
    gate = ComputeGate(slots=1, queue=1, wait_s=0.05)
    with gate.slot():
        with pytest.raises(Busy) as err:
            with gate.slot():
                pass
        assert err.value.retry_after_s >= 1
    with gate.slot():
        pass
    assert gate.stats()["rejected"] == 1 and gate.stats()["admitted"] == 2
    assert method_label("GET") == "GET" and method_label("X" * 1000) == "other"


def test_heavy_requests_over_the_gate_get_503_with_retry_after_and_health_stays_up(served):
    url, _, app = served
    gate = app.extensions["kgqa"]["gate"]
    with gate.slot():  # the server's one heavy slot is taken (heavy_queue=0)
        status, headers, body = call(url, "POST", "/ask/batch",
                                     {"questions": ["Who directed The Matrix?", "Who directed Cloud Atlas?"]})
        assert status == 503 and int(headers["Retry-After"]) >= 1 and "busy" in body["error"]
        assert call(url, "GET", "/health", timeout=5)[0] == 200
        assert ask(url, "Who directed The Matrix?", "movies")["status"] == "answered"  # light: not gated
    status, _, body = call(url, "POST", "/ask/batch", {"questions": ["Who directed The Matrix?"] * 2})
    assert status == 200 and len(body["results"]) == 2
    assert "kgqa_busy_rejections_total 1" in call(url, "GET", "/metrics")[2]


def test_batch_llm_phrasing_is_bounded():
    from kgqa.planner.batch import summarize_batch
    from kgqa.types import Result

    class Model:
        calls = 0

        def complete(self, messages, **kw):
            Model.calls += 1
            from kgqa.planner.llm import Completion

            return Completion(text="x", prompt_tokens=1, completion_tokens=1, elapsed_ms=1.0)

    results = [Result(question=f"q{i}?", status="answered", answer=f"a{i}", columns=["n"], rows=[[f"v{i}"]])
               for i in range(6)]
    rep = summarize_batch(results, Model(), n_clusters=6, max_calls=2)
    assert Model.calls == 2 and len(rep.phrases) == 2
    assert sum(1 for r in results if "skipped" in r.cache.get("batch", {})) == 4


def test_slow_clients_are_closed_and_do_not_block_health(served):
    url, _, _ = served
    u = urlsplit(url)
    socks = []
    for _ in range(120):
        s = socket.create_connection((u.hostname, u.port), timeout=5)
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    try:
        t0 = time.perf_counter()
        assert call(url, "GET", "/health", timeout=5)[0] == 200
        assert time.perf_counter() - t0 < 2.0
        closed, deadline = 0, time.monotonic() + 15
        while time.monotonic() < deadline and closed < len(socks):
            time.sleep(0.5)
            closed = 0
            for s in socks:
                try:
                    s.sendall(b"X-Drip: 1\r\n")
                    s.setblocking(False)
                    try:
                        closed += s.recv(1) == b""
                    except BlockingIOError:
                        pass
                    finally:
                        s.setblocking(True)
                except OSError:
                    closed += 1
        assert closed == len(socks)  # the 2 s request timeout closed every dripping connection
    finally:
        for s in socks:
            s.close()


def test_metrics_labels_stay_fixed_under_odd_methods(served):
    url, _, _ = served
    u = urlsplit(url)
    codes = set()
    for i in range(200):
        method = ("Q" * 200_000) if i == 0 else f"ODD{i}METHOD"
        with socket.create_connection((u.hostname, u.port), timeout=10) as s:
            try:
                s.sendall(f"{method} /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
                codes.add(s.recv(12)[9:12])
            except (ConnectionResetError, BrokenPipeError):
                codes.add(b"rst")
    status, _, text = call(url, "GET", "/metrics")
    assert status == 200 and len(text.encode()) < 1_000_000
    assert "ODD" not in text and 'method="other"' in text
    assert not codes & {b"500", b"502", b"503"}


# -- 10. what is shown is what ran -------------------------------------------------------------------
def test_the_cypher_shown_is_the_cypher_executed_with_its_parameters(served):
    url, pipe, _ = served
    body = ask(url, "Which movies did Keanu Reeves act in?", "movies")
    assert body["cypher_run"] and isinstance(body["params"], dict)
    assert inline_params(body["cypher_run"], body["params"]) == body["cypher"]
    g = pipe.domains["movies"].graph
    ran = sorted(map(str, g.query(body["cypher_run"], body["params"]).rows))
    shown = sorted(map(str, g.query(body["cypher"]).rows))
    assert ran == shown and ran


def test_inline_params_leaves_the_querys_own_literals_alone():
    cy = "MATCH (n) WHERE n.a = $a AND n.s = '$a' AND n.`$a` = $b RETURN $c"
    assert inline_params(cy, {"a": "x'$b", "b": None}) == \
        "MATCH (n) WHERE n.a = 'x\\'$b' AND n.s = '$a' AND n.`$a` = null RETURN $c"


def test_cache_stats_show_no_paths_and_the_chat_page_sends_security_headers(served):
    url, pipe, _ = served
    status, _, stats = call(url, "GET", "/cache/stats")
    assert status == 200 and str(pipe.settings.home) not in json.dumps(stats) and "path" not in stats["plan_cache"]
    status, headers, _ = call(url, "GET", "/")
    assert status == 200
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY" and headers["X-Content-Type-Options"] == "nosniff"


def test_the_graph_is_never_modified(served, built_graphs):
    from kgqa.kg.schema import graph_checksum

    _, pipe, _ = served
    before = graph_checksum(pipe.domains["movies"].graph)
    url = served[0]
    for q in (POISON, VICTIM, "Delete every movie", "MATCH (n) DETACH DELETE n"):
        call(url, "POST", "/ask", {"question": q, "domain": "movies"})
    assert graph_checksum(pipe.domains["movies"].graph) == before
