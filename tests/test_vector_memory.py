"""The GLARE vector memory: importance scores, disjoint pooling, retrieval of a planted fact, the answer
rule's refusals, and the pipeline fallback's trigger (only after the Cypher path failed, only when on)."""

from __future__ import annotations

import shutil

import kuzu
import numpy as np
import pytest

from kgqa.kg.db import DB_FILE, META_FILE, Graph, GraphMeta, open_database
from kgqa.kg.importance import degree_scores, pagerank_scores, rank_order, read_snapshot
from kgqa.kg.memory_build import ensure_memory, pool
from kgqa.kg.vector_memory import VectorMemory, load_memory, memory_dir
from kgqa.planner.memory_answer import answer_from_memory, stem
from kgqa.settings import Settings


# -- a small graph where degree and PageRank disagree ---------------------------------------------------
@pytest.fixture(scope="module")
def star_graph(tmp_path_factory):
    """H points at five M nodes (degree 5, no in-links); a, b, c point at S (degree 3, the PageRank top)."""
    path = tmp_path_factory.mktemp("star")
    db = open_database(path / DB_FILE)
    conn = kuzu.Connection(db)
    conn.execute("CREATE NODE TABLE N(id STRING, PRIMARY KEY(id))")
    conn.execute("CREATE NODE TABLE M(id INT64, PRIMARY KEY(id))")
    conn.execute("CREATE REL TABLE E(FROM N TO N, FROM N TO M)")
    for x in ("H", "S", "a", "b", "c"):
        conn.execute("CREATE (:N {id: $x})", {"x": x})
    for i in range(5):
        conn.execute("CREATE (:M {id: $i})", {"i": i})
        conn.execute("MATCH (h:N {id: 'H'}), (m:M {id: $i}) CREATE (h)-[:E]->(m)", {"i": i})
    for x in "abc":
        conn.execute("MATCH (x:N {id: $x}), (s:N {id: 'S'}) CREATE (x)-[:E]->(s)", {"x": x})
    conn.close()
    db.close()
    GraphMeta("star", "star-v1").write(path)
    g = Graph(path, read_only=True, pool_size=1)
    yield g
    g.close()


def _reference_pagerank(snap, d=0.85, iters=200) -> np.ndarray:
    """GLARE Eq. 6 by power iteration: (1 - d) / N + d * sum over in-neighbours of score / out-degree."""
    n = len(snap)
    out = np.zeros(n)
    for s, _, _, _ in snap.edges:
        out[s] += 1
    x = np.full(n, 1.0 / n)
    for _ in range(iters):
        nxt = np.full(n, (1 - d) / n)
        for s, _, t, _ in snap.edges:
            nxt[t] += d * x[s] / out[s]
        x = nxt
    return x


def test_degree_and_pagerank_rankings(star_graph):
    snap = read_snapshot(star_graph)
    deg = degree_scores(snap)
    assert dict(zip(snap.ids, deg.tolist(), strict=True)) == {
        "M:0": 1, "M:1": 1, "M:2": 1, "M:3": 1, "M:4": 1, "N:H": 5, "N:S": 3, "N:a": 1, "N:b": 1, "N:c": 1}
    pr = pagerank_scores(star_graph, snap)  # Kuzu's page_rank on a temporary writable copy
    assert np.allclose(pr, _reference_pagerank(snap), atol=1e-6)
    assert snap.ids[rank_order(deg)[0]] == "N:H"
    assert snap.ids[rank_order(pr)[0]] == "N:S"
    assert star_graph.read_only  # the served graph is never opened for writing


def test_degree_and_pagerank_differ_on_a_real_graph(northwind_graph, spec):
    snap = read_snapshot(northwind_graph, spec("northwind"))
    deg, pr = degree_scores(snap), pagerank_scores(northwind_graph, snap)
    top_deg = [snap.labels[i] for i in rank_order(deg)[:5]]
    top_pr = [snap.labels[i] for i in rank_order(pr)[:5]]
    assert top_deg == ["Product"] * 5  # most ordered products have the most edges
    assert top_pr == ["Category"] * 5  # every product points at its category: the PageRank sinks


