"""The Cypher expressions the generator's clauses share: relationship steps, one more condition (numbers:
:mod:`kgqa.planner.arithmetic`)."""

from __future__ import annotations

from kgqa.kg.schema import ident


def and_(where_sql: str) -> str:
    """Returns ``where_sql`` ready for one more condition (" WHERE " when it has none yet)."""
    return where_sql + " AND " if where_sql else " WHERE "


def arrow(rel: str, direction: str, variable: str = "") -> str:
    """Returns the Cypher of one relationship step, ``out`` or ``in``, with its variable if any."""
    return f"-[{variable}:{ident(rel)}]->" if direction == "out" else f"<-[{variable}:{ident(rel)}]-"
