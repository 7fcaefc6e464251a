"""The Neo4j "movies" graph, parsed from its Cypher CREATE script (``movies.cypher``).

The script binds nodes to variables (``CREATE (Keanu:Person {name:'Keanu Reeves', born:1964})``) and
then links variables (``(Keanu)-[:ACTED_IN {roles:['Neo']}]->(TheMatrix)``). A small tokenizer reads
exactly that subset: node and relationship patterns with maps of strings (single or double quoted),
integers, floats, booleans and lists. ``CONSTRAINT``/``INDEX`` statements are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kgqa.kg.dataset import Dataset, NodeTable, RelTable

SOURCE = "movies.cypher"

NODE_COLUMNS = {
    "Movie": [("title", "STRING"), ("released", "INT64"), ("tagline", "STRING"), ("votes", "INT64")],
    "Person": [("name", "STRING"), ("born", "INT64")],
}
PRIMARY_KEYS = {"Movie": "title", "Person": "name"}
REL_TABLES = {  # name -> (from, to, columns)
    "ACTED_IN": ("Person", "Movie", [("roles", "STRING[]")]),
    "DIRECTED": ("Person", "Movie", []),
    "PRODUCED": ("Person", "Movie", []),
    "WROTE": ("Person", "Movie", []),
    "REVIEWED": ("Person", "Movie", [("summary", "STRING"), ("rating", "INT64")]),
    "FOLLOWS": ("Person", "Person", []),
}

_TOKEN = re.compile(r"""
    (?P<ws>\s+|//[^\n]*)
  | (?P<str>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<num>-?\d+(?:\.\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<arrow>-\[|\]->|<-\[|\]-)
  | (?P<punct>[(){}\[\]:,;.])
""", re.X)


class CypherParseError(ValueError):
    pass


def tokenize(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise CypherParseError(f"unexpected character {text[pos]!r} at offset {pos}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append((m.lastgroup, m.group()))
    return out


def _unquote(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s[1:-1])


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]):
        self.toks, self.i = tokens, 0

    def peek(self, k: int = 0) -> tuple[str, str]:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else ("eof", "")

    def take(self, value: str | None = None) -> str:
        kind, text = self.peek()
        if value is not None and text != value:
            raise CypherParseError(f"expected {value!r}, got {text!r} (token {self.i})")
        self.i += 1
        return text

    def value(self) -> Any:
        kind, text = self.peek()
        if kind == "str":
            self.i += 1
            return _unquote(text)
        if kind == "num":
            self.i += 1
            return float(text) if "." in text else int(text)
        if text in ("true", "false", "null"):
            self.i += 1
            return {"true": True, "false": False, "null": None}[text]
        if text == "[":
            self.take("[")
            items = []
            while self.peek()[1] != "]":
                items.append(self.value())
                if self.peek()[1] == ",":
                    self.take(",")
            self.take("]")
            return items
        raise CypherParseError(f"unexpected value token {text!r}")

    def props(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.peek()[1] != "{":
            return out
        self.take("{")
        while self.peek()[1] != "}":
            key = self.take()
            self.take(":")
            out[key] = self.value()
            if self.peek()[1] == ",":
                self.take(",")
        self.take("}")
        return out

    def node(self) -> tuple[str, str | None, dict[str, Any]]:
        """``(var[:Label] [{...}])`` -> (var, label or None, props)."""
        self.take("(")
        var = self.take()
        label = None
        if self.peek()[1] == ":":
            self.take(":")
            label = self.take()
        props = self.props()
        self.take(")")
        return var, label, props


def parse(text: str) -> tuple[dict[str, tuple[str, dict]], list[tuple[str, str, str, dict]]]:
    """Parse a CREATE script -> ({var: (label, props)}, [(type, from_var, to_var, props)])."""
    nodes: dict[str, tuple[str, dict]] = {}
    rels: list[tuple[str, str, str, dict]] = []
    p = _Parser(tokenize(text))
    while p.peek()[0] != "eof":
        if p.peek()[1] == ";":
            p.take()
            continue
        p.take("CREATE")
        if p.peek()[1] in ("CONSTRAINT", "INDEX"):
            while p.peek()[1] not in (";", "eof"):
                p.take()
            continue
        while True:  # comma-separated patterns of one CREATE clause
            var, label, props = p.node()
            if label is not None:
                if var in nodes:
                    raise CypherParseError(f"variable {var} bound twice")
                nodes[var] = (label, props)
            while p.peek()[1] in ("-[", "<-["):
                left = p.take() == "<-["
                p.take(":")
                rtype = p.take()
                rprops = p.props()
                close = p.take()
                if close != ("]-" if left else "]->"):
                    raise CypherParseError(f"bad relationship arrow near {rtype}")
                other, olabel, oprops = p.node()
                if olabel is not None:
                    nodes[other] = (olabel, oprops)
                rels.append((rtype, other, var, rprops) if left else (rtype, var, other, rprops))
                var = other
            if p.peek()[1] != ",":
                break
            p.take(",")
    return nodes, rels


def source_files(data_dir: Path) -> list[Path]:
    return [Path(data_dir) / SOURCE]


def read(data_dir: Path) -> Dataset:
    nodes, rels = parse((Path(data_dir) / SOURCE).read_text(encoding="utf-8"))
    tables = {label: NodeTable(label, cols, PRIMARY_KEYS[label]) for label, cols in NODE_COLUMNS.items()}
    for label, props in nodes.values():
        unknown = set(props) - {c for c, _ in NODE_COLUMNS[label]}
        if unknown:
            raise CypherParseError(f"{label} has properties outside the schema: {sorted(unknown)}")
        tables[label].rows.append({c: props.get(c) for c, _ in NODE_COLUMNS[label]})
    rel_tables = {name: RelTable(name, f, t, cols) for name, (f, t, cols) in REL_TABLES.items()}
    for rtype, a, b, props in rels:
        table = rel_tables[rtype]
        la, lb = nodes[a][0], nodes[b][0]
        if (la, lb) != (table.from_label, table.to_label):
            raise CypherParseError(f"{rtype} from {la} to {lb} is outside the schema")
        key_a, key_b = nodes[a][1][PRIMARY_KEYS[la]], nodes[b][1][PRIMARY_KEYS[lb]]
        table.rows.append({"_from": key_a, "_to": key_b} | {c: props.get(c) for c, _ in table.columns})
    return Dataset(list(tables.values()), list(rel_tables.values()))