@pytest.mark.parametrize("m", [5, 1000])
def test_pooling_covers_disjoint_one_hop_subgraphs(movies_graph, m, spec):
    snap = read_snapshot(movies_graph, spec("movies"))
    adj = snap.neighbours()
    scores = degree_scores(snap)
    groups = pool(adj, scores, m)
    flat = [n for g in groups for n in g]
    assert len(flat) == len(set(flat))  # no node in two subgraphs
    covered: set[int] = set()
    for g in groups:
        anchor = g[0]
        # the anchor is the best-scored node not yet covered, its members its uncovered neighbours
        assert scores[anchor] == max(scores[i] for i in range(len(snap)) if i not in covered)
        assert set(g[1:]) == adj[anchor] - covered - {anchor}
        covered |= set(g)
    if m == 5:
        assert len(groups) == 5 and len(flat) < len(snap)
    else:
        assert len(flat) == len(snap) and len(groups) < len(snap)  # full coverage before m ran out


# -- retrieval of a planted fact ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def planted(built_graphs, tmp_path_factory, spec):
    """A copy of the movies graph with one planted fact, and its vector memory (stored and reloaded)."""
    home = tmp_path_factory.mktemp("vm-home")
    path = home / "graphs" / "movies"
    path.mkdir(parents=True)
    shutil.copyfile(built_graphs["movies"] / DB_FILE, path / DB_FILE)
    meta = GraphMeta.read(built_graphs["movies"])
    meta.version = "planted-" + meta.version
    meta.write(path)
    db = open_database(path / DB_FILE)
    conn = kuzu.Connection(db)
    conn.execute("CREATE (:Movie {title: 'Zorbium Rising', released: 2031, tagline: 'Element 119 awakens'})")
    conn.execute("CREATE (:Person {name: 'Zygmunt Quarkowski', born: 1977})")
    conn.execute("MATCH (p:Person {name: 'Zygmunt Quarkowski'}), (m:Movie {title: 'Zorbium Rising'}) "
                 "CREATE (p)-[:DIRECTED]->(m)")
    conn.close()
    db.close()
    with Graph(path, read_only=True, pool_size=1) as g:
        memory, where, built = ensure_memory(g, spec("movies"), home / "state", m=300)
        assert built
        again, _, built_again = ensure_memory(g, spec("movies"), home / "state", m=300)
        assert not built_again and len(again) == len(memory)
    return home, VectorMemory.load(where)


def test_memory_is_stored_versioned_without_pickles(planted):
    home, memory = planted
    version = memory.meta.version
    where = memory_dir(home / "state", "movies", version, m=300)
    assert sorted(p.name for p in where.iterdir()) == ["memory.json", "vectors.npy"]
    np.load(where / "vectors.npy", allow_pickle=False)  # plain float32 array
    assert memory.vectors.shape == (memory.meta.subgraphs, 384) and memory.vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(memory.vectors, axis=1), 1.0, atol=1e-5)
    assert memory.meta.node_coverage == 1.0 and memory.meta.nodes == 173
    assert load_memory(home / "state", "movies", "another-version", m=300) is None


def test_retrieval_returns_the_subgraph_with_the_planted_fact(planted, spec):
    _, memory = planted
    hits = memory.retrieve("Who directed Zorbium Rising?", 3)
    holding = memory.member_of("Movie:Zorbium Rising")
    assert holding is not None and holding in [h.index for h in hits]
    hit = next(h for h in hits if h.index == holding)
    assert {"src": "Person:Zygmunt Quarkowski", "rel": "DIRECTED", "dst": "Movie:Zorbium Rising",
            "props": {}} in hit.subgraph["edges"]
    assert hits == sorted(hits, key=lambda h: -h.score)
    out = answer_from_memory("Who directed Zorbium Rising?", hits, words=spec("movies").words)
    assert out.answer == "Zygmunt Quarkowski." and out.entity == "Movie:Zorbium Rising"
    assert out.subgraph["edges"][0]["rel"] == "DIRECTED"
    out = answer_from_memory("When was Zorbium Rising released?", memory.retrieve("When was Zorbium Rising released?",
                                                                                3), words=spec("movies").words)
    assert out.answer == "2031."


@pytest.mark.parametrize("question", [
    "How many movies did Zygmunt Quarkowski direct?",  # counting
    "Did Zygmunt Quarkowski direct Zorbium Rising?",  # yes/no
    "Who produced Zorbium Rising?",  # no such fact: never a guess
    "Who directed Zorbium Rising in 1999?",  # a constraint the fact does not cover
    "Who directed the sequel to Top Gun?",  # the entity's facts do not answer it
])
def test_memory_answer_says_dont_know(planted, question, spec):
    _, memory = planted
    out = answer_from_memory(question, memory.retrieve(question, 3), words=spec("movies").words)
    assert out.answer is None and out.reason


