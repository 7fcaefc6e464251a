"""Parameterized plan reuse: slots from a verified query, filling them, and refusing when unsure."""

from __future__ import annotations

import json

import pytest

from kgqa.cache.templates import Binding, PlanTemplate, Span, fill, make_template
from kgqa.types import EntityCandidate

NW_KEYS = {"Supplier": "supplierID", "Product": "productID", "Category": "categoryID"}
NW_DISPLAY = {"Supplier": "companyName", "Product": "productName", "Category": "categoryName"}
SUPPLIERS = {"exotic liquids": "1", "new orleans cajun delights": "2", "tokyo traders": "4"}


def link(text: str, label: str) -> list[EntityCandidate]:
    """A caller-supplied linker over a small name table: exact names only, one label."""
    key = SUPPLIERS.get(text.casefold())
    return [EntityCandidate("Supplier", key, text.title(), 1.0, "companyName", "exact")] if key else []


SUPPLY_Q = "Which products does 'Exotic Liquids' supply?"
SUPPLY_CY = ("MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) WHERE s.companyName = 'Exotic Liquids' "
             "RETURN p.productName")


@pytest.fixture
def supply():
    return make_template(SUPPLY_Q, SUPPLY_CY, keys=NW_KEYS, display=NW_DISPLAY)


def test_literal_in_question_and_cypher_becomes_an_entity_slot(supply):
    assert supply.skeleton_question == "Which products does '<S1>' supply?"
    assert supply.cypher_template.endswith("WHERE s.companyName = $S1 RETURN p.productName")
    (slot,) = supply.slots
    assert (slot.name, slot.kind, slot.label, slot.prop, slot.source) == ("S1", "entity", "Supplier", "companyName",
                                                                          "name")
    assert slot.original_value == "Exotic Liquids" and slot.quoted


def test_fill_with_a_confident_match_of_the_same_label(supply):
    f = fill(supply, "which products does 'Tokyo Traders' supply", link)
    assert f is not None and f.match == "exact"
    assert f.params == {"S1": "Tokyo Traders"} and f.cypher == supply.cypher_template
    # the original question round-trips to the original value
    assert fill(supply, SUPPLY_Q, link).params == {"S1": "Exotic Liquids"}


def test_refuses_when_the_slot_does_not_fill(supply):
    assert fill(supply, "Which products does 'Unknown Corp' supply?", link) is None  # no candidate
    assert fill(supply, "Which products does 'Tokyo Traders' sell?", link) is None  # other skeleton
    assert fill(supply, "Which products does 'Tokyo Traders' supply?", None) is None  # no linker


def test_refuses_label_mismatch_low_score_and_ties(supply):
    other_label = lambda t, lb: [EntityCandidate("Customer", "TOKYO", "Tokyo Traders", 1.0)]  # noqa: E731
    weak = lambda t, lb: [EntityCandidate("Supplier", "4", "Tokyo Traders", 0.6)]  # noqa: E731
    tie = lambda t, lb: [EntityCandidate("Supplier", "4", "Tokyo Traders", 0.95),  # noqa: E731
                         EntityCandidate("Supplier", "9", "Tokyo Traders Ltd", 0.94)]
    q = "Which products does 'Tokyo Traders' supply?"
    assert fill(supply, q, other_label) is None
    assert fill(supply, q, weak) is None
    assert fill(supply, q, tie) is None
    assert fill(supply, q, weak, min_score=0.5) is not None  # the threshold is the caller's


def test_key_slots_take_the_candidate_key_with_the_original_type():
    t = make_template("What does supplier 1 supply?",
                      "MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) WHERE s.supplierID = $v0 RETURN p.productName",
                      {"v0": 1}, keys=NW_KEYS, display=NW_DISPLAY)
    assert t.slots[0].kind == "number"  # a bare number in the question is a number slot
    t = make_template("What does Exotic Liquids supply?",
                      "MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) WHERE s.supplierID = $v0 RETURN p.productName",
                      {"v0": 1}, bindings=[Binding("Exotic Liquids", 1, "Supplier", "supplierID")],
                      keys=NW_KEYS, display=NW_DISPLAY)
    assert t.skeleton_question == "What does <S1> supply?"
    assert (t.slots[0].kind, t.slots[0].source) == ("entity", "key")
    assert fill(t, "What does Tokyo Traders supply?", link).params == {"S1": 4}


