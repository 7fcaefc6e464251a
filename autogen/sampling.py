"""Stratified star-schema sampling (CacheRAG §4.4 step 1).

For every node label — rare ones included, since each label gets its own quota — a seeded sample of
entities is drawn, each with its properties and its one-hop neighbours along every relationship
(a local star of valid triples). Two-hop paths extend a star by one more relationship for multi-hop
questions. :meth:`Sampler.table` gives a label's full (display, property) column for questions over a
whole label (filters, top-k), whose answers are computed here in Python, independently of Cypher.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgqa.kg.cypher import ident
from kgqa.kg.db import Graph
from kgqa.planner.schema_view import SchemaView

NEIGHBOUR_CAP = 60  # neighbours read per relationship; a star with more is marked truncated
_ID_LIKE = re.compile(r"^[\W\d_]*$|^[A-Za-z]{0,3}[-_]?\d[\w-]*$|^[a-z]+(-[a-z]+)*-\d{4}$")


@dataclass
class Node:
    label: str
    key: Any
    name: Any  # display value
    props: dict[str, Any] = field(default_factory=dict)


@dataclass
class Hop:
    """All neighbours of a star's centre along one relationship (``truncated`` when capped)."""

    rel: str
    direction: str
    label: str
    nodes: list[Node] = field(default_factory=list)
    truncated: bool = False


@dataclass
class Star:
    centre: Node
    hops: list[Hop] = field(default_factory=list)


def is_name(value: Any) -> bool:
    """A human-readable name (not an ID like '10248', 'ALFKI'-style codes or 'physics-1958')."""
    if not isinstance(value, str) or len(value) < 2 or len(value) > 60:
        return False
    if _ID_LIKE.match(value):
        return False
    return not (value.isupper() and len(value) <= 5 and " " not in value)


