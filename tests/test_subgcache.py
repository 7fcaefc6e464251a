"""SubGCache batch answering: clustering, representative subgraphs, KV-state reuse, equivalence."""

from __future__ import annotations

import copy
import http.server
import json
import threading

import numpy as np
import pytest

from kgqa.cache.prefix import (
    PrefixStore,
    metrics_url,
    order_by_prefix,
    parse_prometheus,
    prefix_metrics_from,
    read_prefix_metrics,
    split_prompt,
)
from kgqa.planner.batch import (
    acceptable,
    answer_batch,
    answer_values,
    cluster_labels,
    embed_subgraphs,
    messages_for,
    read_batch,
    representative,
    retrieve,
    summarize_batch,
    summarize_each,
)
from kgqa.settings import Settings
from kgqa.types import Subgraph


def _sub(facts: list[tuple[str, str, str]]) -> Subgraph:
    s = Subgraph()
    for src, rel, dst in facts:
        a = s.add_node(src.split(":")[0], src.split(":")[1], {"name": src.split(":")[1]})
        b = s.add_node(dst.split(":")[0], dst.split(":")[1], {"name": dst.split(":")[1]})
        s.add_edge(a, rel, b)
    return s


MATRIX = [("Person:Lana Wachowski", "DIRECTED", "Movie:The Matrix"),
          ("Person:Keanu Reeves", "ACTED_IN", "Movie:The Matrix")]
CURIE = [("Laureate:Marie Curie", "BORN_IN", "City:Warsaw"), ("Laureate:Marie Curie", "WON", "Prize:Physics 1903")]
CHAI = [("Supplier:Exotic Liquids", "SUPPLIES", "Product:Chai"), ("Product:Chai", "PART_OF", "Category:Beverages")]


# -- pure parts ----------------------------------------------------------------------------------------

def test_read_batch(tmp_path):
    path = tmp_path / "b.jsonl"
    path.write_text('"Who directed The Matrix?"\n\n{"question": "Where was Marie Curie born?", "domain": "nobel",'
                    ' "id": "q2", "gold": 1}\n', encoding="utf-8")
    assert read_batch(path) == [{"question": "Who directed The Matrix?"},
                                {"question": "Where was Marie Curie born?", "domain": "nobel", "id": "q2"}]
    path.write_text('"ok"\n{"domain": "nobel"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=":2:"):
        read_batch(path)


def test_union_keeps_every_node_and_edge():
    subs = [_sub(MATRIX), _sub(MATRIX[:1] + CURIE[:1]), _sub(CURIE + CHAI)]
    union = representative(subs)
    for s in subs:
        for nid, props in s.nodes.items():
            assert union.nodes[nid] == props
        for e in s.edges:
            assert e in union.edges
    all_nodes = {nid for s in subs for nid in s.nodes}
    all_edges = {json.dumps(e, sort_keys=True) for s in subs for e in s.edges}
    assert len(union.nodes) == len(all_nodes) and len(union.edges) == len(all_edges)  # no duplicates
    assert len(subs[0].nodes) == 3  # the inputs are left as they were


def test_clustering_groups_identical_subgraphs():
    subs = [_sub(MATRIX), _sub(CURIE), _sub(MATRIX), _sub(CHAI), _sub(CURIE), _sub(MATRIX)]
    emb = embed_subgraphs(subs)
    assert emb.shape == (6, 384)
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(emb[0], emb[2])
    for labels in (cluster_labels(emb, n_clusters=3), cluster_labels(emb, distance=0.05)):
        assert labels == [0, 1, 0, 2, 1, 0]  # identical subgraphs together, distinct ones apart
    assert cluster_labels(emb, n_clusters=1) == [0] * 6
    assert cluster_labels(emb, n_clusters=6) == list(range(6))
    assert cluster_labels(emb[:1], n_clusters=3) == [0] and cluster_labels(emb[:0]) == []
    # message passing changes node vectors, not the grouping of identical graphs
    assert cluster_labels(embed_subgraphs(subs, message_passing=False), n_clusters=3) == [0, 1, 0, 2, 1, 0]


def test_acceptance_needs_own_evidence_and_every_value():
    evidence = "Lana Wachowski and Lilly Wachowski (2 in all).\nname\nRow name: Lana Wachowski"
    values = ["Lana Wachowski", "Lilly Wachowski"]
    assert acceptable("The Matrix was directed by Lana Wachowski and Lilly Wachowski.",
                      evidence + " The Matrix", values)
    assert not acceptable("Lana Wachowski and Lilly Wachowski directed it in 1999.", evidence, values)  # 1999
    assert not acceptable("It was directed by Lana Wachowski.", evidence, values)  # a value missing
    assert not acceptable("I don't know.", evidence, values)


def test_order_by_prefix_groups_stably():
    items = [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5)]
    assert order_by_prefix(items, key=lambda x: x[0]) == [("a", 1), ("a", 3), ("b", 2), ("b", 5), ("c", 4)]


