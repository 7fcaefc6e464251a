"""The Cypher expressions the generator's clauses share: numbers, relationship steps, one more condition."""

from __future__ import annotations

import re

from kgqa.kg.cypher import literal
from kgqa.kg.schema import ident
from kgqa.planner.schema_view import MISSING_TEXT, SchemaView


def number(v: SchemaView, owner: str, prop: str, ref: str) -> str:
    """Returns ``ref`` as a number when the property holds numbers written as text ("32.38"), a measure the
    annotations define as its arithmetic over the holder's properties ("revenue": quantity * unitPrice * (1 -
    discount)), else ``ref``."""
    expr = v.measures.get((owner, prop))
    if expr is not None:
        holder = ref.rsplit(".", 1)[0]
        # names of properties, not of functions ("size(roles)") or inside quotes
        return "(" + re.sub(r"'[^']*'|\b[A-Za-z_]\w*\b(?!\s*\()", lambda m: m.group() if m.group().startswith("'") else
                            _term(v, owner, m.group(), f"{holder}.{ident(m.group())}"), expr) + ")"
    return f"CAST({ref} AS DOUBLE)" if v.is_numeric_text(owner, prop) else ref


def _term(v: SchemaView, owner: str, prop: str, ref: str) -> str:
    """Returns a property inside a measure's arithmetic as a number: a date as its day number (days since
    1970-01-01; date text cut to its date, missing text as null), else as :func:`number` does."""
    if not v.is_date(owner, prop):
        return number(v, owner, prop, ref)
    if v.prop_type(owner, prop) == "STRING":
        for word in MISSING_TEXT:
            ref = f"nullif({ref}, {literal(word)})"
        ref = f"CAST(substring({ref}, 1, 10) AS TIMESTAMP)"
    elif not (v.prop_type(owner, prop) or "").startswith("TIMESTAMP"):
        ref = f"CAST({ref} AS TIMESTAMP)"
    return f"to_epoch_ms({ref}) / 86400000"


def and_(where_sql: str) -> str:
    """Returns ``where_sql`` ready for one more condition (" WHERE " when it has none yet)."""
    return where_sql + " AND " if where_sql else " WHERE "


def arrow(rel: str, direction: str, variable: str = "") -> str:
    """Returns the Cypher of one relationship step, ``out`` or ``in``, with its variable if any."""
    return f"-[{variable}:{ident(rel)}]->" if direction == "out" else f"<-[{variable}:{ident(rel)}]-"