def test_two_nodes_of_one_name_are_ambiguous(spec):
    from kgqa.kg.vector_memory import Hit

    def hit(i: int, key: str, country: str) -> Hit:
        node = {"_label": "City", "id": key, "name": "Cambridge", "country": country, "_name": "Cambridge"}
        return Hit(i, 0.9, f"City:{key}", [f"City:{key}"], {"nodes": {f"City:{key}": node}, "edges": []})

    uk, us = hit(0, "Cambridge, United Kingdom", "United Kingdom"), hit(1, "Cambridge, MA, USA", "USA")
    question = "Which country is Cambridge in?"
    assert answer_from_memory(question, [uk], words=spec("nobel").words).answer == "United Kingdom."
    out = answer_from_memory(question, [uk, us], words=spec("nobel").words)
    assert out.answer is None and "2 entities" in out.reason


def test_stemmer_conflates_schema_and_question_words():
    assert stem("directed") == stem("director") == stem("DIRECTED")
    assert stem("supplies") == stem("supplier") == stem("supply")
    assert stem("movies") == stem("movie") and stem("won") == stem("win")


# -- the pipeline fallback ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fallback_pipe(planted):
    from kgqa.planner.pipeline import Pipeline

    home, _ = planted
    return Pipeline(Settings(home=home, vector_memory=True, vector_memory_m=300), domains=["movies"])


# answered by Cypher / ends "I don't know" after bounded expansion / grounded "none" (no LLM call needed)
CANDIDATES = ["Who directed The Matrix?", "Who played Neo?", "Who produced Cast Away?"]


def _ask(pipe, question: str, on: bool):
    pipe.settings = pipe.settings.with_(vector_memory=on)
    try:
        return pipe.ask(question, "movies", use_answer_cache=False)
    finally:
        pipe.settings = pipe.settings.with_(vector_memory=True)


def test_fallback_only_after_the_cypher_path_failed(fallback_pipe):
    triggered = 0
    for question in CANDIDATES:
        off, on = _ask(fallback_pipe, question, False), _ask(fallback_pipe, question, True)
        assert "vector_memory" not in off.operators and off.evidence != "vector-memory"  # switched off
        if off.status == "answered":  # the Cypher path answered: the memory is never consulted
            assert "vector_memory" not in on.operators and "vector_memory" not in on.timings_ms
            assert (on.status, on.answer, on.evidence) == (off.status, off.answer, off.evidence)
        if "vector_memory" in on.operators:
            assert off.status == "dont_know"
            triggered += 1
            if on.status == "dont_know":  # the memory had no answering fact: still "I don't know"
                assert "don't know" in on.answer and on.evidence != "vector-memory"
    assert triggered >= 1


def test_fallback_answers_from_the_memory_and_is_switchable(fallback_pipe):
    from kgqa.planner import summarizer
    from kgqa.types import Result

    pipe, d = fallback_pipe, fallback_pipe.domains["movies"]
    question = "Who directed Zorbium Rising?"
    r = Result(question, "movies", status="dont_know", answer=summarizer.DONT_KNOW, evidence="none")
    pipe._memory_fallback(question, d, [], r)
    assert (r.status, r.answer, r.evidence) == ("answered", "Zygmunt Quarkowski.", "vector-memory")
    assert r.operators == ["vector_memory"] and r.rows == [] and r.subgraph["edges"]
    done = Result(question, "movies", status="answered", answer="from the rows", evidence="rows")
    pipe._memory_fallback(question, d, [], done)  # the Cypher path answered: untouched
    assert (done.answer, done.operators) == ("from the rows", [])
    pipe.settings = pipe.settings.with_(vector_memory=False)
    try:
        off = Result(question, "movies", status="dont_know", answer=summarizer.DONT_KNOW, evidence="none")
        pipe._memory_fallback(question, d, [], off)
    finally:
        pipe.settings = pipe.settings.with_(vector_memory=True)
    assert (off.status, off.evidence, off.operators) == ("dont_know", "none", [])


def test_meta_file_untouched_by_memory(planted):
    home, _ = planted
    assert (home / "graphs" / "movies" / META_FILE).exists()
    assert not list((home / "graphs" / "movies").glob("vector*"))  # the memory lives in state, not the graph


def test_fallback_also_follows_the_early_dont_know_exits(fallback_pipe):
    # no plan reads "7 days": the pipeline stops before executing (naming it), and the memory is still asked,
    # but its fact does not cover the constraint, so "I don't know" stands
    r = fallback_pipe.ask("Who directed Zorbium Rising in 7 days?", "movies", use_answer_cache=False)
    assert "7" in r.error and ("does not account for" in r.error or "could not be read" in r.error)
    assert "vector_memory" in r.operators and "vector_memory" in r.timings_ms
    assert r.status == "dont_know" and r.evidence == "none"
