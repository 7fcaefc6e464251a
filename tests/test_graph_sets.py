"""The development graph sets: a graph folder or a folder of them, and the one fixed split of each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgqa.evals.graph_sets import discover, held_out_names, split

FIXTURES = Path(__file__).parent / "fixtures"


def _graph(folder: Path, name: str, questions: list[dict] | None = None) -> Path:
    g = folder / name
    (g / "csv").mkdir(parents=True)
    (g / "schema.cypher").write_text("CREATE NODE TABLE T(id INT64, PRIMARY KEY(id));\n")
    (g / "csv" / "T.csv").write_text("id\n1\n")
    if questions is not None:
        (g / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return g


def test_a_fifth_is_held_out_by_name_whatever_the_order():
    names = [f"db_{i}" for i in range(40)]
    out = held_out_names(names)
    assert len(out) == 8 and out == held_out_names(list(reversed(names)))


def test_a_collection_splits_by_graph_and_one_graph_by_question(tmp_path):
    coll = tmp_path / "coll"
    for i in range(10):
        _graph(coll, f"Db_{i}")
    lines = [{"id": f"Db_{i}-{k}", "domain": f"Db_{i}", "question": "q", "gold_rows": [[1]], "hardness": "easy"}
             for i in range(10) for k in range(3)]
    (coll / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in lines))
    gs = discover(coll)
    dev, held = split(gs, "dev"), split(gs, "heldout")
    assert len(held.graphs) == 2 and len(dev.graphs) == 8
    assert not {g.name for g in dev.graphs} & {g.name for g in held.graphs}
    assert all(g.name == g.name.lower() and all(q["domain"] == g.name for q in g.questions) for g in gs.graphs)
    assert all(q["type"] == "easy" for q in gs.questions)  # Spider's hardness is the line's type

    one = _graph(tmp_path, "single", [{"id": f"s-{k}", "question": "q", "gold_rows": [[1]]} for k in range(20)])
    gs = discover(one)
    dev, held = split(gs, "dev"), split(gs, "heldout")
    assert len(held.questions) == 4 and len(dev.questions) == 16 and len(split(gs, "all").questions) == 20


def test_a_folder_that_is_no_graph_is_refused(tmp_path):
    with pytest.raises(ValueError, match="neither a graph folder"):
        discover(tmp_path)
    assert discover(FIXTURES / "campus").graphs[0].name == "campus"
