"""A graph from a Cypher ``CREATE`` script (``kgqa load --cypher FILE``), such as Neo4j's demo scripts.

The script binds nodes to variables (``CREATE (Keanu:Person {name:'Keanu Reeves', born:1964})``) and
then links variables (``(Keanu)-[:ACTED_IN {roles:['Neo']}]->(TheMatrix)``). A small tokenizer reads
exactly that subset: node and relationship patterns with maps of strings (single or double quoted),
integers, floats, booleans, null and lists; ``CONSTRAINT``/``INDEX`` statements are skipped.

Without a declared schema the tables are inferred: a label's columns in order of first appearance, each
typed by its values (INT64, DOUBLE, BOOLEAN, STRING, or lists of them); its primary key is the first
column that every node has, with distinct values — an id-like name first, then a name-like one; a label
without one gets a generated ``node_id``. One node table per label, one relationship table per type.
Problems are :class:`~kgqa.kg.ddl.SourceError`\\ s naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgqa.kg.dataset import Dataset, NodeTable, RelTable
from kgqa.kg.ddl import SourceError, read_text

_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*|`[^`]+`)
  | (?P<arrow>-\[|\]->|<-\[|\]-)
  | (?P<punct>[(){}\[\]:,;.])
""", re.X)
GENERATED_KEY = "node_id"


@dataclass
class Script:
    """What a CREATE script holds: nodes by variable, relationships between variables, source lines."""

    nodes: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)  # var -> (label, props)
    rels: list[tuple[str, str, str, dict[str, Any]]] = field(default_factory=list)  # (type, from, to, props)
    lines: dict[str, int] = field(default_factory=dict)  # var or "rel:<i>" -> line


def tokenize(text: str, path: Path) -> list[tuple[str, str, int]]:
    """Returns (kind, text, line) for each token of the script; an unreadable character is a SourceError."""
    out, pos, line = [], 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise SourceError(path, line, f"unexpected character {text[pos]!r}")
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    return out


def unescape(s: str) -> str:
    """Returns a quoted string literal's text."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s[1:-1])


class Reader:
    """A recursive-descent reader over the tokens of one script."""

    def __init__(self, tokens: list[tuple[str, str, int]], path: Path):
        self.toks, self.i, self.path = tokens, 0, path

    def peek(self) -> tuple[str, str, int]:
        """Returns the next token without taking it (kind "eof" at the end)."""
        return self.toks[self.i] if self.i < len(self.toks) else ("eof", "", self.toks[-1][2] if self.toks else 1)

    def error(self, message: str) -> SourceError:
        """Returns a SourceError at the current token's line."""
        return SourceError(self.path, self.peek()[2], message)

    def take(self, value: str | None = None) -> str:
        """Returns the next token's text, taking it; with ``value``, the token must be that text."""
        kind, text, _ = self.peek()
        if kind == "eof" or (value is not None and text.upper() != value.upper()):
            raise self.error(f"expected {value or 'more'!r}, got {text or 'end of file'!r}")
        self.i += 1
        return text

    def name(self) -> str:
        """Returns an identifier, back-quotes removed."""
        text = self.take()
        return text[1:-1] if text.startswith("`") else text

    def value(self) -> Any:
        """Returns one literal: string, number, boolean, null or list."""
        kind, text, _ = self.peek()
        if kind == "str":
            self.i += 1
            return unescape(text)
        if kind == "num":
            self.i += 1
            return float(text) if re.search(r"[.eE]", text) else int(text)
        if text.lower() in ("true", "false", "null"):
            self.i += 1
            return {"true": True, "false": False, "null": None}[text.lower()]
        if text == "[":
            self.take("[")
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.take(",")
            self.take("]")
            return items
        raise self.error(f"unexpected value {text!r}")

    def props(self) -> dict[str, Any]:
        """Returns a ``{key: value, ...}`` map, or {} when none follows."""
        out: dict[str, Any] = {}
        if self.peek()[1] != "{":
            return out
        self.take("{")
        while self.peek()[1] != "}":
            key = self.name()
            self.take(":")
            out[key] = self.value()
            if self.peek()[1] == ",":
                self.take(",")
        self.take("}")
        return out

    def node(self) -> tuple[str, str | None, dict[str, Any], int]:
        """Returns (variable, label or None, props, line) of ``(var[:Label] [{...}])``."""
        line = self.peek()[2]
        self.take("(")
        var = self.name()
        label = None
        if self.peek()[1] == ":":
            self.take(":")
            label = self.name()
            if self.peek()[1] == ":":
                raise self.error(f"node {var} has several labels; one label per node is supported")
        props = self.props()
        self.take(")")
        return var, label, props, line


