"""The Cypher writer (planner/cypher_writer.py): extraction, the guard and repair on written queries, the
decision rule on hand-made candidates, the pipeline's integration with a scripted backend, and the plumbing
against a real ``llama_cpp.server`` running the small model (marked ``llm``)."""

from __future__ import annotations

import pytest
from llama_server import llama_server

from kgqa.kg.schema import graph_checksum
from kgqa.planner import summarizer
from kgqa.planner.compiler import Compilation
from kgqa.planner.cypher_writer import (
    INSTRUCTIONS,
    Candidate,
    build_messages,
    choose,
    extract_cypher,
    faults,
    run_candidate,
)
from kgqa.planner.llm import Completion, LLMError, OpenAICompatLLM
from kgqa.planner.pipeline import Pipeline
from kgqa.settings import Settings

TOM = "Which movies did Tom Hanks act in?"
TOM_CYPHER = "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE p.name = 'Tom Hanks' RETURN m.title"


# -- extraction ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reply,expected", [
    ("```cypher\nMATCH (n:A) RETURN n.x;\n```", "MATCH (n:A) RETURN n.x"),
    ("Here it is:\n```\nMATCH (n:A)\nWHERE n.x = 1\nRETURN n.y\n```\nThis finds y.", "MATCH (n:A)\nWHERE n.x = 1\nRETURN n.y"),
    ("Cypher: MATCH (n:A) RETURN count(n)\n\nThe count of A.", "MATCH (n:A) RETURN count(n)"),
    ("The query is MATCH (n:A) RETURN n.x", "MATCH (n:A) RETURN n.x"),
    ("```Cypher\nOPTIONAL MATCH (n:A) RETURN n.x\n```", "OPTIONAL MATCH (n:A) RETURN n.x"),
    ("```cypher\nMATCH (n:A) RETURN n.x", "MATCH (n:A) RETURN n.x"),  # cut off before the closing fence
    # writes are extracted as written: refusing them is the guard's job, not the extractor's
    ("```\nCypher: CREATE (p:Person {name: 'Ann'})\n```", "CREATE (p:Person {name: 'Ann'})"),
    ("MATCH (m:Movie) DETACH DELETE m", "MATCH (m:Movie) DETACH DELETE m"),
    ("The answer is:\nMovie(title)", None),
    ("", None),
    (None, None),
])
def test_extract_cypher(reply, expected):
    assert extract_cypher(reply) == expected


# -- the prompt ----------------------------------------------------------------------------------------------
def test_messages_hold_schema_local_schema_values_exemplars_then_the_question():
    msgs = build_messages("Q?", "Nodes:\n  A(x STRING KEY)", local=["A {x: 'a'}"], values=["A.x = 'a'"],
                          exemplars=[("Q1?", "MATCH (a:A) RETURN a.x"), ("Q2?", "MATCH (a:A) RETURN count(a)")])
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    system = msgs[0]["content"]
    assert system.startswith(INSTRUCTIONS) and "A(x STRING KEY)" in system and "A {x: 'a'}" in system
    assert "- A.x = 'a'" in system
    assert msgs[1]["content"] == "Question: Q1?" and msgs[2]["content"] == "```cypher\nMATCH (a:A) RETURN a.x\n```"
    assert msgs[-1] == {"role": "user", "content": "Question: Q?"}


# -- the decision rule on hand-made candidates -------------------------------------------------------------
def cand(origin: str, rows, cypher: str = "MATCH (n:A) WHERE n.name = 'Ann' RETURN n.x", *, ok: bool = True,
         error: str | None = None, params: dict | None = None, notes: list[str] | None = None) -> Candidate:
    return Candidate(origin, cypher, dict(params or {}), final=cypher, ok=ok, error=error, rows=rows,
                     notes=list(notes or []))


Q = "Which books did Ann write?"
KW = {"named": ["Ann"], "anchors": ["Ann"]}


def test_agreement_answers_with_the_compiled_plan():
    d = choose(cand("compiled", [["b1"], ["b2"]]), cand("llm", [["b2"], ["b1"]]), Q, **KW)
    assert d.action == "keep" and "agree" in d.reason
    # lenient columns: an extra column of the written plan still agrees
    d = choose(cand("compiled", [["b1"], ["b2"]]), cand("llm", [["b1", 1], ["b2", 2]]), Q, **KW)
    assert d.action == "keep" and "agree" in d.reason


