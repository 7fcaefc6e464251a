"""Cypher text: identifiers and literals as they must be written, and parameters written into a query."""

from __future__ import annotations

import re
from typing import Any

_PARAM = re.compile(r"\$(\w+)")
# string literals and quoted identifiers (skipped: a ``$name`` inside one is text, not a parameter), or a
# parameter; each alternative is linear (disjoint character classes)
_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|\$(\w+)", re.S)

# Words that are keywords somewhere: openCypher/Neo4j clauses and operators, Kuzu's own (its reserved words,
# measured on kuzu 0.11.3, and the rest of its grammar's keywords) and every word the read-only guard refuses
# (kg/safety.FORBIDDEN). A name that is one of these, in any case, is written back-quoted.
KEYWORDS = frozenset("""
ACYCLIC ADD ALL ALTER AND ANY AS ASC ASCENDING ATTACH BEGIN BY CALL CASE CAST CHECKPOINT COLUMN COMMENT COMMIT
COMMIT_SKIP_CHECKPOINT CONSTRAINT CONTAINS COPY COUNT CREATE CSV CYCLE DATABASE DBTYPE DEFAULT DELETE DESC
DESCENDING DETACH DISTINCT DO DROP ELSE END ENDS EXISTS EXPLAIN EXPORT EXTENSION FALSE FIELDTERMINATOR FOREACH
FORCE FROM GLOB GRAPH GROUP HEADERS HINT IF IMPORT IN INCREMENT INDEX INSTALL IS JOIN KEY LIMIT LOAD LOGICAL
MACRO MANDATORY MATCH MAXVALUE MERGE MINVALUE MULTI_JOIN NO NODE NONE NOT NULL OF ON ONLY OPTIONAL OR ORDER
PERIODIC PRIMARY PROFILE PROJECT READ REL REMOVE RENAME REQUIRE RETURN ROLLBACK ROLLBACK_SKIP_CHECKPOINT SCALAR
SEQUENCE SET SHORTEST SINGLE SKIP START STARTS STRUCT TABLE THEN TO TRAIL TRANSACTION TRUE TYPE UNINSTALL UNION
UNIQUE UNWIND UPDATE USE WHEN WHERE WITH WRITE WSHORTEST XOR YIELD
""".split())
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def quote(name: str) -> str:
    """Returns ``name`` back-quoted, any backtick in it doubled (what :func:`ident` writes for a name that
    needs it)."""
    return "`" + name.replace("`", "``") + "`"


def ident(name: str) -> str:
    """Returns ``name`` as it must be written in Cypher: bare when it is a plain ASCII word that is no keyword
    (:data:`KEYWORDS`, any case), else back-quoted (:func:`quote`). Every label, relationship type, property
    and alias that reaches a query goes through it, so a name is always data, never syntax. Raises
    ``ValueError`` for a name with a backtick, which engines write differently (Kuzu keeps a doubled backtick
    as two, Neo4j reads it as one), so no query could name it safely."""
    if _PLAIN.match(name) and name.upper() not in KEYWORDS:
        return name
    if "`" in name:
        raise ValueError(f"the name {name!r} contains a backtick, which Cypher engines write differently; "
                         "rename it")
    return quote(name)


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
