"""The REST service on the real pipeline: answers, caching, input validation, introspection, concurrency."""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request

import pytest

from kgqa.app.compute import warm
from kgqa.app.metrics import Metrics
from kgqa.app.server import create_app
from kgqa.app.serving import BackgroundServer
from kgqa.planner.pipeline import build_pipeline
from kgqa.settings import Settings


@pytest.fixture(scope="module")
def pipeline(built_graphs, kgqa_home):
    pipe = build_pipeline(Settings(home=kgqa_home, max_question_chars=300, max_batch=5))
    warm(pipe)
    return pipe


@pytest.fixture(scope="module")
def app(pipeline):
    return create_app(pipeline)


@pytest.fixture()
def client(app):
    return app.test_client()


def names(result: dict) -> set[str]:
    return {v for row in result["rows"] for v in row if isinstance(v, str)}


# -- answering ------------------------------------------------------------------------------------
def test_ask_answers_from_the_graph(client):
    resp = client.post("/ask", json={"question": "Who directed The Matrix?"})
    assert resp.status_code == 200
    r = resp.get_json()
    assert r["status"] == "answered" and r["domain"] == "movies"
    assert {"Lana Wachowski", "Lilly Wachowski"} <= names(r)
    assert "Lana Wachowski" in r["answer"] and "Lilly Wachowski" in r["answer"]
    assert "MATCH" in r["cypher"] and r["kg_version"]
    assert set(r["timings_ms"]) >= {"parse_route", "execute", "summarize"}


def test_repeated_question_is_served_by_the_answer_cache(client):
    q = {"question": "Which movies did Tom Hanks act in?", "domain": "movies"}
    first = client.post("/ask", json=q).get_json()
    again = client.post("/ask", json=q).get_json()
    assert first["status"] == again["status"] == "answered"
    assert again["cache"]["answer_hit"] is True and again["cache"]["llm_calls"] == 0
    assert again["answer"] == first["answer"] and "Cast Away" in again["answer"]


def test_response_is_the_results_json_field_for_field(client, pipeline):
    """/ask writes Result.view() (no deep copy): the same JSON, in the same field order, as to_dict()."""
    q = {"question": "Which movies did Keanu Reeves act in?", "domain": "movies"}
    computed = pipeline.ask(q["question"], q["domain"])
    assert json.dumps(computed.view()) == json.dumps(computed.to_dict()) and computed.rows
    client.post("/ask", json=q)
    hit = pipeline.cached(q["question"], q["domain"])
    body = client.post("/ask", json=q).get_data()
    assert body.startswith(b'{"question":')  # the fields in the dataclass's order, as before
    got, want = json.loads(body), json.loads(json.dumps(hit.to_dict()))
    assert list(got) == list(want) and got["cache"]["answer_hit"] is True
    got.pop("timings_ms"), want.pop("timings_ms")  # the lookup's own time
    assert got == want


def test_domain_auto_and_empty_mean_routed(client):
    for domain in ("auto", "", None):
        r = client.post("/ask", json={"question": "Who directed The Matrix?", "domain": domain}).get_json()
        assert r["domain"] == "movies"


def test_batch_answers_in_order(client):
    resp = client.post("/ask/batch", json={"questions": [
        "Who directed The Matrix?",
        {"question": "Where was Marie Curie born?", "domain": "nobel"},
    ]})
    assert resp.status_code == 200
    results = resp.get_json()["results"]
    assert [r["domain"] for r in results] == ["movies", "nobel"]
    assert "Warsaw" in results[1]["answer"]


def test_write_intent_is_refused_not_an_http_error(client):
    r = client.post("/ask", json={"question": "Delete all movies"})
    assert r.status_code == 200 and r.get_json()["status"] == "refused"


# -- bad input ------------------------------------------------------------------------------------
JSON = "application/json"


