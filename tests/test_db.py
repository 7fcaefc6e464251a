"""Guarded execution on a real graph: timeouts, row caps, EXPLAIN error text, read-only engine."""

import pytest

from kgqa.kg.db import Graph, QueryError, QueryTimeout
from kgqa.kg.safety import UnsafeQueryError
from kgqa.kg.schema import graph_checksum


def test_row_cap_truncates_and_says_so(northwind_graph):
    r = northwind_graph.query("MATCH (o:`Order`) RETURN o.orderID", row_cap=10)
    assert len(r.rows) == 10 and r.truncated
    r = northwind_graph.query("MATCH (c:Category) RETURN c.categoryName", row_cap=10)
    assert len(r.rows) == 8 and not r.truncated


def test_timeout_stops_a_runaway_query(movies_graph):
    with pytest.raises(QueryTimeout):
        movies_graph.query("UNWIND range(1, 1000000) AS x UNWIND range(1, 1000) AS y RETURN sum(x * y)",
                           timeout_ms=300)
    # the connection is usable afterwards
    assert movies_graph.query("MATCH (m:Movie) RETURN count(m)").rows == [[38]]


def test_explain_returns_kuzu_error_text(movies_graph):
    assert movies_graph.explain("MATCH (m:Movie) RETURN m.title") is None
    err = movies_graph.explain("MATCH (m:Movie) RETURN m.director")
    assert err and "director" in err
    err = movies_graph.explain("MATCH (m:Film) RETURN m")
    assert err and "Film" in err
    assert movies_graph.explain("MATCH (m:Movie) DELETE m").startswith("Unsafe query")


def test_parameters_are_data_not_code(movies_graph):
    r = movies_graph.query("MATCH (p:Person) WHERE p.name = $n RETURN p.born",
                           {"n": "x' OR 1=1 DETACH DELETE p //"})
    assert r.rows == []


def test_read_only_engine_refuses_writes_even_unguarded(movies_graph):
    before = graph_checksum(movies_graph)
    with pytest.raises(UnsafeQueryError):
        movies_graph.query("MATCH (m:Movie) DETACH DELETE m")
    with pytest.raises(QueryError):  # the guard bypassed: Kuzu itself refuses on a read-only database
        movies_graph.execute_unchecked("CREATE (m:Movie {title: 'Injected'})")
    assert graph_checksum(movies_graph) == before


def test_missing_graph_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="kgqa load"):
        Graph(tmp_path / "nothing")


BOMB = ("MATCH (a:`Order`), (b:`Order`), (c:Category) RETURN count(DISTINCT a.shipAddress + b.shipAddress "
        "+ c.description + a.orderID + b.orderID) AS n")


def test_a_memory_bomb_hits_the_buffer_pool_cap_not_the_machine(built_graphs):
    """Kuzu's default pool is 80% of RAM per database; capped, a query whose hash table would need ~1 GB
    fails at once with Kuzu's own error, and the service's graph stays usable."""
    with Graph(built_graphs["northwind"], buffer_pool_mb=64, timeout_ms=20_000, pool_size=1) as g:
        with pytest.raises(QueryError, match="buffer pool is full"):
            g.query(BOMB)
        assert g.query("MATCH (c:Category) RETURN count(*)").rows == [[8]]


def test_the_service_caps_the_buffer_pool(built_graphs, kgqa_home):
    from kgqa.planner.pipeline import Pipeline
    from kgqa.settings import Settings

    assert Settings().buffer_pool_mb == 1024
    pipe = Pipeline(Settings(home=kgqa_home, buffer_pool_mb=64), domains=["northwind"])
    r = pipe.ask("Which products does Exotic Liquids supply?", "northwind")
    assert r.status == "answered"  # a 64 MB pool holds a real graph's working set
    with pytest.raises(QueryError, match="buffer pool is full"):
        pipe.domains["northwind"].graph.query(BOMB)


def test_a_process_can_hold_many_graphs_open(built_graphs):
    """Kuzu's default reserves 8 TiB of address space per database (~15 per process); the cap lets a
    server, its benchmarks and tests keep dozens open."""
    graphs = [Graph(built_graphs["movies"], pool_size=1, buffer_pool_mb=64) for _ in range(40)]
    try:
        assert {g.query("MATCH (m:Movie) RETURN count(*)").rows[0][0] for g in graphs} == {38}
    finally:
        for g in graphs:
            g.close()
