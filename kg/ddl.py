"""Kuzu DDL read into typed tables: ``CREATE NODE TABLE`` and ``CREATE REL TABLE`` statements of a schema file.

The subset read is what a schema file for ``kgqa load --schema`` holds::

    CREATE NODE TABLE Person(id INT64, full_name STRING, PRIMARY KEY (id));
    CREATE NODE TABLE City(name STRING PRIMARY KEY, population INT64);
    CREATE REL TABLE livesIn(FROM Person TO City, since_year INT64);

Comments (``//``, ``--``, ``/* */``) and ``IF NOT EXISTS`` are allowed; one FROM/TO pair per relationship
table. Every problem is a :class:`SourceError` naming the file and the line of the statement.
"""

from __future__ import annotations

import re
from pathlib import Path

from kgqa.kg.dataset import NodeTable, RelTable

SCALARS = frozenset("""INT8 INT16 INT32 INT64 INT128 UINT8 UINT16 UINT32 UINT64 SERIAL DOUBLE FLOAT DECIMAL BOOLEAN
BOOL STRING DATE TIMESTAMP INTERVAL UUID BLOB""".split())
_NAME = r"`[^`]+`|[A-Za-z_][A-Za-z0-9_]*"
_CREATE = re.compile(rf"^\s*CREATE\s+(NODE|REL)\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?({_NAME})\s*\((.*)\)\s*$",
                     re.I | re.S)
_COLUMN = re.compile(rf"^({_NAME})\s+([A-Za-z0-9_]+(?:\s*\(\s*\d+\s*(?:,\s*\d+\s*)?\))?(?:\s*\[\])*)"
                     r"(\s+PRIMARY\s+KEY)?$", re.I | re.S)
_PK = re.compile(rf"^PRIMARY\s+KEY\s*\(\s*({_NAME})\s*\)$", re.I)
_PAIR = re.compile(rf"^FROM\s+({_NAME})\s+TO\s+({_NAME})$", re.I)
_MULTIPLICITY = re.compile(r"^(MANY|ONE)_(MANY|ONE)$", re.I)