VLLM_METRICS = """# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1200.0
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 900.0
vllm:num_requests_running{engine="0",model_name="m"} 0.0
"""


def test_prefix_metrics_parsing():
    samples = parse_prometheus(VLLM_METRICS)
    m = prefix_metrics_from(samples)
    assert (m.hits, m.queries, m.hit_rate) == (900.0, 1200.0, 0.75)
    before = prefix_metrics_from(parse_prometheus(VLLM_METRICS.replace("900.0", "100.0").replace("1200.0", "200.0")))
    assert m.since(before).hit_rate == 0.8  # (900-100) / (1200-200)
    assert prefix_metrics_from(parse_prometheus("vllm:gpu_prefix_cache_hit_rate 0.5\n")).hit_rate == 0.5
    assert prefix_metrics_from(parse_prometheus("llamacpp:prompt_tokens_total 10\n")) is None
    assert metrics_url("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/metrics"


def test_read_prefix_metrics_over_http():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            body = VLLM_METRICS.encode() if self.path == "/metrics" else b""
            self.send_response(200 if body else 404)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        m = read_prefix_metrics(f"http://127.0.0.1:{server.server_port}/v1")
        assert m is not None and m.hit_rate == 0.75
    finally:
        server.shutdown()
    assert read_prefix_metrics(f"http://127.0.0.1:{server.server_port}/v1", timeout_s=0.5) is None


# -- the embedded model --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def llm():
    from kgqa.planner.llm import EmbeddedLLM

    model = EmbeddedLLM(n_threads=1, n_ctx=2048)  # one thread: the test machine is shared
    yield model
    model.close()


@pytest.mark.llm
def test_restored_state_gives_the_logits_of_a_fresh_prefix_evaluation(llm):
    facts = ["Row name: Lana Wachowski", "Row name: Lilly Wachowski", "Movie The Matrix (released: 1999)"]
    prefix, suffix = split_prompt(llm, messages_for(facts, "Who directed The Matrix?"))
    assert prefix and suffix.startswith("Who directed")
    assert llm.tokenize(prefix) + llm.tokenize(suffix) == llm.tokenize(prefix + suffix)
    store = PrefixStore(llm, max_states=1)
    state, ms = store.acquire(prefix)
    assert ms > 0 and store.acquire(prefix)[1] == 0.0 and store.stats.evaluated == 1
    llm.complete("Something else entirely.", max_tokens=3)  # overwrite the KV cache
    restored = llm.logits_after(prefix + suffix, state=state)
    fresh = llm.logits_after(prefix + suffix, state=llm.eval_prefix(prefix))
    np.testing.assert_array_equal(restored, fresh)
    # two questions on one prefix: evaluated once, restored for the second
    a = store.complete(prefix, suffix, max_tokens=8)
    b = store.complete(prefix, "Which film is this?<|im_end|>\n<|im_start|>assistant\n", max_tokens=8)
    assert not a.reused or a.prefix_ms == 0.0
    assert b.reused and b.prefix_ms == 0.0 and b.completion.cached_tokens == len(state.tokens)
    assert store.stats.restored == 0  # b continued in place: a left the prefix in the KV cache
    # continuing in place gives the logits of a restored state
    other = prefix + "Who acted in it?<|im_end|>\n<|im_start|>assistant\n"
    assert llm.holds(state)
    in_place = llm.logits_after(other, state=state)
    llm.complete("Something else entirely.", max_tokens=3)
    assert not llm.holds(state)
    np.testing.assert_array_equal(in_place, llm.logits_after(other, state=state))
    store.complete(prefix, suffix, max_tokens=2)
    assert store.stats.restored == 0  # logits_after left the prefix in place again
    llm.complete("Something else entirely.", max_tokens=3)
    store.complete(prefix, suffix, max_tokens=2)
    assert store.stats.restored == 1
    assert store.stats.evaluated == 1 and store.release() == 1 and len(store) == 0
    store.acquire(prefix + " ")  # a new prefix: evaluated, and the LRU bound holds one state
    store.acquire(prefix)
    assert len(store) == 1 and store.stats.evaluated == 3


QUESTIONS = [{"question": "Who directed The Matrix?", "domain": "movies"},
             {"question": "Where was Marie Curie born?", "domain": "nobel"},
             {"question": "What year was Cast Away released?", "domain": "movies"}]


@pytest.fixture(scope="module")
def pipe(built_graphs, kgqa_home, llm):
    from kgqa.planner.pipeline import Pipeline

    return Pipeline(Settings(home=kgqa_home), llm=llm, domains=["movies", "nobel"])


@pytest.fixture(scope="module")
def retrieved(pipe):
    return retrieve(pipe, QUESTIONS)


@pytest.mark.llm
def test_one_question_per_cluster_is_the_per_question_path(pipe, llm, retrieved):
    single = []  # the per-question path: each question summarized alone
    for r in copy.deepcopy(retrieved):
        summarize_each([r], llm, max_tokens=16)
        single.append(r)
    batch = answer_batch(pipe, QUESTIONS, llm=llm, n_clusters=len(QUESTIONS), max_tokens=16)
    assert [r.rows for r in batch] == [r.rows for r in retrieved]
    assert [r.cache["batch"]["llm_answer"] for r in batch] == [r.cache["batch"]["llm_answer"] for r in single]
    assert [r.answer for r in batch] == [r.answer for r in single]
    assert "Warsaw" in batch[1].answer
    for r, det in zip(batch, retrieved):  # a kept phrasing names every row value the question does not
        if r.cache["batch"]["kept"]:
            assert all(str(v) in r.answer for row in r.rows for v in row if str(v) not in r.question)
        else:
            assert r.answer == det.answer


@pytest.mark.llm
def test_one_cluster_evaluates_the_shared_prefix_once(llm, retrieved):
    results = copy.deepcopy(retrieved)
    rep = summarize_batch(results, llm, n_clusters=1, max_tokens=16)
    assert rep.n_clusters == 1 and rep.n_groups == 1 and rep.n_candidates == 3
    assert rep.prefix["evaluated"] == 1 and rep.prefix["reused"] == 2
    assert rep.prefix["restored"] == 0  # each question continued in place from the one before it
    assert [p.evaluated_tokens == p.prompt_tokens for p in rep.phrases] == [True, False, False]
    assert [p.prefix_ms > 0 for p in rep.phrases] == [True, False, False]
    assert rep.mean_pftt_ms < rep.mean_ttft_ms and rep.cluster_ms > 0
    for r, det, ph in zip(results, retrieved, rep.phrases):
        assert r.answer == (ph.text if ph.kept else det.answer)  # a kept phrasing or the rows, nothing else
        own = set(answer_values(det))  # the shared prefix holds every question's facts; the answer, only its own
        assert ph.text == "I don't know" or set(ph.text.split(", ")) <= own, (ph.text, own)
