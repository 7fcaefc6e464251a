"""Our question sets: well-formed, covering the question shapes of issue 17, and every gold query reproduces its
stored gold rows on the built graph (movies and nobel bundled, library loaded from tests/fixtures/library). The
mixed ``unseen`` set (third-party movies and northwind questions, labelled by hand) is checked the same way, each
line on its own domain's graph, and is the deterministic sample its README describes; so are the held-out ``heldout``
set, a second sample drawn from the lines ``unseen`` does not hold, and the held-out ``fresh`` set, a third sample
drawn from the lines neither ``unseen`` nor ``heldout`` holds."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from kgqa.evals.judge import judge_answer
from kgqa.evals.make_gold import (
    FIELDS,
    OPTIONAL,
    QUESTIONS_DIR,
    SET_DOMAINS,
    SHAPES,
    TYPES,
    UNANSWERABLE,
    GoldError,
    fill_lines,
    fill_set,
    has_order_by,
    read_set,
    run_gold,
    set_types,
)
from kgqa.kg.compare import rows_match

LIBRARY = Path(__file__).parent / "fixtures" / "library"
ALL_SETS = (*SET_DOMAINS, "library")
SETS = {domain: read_set(QUESTIONS_DIR / f"{domain}.jsonl") for domain in ALL_SETS}
UNSEEN = read_set(QUESTIONS_DIR / "unseen.jsonl")
UNSEEN_SOURCES = ("movies", "northwind")  # shared/data/unlabeled/<domain>_gemini.jsonl, drawn in this order
UNSEEN_SEED, UNSEEN_PER_DOMAIN = 2026, 45
HELDOUT = read_set(QUESTIONS_DIR / "heldout.jsonl")  # scored only for reports: not looked at while developing
HELDOUT_SEED, HELDOUT_PER_DOMAIN = 2027, 40  # drawn from the lines whose ids are not in unseen.jsonl
FRESH = read_set(QUESTIONS_DIR / "fresh.jsonl")  # held out like heldout: scored only for reports
FRESH_SEED, FRESH_PER_DOMAIN = 2028, 40  # drawn from the lines whose ids are in neither unseen.jsonl nor heldout.jsonl
MIXED = {"unseen": (UNSEEN, UNSEEN_PER_DOMAIN), "heldout": (HELDOUT, HELDOUT_PER_DOMAIN),
         "fresh": (FRESH, FRESH_PER_DOMAIN)}
ITEMS = [item for items in SETS.values() for item in items] + UNSEEN + HELDOUT + FRESH


@pytest.mark.parametrize("domain", ALL_SETS)
def test_set_is_well_formed(domain):
    items = SETS[domain]
    if domain in SET_DOMAINS:
        assert len(items) >= 50
        assert set(Counter(i["type"] for i in items)) == set(TYPES)
        assert all(n >= 5 for n in Counter(i["type"] for i in items).values())
    for item in items:
        assert tuple(item) == tuple(f for f in FIELDS if f in item or f not in OPTIONAL), item["id"]
        assert item.get("shape", SHAPES[0]) in SHAPES, item["id"]
        assert item["domain"] == domain and item["id"].startswith(f"{domain}-")
        assert item["ordered"] == has_order_by(item["gold_cypher"]), item["id"]
        assert (item["gold_rows"] == []) == (item["type"] == "empty"), item["id"]
        assert all(isinstance(r, list) and len(r) == len(item["gold_rows"][0]) for r in item["gold_rows"])
    assert len({i["question"].lower() for i in items}) == len(items)  # no duplicate questions


@pytest.mark.parametrize("domain", ALL_SETS)
def test_set_covers_every_shape_twice(domain):
    """Every shape of issue 17 has at least two questions in each set, movies, nobel and library alike."""
    shapes = Counter(i["shape"] for i in SETS[domain] if "shape" in i)
    assert set(shapes) == set(SHAPES), set(SHAPES) - set(shapes)
    assert all(n >= 2 for n in shapes.values()), shapes


def test_superlatives_keep_the_tied_top_group():
    """A superlative with a tie at the top returns the whole group, never a LIMIT 1 pick."""
    tied = [i for i in ITEMS if i.get("shape") == "superlative" and len(i["gold_rows"]) > 1]
    assert len(tied) >= 3
    assert all("LIMIT" not in i["gold_cypher"].upper() for i in tied)


def test_unordered_gold_rows_are_stored_sorted():
    for item in ITEMS:
        if not item["ordered"]:
            keys = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in item["gold_rows"]]
            assert keys == sorted(keys), item["id"]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """The library graph loaded from its fixture (CSV route), with the spec the service derives for it."""
    from kgqa.kg.db import Graph
    from kgqa.kg.loader import build_graph
    from kgqa.kg.registry import graph_spec
    from kgqa.kg.sources import csv_source

    graphs_dir = tmp_path_factory.mktemp("library-home") / "graphs"
    build_graph("library", csv_source(LIBRARY / "schema.cypher", LIBRARY / "csv"), graphs_dir, progress=False,
                index=False)
    graph = Graph(graphs_dir / "library", read_only=True)
    yield graph, graph_spec(graph)
    graph.close()


@pytest.fixture(scope="module")
def graphs(movies_graph, nobel_graph, northwind_graph, spec, library):
    return {"movies": (movies_graph, spec("movies")), "nobel": (nobel_graph, spec("nobel")),
            "northwind": (northwind_graph, spec("northwind")), "library": library}


@pytest.mark.parametrize("item", ITEMS, ids=[i["id"] for i in ITEMS])
def test_gold_query_reproduces_gold_rows(item, graphs):
    if item["type"] == UNANSWERABLE:  # nothing to run: the right outcome is a decline
        assert (item["gold_cypher"], item["gold_rows"], item["ordered"]) == ("", [], False)
        return
    graph, spec = graphs[item["domain"]]
    gold = run_gold(graph, item["gold_cypher"], spec)
    # the same rows, floats to the scorer's tolerance: a sum's last bit follows the order COPY stored the rows in
    assert rows_match(gold.rows, item["gold_rows"], item["ordered"], lenient=False), (gold.rows, item["gold_rows"])
    assert len(gold.rows) == len(item["gold_rows"])
    assert gold.ordered == item["ordered"]


def test_scorer_accepts_each_gold_against_itself():
    rng = random.Random(7)
    for item in ITEMS:
        rows = [list(r) for r in item["gold_rows"]]
        assert rows_match(rows, item["gold_rows"], item["ordered"], lenient=False), item["id"]
        if not item["ordered"] and len(rows) > 1:
            rng.shuffle(rows)
            assert rows_match(rows, item["gold_rows"], False, lenient=False), item["id"]
            assert not rows_match(rows[1:], item["gold_rows"], False), item["id"]


def _answer_from_rows(rows: list[list]) -> str:
    """A plain answer that states every gold value, the way a template answer would (a missing value beside others,
    such as a movie without a rating, goes unsaid)."""
    if not rows:
        return "There are none."
    if len(rows) == 1 and len(rows[0]) == 1 and isinstance(rows[0][0], bool):  # not 1 or 0: 1 == True
        return "Yes." if rows[0][0] else "No."
    return "; ".join(", ".join(str(v) if not isinstance(v, list) else " and ".join(map(str, v))
                               for v in (r if all(v is None for v in r) else [v for v in r if v is not None]))
                     for r in rows) + "."


def test_judge_accepts_answers_that_state_the_gold():
    for item in ITEMS:
        if item["type"] == UNANSWERABLE:  # no gold to state: the scorer wants a decline (test_scorer)
            continue
        verdict = judge_answer(_answer_from_rows(item["gold_rows"]), item["gold_rows"], question=item["question"])
        assert verdict.label == "accurate", (item["id"], verdict)


def test_make_gold_fills_and_fails_loudly(tmp_path, movies_graph, spec):
    spec = spec("movies")
    good = {"id": "movies-t1", "domain": "movies", "question": "Who directed The Matrix?", "type": "single-hop",
            "gold_cypher": "MATCH (p:Person)-[:DIRECTED]->(:Movie {title: 'The Matrix'}) RETURN p ORDER BY p.name"}
    path = tmp_path / "movies.jsonl"
    path.write_text(json.dumps(good) + "\n")
    assert fill_set(path, movies_graph, spec) == []
    (filled,) = read_set(path)
    assert filled["gold_rows"] == [["Lana Wachowski"], ["Lilly Wachowski"]] and filled["ordered"] is True
    assert fill_set(path, movies_graph, spec, check=True) == []

    filled["gold_rows"] = [["Lana Wachowski"]]
    path.write_text(json.dumps(filled) + "\n")
    assert fill_set(path, movies_graph, spec, check=True) == ["movies-t1"]

    for broken, message in [
        (good | {"gold_cypher": "MATCH (p:Persn) RETURN p"}, "gold query failed"),
        (good | {"gold_cypher": "MATCH (p:Person {name: 'Nobody'}) RETURN p"}, "returned nothing"),
        (good | {"type": "empty"}, "type empty but 2 rows"),
        (good | {"type": "trivia"}, "not one of"),
        (good | {"shape": "trivia"}, "shape 'trivia' not one of"),
        (good | {"domain": "nobel"}, "domain 'nobel' in the movies set"),
    ]:
        path.write_text(json.dumps(broken) + "\n")
        with pytest.raises(GoldError, match=message):
            fill_set(path, movies_graph, spec)


def test_make_gold_keeps_the_shape(tmp_path, movies_graph, spec):
    line = {"id": "movies-t1", "domain": "movies", "question": "Who played Neo?", "type": "single-hop",
            "shape": "rel-property",
            "gold_cypher": "MATCH (p:Person)-[r:ACTED_IN]->(:Movie) WHERE 'Neo' IN r.roles RETURN DISTINCT p.name"}
    path = tmp_path / "movies.jsonl"
    path.write_text(json.dumps(line) + "\n" + json.dumps(line | {"id": "movies-t2"} | {"shape": None}) + "\n")
    with pytest.raises(GoldError, match="shape None"):
        fill_set(path, movies_graph, spec("movies"))
    path.write_text(json.dumps(line) + "\n" + json.dumps({k: v for k, v in line.items() if k != "shape"}
                                                         | {"id": "movies-t2"}) + "\n")
    assert fill_set(path, movies_graph, spec("movies")) == []
    first, second = read_set(path)
    assert list(first) == [f for f in FIELDS if f != "note"] and first["shape"] == "rel-property"
    assert "shape" not in second and first["gold_rows"] == second["gold_rows"] == [["Keanu Reeves"]]


# -- the mixed set of third-party questions ---------------------------------------------------------
def _drawn(data_dir, seed: int, per_domain: int, exclude: set[str] = frozenset()) -> list[dict]:
    """The lines ``random.Random(seed).sample`` draws from each unlabeled file (movies then northwind) among
    those whose ids ``exclude`` does not hold, in the order drawn. ``exclude`` holds the ids of the earlier samples:
    each file loses exactly its own of them."""
    expected = []
    for domain in UNSEEN_SOURCES:
        source = data_dir / "unlabeled" / f"{domain}_gemini.jsonl"
        if not source.exists():
            pytest.skip(f"no {source}")
        lines = source.read_text(encoding="utf-8").splitlines()
        remaining = [line for line in lines if json.loads(line)["id"] not in exclude]
        assert len(lines) - len(remaining) == sum(i.startswith(f"{domain}-") for i in exclude)
        expected += [json.loads(line) for line in random.Random(seed).sample(remaining, per_domain)]
    return expected


def test_unseen_set_is_the_seeded_sample(data_dir):
    """``random.Random(2026).sample(lines, 45)`` of each unlabeled file, movies then northwind, in the order
    drawn, every drawn question kept with its text as written."""
    expected = _drawn(data_dir, UNSEEN_SEED, UNSEEN_PER_DOMAIN)
    assert [(i["id"], i["domain"], i["question"]) for i in UNSEEN] == \
        [(e["id"], e["domain"], e["question"]) for e in expected]


def test_heldout_set_is_the_seeded_sample(data_dir):
    """``random.Random(2027).sample(remaining, 40)`` of each unlabeled file, movies then northwind, where
    ``remaining`` is the file's lines whose ids ``unseen.jsonl`` does not hold; in the order drawn, every drawn
    question kept with its text as written."""
    expected = _drawn(data_dir, HELDOUT_SEED, HELDOUT_PER_DOMAIN, {i["id"] for i in UNSEEN})
    assert [(i["id"], i["domain"], i["question"]) for i in HELDOUT] == \
        [(e["id"], e["domain"], e["question"]) for e in expected]


def test_heldout_shares_no_question_with_unseen():
    assert not {i["id"] for i in HELDOUT} & {i["id"] for i in UNSEEN}
    assert not {i["question"].lower() for i in HELDOUT} & {i["question"].lower() for i in UNSEEN}


def test_fresh_set_is_the_seeded_sample(data_dir):
    """``random.Random(2028).sample(remaining, 40)`` of each unlabeled file, movies then northwind, where
    ``remaining`` is the file's lines whose ids neither ``unseen.jsonl`` nor ``heldout.jsonl`` holds; in the order
    drawn, every drawn question kept with its text as written."""
    expected = _drawn(data_dir, FRESH_SEED, FRESH_PER_DOMAIN, {i["id"] for i in UNSEEN + HELDOUT})
    assert [(i["id"], i["domain"], i["question"]) for i in FRESH] == \
        [(e["id"], e["domain"], e["question"]) for e in expected]


def test_fresh_shares_no_question_with_unseen_or_heldout():
    for other in (UNSEEN, HELDOUT):
        assert not {i["id"] for i in FRESH} & {i["id"] for i in other}
        assert not {i["question"].lower() for i in FRESH} & {i["question"].lower() for i in other}


@pytest.mark.parametrize("name", list(MIXED))
def test_mixed_set_is_well_formed(name):
    items, per_domain = MIXED[name]
    assert Counter(i["domain"] for i in items) == {d: per_domain for d in UNSEEN_SOURCES}
    assert len({i["question"].lower() for i in items}) == len(items)
    for item in items:
        assert tuple(item) == tuple(f for f in FIELDS if f in item or f not in OPTIONAL), item["id"]
        assert item["id"].startswith(f"{item['domain']}-gemini-"), item["id"]
        assert item["type"] in set_types(name) and "shape" not in item, item["id"]
        assert item["ordered"] == has_order_by(item["gold_cypher"]), item["id"]
        assert (item["gold_rows"] == []) == (item["type"] in ("empty", UNANSWERABLE)), item["id"]
        if item["type"] == UNANSWERABLE:
            assert item["gold_cypher"] == "" and item["note"], item["id"]
        else:
            assert all(isinstance(r, list) and len(r) == len(item["gold_rows"][0]) for r in item["gold_rows"])
    assert Counter(i["type"] for i in items)[UNANSWERABLE] >= 1


@pytest.mark.parametrize("name", list(MIXED))
def test_make_gold_check_passes_on_the_mixed_sets(name, graphs):
    """``python -m kgqa.evals.make_gold --check unseen heldout fresh``: every stored row as the gold queries
    return them."""
    assert fill_lines(QUESTIONS_DIR / f"{name}.jsonl", graphs, check=True) == []


def test_make_gold_fills_a_mixed_set_with_unanswerable_lines(tmp_path, graphs):
    movies = {"id": "movies-x1", "domain": "movies", "question": "Who directed The Matrix?", "type": "single-hop",
              "gold_cypher": "MATCH (p:Person)-[:DIRECTED]->(:Movie {title: 'The Matrix'}) RETURN p.name",
              "note": "a note is kept"}
    northwind = {"id": "northwind-x1", "domain": "northwind", "question": "How many categories are there?",
                 "type": "aggregation", "gold_cypher": "MATCH (c:Category) RETURN count(c)"}
    unknown = {"id": "movies-x2", "domain": "movies", "question": "Which movies have more than 100 votes?",
               "type": UNANSWERABLE, "gold_cypher": "", "note": "no vote counts in the graph"}
    path = tmp_path / "unseen.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in (movies, northwind, unknown)))
    assert fill_lines(path, graphs) == []
    first, second, third = read_set(path)
    assert first["gold_rows"] == [["Lana Wachowski"], ["Lilly Wachowski"]] and first["note"] == "a note is kept"
    assert list(first) == [f for f in FIELDS if f != "shape"] and "note" not in second
    assert second["gold_rows"] == [[8]]
    assert (third["gold_rows"], third["ordered"], third["note"]) == ([], False, "no vote counts in the graph")
    assert fill_lines(path, graphs, check=True) == []

    for broken, message in [
        (unknown | {"gold_cypher": "MATCH (m:Movie) RETURN m"}, "has no gold_cypher"),
        (unknown | {"gold_rows": [["The Matrix"]]}, "has no gold_cypher and no gold_rows"),
        ({k: v for k, v in unknown.items() if k != "note"}, "missing note"),
        (northwind | {"domain": "library"}, "domain 'library' in unseen.jsonl"),
    ]:
        path.write_text(json.dumps(broken) + "\n")
        with pytest.raises(GoldError, match=message):
            fill_lines(path, {d: graphs[d] for d in ("movies", "northwind")})
    # a set of one domain takes no unanswerable line
    single = tmp_path / "movies.jsonl"
    single.write_text(json.dumps(unknown) + "\n")
    with pytest.raises(GoldError, match="type 'unanswerable' not one of"):
        read_set(single)
    assert UNANSWERABLE not in TYPES