@pytest.mark.parametrize("written,fault", [
    (cand("llm", [], ), "returns no rows"),
    (cand("llm", [[None]]), "returns no rows"),
    (cand("llm", None, ok=False, error="refused by the read-only guard: CREATE is not allowed"), "refused"),
    (cand("llm", None, ok=False, error="fails EXPLAIN after repair: Binder exception"), "fails EXPLAIN"),
    (cand("llm", None, error="execution failed: query exceeded 5000 ms"), "execution failed"),
    (cand("llm", [["Ann"]]), "returns only the entity the question names"),
    (cand("llm", [[3]], "MATCH (n:A) WHERE n.name = 'Ann' RETURN count(n)"), "a count where the question asks"),
    (cand("llm", [["b1"]], "MATCH (n:A) RETURN n.x"), "ignores 'Ann'"),
    (cand("llm", [["b1"]], "MATCH (n:A) WHERE n.name = 'Ann' RETURN n.x LIMIT 5"), "adds a LIMIT 5"),
])
def test_a_faulty_written_plan_loses_to_a_clean_compiled_one(written, fault):
    d = choose(cand("compiled", [["b1"], ["b2"]]), written, Q, **KW)
    assert d.action == "keep"
    assert fault in d.reason and any(fault in f for f in d.faults["llm"]) and d.faults["compiled"] == []


def test_a_clean_written_plan_wins_over_a_faulty_compiled_one():
    for compiled in (cand("compiled", []), cand("compiled", [["b9"]], notes=["does not account for 'write'"]),
                     cand("compiled", None, ok=False, error="fails EXPLAIN after repair: x")):
        d = choose(compiled, cand("llm", [["b1"], ["b2"]]), Q, **KW)
        assert d.action == "llm" and "the compiled plan" in d.reason


def test_numbers_and_counts_are_evidence():
    q = "How many books did Ann write in 1999?"
    counted = cand("compiled", [[2]], "MATCH (n:A) WHERE n.name = $v AND n.y = $y RETURN count(n)",
                   params={"v": "Ann", "y": 1999})
    assert faults(counted, q, named=["Ann"]) == []
    listed = cand("llm", [["b1"], ["b2"]], "MATCH (n:A) WHERE n.name = 'Ann' AND n.y = 1999 RETURN n.x")
    assert faults(listed, q, named=["Ann"], anchors=["Ann"]) == ["returns no number where the question asks how many"]
    no_year = cand("llm", [[2]], "MATCH (n:A) WHERE n.name = 'Ann' RETURN count(n)")
    assert faults(no_year, q, anchors=["Ann"]) == ["leaves '1999' of the question unused"]
    assert choose(counted, listed, q, **KW).action == "keep"
    top = cand("llm", [["b1"], ["b2"], ["b3"]], "MATCH (n:A) RETURN n.x ORDER BY n.p DESC LIMIT 3")
    assert faults(top, "What are the top three books?") == []


def test_two_clean_plans_that_disagree_are_declined():
    d = choose(cand("compiled", [["b1"], ["b2"]]), cand("llm", [["b3"]]), Q, **KW)
    assert d.action == "decline"
    assert "2 rows" in d.reason and "1 rows" in d.reason and "disagree" in d.reason


def test_two_faulty_plans_keep_the_compiled_one():
    d = choose(cand("compiled", []), cand("llm", None, ok=False, error="fails EXPLAIN after repair: x"), Q, **KW)
    assert d.action == "keep" and "both plans have faults" in d.reason


def test_one_plan_only():
    assert choose(cand("compiled", [["b1"]]), None, Q, **KW).action == "keep"
    assert choose(None, cand("llm", [["b1"]]), Q, **KW).action == "llm"  # executes, rows, uses 'Ann'
    for weak in (cand("llm", []), cand("llm", [["b1"]], "MATCH (n:A) RETURN n.x"),
                 cand("llm", None, ok=False, error="refused by the read-only guard: MERGE is not allowed"),
                 cand("llm", None, ok=False, error="fails EXPLAIN after repair: Binder exception")):
        d = choose(None, weak, Q, **KW)
        assert d.action == "keep" and "alone is not trusted" in d.reason


# -- guard and repair on written queries, on the real graph (no model) ------------------------------------
@pytest.fixture(scope="module")
def reference(built_graphs, kgqa_home):
    """The default pipeline (embedded backend, writer off) on the movies graph: today's answers."""
    return Pipeline(Settings(home=kgqa_home, vector_memory=False), domains=["movies"])


@pytest.mark.parametrize("reply", ["```cypher\nCREATE (p:Person {name: 'Ann'})\n```",
                                   "MATCH (m:Movie) DETACH DELETE m",
                                   "```cypher\nMATCH (p:Person) SET p.name = 'x' RETURN p.name\n```",
                                   "MATCH (m:Movie) RETURN m.title; MATCH (n) DELETE n"])
def test_the_guard_refuses_a_written_write(reference, movies_graph, reply):
    d = reference.domains["movies"]
    before = graph_checksum(movies_graph)
    c = run_candidate("llm", extract_cypher(reply), {}, d.graph, d.view)
    assert not c.ok and c.rows is None and c.error.startswith("refused by the read-only guard")
    assert len(c.attempts) == 1 and c.attempts[0][1].startswith("Unsafe query")
    assert graph_checksum(movies_graph) == before


