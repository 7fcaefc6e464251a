"""Schema introspection, local schemas of entities, row rendering and the graph checksum."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

import kgqa.kg.loader as loader
from kgqa.kg.db import Graph
from kgqa.kg.schema import GraphSchema, graph_checksum, local_schema, render_row, render_value


@pytest.fixture(scope="module")
def movies_schema(movies_graph) -> GraphSchema:
    return GraphSchema.from_graph(movies_graph)


@pytest.fixture(scope="module")
def nobel_schema(nobel_graph) -> GraphSchema:
    return GraphSchema.from_graph(nobel_graph)


# -- GraphSchema -------------------------------------------------------------------------------------
def test_movies_schema_from_catalogue(movies_schema, movies_graph):
    assert set(movies_schema.nodes) == {"Movie", "Person"}
    movie = movies_schema.nodes["Movie"]
    assert movie.primary_key == "title" and movie.types["released"] == "INT64" and movie.count == 38
    assert movies_schema.rels["ACTED_IN"].pairs == [("Person", "Movie")]
    assert movies_schema.rels["ACTED_IN"].types == {"roles": "STRING[]"}
    assert movies_schema.rels["FOLLOWS"].pairs == [("Person", "Person")]
    assert movies_schema.rels["REVIEWED"].count == movies_graph.query(
        "MATCH ()-[r:REVIEWED]->() RETURN count(r)").rows[0][0]
    assert ("FOLLOWS", "out", "Person") in movies_schema.neighbours("Person")
    assert ("FOLLOWS", "in", "Person") in movies_schema.neighbours("Person")


def test_samples_are_distinct_short_strings(movies_schema, movies_graph):
    names = movies_schema.nodes["Person"].samples["name"]
    assert 0 < len(names) <= 3 and len(set(names)) == len(names)
    for name in names:
        assert movies_graph.query("MATCH (p:Person {name: $n}) RETURN count(p)", {"n": name}).rows == [[1]]
    assert "born" not in movies_schema.nodes["Person"].samples  # INT64: no samples
    assert all(len(v) <= 40 for vs in movies_schema.nodes["Movie"].samples.values() for v in vs)
    assert set(movies_schema.rels["REVIEWED"].samples) == {"summary"}


def test_render_is_compact(movies_schema, nobel_schema, northwind_graph):
    text = movies_schema.render()
    assert "(Person)-[:ACTED_IN {roles STRING[]}]->(Movie)" in text
    assert "Movie(title STRING KEY, released INT64, tagline STRING, votes INT64)" in text
    assert len(text) < 1000 and len(movies_schema.render(samples=False)) < len(text)
    assert len(nobel_schema.render()) < 2500
    northwind = GraphSchema.from_graph(northwind_graph).render()
    assert "`Order`(orderID STRING KEY" in northwind and "(Customer)-[:PURCHASED]->(`Order`)" in northwind
    assert "0x151C2F" not in northwind  # blobs never become samples


def test_to_dict_round_trips_names(nobel_schema):
    d = nobel_schema.to_dict()
    assert d["nodes"]["Laureate"]["primary_key"] == "id"
    assert d["rels"]["BORN_IN"]["pairs"] == [["Laureate", "City"]]


# -- local schema ------------------------------------------------------------------------------------
def test_local_schema_of_tom_hanks(movies_graph, movies_schema, spec):
    local = local_schema(movies_graph, "Person", "Tom Hanks", schema=movies_schema, spec=spec("movies"))
    assert local.properties == {"name": "Tom Hanks", "born": 1956}
    acted = local.rel("ACTED_IN", "out", "Movie")
    assert acted.count == 12 and acted.properties == [("roles", "STRING[]")]
    assert local.rel("DIRECTED", "out", "Movie").count == 1
    assert local.rel("DIRECTED").samples == ["That Thing You Do"]
    assert local.rel("FOLLOWS") is None  # no such edge within one hop
    direct = movies_graph.query("MATCH (:Person {name: 'Tom Hanks'})-[:ACTED_IN]->(m) RETURN m.title").rows
    assert set(acted.samples) <= {t for (t,) in direct} and len(acted.samples) == 3
    text = local.render()
    assert "(Person)-[:ACTED_IN {roles}]->(Movie) x12" in text and "Tom Hanks" in text


def test_local_schema_of_a_movie_sees_incoming_edges(movies_graph, movies_schema, spec):
    local = local_schema(movies_graph, "Movie", "The Matrix", schema=movies_schema, spec=spec("movies"))
    assert local.rel("ACTED_IN", "in", "Person").count == 5
    assert local.rel("DIRECTED", "in").count == 2
    assert "(Movie)<-[:ACTED_IN {roles}]-(Person) x5" in local.render()


def test_local_schema_of_marie_curie(nobel_graph, nobel_schema, spec):
    (key,), = nobel_graph.query("MATCH (l:Laureate {knownName: 'Marie Curie'}) RETURN l.id").rows
    local = local_schema(nobel_graph, "Laureate", key, schema=nobel_schema, spec=spec("nobel"))
    assert local.properties["gender"] == "female" and local.properties["birthYear"] == 1867
    won = local.rel("WON", "out", "Prize")
    assert won.count == 2 and sorted(won.samples) == ["chemistry-1911", "physics-1903"]
    born = local.rel("BORN_IN", "out", "City")
    assert born.count == 1 and born.samples == ["Warsaw"]
    assert [p for p, _ in born.properties] == ["city", "country"]


def test_local_schema_of_unknown_entity(movies_graph):
    with pytest.raises(KeyError):
        local_schema(movies_graph, "Person", "Nobody Atall")
    with pytest.raises(KeyError):
        local_schema(movies_graph, "Planet", "Mars")


# -- render_row --------------------------------------------------------------------------------------
def test_render_row_nodes_rels_and_lists(movies_graph, spec):
    row = movies_graph.query(
        "MATCH (p:Person {name: 'Keanu Reeves'})-[r:ACTED_IN]->(m:Movie {title: 'The Matrix'}) "
        "RETURN p, r, m, [p.name, m.title], m.released").rows[0]
    assert render_row(row, spec("movies")) == ["Keanu Reeves", {"roles": ["Neo"]}, "The Matrix",
                                       ["Keanu Reeves", "The Matrix"], 1999]
    collected = movies_graph.query(
        "MATCH (p:Person)-[:DIRECTED]->(m:Movie {title: 'The Matrix'}) RETURN collect(p)").rows[0]
    assert sorted(render_row(collected, spec("movies"))[0]) == ["Lana Wachowski", "Lilly Wachowski"]


def test_render_row_uses_each_domain_display(northwind_graph, nobel_graph, spec):
    row = northwind_graph.query("MATCH (s:Supplier)-[:SUPPLIES]->(p:Product {productID: '1'})"
                                "-[:PART_OF]->(c:Category) RETURN s, p, c").rows[0]
    assert render_row(row, spec("northwind")) == ["Exotic Liquids", "Chai", "Beverages"]
    order = northwind_graph.query("MATCH (o:`Order` {orderID: '10248'}) RETURN o").rows[0]
    assert render_row(order, spec("northwind")) == ["10248"]
    prize = nobel_graph.query("MATCH (l:Laureate)-[:WON]->(p:Prize {id: 'physics-1903'}) "
                              "RETURN l, p ORDER BY l.knownName LIMIT 1").rows[0]
    assert render_row(prize, spec("nobel")) == ["Henri Becquerel", "physics-1903"]


def test_render_row_paths(movies_graph, spec):
    row = movies_graph.query("MATCH p = (:Person {name: 'Paul Blythe'})-[:FOLLOWS*1..2]->(:Person) "
                             "RETURN p ORDER BY length(p) DESC LIMIT 1").rows[0]
    assert render_row(row, spec("movies")) == [["Paul Blythe", "Angela Scope", "Jessica Thompson"]]


def test_render_value_plain_types(spec):
    assert render_value(Decimal("1.5"), spec("movies")) == 1.5
    assert render_value(datetime.date(2020, 1, 2), spec("movies")) == "2020-01-02"
    assert render_value({"a": [1, None]}, spec("movies")) == {"a": [1, None]}


# -- checksum ----------------------------------------------------------------------------------------
def test_checksum_stable_across_reopen(built_graphs, movies_graph):
    first = graph_checksum(movies_graph)
    with Graph(built_graphs["movies"]) as again:
        assert graph_checksum(again) == first
    assert len(first) == 64


def test_checksum_differs_between_graphs(movies_graph, nobel_graph):
    assert graph_checksum(movies_graph) != graph_checksum(nobel_graph)


def test_checksum_sees_value_and_edge_changes(tmp_path, data_dir):
    loader.build_domain("movies", data_dir, tmp_path, progress=False, index=False)
    with Graph(tmp_path / "movies", read_only=False) as g:
        base = graph_checksum(g)
        g.execute_unchecked("MATCH (p:Person {name: 'Tom Hanks'}) SET p.born = 1957")
        changed_value = graph_checksum(g)
        g.execute_unchecked("MATCH (p:Person {name: 'Tom Hanks'}) SET p.born = 1956")
        assert graph_checksum(g) == base
        g.execute_unchecked("MATCH (:Person {name: 'Paul Blythe'})-[r:FOLLOWS]->() DELETE r")
        g.execute_unchecked("MATCH (a:Person {name: 'Paul Blythe'}), (b:Person {name: 'James Thompson'}) "
                            "CREATE (a)-[:FOLLOWS]->(b)")  # same counts, rewired
        rewired = graph_checksum(g)
    assert len({base, changed_value, rewired}) == 3
