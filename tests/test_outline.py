"""A plan's outline (how its rows are made) read from the query tree, and from Cypher no tree wrote; the two agree."""

from dataclasses import replace

from kgqa.planner.cypher_outline import of_cypher, past_cut
from kgqa.planner.dispatcher import plainly_stated, presupposed
from kgqa.planner.outline import of_query
from kgqa.planner.plan import Plan
from kgqa.planner.query import Absent, Column, Edge, Query, Where, to_cypher


def _ranking(**kw) -> Query:
    """The 3 most expensive products of a supplier, shown with their discontinued flag (fixed by a condition)."""
    price = Column("p", "unitPrice")
    return Query(nodes={"s": "Supplier", "p": "Product"}, edges=[Edge("r", "SUPPLIES", "s", "p")],
                 where=[Where("s", "country", "=", "UK"), Where("p", "discontinued", "=", False),
                        Where("p", "reorderLevel", ">", Column("p", "unitsInStock"))],
                 columns=[Column("p", "productName"), price, Column("p", "discontinued"), Column("p", "reorderLevel")],
                 order=[(price, True)], limit=3, **kw)


def test_a_ranking_cut_by_a_limit_names_its_column_and_the_rows_it_keeps():
    q = _ranking()
    o = of_query(q, "Product")
    assert (o.target, o.ordered, o.cut, o.limit, o.unranked) == ("Product", True, ("unitPrice", 3), 3, False)
    # what the question fixed is the same on every row; a comparison with another property fixes nothing
    assert o.fixed == {("discontinued", "discontinued")} and o.rels == {"SUPPLIES"}
    # the rules reader's Cypher says the same, read back from its text
    cypher, _ = to_cypher(q)
    assert of_cypher(cypher).cut == o.cut and of_cypher(cypher).ordered


def test_the_rows_past_a_cut_come_from_the_tree_as_from_the_text():
    q = _ranking()
    cypher, params = to_cypher(q)
    by_tree = Plan(cypher, params, of_query(q), tree=q).past_cut(3, 30)
    assert by_tree[0].endswith("SKIP 3 LIMIT 30") and by_tree == (past_cut(cypher, 3, 30), params)
    # a repaired plan is no longer the tree's: its outline is read from the new text, what the text cannot say kept
    again = Plan(cypher, params, of_query(q, "Product"), tree=q).rewritten(cypher.replace("LIMIT 3", "LIMIT 4"))
    assert again.tree is None and again.outline.cut == ("unitPrice", 4) and again.outline.target == "Product"


def test_an_unranked_top_n_an_order_without_a_limit_and_no_order():
    assert of_query(_ranking(unranked=True)).cut is None
    q = _ranking()
    q.limit = None
    assert of_query(q).ordered and of_query(q).cut is None
    q.order = []
    assert not of_query(q).ordered


def test_relationships_of_a_pattern_that_must_not_exist_are_walked_too():
    q = Query(nodes={"c": "Customer", "o": "Order"}, columns=[Column("c", "companyName")],
              absent=[Absent(edges=[Edge("r", "PURCHASED", "c", "o")], own={"o"})])
    assert of_query(q).rels == {"PURCHASED"} and not of_query(q).fixed


def test_what_a_tree_returns_beside_its_names_stays_in_the_rows_not_the_sentence():
    """The sentence names what was asked: a node's key beside its name and a flag the question set are in the
    rows only, as for the rules reader's plans (whose columns are named ``variable.property``)."""
    from kgqa.planner.summarizer import summarize

    q = Query(nodes={"p": "Product"}, where=[Where("p", "discontinued", "=", True)],
              columns=[Column("p", "productName"), Column("p", "productID"), Column("p", "unitPrice"),
                       Column("p", "discontinued")])
    names = ["productName", "productID", "unitPrice", "discontinued"]
    answer, _ = summarize("?", names, [["Chai", "1", 18.0, True], ["Chang", "2", 19.0, True]],
                          keys={"productID"}, outline=of_query(q, "Product"))
    assert answer == "Chai (18); Chang (19) (2 in all)."


def _directed(*where: Where, **kw) -> Query:
    return Query(nodes={"p": "Person", "m": "Movie"}, edges=[Edge("r", "DIRECTED", "p", "m")], where=list(where),
                 columns=[Column("m", "title")], **kw)


def test_a_tree_is_plainly_stated_when_it_only_ties_stated_values_to_properties():
    keanu = Where("p", "name", "=", "Keanu Reeves")
    assert plainly_stated(_directed(keanu)) and plainly_stated(_directed(keanu, Where("m", "released", "<", 1970)))
    assert not plainly_stated(_directed())  # nothing stated: no rows says nothing
    assert not plainly_stated(_directed(Where("p", "name", "CONTAINS", "Keanu")))  # text searched: maybe elsewhere
    assert not plainly_stated(_directed(keanu, limit=3))
    assert not plainly_stated(_directed(Where("m", "released", ">", Column("p", "born"))))  # a value not stated
    two = Query(nodes={"p": "Person", "q": "Person", "m": "Movie"},
                edges=[Edge("r", "ACTED_IN", "p", "m"), Edge("s", "ACTED_IN", "q", "m")],
                where=[keanu, Where("q", "name", "=", "Tom Cruise")], columns=[Column("m", "title")])
    assert not plainly_stated(two)  # "movies of Keanu Reeves and Tom Cruise": both, or either?
    assert not plainly_stated(replace(_directed(keanu), columns=[Column("m", None, "count")]))


def test_its_presuppositions_are_read_from_the_graph(movies_graph):
    g = movies_graph
    assert presupposed(_directed(Where("p", "name", "=", "Keanu Reeves")), g)  # he directed nothing
    assert not presupposed(_directed(Where("p", "name", "=", "Keanu Reeeves")), g)  # no such name
    assert not presupposed(_directed(Where("m", "title", "=", "Keanu Reeves")), g)  # a name, not a title
    follows = Query(nodes={"p": "Person", "m": "Movie"}, edges=[Edge("r", "FOLLOWS", "p", "m")],
                    where=[Where("p", "name", "=", "Keanu Reeves")], columns=[Column("m", "title")])
    assert not presupposed(follows, g)  # no person follows a movie: the pattern itself is empty