def test_the_repair_loop_runs_on_written_cypher(reference):
    d = reference.domains["movies"]
    c = run_candidate("llm", "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE p.nam = 'Tom Hanks' RETURN m.titel",
                      {}, d.graph, d.view)
    assert c.ok and len(c.attempts) == 2 and "Cannot find property nam" in c.attempts[0][1]
    assert c.final == TOM_CYPHER and len(c.rows) == 12


# -- the pipeline's integration, with a scripted backend (no model) ----------------------------------------
class ScriptedLLM:
    """Stands in for the OpenAI-compatible backend: the writer's call gets ``reply`` (or raises it), the
    constrained calls get an empty JSON object or the first option."""

    def __init__(self, reply):
        self.reply, self.calls, self.written = reply, 0, []

    def complete(self, prompt, *, max_tokens=64, temperature=0.0, json_schema=None, grammar=None, stop=None):
        self.calls += 1
        if json_schema is not None or grammar is not None:
            return Completion("{}")
        self.written.append(prompt)
        if isinstance(self.reply, Exception):
            raise self.reply
        return Completion(self.reply)

    def choose(self, prompt, options):
        self.calls += 1
        return 0


def writer_pipe(kgqa_home, reply, **changes) -> tuple[Pipeline, ScriptedLLM]:
    llm = ScriptedLLM(reply)
    settings = Settings(home=kgqa_home, llm_backend="openai", llm_base_url="http://127.0.0.1:9/v1",
                        llm_writes_cypher=True, vector_memory=False).with_(**changes)
    return Pipeline(settings, llm=llm, domains=["movies"]), llm


def test_defaults_never_call_the_writer(reference, kgqa_home):
    expected = reference.ask(TOM, "movies")
    assert expected.status == "answered" and len(expected.rows) == 12 and "cypher_writer" not in expected.cache
    for changes in ({"llm_writes_cypher": False}, {"llm_backend": "embedded"}):
        pipe, llm = writer_pipe(kgqa_home, f"```cypher\n{TOM_CYPHER}\n```", **changes)
        r = pipe.ask(TOM, "movies")
        assert llm.written == [] and "cypher_writer" not in r.cache and "write_cypher" not in r.timings_ms
        assert r.rows == expected.rows and r.cypher == expected.cypher and r.attempts == expected.attempts


def test_an_agreeing_written_plan_keeps_the_compiled_answer_and_is_counted(reference, kgqa_home):
    expected = reference.ask(TOM, "movies")
    pipe, llm = writer_pipe(kgqa_home, f"Sure.\n```cypher\n{TOM_CYPHER};\n```")
    r = pipe.ask(TOM, "movies")
    assert r.status == "answered" and r.rows == expected.rows and r.cypher == expected.cypher
    w = r.cache["cypher_writer"]
    assert w["action"] == "keep" and "agree" in w["reason"] and w["llm_cypher"] == TOM_CYPHER
    assert r.cache["llm_calls"] == llm.calls == 1 and "write_cypher" in r.timings_ms
    assert [a["origin"] for a in r.attempts] == ["llm", "compiler"] and r.attempts[0]["rows"] == 12
    system = llm.written[0][0]["content"]
    assert "Tom Hanks" in system and "ACTED_IN" in system  # the local schema of the named entity


def test_a_written_write_is_refused_and_the_compiled_answer_stands(reference, kgqa_home, movies_graph):
    expected = reference.ask(TOM, "movies")
    before = graph_checksum(movies_graph)
    pipe, _ = writer_pipe(kgqa_home, "```cypher\nMATCH (m:Movie) DETACH DELETE m\n```")
    r = pipe.ask(TOM, "movies")
    assert r.status == "answered" and r.rows == expected.rows
    llm_attempts = [a for a in r.attempts if a["origin"] == "llm"]
    assert len(llm_attempts) == 1 and llm_attempts[0]["error"].startswith("Unsafe query: DETACH is not allowed")
    assert r.cache["cypher_writer"]["action"] == "keep" and "refused" in r.cache["cypher_writer"]["reason"]
    assert graph_checksum(movies_graph) == before


def test_two_clean_plans_that_disagree_decline_with_the_reason(kgqa_home):
    pipe, _ = writer_pipe(kgqa_home, "MATCH (p:Person)-[:DIRECTED]->(m:Movie) WHERE p.name = 'Tom Hanks' RETURN m.title")
    r = pipe.ask(TOM, "movies")
    assert r.status == "dont_know" and r.answer == summarizer.DONT_KNOW and r.rows == []
    assert "disagree" in r.error and "12 rows" in r.error and "1 rows" in r.error
    assert r.cache["cypher_writer"]["action"] == "decline"


