"""A user's own graph must never break the service: graphs whose labels, relationship types and properties are
Cypher and Kuzu keywords (``Comment``, ``Match``, ``Order`` ...), in any case, with digits, snake_case, camelCase
or characters that need back-quotes.

Each generated graph (hypothesis, seeded: at least 50 per run) is loaded by both file routes (``--schema/--csv``
and ``--cypher``, which must give the same rows), pre-warmed (no plan may fail the guard or the engine), asked a
question per label ("How many comments are there?") and per relationship ("Which comments does Alpha Box
contain?"), each checked against a direct query, and every write payload of the injection corpus aimed at its
names is still refused by the read-only guard. Graphs are small and the process is reused, so a run takes a few
minutes on 2 cores.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st
from injection_corpus import REFUSE, DomainBits, cypher_payloads

from kgqa.autogen.job import prewarm_into
from kgqa.autogen.phrases import plural
from kgqa.cache.plan_cache import PlanCache
from kgqa.kg.cypher import ident, literal
from kgqa.kg.db import Graph
from kgqa.kg.loader import build_graph
from kgqa.kg.safety import UnsafeQueryError, check_read_only
from kgqa.kg.sources import csv_source, cypher_source
from kgqa.planner.llm import make_llm
from kgqa.planner.pipeline import Pipeline
from kgqa.settings import Settings

EXAMPLES = int(__import__("os").environ.get("HOSTILE_EXAMPLES", "50"))
WORDS = ("Comment", "Match", "Return", "Order", "Group", "Call", "Set", "Delete", "Count", "Limit", "From", "In",
         "Contains", "Where", "With", "Create", "Merge", "Load", "Copy", "Drop", "Union", "Skip", "Case", "End",
         "Table", "Node", "Key", "Detach", "Remove", "Attach", "Export", "Import", "Use", "Begin", "Commit",
         "Macro", "Update", "Force", "Profile", "Explain", "Install", "Distinct", "Exists", "Optional", "Unwind")
# Relationship types are asked about as verbs ("Which comments does Alpha Box contain?"), so they are drawn from
# the keywords that read as verbs: a type named after a question's own shape word ('count', 'order', 'group',
# 'limit', 'distinct', 'return', 'call') or a preposition ('in', 'from', 'with') is read by the grammar as that
# word ("Which Xs does Y count?" counts; "... does Y return?" reads Y's own properties), a reading limit of
# planner/ (left to the grammar reader), not a quoting one. Labels and properties use every keyword.
VERBS = ("Comment", "Match", "Set", "Delete", "Contains", "Create", "Merge", "Load", "Copy", "Drop", "Detach", "Remove",
         "Attach", "Export", "Import", "Commit", "Update", "Force", "Install", "Unwind")
SPELLINGS = ("as is", "lower", "upper", "digits", "snake", "camel", "spaced")
ADJECTIVES = ("Amber", "Brisk", "Cobalt", "Dusty", "Eager", "Frosty", "Golden", "Hollow", "Ivory", "Jolly")
NOUNS = ("Anchor", "Beacon", "Canyon", "Delta", "Ember", "Falcon", "Glacier", "Harbor")


@cache
def model():
    """The embedded LLM, loaded once for every generated graph (the pipeline's constrained choices)."""
    return make_llm(Settings())


def spell(word: str, how: str, n: int) -> str:
    """``word`` written one of the ways a schema may write a name."""
    return {"as is": word, "lower": word.lower(), "upper": word.upper(), "digits": f"{word.upper()}{n}",
            "snake": f"{word.lower()}_item", "camel": f"has{word}", "spaced": f"{word} Item"}[how]


@dataclass
class Label:
    name: str
    key: str  # INT64 primary key
    display: str  # STRING: the node's name
    number: str  # INT64
    nodes: list[tuple[int, str, int]]  # (key, name, number)


@dataclass
class Rel:
    name: str
    src: Label
    dst: Label
    prop: str  # INT64
    edges: list[tuple[int, int, int]]  # (src key, dst key, prop)


@st.composite
def hostile_graphs(draw) -> tuple[list[Label], list[Rel]]:
    """2-3 labels and 1-2 relationship types, every name drawn from the keywords, spelled some way."""
    n_labels, n_rels = draw(st.integers(2, 3)), draw(st.integers(1, 2))
    verbs = draw(st.lists(st.sampled_from(VERBS), min_size=n_rels, max_size=n_rels, unique=True))
    words = draw(st.lists(st.sampled_from([w for w in WORDS if w not in verbs]), min_size=n_labels * 3 + n_rels,
                          max_size=n_labels * 3 + n_rels, unique=True))
    hows = draw(st.lists(st.sampled_from(SPELLINGS), min_size=len(words) + n_rels, max_size=len(words) + n_rels))
    names = [spell(w, h, i + 2) for i, (w, h) in enumerate(zip(words, hows))]
    rel_names = [spell(v, h, i + 2) for i, (v, h) in enumerate(zip(verbs, hows[len(words):]))]
    labels, it = [], iter(names)
    for i in range(n_labels):
        label, key, number = next(it), next(it), next(it)
        count = draw(st.integers(3, 5))
        nodes = [(k + 1, f"{ADJECTIVES[(3 * i + k) % 10]} {NOUNS[(i + 2 * k) % 8]} {i}{k}", 10 * k + i)
                 for k in range(count)]
        labels.append(Label(label, key, draw(st.sampled_from(("name", "title", "Name", "full_name"))), number, nodes))
    rels = []
    for j in range(n_rels):
        name, prop = rel_names[j], next(it)
        src, dst = draw(st.sampled_from(labels)), draw(st.sampled_from(labels))
        edges = sorted({(s[0], d[0], 100 + s[0] + d[0]) for s in src.nodes for d in dst.nodes
                        if (s[0] + d[0] + j) % 3 == 0 and (src is not dst or s[0] != d[0])})
        rels.append(Rel(name, src, dst, prop, edges or [(src.nodes[0][0], dst.nodes[-1][0], 7)]))
    return labels, rels


def write_sources(root: Path, labels: list[Label], rels: list[Rel]) -> tuple[Path, Path, Path]:
    """(schema.cypher, csv folder, script.cypher) of one graph."""
    csv = root / "csv"
    csv.mkdir(parents=True)
    ddl, script = [], []
    for lb in labels:
        ddl.append(f"CREATE NODE TABLE {ident(lb.name)}({ident(lb.key)} INT64, {ident(lb.display)} STRING, "
                   f"{ident(lb.number)} INT64, PRIMARY KEY ({ident(lb.key)}));")
        lines = [f"{lb.key},{lb.display},{lb.number}"] + [f"{k},{n},{x}" for k, n, x in lb.nodes]
        (csv / f"{lb.name}.csv").write_text("\n".join(lines) + "\n")
        script += [f"CREATE (v{id(lb)}_{k}:{ident(lb.name)} {{{ident(lb.key)}: {k}, {ident(lb.display)}: "
                   f"{literal(n)}, {ident(lb.number)}: {x}}})" for k, n, x in lb.nodes]
    for r in rels:
        ddl.append(f"CREATE REL TABLE {ident(r.name)}(FROM {ident(r.src.name)} TO {ident(r.dst.name)}, "
                   f"{ident(r.prop)} INT64);")
        (csv / f"{r.name}.csv").write_text("from,to," + r.prop + "\n" + "".join(f"{a},{b},{p}\n" for a, b, p in r.edges))
        script += [f"CREATE (v{id(r.src)}_{a})-[:{ident(r.name)} {{{ident(r.prop)}: {p}}}]->(v{id(r.dst)}_{b})"
                   for a, b, p in r.edges]
    (root / "schema.cypher").write_text("\n".join(ddl) + "\n")
    (root / "script.cypher").write_text("\n".join(script) + "\n")
    return root / "schema.cypher", csv, root / "script.cypher"


def all_rows(graph: Graph, labels: list[Label], rels: list[Rel]) -> list:
    """Every node and edge of the graph, by direct queries."""
    out = []
    for lb in labels:
        out += graph.query(f"MATCH (n:{ident(lb.name)}) RETURN n.{ident(lb.key)}, n.{ident(lb.display)}, "
                           f"n.{ident(lb.number)} ORDER BY n.{ident(lb.key)}").rows
    for r in rels:
        out += graph.query(f"MATCH (a:{ident(r.src.name)})-[e:{ident(r.name)}]->(b:{ident(r.dst.name)}) "
                           f"RETURN a.{ident(r.src.key)}, b.{ident(r.dst.key)}, e.{ident(r.prop)} "
                           f"ORDER BY a.{ident(r.src.key)}, b.{ident(r.dst.key)}").rows
    return out


def verb(rel: str) -> str:
    """The relationship's name as the words of a verb ("hasContains" -> "has contains")."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", rel).replace("_", " ").lower().split()
    return " ".join(words[1:] if words[0] == "has" and len(words) > 1 else words)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          phases=(Phase.explicit, Phase.generate),  # no shrinking: a failing graph is reported as drawn, at once
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@seed(30)
@given(hostile_graphs())
def test_a_hostile_schema_loads_prewarms_answers_and_stays_read_only(graph_spec):
    labels, rels = graph_spec
    with tempfile.TemporaryDirectory(prefix="kgqa-hostile-") as tmp:
        home = Path(tmp)
        schema, csv, script = write_sources(home / "src", labels, rels)
        graphs = home / "graphs"
        build_graph("hostile", csv_source(schema, csv), graphs, progress=False)
        build_graph("hostile_script", cypher_source(script), graphs, progress=False, index=False)
        with Graph(graphs / "hostile") as g, Graph(graphs / "hostile_script") as h:
            assert all_rows(g, labels, rels) == all_rows(h, labels, rels)

        conf = Settings(home=home, vector_memory=False)
        pipe = Pipeline(conf, llm=model(), plan_cache=PlanCache(home / "state"), domains=["hostile"])
        try:
            report = prewarm_into(conf, pipe.plan_cache, ["hostile"], 16, llm=None, pipeline=pipe)
            d = report.domains["hostile"]
            assert d.entries_after > 0 and not {"guard", "engine", "error"} & set(d.failures), d.failures
            graph = pipe.domains["hostile"].graph
            for lb in labels:  # a question per label
                r = pipe.ask(f"How many {plural(lb.name)} are there?", "hostile", use_answer_cache=False)
                assert (r.status, r.rows) == ("answered", [[len(lb.nodes)]]), (lb.name, r.status, r.cypher, r.error)
            for rel in rels:  # a question per relationship, about its first source node
                key, name, _ = rel.src.nodes[0]
                want = sorted(row[0] for row in graph.query(
                    f"MATCH (a:{ident(rel.src.name)})-[:{ident(rel.name)}]->(b:{ident(rel.dst.name)}) "
                    f"WHERE a.{ident(rel.src.key)} = $k RETURN DISTINCT b.{ident(rel.dst.display)}", {"k": key}).rows)
                r = pipe.ask(f"Which {plural(rel.dst.name)} does {name} {verb(rel.name)}?", "hostile",
                             use_answer_cache=False)
                assert r.status in ("answered", "dont_know"), (rel.name, r.status, r.cypher, r.error)
                if r.status == "answered" and want:
                    assert sorted({row[0] for row in r.rows}) == want, (rel.name, r.cypher, r.rows)
            src = next(lb for lb in labels if lb is not rels[0].src) if len(labels) > 1 else labels[0]
            bits = DomainBits("hostile", ident(labels[0].name), ident(labels[0].display), ident(src.name),
                              ident(rels[0].name), (), ())
            for family, cypher, expect in cypher_payloads(bits, str(home / "secret.txt")):
                if expect == REFUSE:
                    try:
                        check_read_only(cypher)
                    except UnsafeQueryError:
                        continue
                    raise AssertionError(f"{family} payload passed the guard: {cypher!r}")
        finally:
            for dom in pipe.domains.values():
                dom.graph.close()


def test_a_comment_label_answers_how_many_comments(tmp_path, small_graph):
    """The issue's own case: a social graph with a ``Comment`` node table."""
    small_graph(tmp_path / "graphs", "social",
                "CREATE NODE TABLE Person(id INT64, name STRING, PRIMARY KEY (id));\n"
                "CREATE NODE TABLE Comment(id INT64, content STRING, length INT64, PRIMARY KEY (id));\n"
                "CREATE REL TABLE hasCreator(FROM Comment TO Person);\n",
                {"Person": "id,name\n1,Alice Moreau\n2,Bruno Lind\n",
                 "Comment": "id,content,length\n10,hello there,11\n11,nice post,9\n12,thanks,6\n",
                 "hasCreator": "from,to\n10,1\n11,1\n12,2\n"})
    conf = Settings(home=tmp_path, vector_memory=False)
    pipe = Pipeline(conf, llm=model(), domains=["social"])
    try:
        r = pipe.ask("How many comments are there?", "social", use_answer_cache=False)
        assert (r.status, r.rows) == ("answered", [[3]]), (r.cypher, r.error)
        assert "`Comment`" in r.cypher
    finally:
        for dom in pipe.domains.values():
            dom.graph.close()