def parse(text: str, path: Path) -> Script:
    """Returns the nodes and relationships a CREATE script creates."""
    out = Script()
    p = Reader(tokenize(text, path), path)
    while p.peek()[0] != "eof":
        if p.peek()[1] == ";":
            p.take()
            continue
        p.take("CREATE")
        if p.peek()[1].upper() in ("CONSTRAINT", "INDEX"):
            while p.peek()[1] not in (";", "") and p.peek()[0] != "eof":
                p.take()
            continue
        while True:  # comma-separated patterns of one CREATE clause
            var = bind(out, p, *p.node())
            while p.peek()[1] in ("-[", "<-["):
                line = p.peek()[2]
                left = p.take() == "<-["
                p.take(":")
                rtype = p.name()
                rprops = p.props()
                if p.take() != ("]-" if left else "]->"):
                    raise SourceError(path, line, f"relationship {rtype} must have one direction")
                other = bind(out, p, *p.node())
                out.lines[f"rel:{len(out.rels)}"] = line
                out.rels.append((rtype, other, var, rprops) if left else (rtype, var, other, rprops))
                var = other
            if p.peek()[1] != ",":
                break
            p.take(",")
    return out


def bind(script: Script, p: Reader, var: str, label: str | None, props: dict, line: int) -> str:
    """Records a node pattern; returns its variable. A labelled pattern creates, a bare one refers."""
    if label is not None:
        if var in script.nodes:
            raise SourceError(p.path, line, f"variable {var} is bound twice")
        script.nodes[var] = (label, props)
        script.lines[var] = line
    elif var not in script.nodes:
        raise SourceError(p.path, line, f"variable {var} is used before a node is created for it")
    return var


def kuzu_type(values: list[Any]) -> str | None:
    """Returns the Kuzu type that holds all ``values`` (None when they are all null), or raises ValueError."""
    kinds = set()
    for v in values:
        if v is None:
            continue
        if isinstance(v, bool):
            kinds.add("BOOLEAN")
        elif isinstance(v, int):
            kinds.add("INT64")
        elif isinstance(v, float):
            kinds.add("DOUBLE")
        elif isinstance(v, str):
            kinds.add("STRING")
        elif isinstance(v, list):
            inner = kuzu_type(v)
            kinds.add(f"{inner or 'STRING'}[]")
        else:
            raise ValueError(f"unsupported value {v!r}")
    if kinds == {"INT64", "DOUBLE"}:
        return "DOUBLE"
    if {"INT64[]", "DOUBLE[]"} == kinds:
        return "DOUBLE[]"
    if len(kinds) > 1:
        raise ValueError(f"values of several types ({', '.join(sorted(kinds))})")
    return next(iter(kinds), None)


