"""Shared fixtures: the three graphs, built once per session, and read-only handles on them.

``built_graphs`` builds movies, northwind and nobel (with their entity indexes) into a temporary KGQA
home, or into ``$KGQA_TEST_HOME`` when set: the loader is idempotent, so a persistent test home is
built once and then only checked (set ``KGQA_TEST_HOME=/tmp/kgqa-test-home`` to save the ~1 min build).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kgqa.kg.db import Graph  # noqa: E402
from kgqa.kg.spec import DomainSpec  # noqa: E402
from kgqa.settings import Settings  # noqa: E402


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The source data (``$KGQA_DATA_DIR`` or ``../shared/data``)."""
    return Settings.from_env().data_dir


@pytest.fixture(scope="session")
def kgqa_home(tmp_path_factory) -> Path:
    """A KGQA home for the session: ``$KGQA_TEST_HOME`` if set, else a fresh temporary folder."""
    env = os.environ.get("KGQA_TEST_HOME")
    if env:
        home = Path(env).expanduser()
        home.mkdir(parents=True, exist_ok=True)
        return home
    return tmp_path_factory.mktemp("kgqa-home")


@pytest.fixture(scope="session")
def built_graphs(kgqa_home: Path, data_dir: Path) -> dict[str, Path]:
    """{domain: graph dir} for every domain, built (or found current) under ``kgqa_home/graphs``."""
    from kgqa.kg.loader import build_all

    graphs_dir = kgqa_home / "graphs"
    metas = build_all(data_dir, graphs_dir, progress=False)
    return {domain: graphs_dir / domain for domain in metas}


@pytest.fixture(scope="session")
def graph(built_graphs: dict[str, Path]) -> Iterator[Callable[[str], Graph]]:
    """``graph(domain)`` -> a read-only :class:`Graph`, opened once per session."""
    opened: dict[str, Graph] = {}

    def open_graph(domain: str) -> Graph:
        if domain not in opened:
            opened[domain] = Graph(built_graphs[domain], read_only=True)
        return opened[domain]

    yield open_graph
    for g in opened.values():
        g.close()


@pytest.fixture(scope="session")
def movies_graph(graph) -> Graph:
    return graph("movies")


@pytest.fixture(scope="session")
def northwind_graph(graph) -> Graph:
    return graph("northwind")


@pytest.fixture(scope="session")
def nobel_graph(graph) -> Graph:
    return graph("nobel")


@pytest.fixture(scope="session")
def spec(graph) -> Callable[[str], DomainSpec]:
    """``spec(domain)`` -> the :class:`DomainSpec` the service serves the domain with (derived + annotations)."""
    from kgqa.kg.registry import graph_spec

    made: dict[str, DomainSpec] = {}

    def spec_of(domain: str) -> DomainSpec:
        if domain not in made:
            made[domain] = graph_spec(graph(domain))
        return made[domain]

    return spec_of


@pytest.fixture
def small_graph(tmp_path) -> Callable[[Path, str, str, dict[str, str]], Path]:
    """``small_graph(graphs_dir, name, schema, {table: csv_text})`` -> the folder of a graph built from Kuzu DDL and
    one CSV text per table, written as a user's own folder holds them (``schema.cypher`` and ``csv/``)."""
    from kgqa.kg.loader import build_graph
    from kgqa.kg.sources import csv_source

    def build(graphs_dir: Path, name: str, schema: str, tables: dict[str, str]) -> Path:
        src = tmp_path / f"src-{name}"
        (src / "csv").mkdir(parents=True)
        (src / "schema.cypher").write_text(schema)
        for table, text in tables.items():
            (src / "csv" / f"{table}.csv").write_text(text)
        build_graph(name, csv_source(src / "schema.cypher", src / "csv"), graphs_dir, progress=False)
        return Path(graphs_dir) / name

    return build
