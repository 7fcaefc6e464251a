"""The summarizer's rules on rows: which columns the sentence names, and when evidence lists are read as items."""

from kgqa.planner.cypher_outline import of_cypher
from kgqa.planner.summarizer import (
    evidence_columns,
    evidence_items,
    fixed_columns,
    summarize,
    tie_note,
    top_group,
)


def test_a_list_of_one_evidence_item_is_that_item():
    columns = ["s.companyName", "s.supplierID", "COLLECT(p.productName)", "COLLECT(p.unitPrice)"]
    lists = of_cypher("MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) RETURN s.companyName, s.supplierID, "
                      "collect(p.productName), collect(p.unitPrice)").lists
    rows = [["Mayumi's", "6", ["Konbu"], [6.0]], ["G'day", "24", ["Filo Mix"], [7.0]]]
    assert evidence_items(columns, rows, lists) == (
        ["s.companyName", "s.supplierID", "p.productName", "p.unitPrice"],
        [["Mayumi's", "6", "Konbu", 6.0], ["G'day", "24", "Filo Mix", 7.0]])
    # two items on some row: every row keeps its list, so the column has one type; the lists of a row in one
    # order, item by item (collect's order varies)
    rows[1][2:] = [["Gnocchi", "Filo Mix"], [38.0, 7.0]]
    assert evidence_items(columns, rows, lists) == (columns, [rows[0], ["G'day", "24", ["Filo Mix", "Gnocchi"],
                                                                         [7.0, 38.0]]])
    # lists the question asked for (collect(DISTINCT ...), a list property) are not evidence
    asked = ["m.title", "collect(DISTINCT r.rating)"]
    lists = of_cypher("MATCH (m:Movie)<-[r:REVIEWED]-() RETURN m.title, collect(DISTINCT r.rating)").lists
    assert evidence_items(asked, [["Cloud Atlas", [95]]], lists) == (asked, [["Cloud Atlas", [95]]])


def test_evidence_and_values_the_question_fixed_stay_out_of_the_sentence():
    cypher = ("MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) WHERE p.unitPrice < $v0 AND s.country = 'UK' "
              "WITH DISTINCT s, p RETURN s.companyName, s.country, collect(p.productName), collect(p.unitPrice)")
    columns = ["s.companyName", "s.country", "p.productName", "p.unitPrice"]
    outline = of_cypher(cypher)
    assert fixed_columns(columns, outline.fixed) == {1} and evidence_columns(columns, outline.lists) == set()
    answer, status = summarize("?", columns, [["Exotic Liquids", "UK", "Chai", 18.0]], outline=outline)
    assert (answer, status) == ("Exotic Liquids (Chai, 18).", "answered")  # one product: said beside it
    lists = ["s.companyName", "s.country", "COLLECT(p.productName)", "COLLECT(p.unitPrice)"]
    assert evidence_columns(lists, outline.lists) == {2, 3}
    answer, _ = summarize("?", lists, [["Exotic Liquids", "UK", ["Chai", "Chang"], [18.0, 19.0]]], outline=outline)
    assert answer == "Exotic Liquids."
    # a name set equal to the question's entity is kept: "Yes (The Matrix, 1999, Cast Away, 2000)"
    compare = of_cypher("MATCH (a:Movie), (b:Movie) WHERE a.title = $a AND b.title = $b "
                        "RETURN a.released < b.released, a.title").fixed
    assert fixed_columns(["x", "a.title"], compare, names={"title"}) == set()
    assert fixed_columns(["x", "a.title"], compare) == {1}
    # a cast numeric text and a boolean; a comparison with another property fixes nothing
    assert fixed_columns(["o.orderID", "o.shipVia"], of_cypher("WHERE CAST(o.shipVia AS DOUBLE) = 1 RETURN").fixed) == {1}
    assert fixed_columns(["p.productName", "p.discontinued"],
                         of_cypher("WHERE p.discontinued = false RETURN").fixed) == {1}
    assert fixed_columns(["o.orderID", "o.shippedDate"], of_cypher("WHERE o.shippedDate = o.requiredDate").fixed) == set()


def test_a_tie_at_the_cut_names_who_else_is_tied():
    assert tie_note(2, ["Japan"], cut=3) == "Japan also has 2: the top 3 cuts through a tie."
    names = [f"n{i}" for i in range(8)]
    assert tie_note(2.5, names, True, cut=5) == ("n0, n1, n2, n3, n4 and 3+ more also have 2.5: the top 5 cuts "
                                                 "through a tie.")


def test_the_top_group_names_its_members_and_their_figure():
    assert top_group(["Pavlova", "Plutzer"], 5, "product") == "Pavlova and Plutzer, with 5 products each."
    assert top_group(["A Few Good Men"], 12, "person") == "A Few Good Men, with 12 people."
    assert top_group(["Lyngbysild"], 1, "product") == "Lyngbysild, with 1 product."
    cypher = ("MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) WITH s.companyName AS companyName, count(DISTINCT p) AS "
              "value WITH max(value) AS top MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) WITH top, s.companyName AS "
              "companyName, count(DISTINCT p) AS value WHERE value = top RETURN companyName, value")
    assert of_cypher(cypher).counted == "Product" and of_cypher(cypher + " ORDER BY value").counted is None
    assert summarize("?", ["companyName", "value"], [["Pavlova", 5], ["Plutzer", 5]], outline=of_cypher(cypher)) == (
        "Pavlova and Plutzer, with 5 products each.", "answered")
