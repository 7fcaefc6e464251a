"""What the compiler knows about a graph: labels, typed properties, relationships, and a value index.

Built once per serving graph from its engine's catalogue (:func:`kgqa.kg.backend.read_catalog`), so it can never name a property or relationship that does not exist.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace

from kgqa.kg.backend import read_catalog
from kgqa.kg.cypher import ident
from kgqa.kg.db import Graph
from kgqa.kg.operators import relation_steps
from kgqa.kg.spec import DomainSpec
from kgqa.text import fold, name_words

_ENDS_COUNTED = 200_000  # relationships up to this many edges are checked for nodes with several; larger: assumed
_DISTINCT_CAP = 5000  # distinct values of a text property read (and indexed) at most
_LONG_TEXT = 60  # values longer than this are prose (taglines, motivations), not lookup values
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")
# ISO date text, with a time of day (and zone) or not
MISSING_TEXT = ("", "NULL")  # how text data writes "no value" besides null (CSV exports)
DATE_TYPES = ("DATE", "TIMESTAMP")
NUMERIC_TYPES = ("INT", "DOUBLE", "FLOAT", "DECIMAL", "UINT", "SERIAL")  # type-name prefixes of numbers


def split_camel(name: str) -> str:
    """Returns a schema name as lower-case words joined by spaces (any convention; see ``name_words``)."""
    return " ".join(name_words(name))


@dataclass
class SchemaView:
    spec: DomainSpec
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)  # label -> prop -> type
    rels: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # type -> [(src, dst)]
    rel_props: dict[str, dict[str, str]] = field(default_factory=dict)
    values: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # folded -> [(label, prop, value)]
    rel_counts: dict[str, int] = field(default_factory=dict)  # type -> number of edges
    node_counts: dict[str, int] = field(default_factory=dict)  # label -> number of nodes
    several: dict[str, tuple[bool, bool]] = field(default_factory=dict)  # type -> (a source, a target has 2+ edges)
    filled: dict[tuple[str, str], int] = field(default_factory=dict)  # (label or type, prop) -> non-null values
    numeric_text: set[tuple[str, str]] = field(default_factory=set)  # text properties whose values are numbers
    measures: dict[tuple[str, str], str] = field(default_factory=dict)  # (owner, name) -> arithmetic (annotations)
    date_text: set[tuple[str, str]] = field(default_factory=set)  # text properties whose values are ISO dates
    numeric_keys: set[str] = field(default_factory=set)  # labels whose text keys are all digits ("1", "2", "10")
    edge_values: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)  # (type, prop) -> folded -> value
    distinct: dict[tuple[str, str], int] = field(default_factory=dict)  # (label, text prop) -> distinct values (capped)

    @classmethod
    def from_graph(cls, graph: Graph, spec: DomainSpec) -> SchemaView:
        view = cls(spec=spec)
        cat = read_catalog(graph)
        view.nodes = {label: dict(props) for label, props in cat.nodes.items()}
        view.rels = {name: list(pairs) for name, pairs in cat.rels.items()}
        view.rel_props = {name: dict(cat.rel_props.get(name, [])) for name in cat.rels}
        for name in view.rels:  # edges per relationship type: which reading of a path is the commonest
            view.rel_counts[name] = graph.execute_unchecked(f"MATCH ()-[e:{ident(name)}]->() RETURN count(e)").rows[0][0]
            view.several[name] = (True, True)
            if view.rel_counts[name] <= _ENDS_COUNTED:
                q = f"MATCH (a)-[e:{ident(name)}]->(b) RETURN count(DISTINCT a), count(DISTINCT b)"
                ends = graph.execute_unchecked(q).rows[0]
                view.several[name] = (ends[0] < view.rel_counts[name], ends[1] < view.rel_counts[name])
        for label in view.nodes:
            view.node_counts[label] = graph.execute_unchecked(f"MATCH (n:{ident(label)}) RETURN count(n)").rows[0][0]
        view._index_values(graph)
        view._profile(graph)
        for key, expr in spec.measures.items():  # computed numbers the annotations define ("revenue")
            owner, name = key.split(".", 1)
            holder = view.nodes.get(owner) if owner in view.nodes else view.rel_props.get(owner)
            if holder is not None:
                holder[name] = "DOUBLE"
                view.measures[(owner, name)] = expr
        return view

    def _profile(self, graph: Graph) -> None:
        """Counts each property's non-null values, and checks the relationships' text properties for numbers
        (the labels' were checked while indexing their values)."""
        owners = [(label, f"(n:{ident(label)})", props) for label, props in self.nodes.items()]
        owners += [(rel, f"()-[n:{ident(rel)}]->()", props) for rel, props in self.rel_props.items()]
        for owner, pattern, props in owners:
            names = list(props)
            if names:
                counts = ", ".join(f"count(n.{ident(p)})" for p in names)
                row = graph.execute_unchecked(f"MATCH {pattern} RETURN {counts}").rows[0]
                self.filled.update({(owner, p): int(c or 0) for p, c in zip(names, row)})
        for rel, props in self.rel_props.items():
            for prop, typ in props.items():
                if typ == "STRING":
                    q = f"MATCH ()-[n:{ident(rel)}]->() WHERE n.{ident(prop)} IS NOT NULL " \
                        f"RETURN DISTINCT n.{ident(prop)} LIMIT {_DISTINCT_CAP}"
                    values = [v for (v,) in graph.execute_unchecked(q).rows]
                    self._check_text(rel, prop, values)
                    self.edge_values[(rel, prop)] = {fold(v): v for v in values
                                                     if isinstance(v, str) and 0 < len(v) <= _LONG_TEXT}

    def with_measures(self, extra: dict[tuple[str, str], str]) -> SchemaView:
        """Returns a view that also holds the numbers ``extra`` computes ((owner, name) -> arithmetic over the
        owner's properties; a date in it counts days), as a question may define ("the days between the order
        date and the shipped date"); this view is unchanged."""
        if not extra:
            return self
        nodes, rel_props = dict(self.nodes), dict(self.rel_props)
        for owner, name in extra:
            holder = nodes if owner in nodes else rel_props
            holder[owner] = {**holder.get(owner, {}), name: "DOUBLE"}
        return replace(self, nodes=nodes, rel_props=rel_props, measures={**self.measures, **extra})

    def _check_text(self, owner: str, prop: str, values: list) -> None:
        """Records ``owner.prop`` as text that holds numbers ("32.38" freight, written as text by a CSV import)
        when every one of its ``values`` is a number and none is written with leading zeros, or dates when every one
        given is ISO date text; keys and ``...ID`` codes are neither."""
        words = name_words(prop)
        if prop == self.spec.primary_keys.get(owner) and values and all(isinstance(v, str) and v.isdigit()
                                                                        for v in values):
            self.numeric_keys.add(owner)  # listed in the order of their numbers, not their text
        if prop == self.spec.primary_keys.get(owner) or (words and words[-1] == "id"):
            return
        if values and all(isinstance(v, str) and _NUMBER.fullmatch(v.strip()) for v in values) and \
                not any(v.strip().lstrip("-")[:1] == "0" and v.strip().lstrip("-")[1:2].isdigit() for v in values):
            self.numeric_text.add((owner, prop))  # not "0114": a code written with its leading zeros
        given = [v for v in values if v not in MISSING_TEXT]
        if given and all(isinstance(v, str) and ISO_DATE.fullmatch(v.strip()) for v in given):
            self.date_text.add((owner, prop))

    def is_number(self, owner: str, prop: str) -> bool:
        """Whether ``owner.prop`` holds numbers as the questions see them (a numeric type, or text of numbers)."""
        return (self.prop_type(owner, prop) or "").startswith(NUMERIC_TYPES)

    def is_date(self, owner: str, prop: str) -> bool:
        """Whether ``owner.prop`` holds dates: a date type, or text of ISO dates (missing ones written as text)."""
        return (owner, prop) in self.date_text or (self.prop_type(owner, prop) or "").startswith(DATE_TYPES)

    def is_numeric_text(self, owner: str, prop: str) -> bool:
        """Whether ``owner.prop`` is stored as text but holds numbers (compared and aggregated as numbers)."""
        return (owner, prop) in self.numeric_text

    def is_empty(self, owner: str, prop: str) -> bool:
        """Whether no node (or edge) of ``owner`` has a value for ``prop`` (unknown properties are not)."""
        return self.filled.get((owner, prop), 1) == 0

    def _index_values(self, graph: Graph) -> None:
        index: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        for label, props in self.nodes.items():
            for prop, typ in props.items():
                if typ != "STRING":
                    continue
                q = f"MATCH (n:{ident(label)}) WHERE n.{ident(prop)} IS NOT NULL RETURN DISTINCT n.{ident(prop)} " \
                    f"LIMIT {_DISTINCT_CAP}"
                values = [value for (value,) in graph.execute_unchecked(q).rows]
                self.distinct[(label, prop)] = len(values)
                for value in values:
                    if isinstance(value, str) and 0 < len(value) <= _LONG_TEXT:
                        index[fold(value)].append((label, prop, value))
                self._check_text(label, prop, values)  # the same values say whether the text holds numbers
        self.values = dict(index)

    # -- queries over the schema ------------------------------------------------------------
    def nodes_per_value(self, label: str, prop: str) -> float:
        """Returns how many nodes of ``label`` hold each value of a text property on average; 0.0 when unknown (no
        values, or more distinct ones than were read)."""
        n = self.distinct.get((label, prop), 0)
        return self.node_counts.get(label, 0) / n if 0 < n < _DISTINCT_CAP else 0.0

    def is_category(self, label: str, prop: str) -> bool:
        """Whether a text property sorts its label's nodes into kinds: at least two nodes for each value."""
        return self.nodes_per_value(label, prop) >= 2

    def few_per(self, label: str, other: str, most: float = 2.0) -> bool:
        """Whether a node of ``label`` has at most ``most`` edges to ``other`` on average, along a relationship
        that joins the two directly (a laureate's prizes, not a product's orders)."""
        edges = [self.rel_counts.get(rel, 0) for rel, pairs in self.rels.items()
                 if (label, other) in pairs or (other, label) in pairs]
        return bool(edges) and min(edges) <= most * max(self.node_counts.get(label, 0), 1)

    def edge_value(self, rel: str, prop: str, said: str) -> str | None:
        """The value of relationship property ``rel.prop`` that ``said`` writes in another case or spacing
        ("win" for 'Win'), else None."""
        return self.edge_values.get((rel, prop), {}).get(fold(said))

    def prop_type(self, label: str, prop: str) -> str | None:
        """Returns the property's type as the questions see it: ``DOUBLE`` for text that holds numbers."""
        if (label, prop) in self.numeric_text:
            return "DOUBLE"
        return self.nodes.get(label, {}).get(prop) or self.rel_props.get(label, {}).get(prop)

    def neighbours(self, label: str) -> list[tuple[str, str, str]]:
        """(rel type, direction 'out'|'in', other label) for every relationship touching ``label``."""
        return relation_steps(self.rels, label)

    def paths(self, start: str, goal: str, max_hops: int = 3, prefer: set[str] = frozenset(),
              slack: int = 0) -> list[list]:
        """Shortest label paths start -> goal (and those up to ``slack`` steps longer, after them): lists of (rel,
        direction, label) steps, preferred rels first."""
        if start == goal:
            return [[]]
        frontier = [(start, [])]
        found: list[list] = []
        first = None
        for hop in range(max_hops):
            if found and first is None:
                first = hop
            if first is not None and hop > first - 1 + slack:
                break
            nxt = []
            for label, path in frontier:
                for rel, direction, other in self.neighbours(label):
                    if any(step[2] == other for step in path) or other == start:
                        continue
                    new = path + [(rel, direction, other)]
                    if other == goal:
                        found.append(new)
                    else:
                        nxt.append((other, new))
            if found and not slack:
                break
            frontier = nxt
        found.sort(key=lambda p: (len(p), -sum(step[0] in prefer for step in p)))
        return found

    def display(self, label: str) -> str:
        return self.spec.display_prop(label)

    def display_names(self) -> set[str]:
        """Returns the display properties of every label (what names a node in an answer)."""
        return {self.display(label) for label in self.nodes}

    def key(self, label: str) -> str:
        return self.spec.primary_keys[label]

    def summary(self) -> str:
        """A compact text of the schema for prompts and the router (kept short)."""
        parts = []
        for label, props in self.nodes.items():
            parts.append(f"{label}({', '.join(props)})")
        for rel, pairs in self.rels.items():
            for src, dst in pairs:
                parts.append(f"({ident(src)})-[:{ident(rel)}]->({ident(dst)})")
        return "; ".join(parts)