@pytest.mark.parametrize("body,content_type,status,message", [
    (b'{"question": "Who directed The Matrix?"}', "text/plain", 415, "Content-Type"),
    (b'question=hi', "application/x-www-form-urlencoded", 415, "Content-Type"),
    (b'{"question": "Who directed', JSON, 400, "not valid JSON"),
    (b'', JSON, 400, "not valid JSON"),
    (b'{"question": "caf\xe9?"}', JSON, 400, "UTF-8"),
    (b'["Who directed The Matrix?"]', JSON, 400, "JSON object"),
    (b'{}', JSON, 400, "required"),
    (b'{"question": ""}', JSON, 400, "non-empty"),
    (b'{"question": "   "}', JSON, 400, "non-empty"),
    (b'{"question": 42}', JSON, 400, "must be a string"),
    (b'{"question": ["Who?"]}', JSON, 400, "must be a string"),
    (b'{"question": "Who?", "domain": 3}', JSON, 400, "'domain' must be a string"),
    (b'{"question": "Who?", "domain": "weather"}', JSON, 400, "unknown domain"),
    (json.dumps({"question": "x" * 301}).encode(), JSON, 413, "longer than 300"),
    (b'{"question": "Who directed The Matrix?"}', None, 415, "Content-Type"),  # no Content-Type at all
    (b'\xef\xbb\xbf{"question": "Who?"}', JSON, 400, "not valid JSON"),  # UTF-8 BOM
    (b'{"question": ' + b"[" * 5000 + b"]" * 5000 + b"}", JSON, 400, "not valid JSON"),  # nesting bomb
    (b'{"question": 1' + b"0" * 5000 + b"}", JSON, 400, "not valid JSON"),  # over Python's int digit limit
    (b'{"question": "Who directed \\ud800 The Matrix?"}', JSON, 400, "not valid Unicode"),  # lone surrogate
    (b'{"question": "Who?", "domain": null, "question": ""}', JSON, 400, "non-empty"),  # last key wins
])
def test_ask_rejects_bad_input(client, body, content_type, status, message):
    resp = client.post("/ask", data=body, content_type=content_type)
    assert resp.status_code == status
    assert resp.mimetype == JSON
    assert message in resp.get_json()["error"]
    assert b"Traceback" not in resp.data and b'File "' not in resp.data


def test_json_with_charset_parameter_is_accepted(client):
    resp = client.post("/ask", data=b'{"question": "Who directed The Matrix?"}',
                       content_type="application/json; charset=utf-8")
    assert resp.status_code == 200 and resp.get_json()["status"] == "answered"


@pytest.mark.parametrize("payload,status,message", [
    ({}, 400, "'questions' must be an array"),
    ({"questions": "Who directed The Matrix?"}, 400, "'questions' must be an array"),
    ({"questions": []}, 400, "empty"),
    ({"questions": ["Who?"] * 6}, 413, "over the limit of 5"),
    ({"questions": ["Who directed The Matrix?", 7]}, 400, "questions[1]"),
    ({"questions": ["Who directed The Matrix?", {"domain": "movies"}]}, 400, "questions[1]: 'question' is required"),
    ({"questions": [{"question": "Who?", "domain": "weather"}]}, 400, "questions[0]: unknown domain"),
    ({"questions": ["y" * 301]}, 413, "questions[0]: question is longer"),
    ({"questions": ["Who directed The Matrix?", "  "]}, 400, "questions[1]: question must be a non-empty"),
    ({"questions": ["Who directed The Matrix?", "\ud800"]}, 400, "questions[1]: 'question' is not valid Unicode"),
    ({"questions": [["Who directed The Matrix?"]]}, 400, "questions[0]: 'question' must be a string"),
])
def test_batch_rejects_bad_input(client, payload, status, message):
    resp = client.post("/ask/batch", json=payload)
    assert resp.status_code == status
    assert message in resp.get_json()["error"]


def test_oversized_body_is_413_json(client, app):
    body = b'{"question": "' + b"a" * (app.config["MAX_CONTENT_LENGTH"] + 10) + b'"}'
    resp = client.post("/ask", data=body, content_type=JSON)
    assert resp.status_code == 413 and "error" in resp.get_json()


