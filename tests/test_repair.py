"""The deterministic post-processor and the EXPLAIN repair loop."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kgqa.kg.safety import FORBIDDEN
from kgqa.planner.repair import postprocess, validate_and_repair
from kgqa.planner.schema_view import SchemaView


@pytest.fixture(scope="module")
def nw(northwind_graph, spec):
    return SchemaView.from_graph(northwind_graph, spec("northwind"))


def test_reserved_label_is_quoted(nw):
    assert "(o:`Order`)" in postprocess("MATCH (o:Order) RETURN o.orderID", nw)


def test_hallucinated_property_maps_to_closest(nw):
    q = postprocess("MATCH (p:Product) WHERE p.unitprice > 10 RETURN p.productname", nw)
    assert "p.unitPrice" in q and "p.productName" in q


def test_bare_node_returns_display_property(nw):
    assert postprocess("MATCH (s:Supplier) RETURN s", nw).endswith("RETURN s.companyName")


def test_repair_loop_fixes_and_validates(northwind_graph, nw):
    fixed = validate_and_repair(northwind_graph, nw, "MATCH (o:Order)-[:ORDERS]->(p:Product) RETURN p.prodName")
    assert fixed.ok and len(fixed.attempts) >= 2 and fixed.attempts[0][1]
    assert northwind_graph.explain(fixed.cypher) is None


def test_repair_refuses_writes(northwind_graph, nw):
    r = validate_and_repair(northwind_graph, nw, "MATCH (p:Product) DETACH DELETE p")
    assert not r.ok and "Unsafe" in r.attempts[-1][1]


names = st.sampled_from(["p", "o", "s", "c", "x"])
labels = st.sampled_from(["Product", "Order", "Supplier", "Customer", "Category", "Nope"])
props = st.sampled_from(["productName", "unitprice", "companyname", "orderID", "foo", "city"])


@settings(max_examples=200, deadline=None)
@given(v=names, label=labels, prop=props, limit=st.integers(1, 50))
def test_postprocess_is_idempotent_and_never_writes(nw, v, label, prop, limit):
    q = f"MATCH ({v}:{label}) WHERE {v}.{prop} IS NOT NULL RETURN {v} LIMIT {limit}"
    once = postprocess(q, nw)
    assert postprocess(once, nw) == once
    words = {w.upper() for w in once.replace("(", " ").replace(")", " ").split()}
    assert not (words & set(FORBIDDEN))
    assert f"LIMIT {limit}" in once
