"""Read-only guard for Cypher: reject anything that writes, touches the system, or reads files.

Defence in depth: serving databases are also opened read-only, but a query is refused here first, with a
clear reason, before Kuzu ever sees it. The check runs on a *normalized skeleton* of the query: string
literals, comments and back-quoted identifiers are found on the raw text exactly as Kuzu's lexer finds
them and blanked; only then is the rest unicode NFKC-folded, Kuzu's unicode whitespace made spaces and
invisible characters both deleted and spaced, so keywords cannot hide in strings, lookalike or folding
characters cannot move a string's end, and invisible ones cannot split or join a keyword.

Keywords are read by their place, not their spelling: a word where the grammar only admits a name (a label or
relationship type after ``:``, a property after ``.``, an alias after ``AS``, a variable or map key right before
``:`` or ``.``) is a name, so ``MATCH (c:Comment)`` and ``n.set`` are reads; a word followed by ``(`` is a
function, and functions are checked on the unblanked skeleton.
"""

from __future__ import annotations

import re
import unicodedata

FORBIDDEN = (
    "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD",
    "INSTALL", "ATTACH", "EXPORT", "IMPORT", "USE", "BEGIN", "COMMIT", "ROLLBACK", "CHECKPOINT",
    "FOREACH", "UNINSTALL", "TRANSACTION", "COMMENT", "UPDATE", "FORCE", "MACRO",
)
# Read-only table functions callable with CALL (lower-case names).
CALL_ALLOW = frozenset({
    "show_tables", "table_info", "show_connection", "db_version", "current_setting",
    "query_fts_index", "query_vector_index", "show_indexes", "show_functions",
})
# Functions that reach outside the graph (files, network, environment, storage internals) or write.
FORBIDDEN_FUNCTIONS = frozenset({
    "read_csv", "read_csv_parallel", "read_csv_serial", "read_parquet", "read_json", "read_npy", "read_pandas",
    "json_scan", "file_info", "copy_csv", "copy_json", "copy_parquet", "httpfs", "getenv", "nextval",
    "storage_info", "bm_info", "fsm_info", "stats_info",
})
# Functions whose result can grow without bound inside one expression, where no timeout can stop it
# (measured on kuzu 0.11.3: repeat('x', 1e8) runs 4 s past a 1 s timeout; list_reduce doubling 2^26 bytes).
UNBOUNDED_FUNCTIONS = frozenset({"repeat", "lpad", "rpad", "list_reduce"})

MAX_RANGE = 1_000_000  # a list built by range() is materialised before any timeout can interrupt it
# Kuzu's lexer (Cypher.g4 WHITESPACE) reads these as whitespace, like the ASCII ones: they separate words.
_KUZU_SPACE = re.compile("[\u1680\u180e\u2000-\u200a\u2028\u2029\u205f\u3000\u00a0\u202f]")
# Invisible format characters: to Kuzu they are stray characters; a check must not let them split a keyword.
_HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\u00ad]")
# Kuzu's own tokens that hide text: string literals (with backslash escapes), back-quoted names, comments.
# Matched on the raw query, exactly as Kuzu's lexer reads it (a line comment ends at CR or LF), so no
# folding can move where a string or comment starts or ends; unterminated ones run to the end.
_OPAQUE = re.compile(
    r"'(?:[^'\\]|\\.)*'?|\"(?:[^\"\\]|\\.)*\"?|`[^`]*`?|//[^\r\n]*|/\*.*?(?:\*/|\Z)", re.S)
_WORD = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# A word in a place where the grammar admits only a name (see the module docstring); never a function call.
# A property follows a '.' after a name or a closing bracket, never after a number ('1. DELETE' stays a clause).
_NAME_AFTER = re.compile(r"(:\s*|(?:\b[A-Za-z_][A-Za-z_0-9]*|[)\]}])\s*\.\s*|\bAS\s+)([A-Za-z_][A-Za-z_0-9]*)\b"
                         r"(?!\s*\()", re.I)
