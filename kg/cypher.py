"""Cypher text: identifiers and literals as they must be written, and parameters written into a query."""

from __future__ import annotations

import re
from typing import Any

_PARAM = re.compile(r"\$(\w+)")
# string literals and quoted identifiers (skipped: a ``$name`` inside one is text, not a parameter), or a
# parameter; each alternative is linear (disjoint character classes)
_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|\$(\w+)", re.S)

# Names that are Cypher keywords must be back-quoted in queries (``Order``); prompts show them so.
KEYWORDS = frozenset("""ORDER MATCH RETURN WHERE WITH LIMIT SKIP BY GROUP UNION CALL CASE WHEN END AS ON IN IS NOT
AND OR XOR NULL TRUE FALSE DISTINCT OPTIONAL UNWIND EXISTS COUNT DESC ASC FROM TO""".split())


def quote(name: str) -> str:
    """Returns ``name`` back-quoted, any backtick in it doubled: safe for every label, relation or property."""
    return "`" + name.replace("`", "``") + "`"


def ident(name: str) -> str:
    """Returns ``name`` as it must be written in Cypher: back-quoted (:func:`quote`) when it is a keyword
    (case-insensitive, :data:`KEYWORDS`), as it is otherwise."""
    return quote(name) if name.upper() in KEYWORDS else name


def literal(value: Any) -> str:
    """Returns ``value`` as a Cypher literal: quoted and escaped strings, ``true``/``false``, numbers."""
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    return repr(value)


def inline_params(cypher: str, params: dict[str, Any]) -> str:
    """Returns the query with each ``$name`` replaced by its value as a literal, for display and eval output.

    One pass over the query text: a value already written in is never scanned again, so a string value
    that contains ``$name`` stays as it is, and so does a ``$name`` inside one of the query's own string
    literals or quoted identifiers. Names without a value are left as they are. Running the returned text
    gives the rows that running ``cypher`` with ``params`` gives."""
    def sub(m: re.Match) -> str:
        name = m.group(1)
        return literal(params[name]) if name is not None and name in params else m.group(0)

    return _TOKEN.sub(sub, cypher)
