"""Schema introspection of a graph, the local schema of one entity, row rendering and a content checksum.

* :class:`GraphSchema` comes from Kuzu's own catalogue (``show_tables``, ``table_info``,
  ``show_connection``) plus a few sample values per short STRING property; ``render()`` is a compact
  text for prompts.
* :func:`local_schema` describes one entity: its properties and, for every relationship type within one
  hop, the direction, neighbour label, number of neighbours and the relationship's properties.
* :func:`render_row` renders a result row the way answers and gold rows are written: a node as its display
  value, a relationship as its properties.
* :func:`graph_checksum` hashes every count and every property value, to prove a graph did not change.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from kgqa.kg.cypher import ident
from kgqa.kg.db import Graph
from kgqa.kg.spec import DomainSpec

SAMPLE_VALUES = 3
SAMPLE_MAX_CHARS = 40


# -- whole-graph schema ------------------------------------------------------------------------------
@dataclass
class NodeSchema:
    label: str
    properties: list[tuple[str, str]]  # (name, Kuzu type) in table order
    primary_key: str
    count: int = 0
    samples: dict[str, list[str]] = field(default_factory=dict)  # STRING prop -> a few short values

    @property
    def types(self) -> dict[str, str]:
        return dict(self.properties)


@dataclass
class RelSchema:
    name: str
    pairs: list[tuple[str, str]]  # (from label, to label)
    properties: list[tuple[str, str]] = field(default_factory=list)
    count: int = 0
    samples: dict[str, list[str]] = field(default_factory=dict)

    @property
    def types(self) -> dict[str, str]:
        return dict(self.properties)


@dataclass
class GraphSchema:
    domain: str
    nodes: dict[str, NodeSchema] = field(default_factory=dict)
    rels: dict[str, RelSchema] = field(default_factory=dict)

    @classmethod
    def from_graph(cls, graph: Graph, *, samples: int = SAMPLE_VALUES) -> GraphSchema:
        from kgqa.kg.backend import read_catalog

        schema = cls(domain=graph.domain)
        cat = read_catalog(graph)
        for name, props in sorted(cat.nodes.items()):
            count = graph.query(f"MATCH (n:{ident(name)}) RETURN count(n)").rows[0][0]
            schema.nodes[name] = NodeSchema(name, list(props), cat.keys[name], count,
                                            _samples(graph, f"(n:{ident(name)})", props, samples))
        for name, pairs in sorted(cat.rels.items()):
            props = cat.rel_props.get(name, [])
            count = graph.query(f"MATCH ()-[n:{ident(name)}]->() RETURN count(n)").rows[0][0]
            schema.rels[name] = RelSchema(name, list(pairs), list(props), count,
                                          _samples(graph, f"()-[n:{ident(name)}]->()", props, samples))
        return schema

    def neighbours(self, label: str) -> list[tuple[str, str, str]]:
        """(rel type, 'out'|'in', other label) for every relationship table touching ``label``."""
        out = []
        for rel in self.rels.values():
            for src, dst in rel.pairs:
                if src == label:
                    out.append((rel.name, "out", dst))
                if dst == label:
                    out.append((rel.name, "in", src))
        return out

    def render(self, *, samples: bool = True) -> str:
        """Compact text for prompts: one line per table, short sample values after ``e.g.``."""
        lines = ["Nodes:"]
        for n in self.nodes.values():
            props = ", ".join(f"{ident(p)} {t}" + (" KEY" if p == n.primary_key else "") for p, t in n.properties)
            lines.append(f"  {ident(n.label)}({props})")
            if samples and n.samples:
                lines.append("    e.g. " + "; ".join(f"{p}: " + ", ".join(repr(v) for v in vs)
                                                   for p, vs in n.samples.items()))
        lines.append("Relationships:")
        for r in self.rels.values():
            props = " {" + ", ".join(f"{ident(p)} {t}" for p, t in r.properties) + "}" if r.properties else ""
            for src, dst in r.pairs:
                lines.append(f"  ({ident(src)})-[:{ident(r.name)}{props}]->({ident(dst)})")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "domain": self.domain,
            "nodes": {k: {"properties": dict(v.properties), "primary_key": v.primary_key, "count": v.count,
                          "samples": v.samples} for k, v in self.nodes.items()},
            "rels": {k: {"pairs": [list(p) for p in v.pairs], "properties": dict(v.properties),
                         "count": v.count, "samples": v.samples} for k, v in self.rels.items()},
        }


def _samples(graph: Graph, pattern: str, props: list[tuple[str, str]], k: int) -> dict[str, list[str]]:
    """Up to ``k`` distinct short values of each STRING property (long prose and blobs are skipped)."""
    out: dict[str, list[str]] = {}
    if k <= 0:
        return out
    for prop, typ in props:
        if typ != "STRING":
            continue
        rows = graph.query(
            f"MATCH {pattern} WHERE n.{ident(prop)} IS NOT NULL AND size(n.{ident(prop)}) <= $m "
            f"RETURN DISTINCT n.{ident(prop)} AS v ORDER BY v LIMIT $k", {"m": SAMPLE_MAX_CHARS, "k": k}).rows
        if rows:
            out[prop] = [r[0] for r in rows]
    return out


# -- local schema of one entity ------------------------------------------------------------------------
@dataclass
class LocalRel:
    type: str
    direction: str  # "out": (entity)-[type]->(neighbour); "in": (neighbour)-[type]->(entity)
    neighbour: str  # neighbour label
    count: int  # number of distinct neighbours through this relationship
    properties: list[tuple[str, str]] = field(default_factory=list)
    samples: list[Any] = field(default_factory=list)  # a few neighbours' display values

    def pattern(self, label: str) -> str:
        props = " {" + ", ".join(ident(p) for p, _ in self.properties) + "}" if self.properties else ""
        label, rel, other = ident(label), ident(self.type), ident(self.neighbour)
        if self.direction == "out":
            return f"({label})-[:{rel}{props}]->({other})"
        return f"({label})<-[:{rel}{props}]-({other})"


@dataclass
class LocalSchema:
    label: str
    key: Any
    properties: dict[str, Any]
    rels: list[LocalRel] = field(default_factory=list)

    def rel(self, type_: str, direction: str | None = None, neighbour: str | None = None) -> LocalRel | None:
        for r in self.rels:
            if r.type == type_ and direction in (None, r.direction) and neighbour in (None, r.neighbour):
                return r
        return None

    def render(self, *, max_chars: int = 60) -> str:
        props = ", ".join(f"{k}: {_short(v, max_chars)}" for k, v in self.properties.items() if v is not None)
        lines = [f"{self.label} {{{props}}}"]
        for r in self.rels:
            eg = f" e.g. {', '.join(_short(s, 30) for s in r.samples)}" if r.samples else ""
            lines.append(f"  {r.pattern(self.label)} x{r.count}{eg}")
        return "\n".join(lines)


def _short(value: Any, n: int) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def local_schema(graph: Graph, label: str, key: Any, *, schema: GraphSchema | None = None,
                 spec: DomainSpec | None = None, samples: int = 3) -> LocalSchema:
    """The entity ``label`` with primary key ``key``: its properties and its one-hop relationships."""
    schema = schema or GraphSchema.from_graph(graph, samples=0)
    if label not in schema.nodes:
        raise KeyError(f"no node label {label!r} in {schema.domain}")
    node = schema.nodes[label]
    match = f"MATCH (n:{ident(label)} {{{ident(node.primary_key)}: $key}})"
    rows = graph.query(f"{match} RETURN n", {"key": key}).rows
    if not rows:
        raise KeyError(f"no {label} with {node.primary_key} = {key!r}")
    props = {p: rows[0][0].get(p) for p, _ in node.properties}
    local = LocalSchema(label, key, props)
    for rel, direction, other in schema.neighbours(label):
        arrow = (f"-[r:{ident(rel)}]->(m:{ident(other)})" if direction == "out"
                 else f"<-[r:{ident(rel)}]-(m:{ident(other)})")
        disp = spec.display_prop(other) if spec and other in spec.primary_keys else schema.nodes[other].primary_key
        # Kuzu list slices are 1-based and include their end
        first = f"list_sort(collect(m.{ident(disp)}))[1:{samples}]" if samples > 0 else "[]"
        res = graph.query(f"{match}{arrow} WITH DISTINCT m RETURN count(m) AS c, {first} AS s",
                          {"key": key}).rows
        count, sample = (res[0][0], res[0][1] or []) if res else (0, [])
        if count:
            local.rels.append(LocalRel(rel, direction, other, count, list(schema.rels[rel].properties),
                                       sample))
    return local


# -- rows and checksums --------------------------------------------------------------------------------
def render_value(value: Any, spec: DomainSpec) -> Any:
    """A node as its display value, a relationship as its properties, a path as its nodes; recursive."""
    if isinstance(value, dict):
        if "_nodes" in value and "_rels" in value:  # a recursive-relationship path
            return [render_value(n, spec) for n in value["_nodes"]]
        if "_label" in value and "_id" in value:
            if "_src" in value and "_dst" in value:  # relationship
                return {k: render_value(v, spec) for k, v in value.items() if not k.startswith("_")}
            label = value["_label"]
            prop = spec.display.get(label) or spec.primary_keys.get(label)
            if prop is None:  # unknown label: its properties
                return {k: render_value(v, spec) for k, v in value.items() if not k.startswith("_")}
            return render_value(value.get(prop), spec)
        return {k: render_value(v, spec) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [render_value(v, spec) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    return value


def render_row(row: list[Any] | tuple, spec: DomainSpec) -> list:
    """A result row with nodes rendered as their display values (see :func:`render_value`)."""
    return [render_value(v, spec) for v in row]


def graph_checksum(graph: Graph) -> str:
    """sha256 over every table's count and sorted property values (rels: with their endpoints' keys)."""
    schema = GraphSchema.from_graph(graph, samples=0)
    h = hashlib.sha256()
    for label, node in sorted(schema.nodes.items()):
        cols = ", ".join(f"n.{ident(p)}" for p, _ in node.properties)
        rows = graph.query(f"MATCH (n:{ident(label)}) RETURN {cols}", row_cap=10**9).rows
        _hash_table(h, f"node {label} {node.count} {node.properties}", rows)
    for name, rel in sorted(schema.rels.items()):
        for src, dst in rel.pairs:
            ka, kb = schema.nodes[src].primary_key, schema.nodes[dst].primary_key
            cols = "".join(f", n.{ident(p)}" for p, _ in rel.properties)
            rows = graph.query(f"MATCH (a:{ident(src)})-[n:{ident(name)}]->(b:{ident(dst)}) "
                               f"RETURN a.{ident(ka)}, b.{ident(kb)}{cols}", row_cap=10**9).rows
            _hash_table(h, f"rel {name} {src} {dst} {rel.count} {rel.properties}", rows)
    return h.hexdigest()


def _hash_table(h, header: str, rows: list[list[Any]]) -> None:
    h.update(header.encode() + b"\n")
    for line in sorted(repr(r) for r in rows):
        h.update(line.encode() + b"\n")