def infer_key(label: str, columns: list[str], rows: list[dict[str, Any]]) -> str | None:
    """Returns the column to use as primary key: present on every node with distinct scalar values, an id-like
    name first, then a name-like one, else the first such column; None when no column qualifies."""
    ok = []
    for c in columns:
        vals = [r.get(c) for r in rows]
        if all(v is not None and not isinstance(v, (list, float)) for v in vals) and len(set(vals)) == len(vals):
            ok.append(c)
    words = {c: re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", c).replace("_", " ").lower().split() for c in ok}
    for test in (lambda w: w[-1:] == ["id"] or w == [label.lower(), "id"], lambda w: w[-1:] in (["name"], ["title"])):
        for c in ok:
            if test(words[c]):
                return c
    return ok[0] if ok else None


def infer_tables(script: Script, path: Path) -> Dataset:
    """Returns the dataset of a script without a declared schema (see the module docstring)."""
    by_label: dict[str, list[str]] = {}
    for var, (label, _) in script.nodes.items():
        by_label.setdefault(label, []).append(var)
    nodes, keys = {}, {}
    for label, vars_ in by_label.items():
        rows = [dict(script.nodes[v][1]) for v in vars_]
        columns = list(dict.fromkeys(k for r in rows for k in r))
        key = infer_key(label, columns, rows)
        if key is None:
            key = GENERATED_KEY if GENERATED_KEY not in columns else f"{label.lower()}_{GENERATED_KEY}"
            for i, r in enumerate(rows, 1):
                r[key] = i
            columns.insert(0, key)
        cols = [(c, column_type(path, script.lines[vars_[0]], label, c, [r.get(c) for r in rows]))
                for c in columns]
        nodes[label] = NodeTable(label, [(c, t) for c, t in cols if t], key,
                                 [{c: r.get(c) for c, t in cols if t} for r in rows])
        keys.update({v: r[key] for v, r in zip(vars_, rows)})
    pairs: dict[str, tuple[str, str]] = {}
    grouped: dict[str, list[tuple[int, str, str, dict]]] = {}
    for i, (rtype, a, b, props) in enumerate(script.rels):
        pair = (script.nodes[a][0], script.nodes[b][0])
        if pairs.setdefault(rtype, pair) != pair:
            raise SourceError(path, script.lines[f"rel:{i}"], f"relationship {rtype} connects {pair[0]}->{pair[1]} "
                              f"here and {pairs[rtype][0]}->{pairs[rtype][1]} elsewhere; one label pair per type")
        grouped.setdefault(rtype, []).append((i, a, b, props))
    rels = []
    for rtype, items in grouped.items():
        columns = list(dict.fromkeys(k for _, _, _, props in items for k in props))
        line = script.lines[f"rel:{items[0][0]}"]
        cols = [(c, column_type(path, line, rtype, c, [p.get(c) for *_, p in items])) for c in columns]
        cols = [(c, t) for c, t in cols if t]
        rows = [{"_from": keys[a], "_to": keys[b]} | {c: p.get(c) for c, _ in cols} for _, a, b, p in items]
        rels.append(RelTable(rtype, *pairs[rtype], cols, rows))
    return Dataset(list(nodes.values()), rels)


def column_type(path: Path, line: int, table: str, column: str, values: list[Any]) -> str | None:
    """Returns a column's inferred type (None when every value is null), or raises SourceError."""
    try:
        return kuzu_type(values)
    except ValueError as err:
        raise SourceError(path, line, f"{table}.{column} has {err}") from None


def read_script(path: str | Path, declared: Dataset | None = None) -> Dataset:
    """Returns the dataset of a CREATE script: in the ``declared`` tables (columns, keys and label pairs
    fixed; rows filled) when given, else in inferred ones."""
    path = Path(path)
    script = parse(read_text(path, "Cypher script"), path)
    if not script.nodes:
        raise SourceError(path, 1, "creates no node")
    return infer_tables(script, path) if declared is None else fill_declared(script, declared, path)


def fill_declared(script: Script, declared: Dataset, path: Path) -> Dataset:
    """Returns ``declared`` with its rows read from the script; anything outside it is a SourceError."""
    nodes = {t.label: t for t in declared.nodes}
    for var, (label, props) in script.nodes.items():
        table = nodes.get(label)
        unknown = set(props) - {c for c, _ in table.columns} if table else set()
        if table is None or unknown:
            raise SourceError(path, script.lines[var], f"{label} {'is not a declared label' if table is None else ''}"
                              f"{'has properties outside the schema: ' + str(sorted(unknown)) if unknown else ''}")
        table.rows.append({c: props.get(c) for c, _ in table.columns})
    rels = {t.name: t for t in declared.rels}
    for i, (rtype, a, b, props) in enumerate(script.rels):
        table = rels.get(rtype)
        pair = (script.nodes[a][0], script.nodes[b][0])
        if table is None or pair != (table.from_label, table.to_label):
            raise SourceError(path, script.lines[f"rel:{i}"], f"{rtype} from {pair[0]} to {pair[1]} is outside the schema")
        key_a, key_b = (script.nodes[v][1][nodes[lb].primary_key] for v, lb in ((a, pair[0]), (b, pair[1])))
        table.rows.append({"_from": key_a, "_to": key_b} | {c: props.get(c) for c, _ in table.columns})
    return declared