def test_numbers_years_and_limit():
    q = "Top 5 products with a unit price above 20 released after 1995"
    cy = ("MATCH (p:Product) WHERE p.unitPrice > $c0 AND p.year > 1995 RETURN p.productName "
          "ORDER BY p.unitPrice DESC LIMIT 5")
    t = make_template(q, cy, {"c0": 20.0})
    assert t.skeleton_question == "Top <S1> products with a unit price above <S2> released after <S3>"
    assert [(s.kind, s.inline) for s in t.slots] == [("number", True), ("number", False), ("year", False)]
    f = fill(t, "top 3 products with a unit price above 12.5 released after 2001?")
    assert f.params == {"S2": 12.5, "S3": 2001}
    assert f.cypher.endswith("LIMIT 3") and "$S1" not in f.cypher
    assert isinstance(fill(t, "Top 3 products with a unit price above 30 released after 2001").params["S2"], float)
    assert fill(t, "Top 3 products with a unit price above 30 released after 12") is None  # not a year
    assert fill(t, "Top 0 products with a unit price above 30 released after 2001") is None  # LIMIT 0
    assert fill(t, "Top three products with a unit price above 30 released after 2001") is None


def test_compiler_params_become_slots_and_the_rest_stays_fixed():
    t = make_template("Which customers in Germany placed more than five orders?",
                      "MATCH (c:Customer)-[:PLACED]->(o:Order) WHERE c.country = $c0 "
                      "WITH c.companyName AS name, count(o) AS value WHERE value > $h RETURN name, value",
                      {"c0": "Germany", "h": 5}, keys={"Customer": "customerID"}, display={"Customer": "companyName"})
    assert t.skeleton_question == "Which customers in <S1> placed more than five orders?"
    assert (t.slots[0].kind, t.slots[0].label, t.slots[0].prop) == ("category", "Customer", "country")
    assert t.fixed_params == {"h": 5}
    countries = {("Customer", "country", "france"): "France"}
    lookup = lambda label, prop, text: countries.get((label, prop, text.casefold()))  # noqa: E731
    f = fill(t, "Which customers in France placed more than five orders?", lookup=lookup)
    assert f.params == {"S1": "France", "h": 5}
    assert fill(t, "Which customers in Atlantis placed more than five orders?", lookup=lookup) is None
    assert fill(t, "Which customers in France placed more than five orders?") is None  # no lookup given


def test_literals_not_in_the_question_stay_constant():
    t = make_template("Which movies were released in 1999?",
                      "MATCH (m:Movie) WHERE m.released = 1999 AND m.tagline <> '' RETURN m.title LIMIT 100")
    assert [s.original_value for s in t.slots] == [1999]
    assert "m.tagline <> ''" in t.cypher_template and "LIMIT 100" in t.cypher_template
    assert fill(t, "Which movies were released in 2003?").params == {"S1": 2003}


def test_string_slots_for_contains():
    t = make_template("Which movies have love in the title?",
                      "MATCH (m:Movie) WHERE lower(m.title) CONTAINS 'love' RETURN m.title")
    assert t.slots[0].kind == "string"
    assert fill(t, "Which movies have matrix in the title?").params == {"S1": "matrix"}


def test_token_similar_skeleton_needs_spans_and_only_neutral_differences(supply):
    t = make_template("List products of Exotic Liquids",
                      "MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) WHERE s.companyName = 'Exotic Liquids' "
                      "RETURN p.productName", keys=NW_KEYS, display=NW_DISPLAY)
    q = "Show the products of Tokyo Traders"
    assert fill(t, q, link) is None  # not the exact skeleton
    f = fill(t, q, link, spans=[Span("Tokyo Traders", "Supplier")], similarity=0.6)
    assert f is not None and f.match == "similar" and f.params == {"S1": "Tokyo Traders"}
    # a content word differs: refused whatever the ratio
    assert fill(t, "List suppliers of Tokyo Traders", link, spans=[Span("Tokyo Traders")], similarity=0.5) is None
    # slot count differs: refused
    assert fill(t, "Show the products of Tokyo Traders", link, spans=[], similarity=0.5) is None


def test_template_round_trips_through_json(supply):
    again = PlanTemplate.from_dict(json.loads(json.dumps(supply.to_dict())))
    assert again == supply
    assert fill(again, "Which products does 'Tokyo Traders' supply?", link).params == {"S1": "Tokyo Traders"}


