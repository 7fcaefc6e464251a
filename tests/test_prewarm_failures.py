"""Pre-warm never dies of one item: a plan that fails is skipped, counted by kind and reported; the exit status
says whether a domain ended with no plans.

The failures are real: a label of 120,000 readings cannot be scanned within a 5 ms query bound, so every query
that scans it stops with a timeout, while the six people answer well within it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgqa.app.cli import main as kgqa
from kgqa.cache.store import open_plan_cache
from kgqa.kg.loader import build_graph
from kgqa.kg.sources import csv_source
from kgqa.settings import Settings

READINGS = 120_000
PEOPLE = "id,name,age\n1,Alice Smith,31\n2,Bob Jones,45\n3,Carol White,27\n4,Dan Brown,52\n5,Eve Black,38\n" \
         "6,Frank Green,61\n"
KNOWS = "from,to,since\n1,2,2001\n2,3,2005\n3,4,2010\n4,5,2012\n5,6,2015\n6,1,2020\n"


def write_graph(root: Path, with_people: bool) -> tuple[Path, Path]:
    csv = root / "csv"
    csv.mkdir(parents=True)
    ddl = ["CREATE NODE TABLE Reading(rid INT64, level INT64, PRIMARY KEY (rid));"]
    (csv / "Reading.csv").write_text("rid,level\n" + "".join(f"{i},{(i * 7919) % 1000003}\n" for i in range(READINGS)))
    if with_people:
        ddl += ["CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY (id));",
                "CREATE REL TABLE KNOWS(FROM Person TO Person, since INT64);"]
        (csv / "Person.csv").write_text(PEOPLE)
        (csv / "KNOWS.csv").write_text(KNOWS)
    (root / "schema.cypher").write_text("\n".join(ddl) + "\n")
    return root / "schema.cypher", csv


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("prewarm-failures")
    for name, people in (("sensors", True), ("readings", False)):
        schema, csv = write_graph(home / "src" / name, people)
        build_graph(name, csv_source(schema, csv), home / "graphs", progress=False, index=False)
    return home


@pytest.fixture
def env(home, monkeypatch):
    monkeypatch.setenv("KGQA_HOME", str(home))
    monkeypatch.setenv("KGQA_QUERY_TIMEOUT_MS", "5")
    monkeypatch.setenv("KGQA_VECTOR_MEMORY", "false")
    monkeypatch.setenv("KGQA_LLM_MODEL_PATH", str(home / "no-model.gguf"))  # schema templates only
    return home


def test_a_failing_label_is_skipped_counted_and_the_rest_kept(env, capsys):
    assert kgqa(["prewarm", "--domain", "sensors", "--budget", "30"]) == 0
    out = capsys.readouterr().out
    summary = out.strip().splitlines()[-1]
    assert "failed (timeout" in summary and "domains with no plans: none" in summary, summary
    with open_plan_cache(Settings.from_env()) as pc:
        kept = pc.entries("sensors")
    assert kept and all("Reading" not in e.cypher for e in kept)
    assert any("Person" in e.cypher for e in kept)


def test_a_domain_left_with_no_plans_sets_the_exit_status(env, capsys):
    assert kgqa(["prewarm", "--domain", "readings", "--budget", "10"]) == 1
    captured = capsys.readouterr()
    assert "domains with no plans: readings" in captured.out.strip().splitlines()[-1]
    assert "no verified plans for readings" in captured.err


def test_bench_accuracy_skips_a_graph_that_does_not_load_and_counts_it(tmp_path):
    from kgqa.evals import bench_accuracy

    coll = tmp_path / "collection"
    for name, people in (("good", PEOPLE), ("broken", PEOPLE + "7,Gus Grey,not-a-number\n")):
        (coll / name / "csv").mkdir(parents=True)
        (coll / name / "schema.cypher").write_text(
            "CREATE NODE TABLE Person(id INT64, name STRING, age INT64, PRIMARY KEY (id));\n")
        (coll / name / "csv" / "Person.csv").write_text(people)
    (coll / "questions.jsonl").write_text(
        '{"id": "g1", "domain": "good", "question": "How many people are there?", "gold_rows": [[6]]}\n'
        '{"id": "b1", "domain": "broken", "question": "How many people are there?", "gold_rows": [[7]]}\n')
    before = bench_accuracy.FAILURES.counts.get("load", 0)
    settings = Settings(home=tmp_path / "home", vector_memory=False)
    [gs] = bench_accuracy.load_graph_sets(settings, [coll], "all", progress=False)
    assert [g.name for g in gs.graphs] == ["good"] and [q["id"] for q in gs.questions] == ["g1"]
    assert bench_accuracy.FAILURES.counts["load"] == before + 1
    assert "not-a-number" in bench_accuracy.FAILURES.first["load"] or "broken" in bench_accuracy.FAILURES.first["load"]