class SourceError(ValueError):
    """A source file that cannot be loaded; the message starts with ``file:line:``."""

    def __init__(self, path: str | Path, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line = str(path), line


def unquote(name: str) -> str:
    """Returns an identifier without its back-quotes."""
    return name[1:-1] if name.startswith("`") and name.endswith("`") else name


def statements(text: str) -> list[tuple[int, str]]:
    """Returns (line of its first character, text) for each ``;``-separated statement, comments removed."""
    out, buf, start, line, i = [], [], None, 1, 0
    quote = None
    while i < len(text):
        ch = text[i]
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
        elif text.startswith(("//", "--"), i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = len(text) if end < 0 else end + 2
            line += text.count("\n", i, end)
            buf.append(" ")
            i = end
            continue
        elif ch == ";":
            if "".join(buf).strip():
                out.append((start, "".join(buf).strip()))
            buf, start = [], None
        else:
            if ch in "`'\"":
                quote = ch
            if start is None and not ch.isspace():
                start = line
            buf.append(ch)
        if ch == "\n":
            line += 1
        i += 1
    if "".join(buf).strip():
        out.append((start, "".join(buf).strip()))
    return out


def split_top(body: str) -> list[str]:
    """Returns the comma-separated items of a parenthesised list, commas inside parentheses kept."""
    items, depth, cur = [], 0, []
    for ch in body:
        if ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur.append(ch)
    if "".join(cur).strip():
        items.append("".join(cur).strip())
    return items


def check_type(typ: str, path: Path, line: int) -> str:
    """Returns the type in canonical spelling, or raises :class:`SourceError` for one Kuzu does not have."""
    canon = re.sub(r"\s+", "", typ).upper()
    base = re.match(r"[A-Z0-9_]*", canon).group()
    if base not in SCALARS:
        raise SourceError(path, line, f"unknown type {typ!r} (known: {', '.join(sorted(SCALARS))}, and lists T[])")
    return "BOOLEAN" + canon[4:] if base == "BOOL" else canon


def read_text(path: Path, what: str) -> str:
    """Returns a source file's UTF-8 text; a missing or undecodable file is a SourceError naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SourceError(path, 0, f"no such {what}") from None
    except UnicodeDecodeError as err:
        raise SourceError(path, 1, f"not UTF-8 text ({err.reason})") from None


def parse_ddl(path: str | Path) -> tuple[list[NodeTable], list[RelTable]]:
    """Returns the node and relationship tables (columns typed, no rows) that the schema file declares."""
    path = Path(path)
    text = read_text(path, "schema file")
    nodes: dict[str, NodeTable] = {}
    rels: dict[str, RelTable] = {}
    for line, stmt in statements(text):
        m = _CREATE.match(stmt)
        if not m:
            raise SourceError(path, line, f"not a CREATE NODE TABLE or CREATE REL TABLE statement: {stmt[:60]!r}")
        kind, name, body = m.group(1).upper(), unquote(m.group(2)), m.group(3)
        if name in nodes or name in rels:
            raise SourceError(path, line, f"table {name!r} is declared twice")
        if kind == "NODE":
            nodes[name] = node_table(name, split_top(body), path, line)
        else:
            rels[name] = rel_table(name, split_top(body), nodes, path, line)
    if not nodes:
        raise SourceError(path, 1, "declares no node table")
    return list(nodes.values()), list(rels.values())


def columns_of(items: list[str], path: Path, line: int, table: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Returns the (name, type) columns among ``items`` and the names marked PRIMARY KEY inline."""
    cols, inline_pk = [], []
    for item in items:
        c = _COLUMN.match(item)
        if not c:
            raise SourceError(path, line, f"table {table!r}: cannot read column {item!r}")
        col = unquote(c.group(1))
        if col in dict(cols):
            raise SourceError(path, line, f"table {table!r}: column {col!r} is declared twice")
        cols.append((col, check_type(c.group(2), path, line)))
        if c.group(3):
            inline_pk.append(col)
    return cols, inline_pk


def node_table(name: str, items: list[str], path: Path, line: int) -> NodeTable:
    """Returns the node table of one ``CREATE NODE TABLE`` body."""
    keys = [unquote(m.group(1)) for m in (_PK.match(i) for i in items) if m]
    cols, inline_pk = columns_of([i for i in items if not _PK.match(i)], path, line, name)
    keys += inline_pk
    if len(keys) != 1:
        raise SourceError(path, line, f"node table {name!r} needs exactly one PRIMARY KEY (found {len(keys)})")
    if keys[0] not in dict(cols):
        raise SourceError(path, line, f"node table {name!r}: primary key {keys[0]!r} is not one of its columns")
    return NodeTable(name, cols, keys[0])


def rel_table(name: str, items: list[str], nodes: dict[str, NodeTable], path: Path, line: int) -> RelTable:
    """Returns the relationship table of one ``CREATE REL TABLE`` body; its endpoints must be declared."""
    pairs = [m for m in (_PAIR.match(i) for i in items) if m]
    rest = [i for i in items if not _PAIR.match(i) and not _MULTIPLICITY.match(i)]
    if len(pairs) != 1:
        raise SourceError(path, line, f"relationship table {name!r} needs exactly one FROM ... TO ... pair "
                                      f"(found {len(pairs)})")
    src, dst = unquote(pairs[0].group(1)), unquote(pairs[0].group(2))
    for end in (src, dst):
        if end not in nodes:
            raise SourceError(path, line, f"relationship table {name!r} refers to unknown node table {end!r}"
                                          " (node tables must be declared before the relationships that use them)")
    cols, inline_pk = columns_of(rest, path, line, name)
    if inline_pk:
        raise SourceError(path, line, f"relationship table {name!r} cannot have a primary key")
    return RelTable(name, src, dst, cols)