def test_quoted_identifiers_and_escapes_are_not_literals():
    t = make_template("Who is O'Brien?", "MATCH (p:`Person`) WHERE p.`name` = 'O\\'Brien' RETURN p.`name`",
                      keys={"Person": "name"})
    assert t.slots[0].original_value == "O'Brien" and t.cypher_template.count("$S1") == 1
    assert "`Person`" in t.cypher_template


def test_pipeline_reuses_a_verified_plan(built_graphs, kgqa_home, tmp_path):
    """End to end over northwind: a learnt plan is refilled for another supplier, with the same rows."""
    from kgqa.cache.plan_cache import PlanCache
    from kgqa.planner.pipeline import Pipeline
    from kgqa.settings import Settings

    settings = Settings(home=kgqa_home)
    with PlanCache(tmp_path) as pc:
        cached = Pipeline(settings, plan_cache=pc, domains=["northwind"])
        plain = Pipeline(settings, domains=["northwind"])
        first = cached.ask("Which products does Exotic Liquids supply?", "northwind")
        assert first.status == "answered" and not first.cache["plan_hit"]
        (entry,) = pc.entries()
        assert entry.template and entry.template["slots"][0]["kind"] == "entity"
        q = "Which products does Tokyo Traders supply?"
        reused, fresh = cached.ask(q, "northwind"), plain.ask(q, "northwind")
        assert reused.cache["plan_hit"] and not fresh.cache["plan_hit"]
        assert sorted(map(str, reused.rows)) == sorted(map(str, fresh.rows)) and reused.rows
        # a name the linker cannot place is refused, not guessed
        assert not cached.ask("Which products does Zzyzx Qwerty supply?", "northwind").cache["plan_hit"]
        both = "Which products does Exotic Liquids and Tokyo Traders supply?"
        assert not cached.ask(both, "northwind").cache["plan_hit"]  # one slot cannot hold two suppliers
        assert pc.stats()["reuse_hits"] == 1


def test_reuse_is_not_crowded_out_by_other_aspects(built_graphs, kgqa_home, tmp_path):
    """A small aspect bucket is searched on its own: more similar plans of other aspects in the domain
    (which reuse could not take anyway) must not push the matching template out of the candidates."""
    from kgqa.cache.plan_cache import PlanCache
    from kgqa.cache.plan_entry import PlanEntry
    from kgqa.planner.pipeline import Pipeline
    from kgqa.settings import Settings

    with PlanCache(tmp_path) as pc:
        pipe = Pipeline(Settings(home=kgqa_home), plan_cache=pc, domains=["northwind"])
        first = pipe.ask("Which products does Exotic Liquids supply?", "northwind")
        assert first.status == "answered"
        (learnt,) = pc.entries()
        version = pipe.domains["northwind"].graph.version
        pc.add_many(PlanEntry(question=f"Which products does Tokyo Traders supply with a price above {i}?",
                              cypher=f"MATCH (p:Product) WHERE p.unitPrice > {i} RETURN p.productName",
                              domain="northwind", aspect="filter", kg_version=version) for i in range(12))
        assert learnt.aspect != "filter" and len(pc) == 13
        r = pipe.ask("Which products does Tokyo Traders supply?", "northwind")
        assert r.cache["plan_hit"] and r.status == "answered" and r.rows
        assert pc.get(learnt.id).hits == 1  # the reused plan, and only it, was touched


def test_a_filled_template_with_no_rows_is_a_grounded_none(built_graphs, kgqa_home, tmp_path):
    """Every slot of a verified template filled from linked entities: an empty result answers "none",
    as fresh compilation of the same question does, instead of "I don't know"."""
    from kgqa.cache.plan_cache import PlanCache
    from kgqa.planner.pipeline import Pipeline
    from kgqa.settings import Settings

    settings = Settings(home=kgqa_home, vector_memory=False)
    with PlanCache(tmp_path) as pc:
        cached = Pipeline(settings, plan_cache=pc, domains=["movies"])
        plain = Pipeline(settings, domains=["movies"])
        assert cached.ask("Which movies did Lana Wachowski direct?", "movies").status == "answered"
        q = "Which movies did Keanu Reeves direct?"
        reused, fresh = cached.ask(q, "movies"), plain.ask(q, "movies")
        assert reused.cache["plan_hit"] and reused.rows == [] and reused.cypher == fresh.cypher
        assert reused.status == fresh.status == "answered" and reused.answer.startswith("None")
