"""Graph backends: one protocol (:class:`kgqa.protocols.GraphBackend`), one engine module per dialect.

The planner writes Cypher in one dialect, the *canonical* one (Kuzu's, which the compiler, the templates
and the plan cache have always used). An engine runs it on its database: :mod:`kgqa.kg.kuzu_engine`
(embedded Kuzu, the default; canonical, so nothing is rewritten) and :mod:`kgqa.kg.bolt_engine` (a
Neo4j-compatible server over Bolt: Neo4j, Memgraph, ArcadeDB), whose :class:`~kgqa.kg.bolt_engine.Neo4jDialect`
rewrites the canonical text before it is sent. This is sqlglot's model: a read dialect, a write dialect,
and differences kept in the write dialect's module.

Every engine puts :func:`kgqa.kg.safety.check_read_only` in front of every query it sends (a server may
accept writes even in a read session), applies its own timeout and row cap, and describes its graph with
a :class:`Catalog` (labels, typed properties, keys, relationship endpoints) in canonical type names
(``STRING``, ``INT64``, ``DOUBLE``, ``BOOL``, ``DATE``, ``TIMESTAMP``, ``STRING[]``...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

BOLT_KIND = "bolt"  # GraphMeta.source["kind"] of a graph served by a Bolt server


@dataclass
class Catalog:
    """A graph's schema in canonical terms: what every introspection (schema, schema view, operators,
    entity index) reads instead of an engine's own catalogue calls."""

    nodes: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # label -> [(prop, type)] in order
    keys: dict[str, str] = field(default_factory=dict)  # label -> primary-key property
    rels: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # type -> [(from label, to label)]
    rel_props: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # type -> [(prop, type)]


class Dialect:
    """The canonical dialect: Cypher passes unchanged. Engines with another dialect subclass it."""

    name = "kuzu"

    def translate(self, cypher: str) -> str:
        """Returns ``cypher`` (canonical) written in this dialect."""
        return cypher

    def explain(self, cypher: str) -> str:
        """Returns the statement that validates ``cypher`` (already in this dialect) without running it."""
        return "EXPLAIN " + cypher


def read_catalog(graph) -> Catalog:
    """Returns the catalogue of any engine (its ``catalog()``)."""
    return graph.catalog()