def test_unknown_route_and_method_are_json(client):
    resp = client.get("/nope")
    assert resp.status_code == 404 and resp.get_json() == {"error": "not found"}
    resp = client.get("/ask")
    assert resp.status_code == 405 and "POST" in resp.headers["Allow"] and "error" in resp.get_json()


def test_internal_errors_are_generic(pipeline, monkeypatch):
    app = create_app(pipeline)

    def broken(*args, **kwargs):
        raise RuntimeError("secret internal detail /work/main/var")

    monkeypatch.setattr(pipeline, "ask", broken)
    monkeypatch.setattr(pipeline, "cached", lambda *a, **k: None)  # a miss: /ask computes (and breaks)
    resp = app.test_client().post("/ask", json={"question": "Who directed The Matrix?"})
    assert resp.status_code == 500
    monkeypatch.setattr(pipeline, "cached", broken)  # the cache lookup breaking is just as generic
    resp = app.test_client().post("/ask", json={"question": "Who directed The Matrix?"})
    assert resp.status_code == 500
    assert resp.get_json() == {"error": "internal server error"}
    assert b"secret" not in resp.data and b"Traceback" not in resp.data


# -- introspection --------------------------------------------------------------------------------
def test_health_lists_domains_with_versions(client, pipeline):
    h = client.get("/health").get_json()
    assert h["status"] == "ok"
    assert set(h["domains"]) == set(pipeline.domains) == {"movies", "nobel", "northwind"}
    for name, d in pipeline.domains.items():
        assert h["domains"][name]["kg_version"] == d.graph.version


def test_domains_summarize_each_schema(client, pipeline):
    domains = {d["name"]: d for d in client.get("/domains").get_json()["domains"]}
    assert set(domains) == set(pipeline.domains)
    movies = domains["movies"]
    labels = {n["label"]: n for n in movies["nodes"]}
    assert set(labels) == set(pipeline.domains["movies"].view.nodes)
    assert "title" in labels["Movie"]["properties"]
    assert {"type": "ACTED_IN", "from": "Person", "to": "Movie"} in movies["relationships"]
    assert movies["description"] == pipeline.descriptions.get("movies")


def test_cache_stats(client):
    client.post("/ask", json={"question": "Who directed The Matrix?", "domain": "movies"})
    client.post("/ask", json={"question": "Who directed The Matrix?", "domain": "movies"})
    s = client.get("/cache/stats").get_json()
    assert s["answer_cache"]["entries"] >= 1 and s["answer_cache"]["hits"] >= 1
    assert s["plan_cache"]["entries"] >= 1


METRIC_LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9.e+-]+|\+Inf|NaN)$')


