"""Read-only guard for Cypher: reject anything that writes, touches the system, or reads files.

Defence in depth: serving databases are also opened read-only, but a query is refused here first, with a
clear reason, before Kuzu ever sees it. The check runs on a *normalized skeleton* of the query: unicode
NFKC-folded, zero-width characters removed, string literals, comments and back-quoted identifiers blanked,
so keywords cannot hide in strings and lookalike characters cannot smuggle keywords past it.
"""

from __future__ import annotations

import re
import unicodedata

FORBIDDEN = (
    "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD",
    "INSTALL", "ATTACH", "EXPORT", "IMPORT", "USE", "BEGIN", "COMMIT", "ROLLBACK", "CHECKPOINT",
    "FOREACH", "UNINSTALL", "TRANSACTION",
)
# Read-only table functions callable with CALL (lower-case names).
CALL_ALLOW = frozenset({
    "show_tables", "table_info", "show_connection", "db_version", "current_setting",
    "query_fts_index", "query_vector_index", "show_indexes", "show_functions",
})
# Functions that reach outside the graph (files, network, environment).
FORBIDDEN_FUNCTIONS = frozenset({"read_csv", "read_parquet", "read_json", "read_npy", "httpfs", "getenv"})

MAX_RANGE = 1_000_000  # a list built by range() is materialised before any timeout can interrupt it
_ZERO_WIDTH = re.compile("[\u200b-\u200f\u2028-\u202f\u2060-\u206f\ufeff\u00ad]")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.S)
_BACKTICK = re.compile(r"`[^`]*`")
_LINE_COMMENT = re.compile(r"//[^\n]*")
_BLOCK_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.S)
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


class UnsafeQueryError(ValueError):
    """Raised for a query that would write, touch the system, or read outside the graph."""


def skeleton(query: str) -> str:
    """The query with strings, comments and quoted identifiers blanked out, unicode folded."""
    text = unicodedata.normalize("NFKC", query)
    text = _ZERO_WIDTH.sub("", text)
    out, i = [], 0
    # Blank strings and comments in one left-to-right pass so "//" inside a string stays a string.
    token = re.compile(
        r"'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?|`[^`]*`?|//[^\n]*|/\*.*?(?:\*/|$)", re.S
    )
    for m in token.finditer(text):
        out.append(text[i:m.start()])
        piece = m.group(0)
        if piece.startswith("`"):
            out.append(" _quoted_ ")
        elif piece.startswith(("'", '"')):
            out.append(" '' ")
        else:
            out.append(" ")
        i = m.end()
    out.append(text[i:])
    return "".join(out)


def check_read_only(query: str) -> None:
    """Raise :class:`UnsafeQueryError` unless ``query`` is a single read-only statement."""
    if not isinstance(query, str) or not query.strip():
        raise UnsafeQueryError("empty query")
    if "\x00" in query:
        raise UnsafeQueryError("query contains a NUL character")
    sk = skeleton(query)
    if ";" in sk.strip().rstrip(";"):
        raise UnsafeQueryError("only one statement per query is allowed")
    words = [w.upper() for w in _WORD.findall(sk)]
    for w in words:
        if w in FORBIDDEN:
            raise UnsafeQueryError(f"{w} is not allowed: the knowledge graph is read-only")
    for m in re.finditer(r"\bCALL\s+([A-Za-z_][A-Za-z_0-9]*)", sk, re.I):
        name = m.group(1).lower()
        if name not in CALL_ALLOW:
            raise UnsafeQueryError(f"CALL {m.group(1)} is not allowed (allowed: {', '.join(sorted(CALL_ALLOW))})")
    for m in re.finditer(r"\b([A-Za-z_][A-Za-z_0-9]*)\s*\(", sk):
        if m.group(1).lower() in FORBIDDEN_FUNCTIONS:
            raise UnsafeQueryError(f"{m.group(1)}() reads outside the graph and is not allowed")
    for m in re.finditer(r"\brange\s*\(\s*(-?\d+)\s*,\s*(-?\d+)", sk, re.I):
        if int(m.group(2)) - int(m.group(1)) > MAX_RANGE:
            raise UnsafeQueryError(f"range() over more than {MAX_RANGE:,} values is not allowed")
    if re.search(r"\bFROM\s+''", sk, re.I):
        raise UnsafeQueryError("reading from files is not allowed")
