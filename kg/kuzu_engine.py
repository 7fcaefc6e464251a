"""The embedded Kuzu engine's dialect (the canonical one) and catalogue.

The engine itself is :class:`kgqa.kg.db.Graph` (read-only database, guard, timeout through
``set_query_timeout``, row cap while reading); it takes its ``dialect`` and ``catalog()`` from here.
"""

from __future__ import annotations

from kgqa.kg.backend import Catalog, Dialect
from kgqa.kg.cypher import literal


class KuzuDialect(Dialect):
    """Kuzu Cypher: canonical (the planner's own), validated with ``EXPLAIN``."""

    name = "kuzu"


KUZU = KuzuDialect()


def kuzu_catalog(graph) -> Catalog:
    """Returns the catalogue (tables in Kuzu's own order) read from Kuzu's ``show_tables``,
    ``table_info`` and ``show_connection`` through ``graph.execute_unchecked``."""
    cat = Catalog()
    tables = graph.execute_unchecked("CALL show_tables() RETURN name, type")
    for name, kind in tables.rows:
        info = graph.execute_unchecked(f"CALL table_info({literal(name)}) RETURN *")
        cols = info.columns
        props = [(r[cols.index("name")], r[cols.index("type")]) for r in info.rows]
        if kind == "NODE":
            cat.nodes[name] = props
            cat.keys[name] = next((r[cols.index("name")] for r in info.rows if r[cols.index("primary key")]),
                                  props[0][0] if props else "")
        elif kind == "REL":
            conn = graph.execute_unchecked(f"CALL show_connection({literal(name)}) RETURN *")
            cat.rels[name] = [(r[0], r[1]) for r in conn.rows]
            cat.rel_props[name] = props
    return cat
