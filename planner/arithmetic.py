"""Numbers as Cypher computes them from stored properties: text that holds numbers cast, and a measure the
annotations define written out as its arithmetic over the holder's properties ("revenue": quantity * unitPrice *
(1 - discount)), dates in it as day numbers. Both readers' generators write numbers with :func:`number`."""

from __future__ import annotations

import re

from kgqa.kg.cypher import literal
from kgqa.kg.schema import ident
from kgqa.planner.schema_view import MISSING_TEXT, SchemaView

_NAMES = re.compile(r"'[^']*'|\b[A-Za-z_]\w*\b(?!\s*\()")  # a measure's property names: not functions, not quoted


def number(v: SchemaView, owner: str, prop: str, ref: str) -> str:
    """Returns ``ref`` (``holder.prop``) as a number: a measure of ``owner`` as its arithmetic over the holder's
    properties, text that holds numbers ("32.38") cast, else ``ref``."""
    expr = v.measures.get((owner, prop))
    if expr is not None:
        holder = ref.rsplit(".", 1)[0]
        return "(" + _NAMES.sub(lambda m: m.group() if m.group().startswith("'") else
                                _term(v, owner, m.group(), f"{holder}.{ident(m.group())}"), expr) + ")"
    return f"CAST({ref} AS DOUBLE)" if v.is_numeric_text(owner, prop) else ref


def _term(v: SchemaView, owner: str, prop: str, ref: str) -> str:
    """Returns a property inside a measure's arithmetic as a number: a date as its :func:`day_number`, else as
    :func:`number` does."""
    if not v.is_date(owner, prop):
        return number(v, owner, prop, ref)
    return day_number(v, owner, prop, ref)


def day_number(v: SchemaView, owner: str, prop: str, ref: str) -> str:
    """Returns a date property as its day number (days since 1970-01-01; date text cut to its date, missing text
    as null)."""
    if v.prop_type(owner, prop) == "STRING":
        for word in MISSING_TEXT:
            ref = f"nullif({ref}, {literal(word)})"
        ref = f"CAST(substring({ref}, 1, 10) AS TIMESTAMP)"
    elif not (v.prop_type(owner, prop) or "").startswith("TIMESTAMP"):
        ref = f"CAST({ref} AS TIMESTAMP)"
    return f"to_epoch_ms({ref}) / 86400000"
