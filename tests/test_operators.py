"""Bounded operators: K_depth refusal, K_degree bounds (super-nodes included), predicate pruning."""

from __future__ import annotations

import kuzu
import pytest

from kgqa.kg.db import Graph, open_database
from kgqa.kg.operators import (
    DepthLimitExceeded,
    UnknownSchemaItem,
    breadth_expand,
    catalog,
    depth_expand,
    humanize,
    node_predicates,
    rank_predicates,
)

HUB = "Hub Star"
N_FILMS = 120


@pytest.fixture(scope="module")
def star_graph(tmp_path_factory):
    """One super-node acting in, directing and reviewing 120 films, following 40 people."""
    d = tmp_path_factory.mktemp("star")
    db = open_database(d / "graph.kuzu")
    conn = kuzu.Connection(db)
    conn.execute("CREATE NODE TABLE Person(name STRING PRIMARY KEY, born INT64, bio STRING)")
    conn.execute("CREATE NODE TABLE Movie(id INT64 PRIMARY KEY, title STRING, released INT64)")
    conn.execute("CREATE REL TABLE ACTED_IN(FROM Person TO Movie, roles STRING[])")
    conn.execute("CREATE REL TABLE DIRECTED(FROM Person TO Movie)")
    conn.execute("CREATE REL TABLE REVIEWED(FROM Person TO Movie, rating INT64)")
    conn.execute("CREATE REL TABLE FOLLOWS(FROM Person TO Person)")
    conn.execute("CREATE (:Person {name: $n, born: 1960, bio: 'a prolific actor'})", {"n": HUB})
    conn.execute("UNWIND range(1, $n) AS i CREATE (:Movie {id: i, title: 'Film ' + CAST(i AS STRING), "
                 "released: 1980 + i % 40})", {"n": N_FILMS})
    conn.execute("UNWIND range(1, 40) AS i CREATE (:Person {name: 'Fan ' + CAST(i AS STRING), born: 1990})")
    for rel, extra in (("ACTED_IN", " {roles: ['Lead']}"), ("DIRECTED", ""), ("REVIEWED", " {rating: 7}")):
        conn.execute(f"MATCH (p:Person {{name: $n}}), (m:Movie) CREATE (p)-[:{rel}{extra}]->(m)", {"n": HUB})
    conn.execute("MATCH (p:Person {name: $n}), (f:Person) WHERE f.name STARTS WITH 'Fan' "
                 "CREATE (p)-[:FOLLOWS]->(f), (f)-[:FOLLOWS]->(p)", {"n": HUB})
    conn.close()
    db.close()
    g = Graph(d)
    yield g
    g.close()


def test_catalog_reads_keys_and_relations(star_graph):
    cat = catalog(star_graph)
    assert cat.primary_keys == {"Person": "name", "Movie": "id"}
    assert cat.rels["FOLLOWS"] == [("Person", "Person")]
    assert ("FOLLOWS", "in", "Person") in cat.predicates("Person")
    assert cat.key_match("m", "Movie", "7") == ("m.id = 7", {})
    assert cat.key_match("p", "Person", HUB) == ("p.name = $key", {"key": HUB})


def test_humanize():
    assert humanize("ACTED_IN") == "acted in"
    assert humanize("birthDate") == "birth date"


def test_depth_expand_follows_one_relation_within_limit(star_graph):
    sub = depth_expand(star_graph, [("Person", HUB)], "ACTED_IN", "out", k_depth_used=0, limit=10)
    assert len(sub.edges) == 10
    assert all(e["rel"] == "ACTED_IN" and e["src"] == f"Person:{HUB}" for e in sub.edges)
    assert all(e["props"] == {"roles": ["Lead"]} for e in sub.edges)
    movie = next(v for k, v in sub.nodes.items() if k.startswith("Movie:"))
    assert movie["_label"] == "Movie" and movie["title"].startswith("Film ")


def test_depth_expand_incoming_from_integer_keys(star_graph):
    sub = depth_expand(star_graph, [("Movie", "3"), ("Movie", 4)], "DIRECTED", "in", k_depth_used=1)
    assert {(e["src"], e["dst"]) for e in sub.edges} == {(f"Person:{HUB}", "Movie:3"), (f"Person:{HUB}", "Movie:4")}


def test_depth_expand_limit_spans_the_whole_frontier(star_graph):
    frontier = [("Person", f"Fan {i}") for i in range(1, 41)]
    sub = depth_expand(star_graph, frontier, "FOLLOWS", "both", k_depth_used=2, limit=25)
    assert len(sub.edges) == 25


