"""Descriptive answers (issue 19): detection, the bounded neighbourhood, the verbalizer, the faithfulness check,
and the batch path's rewrite with shared prefixes."""

from __future__ import annotations

import copy
import re

import pytest

from kgqa.kg.neighbourhood import entity_neighbourhood
from kgqa.planner import describe
from kgqa.settings import Settings


@pytest.fixture(scope="module")
def pipe(built_graphs, kgqa_home):
    from kgqa.planner.pipeline import Pipeline

    return Pipeline(Settings(home=kgqa_home, vector_memory=False))


def _faithful(result) -> list[str]:
    """What in the answer the result's own subgraph does not support; every number must be one of its values."""
    desc = describe.from_subgraph(result.subgraph)
    out = describe.problems(result.answer, desc.contexts, desc.values, desc.own)
    values = " | ".join(desc.values)
    out += [n for n in re.findall(r"\d+(?:[./-]\d+)*", result.answer) if n not in values]
    return out


@pytest.mark.parametrize("question, rest", [
    ("Who is Marie Curie?", "Marie Curie"), ("Tell me about Tom Hanks", "Tom Hanks"),
    ("What do you know about the supplier Exotic Liquids?", "the supplier Exotic Liquids"),
    ("Describe The Matrix.", "The Matrix"), ("Could you tell me about Chai?", "Chai"),
])
def test_describe_intent_finds_what_is_asked_about(question, rest):
    span = describe.intent(question)
    assert span is not None and question[span[0]:span[1]] == rest


def test_other_questions_are_not_descriptions():
    assert describe.intent("Who directed The Matrix?") is None
    assert describe.intent("Which products does Exotic Liquids supply?") is None


def test_who_is_marie_curie_lists_her_prizes_with_years(pipe, nobel_graph):
    r = pipe.ask("Who is Marie Curie?", "nobel", use_answer_cache=False)
    assert r.status == "answered" and r.operators == ["describe"] and r.evidence == "subgraph"
    prizes = nobel_graph.query("MATCH (l:Laureate)-[:WON]->(p:Prize) WHERE l.knownName = 'Marie Curie' "
                               "RETURN p.category, p.awardYear").rows
    assert len(prizes) == 2
    for category, year in prizes:  # each prize with its year, in one statement
        assert re.search(rf"{category}[^.]*?{year}|{year}[^.]*?{category}", r.answer), (category, year, r.answer)
    assert "1867" in r.answer  # born
    assert not _faithful(r)
    # the evidence rows and the subgraph the chat page draws, the entity first
    assert r.rows and r.columns == ["subject", "relationship", "object", "details"]
    first = next(iter(r.subgraph["nodes"].values()))
    assert first["_name"] == "Marie Curie" and next(k for k in first if not k.startswith("_")) == "knownName"
    assert r.cache["llm_calls"] == 0 and r.cypher is None


def test_tell_me_about_tom_hanks_mentions_his_films(pipe, movies_graph):
    r = pipe.ask("Tell me about Tom Hanks", "movies", use_answer_cache=False)
    assert r.status == "answered" and r.operators == ["describe"]
    films = [t for (t,) in movies_graph.query("MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE p.name = 'Tom Hanks' "
                                              "RETURN m.title").rows]
    said = [t for t in films if t in r.answer]
    assert len(said) >= min(8, len(films))
    assert "1956" in r.answer and not _faithful(r)


def test_the_supplier_exotic_liquids_mentions_the_products_it_supplies(pipe, northwind_graph):
    r = pipe.ask("Tell me about the supplier Exotic Liquids", "northwind", use_answer_cache=False)
    assert r.status == "answered" and r.operators == ["describe"]
    products = [p for (p,) in northwind_graph.query(
        "MATCH (s:Supplier)-[:SUPPLIES]->(p:Product) WHERE s.companyName = 'Exotic Liquids' RETURN p.productName").rows]
    assert products and all(p in r.answer for p in products)
    assert not _faithful(r)


def test_questions_that_ask_for_something_else_still_compile(pipe):
    r = pipe.ask("Who directed The Matrix?", "movies", use_answer_cache=False)
    assert "describe" not in r.operators and "Lana Wachowski" in r.answer
    r = pipe.ask("What is the unit price of Chai?", "northwind", use_answer_cache=False)
    assert "describe" not in r.operators


def test_the_neighbourhood_is_bounded_and_keeps_every_relationship(movies_graph):
    hood = entity_neighbourhood(movies_graph, "Person", "Tom Hanks", depth=2, k_degree=5)
    assert max(hood.hops.values()) == 2
    for hop in (1, 2):  # at most k_degree edges reach each hop level
        assert sum(1 for e in hood.subgraph.edges
                   if max(hood.hops[e["src"]], hood.hops[e["dst"]]) == hop) <= 5
    rels = {e["rel"] for e in hood.subgraph.edges if hood.centre in (e["src"], e["dst"])}
    assert {"ACTED_IN", "DIRECTED"} <= rels  # the one film he directed is not crowded out by twelve he acted in
    deep = entity_neighbourhood(movies_graph, "Person", "Tom Hanks", depth=3, k_depth=2)
    assert max(deep.hops.values()) == 2  # depth never passes K_depth