class Sampler:
    """Seeded, stratified sampling over one domain's read-only graph."""

    def __init__(self, graph: Graph, view: SchemaView, seed: int = 7):
        self.graph, self.view, self.rng = graph, view, random.Random(seed)
        self._tables: dict[tuple[str, str], list[tuple[Any, Any]]] = {}
        self._name_counts: dict[str, dict[Any, int]] = {}

    # -- labels ------------------------------------------------------------------------------------
    def anchorable(self, label: str) -> bool:
        """Whether questions can name a node of ``label`` by its display value (a name, not an ID)."""
        spec = self.view.spec
        disp = self.view.display(label)
        if disp == spec.primary_keys.get(label) and disp not in spec.name_props.get(label, []):
            return False
        names = [n for n in self._names(label) if n is not None][:50]
        return bool(names) and sum(is_name(n) for n in names) >= 0.8 * len(names)

    def _names(self, label: str) -> dict[Any, int]:
        if label not in self._name_counts:
            disp = ident(self.view.display(label))
            rows = self.graph.query(f"MATCH (n:{ident(label)}) RETURN n.{disp}, count(*)", row_cap=10**6).rows
            self._name_counts[label] = {r[0]: r[1] for r in rows}
        return self._name_counts[label]

    def unique_name(self, label: str, name: Any) -> bool:
        """Exactly one node of ``label`` has this display value (an anchor must be unambiguous)."""
        return is_name(name) and self._names(label).get(name, 0) == 1

    # -- sampling ----------------------------------------------------------------------------------
    def keys(self, label: str) -> list[tuple[Any, Any]]:
        """(primary key, display value) of every node of ``label``, in key order."""
        key, disp = ident(self.view.key(label)), ident(self.view.display(label))
        rows = self.graph.query(f"MATCH (n:{ident(label)}) RETURN n.{key} AS k, n.{disp} AS d ORDER BY k",
                                row_cap=10**6).rows
        return [(r[0], r[1]) for r in rows]

    def sample(self, per_label: int, on_error: Callable[[Exception], Any] | None = None) -> list[Star]:
        """``per_label`` stars for every label (all of a label's nodes when it has fewer); for labels a
        question can name, only nodes with a unique readable name are drawn. With ``on_error``, a label whose
        queries fail is skipped and its error passed to it (else raised)."""
        stars = []
        for label in sorted(self.view.nodes):
            try:
                pairs = self.keys(label)
                if self.anchorable(label):
                    pairs = [p for p in pairs if self.unique_name(label, p[1])] or pairs
                keys = [k for k, _ in pairs]
                chosen = self.rng.sample(keys, min(per_label, len(keys)))
                stars.extend([self.star(label, k) for k in chosen])
            except Exception as err:  # noqa: BLE001 - one label must not stop the others
                if on_error is None:
                    raise
                on_error(err)
        return stars

    def node(self, label: str, key: Any) -> Node:
        k = ident(self.view.key(label))
        rows = self.graph.query(f"MATCH (n:{ident(label)}) WHERE n.{k} = $k RETURN n", {"k": key}).rows
        return self._node(label, rows[0][0]) if rows else Node(label, key, None)

    def _node(self, label: str, value: dict) -> Node:
        props = {p: value.get(p) for p in self.view.nodes[label]}
        return Node(label, props.get(self.view.key(label)), props.get(self.view.display(label)), props)

    def star(self, label: str, key: Any) -> Star:
        centre = self.node(label, key)
        star = Star(centre)
        for rel, direction, other in self.view.neighbours(label):
            hop = self.hop(label, key, rel, direction, other)
            if hop.nodes:
                star.hops.append(hop)
        return star

    def hop(self, label: str, key: Any, rel: str, direction: str, other: str) -> Hop:
        k = ident(self.view.key(label))
        arrow = f"-[:{ident(rel)}]->" if direction == "out" else f"<-[:{ident(rel)}]-"
        rows = self.graph.query(
            f"MATCH (c:{ident(label)}){arrow}(o:{ident(other)}) WHERE c.{k} = $k RETURN DISTINCT o "
            f"LIMIT {NEIGHBOUR_CAP + 1}", {"k": key}).rows
        nodes = [self._node(other, r[0]) for r in rows]
        return Hop(rel, direction, other, nodes[:NEIGHBOUR_CAP], truncated=len(nodes) > NEIGHBOUR_CAP)

    def two_hop(self, star: Star, max_paths: int = 2) -> list[tuple[Hop, Hop, list[Node]]]:
        """Up to ``max_paths`` two-hop extensions of ``star``: (first hop, second-hop shape, answer nodes).

        The answer is the union of the second hop over every first-hop neighbour (minus the centre when
        the labels agree); extensions whose neighbour lists were capped are skipped."""
        out = []
        options = [h for h in star.hops if not h.truncated and len(h.nodes) <= 12]
        self.rng.shuffle(options)
        for h1 in options:
            seconds = [(r, d, o) for r, d, o in self.view.neighbours(h1.label)
                       if not (r == h1.rel and d != h1.direction and o == star.centre.label and o != h1.label)]
            self.rng.shuffle(seconds)
            for rel, direction, other in seconds[:1]:
                union: dict[Any, Node] = {}
                ok = True
                for n in h1.nodes:
                    h2 = self.hop(h1.label, n.key, rel, direction, other)
                    if h2.truncated:
                        ok = False
                        break
                    for m in h2.nodes:
                        union.setdefault(m.key, m)
                if other == star.centre.label:
                    union.pop(star.centre.key, None)
                if ok and union and len(union) <= NEIGHBOUR_CAP:
                    out.append((h1, Hop(rel, direction, other), list(union.values())))
            if len(out) >= max_paths:
                break
        return out

    # -- whole labels ------------------------------------------------------------------------------
    def table(self, label: str, prop: str) -> list[tuple[Any, Any]]:
        """(display value, ``prop`` value) of every node of ``label``."""
        if (label, prop) not in self._tables:
            disp = ident(self.view.display(label))
            rows = self.graph.query(f"MATCH (n:{ident(label)}) RETURN n.{disp} AS d, n.{ident(prop)} AS v",
                                    row_cap=10**6).rows
            self._tables[(label, prop)] = [(r[0], r[1]) for r in rows]
        return self._tables[(label, prop)]
