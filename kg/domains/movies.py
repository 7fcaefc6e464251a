"""The Neo4j "movies" graph, parsed from its Cypher CREATE script (``movies.cypher``).

The script is read by :mod:`kgqa.kg.cypher_source` into the tables declared here, which keep Neo4j's demo
schema exactly (column types, keys), whatever subset of properties the script happens to use.
"""

from __future__ import annotations

from pathlib import Path

from kgqa.kg.cypher_source import read_script
from kgqa.kg.dataset import Dataset, NodeTable, RelTable

SOURCE = "movies.cypher"

NODE_COLUMNS = {
    "Movie": [("title", "STRING"), ("released", "INT64"), ("tagline", "STRING"), ("votes", "INT64")],
    "Person": [("name", "STRING"), ("born", "INT64")],
}
PRIMARY_KEYS = {"Movie": "title", "Person": "name"}
REL_TABLES = {  # name -> (from, to, columns)
    "ACTED_IN": ("Person", "Movie", [("roles", "STRING[]")]),
    "DIRECTED": ("Person", "Movie", []),
    "PRODUCED": ("Person", "Movie", []),
    "WROTE": ("Person", "Movie", []),
    "REVIEWED": ("Person", "Movie", [("summary", "STRING"), ("rating", "INT64")]),
    "FOLLOWS": ("Person", "Person", []),
}


def source_files(data_dir: Path) -> list[Path]:
    return [Path(data_dir) / SOURCE]


def read(data_dir: Path) -> Dataset:
    """Returns the movies graph in Neo4j's demo schema, read from the CREATE script."""
    nodes = [NodeTable(label, cols, PRIMARY_KEYS[label]) for label, cols in NODE_COLUMNS.items()]
    rels = [RelTable(name, f, t, cols) for name, (f, t, cols) in REL_TABLES.items()]
    return read_script(Path(data_dir) / SOURCE, Dataset(nodes, rels))