def test_the_check_pairs_numbers_with_their_names(pipe):
    r = pipe.ask("Who is Marie Curie?", "nobel", use_answer_cache=False)
    desc = describe.from_subgraph(r.subgraph)

    def check(text):
        return describe.problems(text, desc.contexts, desc.values, desc.own)

    assert check("Marie Curie won the prize in Physics in 1903 and in Chemistry in 1911.") == []
    assert check("Marie Curie won the prize in Physics in 1911.")  # the graph says Chemistry for 1911
    assert check("Marie Curie won the Nobel Prize in Physics in 1903.")  # "Nobel" is not in the subgraph
    assert check("She was born in 1867.") == []  # a pronoun sentence: a fact about her
    assert check("She was born in 1868.")
    assert describe.acceptable("Marie Curie won physics-1903 and chemistry-1911.", desc)
    assert not describe.acceptable("Marie Curie won physics-1903 and chemistry-1911 in 1999.", desc)


def test_the_describe_switch_turns_the_path_off(built_graphs, kgqa_home):
    from kgqa.planner.pipeline import Pipeline

    off = Pipeline(Settings(home=kgqa_home, vector_memory=False, describe=False), domains=["nobel"])
    r = off.ask("Who is Marie Curie?", "nobel", use_answer_cache=False)
    assert "describe" not in r.operators


# -- the batch path: the LLM rewrites, prefixes shared ------------------------------------------------------

@pytest.fixture(scope="module")
def llm():
    from kgqa.planner.llm import EmbeddedLLM

    model = EmbeddedLLM(n_threads=1, n_ctx=4096)
    yield model
    model.close()


@pytest.mark.llm
def test_batch_rewrites_share_one_prefix_and_keep_only_faithful_prose(pipe, llm):
    from kgqa.planner.batch import retrieve, summarize_batch

    questions = [{"question": f"Who is {n}?", "domain": "movies"}
                 for n in ("Keanu Reeves", "Carrie-Anne Moss", "Laurence Fishburne")]
    results = retrieve(pipe, questions)
    assert all(r.operators == ["describe"] for r in results)
    before = copy.deepcopy(results)
    rep = summarize_batch(results, llm, n_clusters=1, describe_tokens=24)
    assert rep.n_candidates == 3 and rep.n_clusters == 1
    assert rep.prefix["evaluated"] == rep.n_groups and rep.prefix["reused"] == 3 - rep.n_groups
    for r, old in zip(results, before):
        batch = r.cache["batch"]
        assert batch["llm_answer"] and batch["prefix_tokens"] > 0
        if batch["kept"]:
            assert r.answer == batch["llm_answer"] and not _faithful(r)
        else:
            assert r.answer == old.answer  # the verbalized paragraph stands


@pytest.mark.llm
def test_the_prose_grammar_admits_only_own_values(llm):
    grammar = describe.prose_grammar(["Marie Curie", "1903", "physics-1903", "Physics"])
    out = llm.complete([{"role": "user", "content": "Who is Marie Curie? She won the Nobel Prize in 1903."}],
                       max_tokens=24, grammar=grammar)
    caps = re.findall(r"\b[A-Z]\w*", out.text)
    assert all(c in ("Marie", "Curie", "Physics") or c in describe.CAPITALISED for c in caps), out.text
    assert all(n == "1903" for n in re.findall(r"\d+", out.text.replace("physics-1903", ""))), out.text


# -- compact prompt facts and the shared prefix ------------------------------------------------------------

def test_compact_facts_state_each_node_once_within_the_budget(pipe):
    r = pipe.ask("Tell me about Tom Hanks", "movies", use_answer_cache=False)
    whole = describe.select(r.subgraph, 0)
    facts = describe.select(r.subgraph, 900)
    assert len(whole) == len(r.subgraph["nodes"]) + len(r.subgraph["edges"])  # no budget: everything
    lines = facts.lines()
    assert 0 < len(facts) < len(whole) and sum(len(x) + 1 for x in lines) <= 900 + 40
    assert lines[0].startswith("Tom Hanks (person)") and "1956" in lines[0]  # the entity first, with its props
    centre = next(iter(r.subgraph["nodes"]))
    own = [e for e in facts.edges.values() if centre in (e["src"], e["dst"])]
    # his direct connections come before the farther ones, and his own edges do not repeat his name
    assert len(own) == len([e for e in r.subgraph["edges"][:len(own)] if centre in (e["src"], e["dst"])])
    under = lines[1:1 + sum(1 for e in own if e["src"] == centre)]
    assert under and all(x.startswith("  - ") and "Tom Hanks" not in x for x in under)
    names = [n["_name"] for n in facts.nodes.values()]
    assert len(names) == len(set(names))
    assert sum(1 for x in lines if not x.startswith("  - ")) == len(facts.nodes)  # one line per node
    for e in facts.edges.values():  # every edge stated with both of its ends
        assert e["src"] in facts.nodes and e["dst"] in facts.nodes