def test_a_failing_backend_leaves_the_compiled_answer(reference, kgqa_home):
    pipe, _ = writer_pipe(kgqa_home, LLMError("http://127.0.0.1:9/v1: APITimeoutError"))
    r = pipe.ask(TOM, "movies")
    assert r.status == "answered" and r.rows == reference.ask(TOM, "movies").rows
    assert "LLM call failed" in r.cache["cypher_writer"]["reason"] and r.cache["llm_calls"] == 1


def test_a_written_plan_alone_answers_only_on_strong_evidence(reference, kgqa_home, monkeypatch):
    expected = reference.ask(TOM, "movies")
    pipe, llm = writer_pipe(kgqa_home, "MATCH (p:person)-[:acted_in]->(m:Movie) WHERE p.nam = 'Tom Hanks' RETURN m")
    monkeypatch.setattr(pipe.domains["movies"].compiler, "read", lambda *a, **k: Compilation([]))  # nothing compiles
    r = pipe.ask(TOM, "movies")
    assert r.status == "answered" and r.rows == expected.rows
    assert r.cache["cypher_writer"]["action"] == "llm" and r.cypher == TOM_CYPHER
    assert {a["origin"] for a in r.attempts} == {"llm"} and len(r.attempts) >= 3  # repaired, then re-checked
    assert r.cache["llm_calls"] == llm.calls
    for weak in ("MATCH (m:Movie) RETURN m.title",  # ignores the named entity
                 "MATCH (p:Person)-[:DIRECTED]->(m:Movie) WHERE p.name = 'Tom Hanks' RETURN m.tagline LIMIT 2"):
        llm.reply = weak
        r = pipe.ask(TOM, "movies")
        assert r.status == "dont_know" and r.rows == [] and "alone is not trusted" in r.cache["cypher_writer"]["reason"]


# -- plumbing against a real llama_cpp.server running the small model ------------------------------------
@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    with llama_server(tmp_path_factory.mktemp("llama-server"), n_threads=2, n_ctx=2048) as url:
        yield url


EXEMPLARS = [  # verified plans in the plan cache: the writer's few-shot context
    ("Who acted in The Matrix?", "MATCH (p:Person)-[:ACTED_IN]->(m:Movie) WHERE m.title = 'The Matrix' RETURN p.name"),
    ("How many movies were released in 1999?", "MATCH (m:Movie) WHERE m.released = 1999 RETURN count(m)"),
]


@pytest.mark.llm
def test_the_small_model_writes_through_guard_and_repair_and_the_compiled_answer_stands(
        server_url, reference, kgqa_home, movies_graph, tmp_path):
    from kgqa.cache.plan_cache import PlanCache
    from kgqa.cache.plan_entry import PlanEntry

    version = reference.domains["movies"].graph.version
    plans = PlanCache(tmp_path / "plans")
    for q, cypher in EXEMPLARS:
        plans.add(PlanEntry(question=q, cypher=cypher, domain="movies", kg_version=version))
    settings = Settings(home=kgqa_home, llm_backend="openai", llm_base_url=server_url, llm_timeout_s=60,
                        llm_writes_cypher=True, vector_memory=False)
    pipe = Pipeline(settings, plan_cache=plans, domains=["movies"])
    assert isinstance(pipe.llm, OpenAICompatLLM)
    before = graph_checksum(movies_graph)
    written = []
    for question in (TOM, "Who directed The Matrix?"):
        expected = reference.ask(question, "movies")
        r = pipe.ask(question, "movies")
        w = r.cache["cypher_writer"]
        written.append((question, w, [a for a in r.attempts if a["origin"] == "llm"]))
        assert r.cache["llm_calls"] >= 1 and "write_cypher" in r.timings_ms
        # the small model's plan never beats the compiled one on a question the compiler answers right
        assert r.status == "answered" and r.rows == expected.rows, written[-1]
        assert w["action"] == "keep", written[-1]
    print("\nwhat the small model wrote:", *written, sep="\n  ")
    attempts = [a for _, _, chain in written for a in chain]
    assert attempts, "the model wrote no Cypher at all"
    # its output went through EXPLAIN-repair: at least one query failed EXPLAIN and was rewritten
    assert any(len(chain) > 1 and chain[0]["error"] for _, _, chain in written), written
    # a reply of the real model holding a write, through the extraction path: the guard refuses it
    reply = pipe.llm.complete("Write the Cypher statement CREATE (p:Person {name: 'Ann'}) in a ```cypher block.",
                              max_tokens=64).text
    cypher = extract_cypher(reply)
    assert cypher and "CREATE" in cypher.upper(), reply
    d = pipe.domains["movies"]
    c = run_candidate("llm", cypher, {}, d.graph, d.view)
    assert not c.ok and c.error.startswith("refused by the read-only guard: CREATE")
    assert graph_checksum(movies_graph) == before