def parse_metrics(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        m = METRIC_LINE.match(line)
        assert m, f"not a Prometheus sample line: {line!r}"
        out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return out


def test_metrics_are_prometheus_text(client):
    q = {"question": "Who directed The Matrix?", "domain": "movies"}
    client.post("/ask", json=q)
    client.post("/ask", json=q)
    client.post("/ask", json={"question": ""})
    resp = client.get("/metrics")
    assert resp.status_code == 200 and resp.mimetype == "text/plain"
    samples = parse_metrics(resp.get_data(as_text=True))
    assert samples['kgqa_http_requests_total{endpoint="/ask",method="POST",status="200"}'] >= 2
    assert samples['kgqa_http_requests_total{endpoint="/ask",method="POST",status="400"}'] >= 1
    assert samples['kgqa_stage_duration_seconds_count{stage="execute"}'] >= 1
    assert samples['kgqa_stage_duration_seconds_bucket{stage="parse_route",le="+Inf"}'] >= 2
    assert samples["kgqa_answer_cache_hits_total"] >= 1
    assert 0 < samples['kgqa_cache_hit_ratio{cache="answer"}'] <= 1
    assert "kgqa_llm_calls_total" in samples
    assert samples['kgqa_questions_total{domain="movies",status="answered"}'] >= 2


def test_metrics_registry_histogram_is_cumulative():
    m = Metrics()
    m.histogram("h", "help", (0.1, 1.0))
    for v in (0.05, 0.5, 0.7, 3.0):
        m.observe("h", v, stage="x")
    s = parse_metrics(m.render())
    assert [s['h_bucket{stage="x",le="0.1"}'], s['h_bucket{stage="x",le="1"}'], s['h_bucket{stage="x",le="+Inf"}']] \
        == [1, 3, 4]
    assert s['h_sum{stage="x"}'] == pytest.approx(4.25) and s['h_count{stage="x"}'] == 4


def test_openapi_documents_exactly_the_routes(client, app):
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.")
    documented = {(path, method.upper()) for path, ops in spec["paths"].items() for method in ops}
    routed = set()
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        routed |= {(path, m) for m in rule.methods - {"HEAD", "OPTIONS"}}
    assert documented == routed
    schemas = spec["components"]["schemas"]
    assert schemas["Question"]["properties"]["question"]["maxLength"] == 300
    assert schemas["Batch"]["properties"]["questions"]["maxItems"] == 5
    refs = re.findall(r'"#/components/schemas/(\w+)"', json.dumps(spec))
    assert refs and set(refs) <= set(schemas)
    for path, method in documented:  # every error status the API can give is described
        if method == "POST" and "requestBody" in spec["paths"][path]["post"]:
            assert {"400", "413", "415"} <= set(spec["paths"][path]["post"]["responses"])


def test_openapi_documents_feedback_outcomes(client):
    spec = client.get("/openapi.json").get_json()
    op = spec["paths"]["/feedback"]["post"]
    assert {"200", "400", "404", "409", "413", "415"} <= set(op["responses"])
    body = spec["components"]["schemas"]["Feedback"]
    assert body["required"] == ["question", "vote"] and body["properties"]["vote"]["enum"] == ["up", "down"]


def test_chat_page_and_assets_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert 'aria-live="polite"' in html and '<label for="question">' in html
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert client.get(asset).status_code == 200
    js = client.get("/static/app.js").get_data(as_text=True)
    assert "innerHTML" not in js and "textContent" in js


# -- a real waitress server under concurrent load -------------------------------------------------
def _post(url: str, payload: dict) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_concurrent_requests_through_waitress(app):
    questions = [("Who directed The Matrix?", "movies", "Wachowski"),
                 ("Which movies did Tom Hanks act in?", "movies", "Cast Away"),
                 ("Where was Marie Curie born?", "nobel", "Warsaw"),
                 ("Which products does 'Exotic Liquids' supply?", "northwind", "Chai")]
    errors: list[str] = []
    done = []
    with BackgroundServer(app) as srv:
        def worker(i: int) -> None:
            for j in range(5):
                q, domain, expect = questions[(i + j) % len(questions)]
                try:
                    if j == 4:
                        with urllib.request.urlopen(srv.url + "health", timeout=60) as resp:
                            ok = resp.status == 200 and json.loads(resp.read())["status"] == "ok"
                    else:
                        status, body = _post(srv.url + "ask", {"question": q, "domain": domain})
                        ok = status == 200 and expect in body["answer"]
                    (done if ok else errors).append((i, j))
                except Exception as err:  # noqa: BLE001 - collected and reported below
                    errors.append(f"{i}/{j}: {err!r}")

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        with urllib.request.urlopen(srv.url + "metrics", timeout=60) as resp:
            samples = parse_metrics(resp.read().decode())
    assert errors == []
    assert len(done) == 100
    assert samples['kgqa_http_requests_total{endpoint="/ask",method="POST",status="200"}'] >= 80
    assert samples['kgqa_http_requests_total{endpoint="/health",method="GET",status="200"}'] >= 20
