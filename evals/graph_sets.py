"""Graphs brought as a user would bring them, with their questions, and the one fixed split of each set.

A graph folder in the shared format holds ``schema.cypher`` (Kuzu DDL), ``csv/`` (one CSV per table) and,
usually, ``questions.jsonl`` (``{"id", "domain", "question", "gold_rows", "ordered", ...}``). A collection
folder holds graph folders (one per database) and one ``questions.jsonl`` for all of them, each line naming
its graph by ``domain`` (Spider's training databases). :func:`discover` reads either.

**The split** (:func:`split`), made once and never tuned: a collection of several graphs is split by graph, a
single graph by question. Names (graphs, or question ids) are ranked by their SHA-256 and the first fifth is
held out (:func:`held_out_names`): independent of file order and the same on every machine. ``dev`` is what the reader is developed against; ``heldout`` is scored once per
change, its questions never read.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from kgqa.jsonl import read_jsonl

SPLITS = ("dev", "heldout", "all")
HELD_OUT_SHARE = 5  # one in five names is held out


@dataclass
class GraphCase:
    """One graph in the shared format and the gold questions asked of it."""

    name: str
    schema: Path
    csv: Path
    questions: list[dict] = field(default_factory=list)


@dataclass
class GraphSet:
    """A set of graphs scored together (one folder given to ``--graph``): a single graph or a collection."""

    name: str
    graphs: list[GraphCase]

    @property
    def questions(self) -> list[dict]:
        return [q for g in self.graphs for q in g.questions]


def is_graph_folder(path: Path) -> bool:
    """Whether ``path`` is one graph in the shared format (a ``schema.cypher`` and a ``csv/`` folder)."""
    return (path / "schema.cypher").is_file() and (path / "csv").is_dir()


def discover(path: str | Path) -> GraphSet:
    """Returns the graph set of a folder: one graph (its own ``questions.jsonl``, every line asked of it) or a
    collection of graph folders (the collection's ``questions.jsonl`` lines go to the graph their ``domain``
    names; a graph folder's own file is read too). Raises ``ValueError`` for a folder that is neither."""
    path = Path(path)
    if is_graph_folder(path):
        questions = _read(path / "questions.jsonl")
        for q in questions:
            q["domain"] = domain_name(path.name)  # the graph is loaded under its folder's name
        return GraphSet(path.name, [GraphCase(domain_name(path.name), path / "schema.cypher", path / "csv",
                                              questions)])
    subs = sorted(p for p in path.iterdir() if p.is_dir() and is_graph_folder(p)) if path.is_dir() else []
    if not subs:
        raise ValueError(f"{path}: neither a graph folder (schema.cypher and csv/) nor a folder of them")
    by_domain: dict[str, list[dict]] = defaultdict(list)
    for q in _read(path / "questions.jsonl"):
        by_domain[str(q.get("domain"))].append(q)
    graphs = []
    for sub in subs:
        name = domain_name(sub.name)
        mine = by_domain.get(sub.name, []) + _read(sub / "questions.jsonl")
        for q in mine:
            q["domain"] = name
        graphs.append(GraphCase(name, sub / "schema.cypher", sub / "csv", mine))
    return GraphSet(path.name, graphs)


def domain_name(folder: str) -> str:
    """Returns the domain name a graph folder loads under: its name in lower case (``cre_Doc_Tracking_DB`` ->
    ``cre_doc_tracking_db``), as domain names are."""
    return folder.lower()


def held_out_names(names: list[str]) -> set[str]:
    """Returns the held-out fifth of ``names``: the first ``round(n / 5)`` by SHA-256 of the name."""
    ranked = sorted(set(names), key=lambda n: hashlib.sha256(n.encode("utf-8")).hexdigest())
    return set(ranked[:round(len(ranked) / HELD_OUT_SHARE)])


def split(gs: GraphSet, which: str) -> GraphSet:
    """Returns the ``dev``, ``heldout`` or ``all`` part of a set: by graph for a collection of several graphs,
    by question id for a single graph (module docstring). Graphs left with no question are dropped."""
    if which not in SPLITS:
        raise ValueError(f"unknown split {which!r}; choose from {', '.join(SPLITS)}")
    if which == "all":
        return gs
    keep = which == "heldout"
    if len(gs.graphs) > 1:
        out = held_out_names([g.name for g in gs.graphs])
        graphs = [g for g in gs.graphs if (g.name in out) == keep]
    else:
        out = held_out_names([str(q["id"]) for g in gs.graphs for q in g.questions])
        graphs = [GraphCase(g.name, g.schema, g.csv, [q for q in g.questions if (str(q["id"]) in out) == keep])
                  for g in gs.graphs]
    return GraphSet(gs.name if which == "dev" else f"{gs.name}-heldout", [g for g in graphs if g.questions])


def _read(path: Path) -> list[dict]:
    lines = read_jsonl(path) if path.is_file() else []
    for q in lines:  # Spider's lines say "hardness" where the others say "type"
        q.setdefault("type", q.get("hardness", "unknown"))
    return lines