_NAME_BEFORE = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]*(?=\s*(?::(?!=)|\.(?!\.)))")
_RANGE_ARGS = re.compile(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?\)")


class UnsafeQueryError(ValueError):
    """Raised for a query that would write, touch the system, or read outside the graph."""


def _code(query: str) -> str:
    """The raw query with strings, back-quoted names and comments blanked (no normalization yet)."""
    out, i = [], 0
    for m in _OPAQUE.finditer(query):
        out.append(query[i:m.start()])
        piece = m.group(0)
        out.append(" _quoted_ " if piece.startswith("`") else " '' " if piece[0] in "'\"" else " ")
        i = m.end()
    out.append(query[i:])
    return "".join(out)


def _variants(query: str) -> tuple[str, str]:
    """The code, unicode folded (NFKC), Kuzu whitespace made spaces, and hidden characters either
    deleted (``DE\u200bLETE`` reads DELETE) or made spaces (``true\u2060DELETE`` reads DELETE)."""
    code = _KUZU_SPACE.sub(" ", unicodedata.normalize("NFKC", _code(query)))
    return _HIDDEN.sub("", code), _HIDDEN.sub(" ", code)


def skeleton(query: str) -> str:
    """The query with strings, comments and quoted identifiers blanked out, unicode folded."""
    return _variants(query)[0]


def check_read_only(query: str) -> None:
    """Raise :class:`UnsafeQueryError` unless ``query`` is a single read-only statement."""
    if not isinstance(query, str) or not query.strip():
        raise UnsafeQueryError("empty query")
    if "\x00" in query:
        raise UnsafeQueryError("query contains a NUL character")
    for sk in dict.fromkeys(_variants(query)):  # one scan when the query hides no characters
        _check_skeleton(sk)


def _clauses(sk: str) -> str:
    """The skeleton with the words in name places (labels, properties, aliases, variables) blanked."""
    sk = _NAME_AFTER.sub(lambda m: m.group(1) + "_name_", sk)
    return _NAME_BEFORE.sub("_name_", sk)


def _check_skeleton(sk: str) -> None:
    body = sk.strip()
    if ";" in (body[:-1] if body.endswith(";") else body):
        raise UnsafeQueryError("only one statement per query is allowed")
    clauses = _clauses(sk)
    for w in _WORD.findall(clauses):
        if w.upper() in FORBIDDEN:
            raise UnsafeQueryError(f"{w.upper()} is not allowed: the knowledge graph is read-only")
    for m in re.finditer(r"\bCALL\s*([A-Za-z_][A-Za-z_0-9]*|\S)", clauses, re.I):
        name = m.group(1).lower()
        if name not in CALL_ALLOW:
            raise UnsafeQueryError(f"CALL {m.group(1)} is not allowed (allowed: {', '.join(sorted(CALL_ALLOW))})")
    for m in re.finditer(r"\b([A-Za-z_][A-Za-z_0-9]*)\s*\(", sk):
        name = m.group(1).lower()
        if name in FORBIDDEN_FUNCTIONS:
            raise UnsafeQueryError(f"{m.group(1)}() reaches outside the graph and is not allowed")
        if name in UNBOUNDED_FUNCTIONS:
            raise UnsafeQueryError(f"{m.group(1)}() can allocate without bound and is not allowed")
        if name == "_quoted_":  # `read_csv`(...) calls the function: names of calls must be plain
            raise UnsafeQueryError("a back-quoted function name is not allowed")
    for m in re.finditer(r"\brange\s*\(", sk, re.I):
        args = _RANGE_ARGS.match(sk, m.end())
        if args is None:
            raise UnsafeQueryError("range() takes integer literals only")
        lo, hi, step = int(args.group(1)), int(args.group(2)), int(args.group(3) or 1)
        if step == 0 or abs(hi - lo) // abs(step) > MAX_RANGE:
            raise UnsafeQueryError(f"range() over more than {MAX_RANGE:,} values is not allowed")
    if re.search(r"\bFROM\s+''", sk, re.I):
        raise UnsafeQueryError("reading from files is not allowed")
