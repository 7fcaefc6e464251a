"""The domain registry: every graph under ``$KGQA_HOME/graphs``, one folder each.

A folder is a registered domain once its ``meta.json`` is there (the loader writes it last). It holds the
graph's database (or, for a database registered in place, the path to it), the derived spec
(``spec.json``), the annotations file if one was given (``annotations.json``), and the entity index files.
Nothing else lists domains: the service, the CLI and the benchmarks all read this registry.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from kgqa.kg.annotations import FILE_NAME as ANNOTATIONS_FILE
from kgqa.kg.annotations import read_annotations
from kgqa.kg.db import META_FILE, Graph, GraphMeta
from kgqa.kg.derive import derive_spec
from kgqa.kg.schema import GraphSchema
from kgqa.kg.spec import SPEC_FILE, DomainSpec, annotate

NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


def check_name(name: str) -> str:
    """Returns ``name`` when it can name a domain (lower-case letters, digits, ``_``, ``-``), else raises."""
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError(f"invalid domain name {name!r}: use 1-40 lower-case letters, digits, '_' or '-', "
                         "starting with a letter")
    return name


def registered(graphs_dir: str | Path) -> dict[str, GraphMeta]:
    """Returns {name: meta} of every complete graph under ``graphs_dir``, by name."""
    graphs_dir = Path(graphs_dir)
    out = {}
    for meta_file in sorted(graphs_dir.glob(f"*/{META_FILE}")):
        name = meta_file.parent.name
        if name.startswith(".") or not NAME.match(name):
            continue
        try:
            out[name] = GraphMeta.read(meta_file.parent)
        except (ValueError, TypeError, OSError):
            continue  # unreadable meta: not a usable graph
    return out


def remove_domain(graphs_dir: str | Path, name: str) -> GraphMeta:
    """Removes a registered graph's folder (never a database registered in place); returns its meta."""
    folder = Path(graphs_dir) / check_name(name)
    if not (folder / META_FILE).exists():
        raise KeyError(f"no domain {name!r} under {graphs_dir}")
    meta = GraphMeta.read(folder)
    aside = folder.parent / f".{name}.removed"
    shutil.rmtree(aside, ignore_errors=True)
    folder.rename(aside)  # atomic: the registry no longer lists it, even if the removal below is cut short
    shutil.rmtree(aside, ignore_errors=True)
    return meta


def graph_spec(graph: Graph, *, annotations: bool = True) -> DomainSpec:
    """Returns the spec a graph is served with: the derived one saved beside it (derived now if missing),
    completed by its annotations file unless ``annotations`` is False."""
    folder = graph.dir
    spec_file = folder / SPEC_FILE
    spec = DomainSpec.read(spec_file) if spec_file.exists() else derive_spec(graph)
    ann_file = folder / ANNOTATIONS_FILE
    if annotations and ann_file.exists():
        spec = annotate(spec, read_annotations(ann_file, GraphSchema.from_graph(graph, samples=0)))
    return spec