def test_depth_expand_refuses_past_k_depth(star_graph):
    with pytest.raises(DepthLimitExceeded):
        depth_expand(star_graph, [("Person", HUB)], "ACTED_IN", "out", k_depth_used=3, k_depth=3)
    with pytest.raises(DepthLimitExceeded):
        depth_expand(star_graph, [("Person", HUB)], "ACTED_IN", "out", k_depth_used=1, k_depth=1)


def test_depth_expand_rejects_unknown_or_injected_names(star_graph):
    with pytest.raises(UnknownSchemaItem):
        depth_expand(star_graph, [("Person", HUB)], "WROTE", "out", k_depth_used=0)
    with pytest.raises(UnknownSchemaItem):
        depth_expand(star_graph, [("Person", HUB)], "ACTED_IN]->() DETACH DELETE (", "out", k_depth_used=0)
    with pytest.raises(UnknownSchemaItem):
        depth_expand(star_graph, [("Person`) //", HUB)], "ACTED_IN", "out", k_depth_used=0)


@pytest.mark.parametrize("k", [0, 1, 5, 30])
def test_breadth_expand_never_exceeds_k_degree_on_a_super_node(star_graph, k):
    sub = breadth_expand(star_graph, ("Person", HUB), "what films did this actor star in", k_degree=k)
    assert len(sub.edges) <= k
    assert f"Person:{HUB}" in sub.nodes
    if k >= 5:
        assert len(sub.edges) == k  # the budget is used when the neighbourhood is large


def test_breadth_expand_prunes_predicates_by_the_question(star_graph):
    sub = breadth_expand(star_graph, ("Person", HUB), "Which films did he review and how were they rated?",
                         k_degree=3)
    first = rank_predicates(node_predicates(catalog(star_graph), "Person"),
                            "Which films did he review and how were they rated?")[0]
    assert (first.kind, first.name) == ("rel", "REVIEWED")
    assert {e["rel"] for e in sub.edges} <= {"REVIEWED", "FOLLOWS", "ACTED_IN", "DIRECTED"}
    assert "REVIEWED" in {e["rel"] for e in sub.edges}


def test_breadth_expand_without_question_spreads_over_predicates(star_graph):
    sub = breadth_expand(star_graph, ("Person", HUB), None, k_degree=30)
    rels = {(e["rel"], e["src"] == f"Person:{HUB}") for e in sub.edges}
    assert len(sub.edges) == 30 and len(rels) >= 4  # every relation gets a share, none floods
    assert sub.nodes[f"Person:{HUB}"]["bio"] == "a prolific actor"


def test_breadth_expand_missing_node(star_graph):
    assert len(breadth_expand(star_graph, ("Person", "Nobody"), "anything", k_degree=5)) == 0


# -- the real graphs: their highest-degree node --------------------------------------------------------
def highest_degree_node(graph) -> tuple[str, str, int]:
    cat = catalog(graph)
    best = ("", "", -1)
    for label, pk in cat.primary_keys.items():
        rows = graph.query(f"MATCH (n:`{label}`)-[r]-() RETURN n.`{pk}`, count(r) AS d ORDER BY d DESC LIMIT 1").rows
        if rows and rows[0][1] > best[2]:
            best = (label, rows[0][0], rows[0][1])
    return best


@pytest.mark.parametrize("domain", ["movies", "northwind", "nobel"])
def test_bounds_on_the_highest_degree_node(domain, request):
    graph = request.getfixturevalue(f"{domain}_graph")
    label, key, degree = highest_degree_node(graph)
    assert degree > 5, (label, key, degree)  # movies tops out at 14; northwind and nobel have super-nodes
    if domain != "movies":
        assert degree > 30
    for k in (5, 30):
        sub = breadth_expand(graph, (label, key), "what is connected to this", k_degree=k)
        assert 0 < len(sub.edges) <= k
        assert all(v.get("_label") for v in sub.nodes.values())
    cat = catalog(graph)
    rel, direction, _ = cat.predicates(label)[0]
    sub = depth_expand(graph, [(label, key)], rel, direction, k_depth_used=2, k_depth=3, limit=30)
    assert len(sub.edges) <= 30
    with pytest.raises(DepthLimitExceeded):
        depth_expand(graph, [(label, key)], rel, direction, k_depth_used=3, k_depth=3)