def test_a_clusters_prefix_is_the_union_of_its_members_facts(pipe):
    rs = [pipe.ask(f"Who is {n}?", "movies", use_answer_cache=False) for n in ("Keanu Reeves", "Carrie-Anne Moss")]
    a, b = (describe.select(r.subgraph, 1500) for r in rs)
    union = a.union(b)
    assert set(union.nodes) == set(a.nodes) | set(b.nodes) and set(union.edges) == set(a.edges) | set(b.edges)
    assert len(union) < len(a) + len(b)  # shared nodes and edges (The Matrix, its cast) stated once
    assert union.lines()[:len(a.nodes)] != [] and union.lines()[0] == a.lines()[0]
    text = "\n".join(union.lines())
    for n in [*a.nodes.values(), *b.nodes.values()]:
        assert text.count(f"{n['_fact']}\n") + text.endswith(n["_fact"]) == 1


@pytest.mark.llm
def test_after_the_shared_prefix_a_question_evaluates_only_its_own_turn(pipe, llm):
    from kgqa.cache.prefix import split_prompt

    r = pipe.ask("Who is Keanu Reeves?", "movies", use_answer_cache=False)
    facts = describe.select(r.subgraph, 1500).lines()
    prefix, suffix = split_prompt(llm, describe.messages(facts, r.question))
    assert all(f in prefix for f in facts) and not any(f.strip() in suffix for f in facts)
    assert r.question in suffix
    assert len(llm.tokenize(suffix)) <= len(llm.tokenize(r.question)) + 12  # the question turn and the template


def test_a_cached_subgraph_without_compact_lines_still_gives_facts(pipe):
    r = pipe.ask("Who is Marie Curie?", "nobel", use_answer_cache=False)
    old = copy.deepcopy(r.subgraph)  # as a result cached before compact lines were stored
    for item in [*old["nodes"].values(), *old["edges"]]:
        item.pop("_fact", None)
    lines = describe.from_subgraph(old).facts
    assert lines[0] == next(iter(old["nodes"].values()))["_text"] and any("physics-1903" in x for x in lines)


@pytest.mark.llm
def test_a_cluster_longer_than_the_prefix_cap_is_split(pipe, llm):
    from kgqa.planner.batch import retrieve, summarize_batch

    questions = [{"question": f"Who is {n}?", "domain": "movies"}
                 for n in ("Keanu Reeves", "Carrie-Anne Moss", "Laurence Fishburne")]
    results = retrieve(pipe, questions)
    whole = summarize_batch(copy.deepcopy(results), llm, n_clusters=1, describe_tokens=4, apply=False,
                            describe_chars=600)
    capped = summarize_batch(copy.deepcopy(results), llm, n_clusters=1, describe_tokens=4, apply=False,
                             describe_chars=600, prefix_tokens=256)
    assert whole.n_groups == 1 and capped.n_groups > 1
    assert max(p.prefix_tokens for p in capped.phrases) <= 256 + 8  # the cap, plus the chat template's opening
    assert max(p.prefix_tokens for p in whole.phrases) > 256


@pytest.mark.llm
def test_the_prompt_plan_a_gpu_replays_is_the_batch_paths_own(pipe, llm):
    """evals/describe_gpu.py ships the batch path's prompt groups to a GPU: each member's prefix and suffix are
    the rendered prompt of its own messages, one prefix per group, and the baseline is one question per group."""
    from kgqa.cache.prefix import split_prompt
    from kgqa.planner.batch import candidates, item_messages, prompt_groups, retrieve

    questions = [{"question": f"Who is {n}?", "domain": "movies"}
                 for n in ("Keanu Reeves", "Carrie-Anne Moss", "Laurence Fishburne")]
    items = candidates(retrieve(pipe, questions), describe_chars=600)
    shared = prompt_groups(items, llm, n_clusters=1, describe_tokens=4)
    alone = prompt_groups(items, llm, n_clusters=len(items), describe_tokens=4)
    assert len(shared) == 1 and [len(m) for _, m, _ in alone] == [1, 1, 1]
    cluster, members, facts = shared[0]
    prefixes = set()
    for it in members:
        messages = item_messages(it, facts)
        prefix, suffix = split_prompt(llm, messages)
        assert prefix and prefix + suffix == llm.render(messages) and it.question in suffix
        prefixes.add(prefix)
    assert len(prefixes) == 1  # the one prefix the group's members continue from
    own = {it.index: f for _, (it,), f in alone}
    assert all(set(own[it.index]) <= set(facts) for it in members)  # a group states each member's own facts
