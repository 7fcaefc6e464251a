"""Bounded subgraph operators (CacheRAG section 4.3): depth expansion and breadth expansion.

* :func:`depth_expand` (sigma_depth) follows one relation from frontier nodes, one primary-key point
  query per frontier node (an index nested-loop join), and refuses to go past ``k_depth`` hops in a plan.
* :func:`breadth_expand` (sigma_breadth) is a star scan of one node's 1-hop neighbourhood: its
  predicates (relation type + direction, and the node's own properties) are ranked by embedding
  similarity to the question and pruned to the top ``k_degree``; each kept relation is read with a
  ``LIMIT`` from a shared budget, so the result never holds more than ``k_degree`` edges, even on
  super-nodes, and nothing beyond that budget is ever fetched.

Both return a :class:`kgqa.types.Subgraph` whose nodes carry their properties.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from kgqa.kg.cypher import ident
from kgqa.types import Subgraph

Direction = Literal["out", "in", "both"]
_DIRECTIONS = {"out": "out", "->": "out", "forward": "out", "in": "in", "<-": "in", "backward": "in",
               "both": "both", "-": "both", "any": "both"}


class DepthLimitExceeded(RuntimeError):
    """A depth expansion would take the plan past ``k_depth`` hops."""


class UnknownSchemaItem(ValueError):
    """A label or relation type that the graph does not have."""


# -- catalogue -------------------------------------------------------------------------------------
def relation_steps(rels: dict[str, list[tuple[str, str]]], label: str) -> list[tuple[str, str, str]]:
    """(rel type, 'out'|'in', other label) for each relation in ``rels`` ({type: [(src, dst)]}) touching ``label``."""
    out = []
    for rel, pairs in rels.items():
        for src, dst in pairs:
            if src == label:
                out.append((rel, "out", dst))
            if dst == label:
                out.append((rel, "in", src))
    return out


@dataclass
class Catalog:
    """Node tables (primary key, property types) and relation tables (endpoints) of one graph."""

    nodes: dict[str, dict[str, str]] = field(default_factory=dict)  # label -> prop -> type
    primary_keys: dict[str, str] = field(default_factory=dict)
    rels: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # type -> [(src, dst)]

    def predicates(self, label: str) -> list[tuple[str, str, str]]:
        """(rel type, 'out'|'in', other label) for each relation touching ``label``."""
        return relation_steps(self.rels, label)

    def key_match(self, var: str, label: str, key: Any) -> tuple[str, dict[str, Any]]:
        """A ``WHERE`` condition selecting one node by primary key, and its parameters.

        Integer keys are inlined as validated literals: Kuzu 0.11.3 plans ``a.id = $k`` with an INT64
        parameter as a full table scan plus filter, but ``a.id = 42`` as a primary-key index lookup
        (string parameters do use the index).
        """
        pk = self.primary_keys[label]
        value = self.coerce_key(label, key)
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{var}.{ident(pk)} = $key", {"key": value}
        return f"{var}.{ident(pk)} = {int(value)}", {}

    def coerce_key(self, label: str, key: Any) -> Any:
        """A key as the primary-key column's type (keys travel as strings in candidates)."""
        typ = self.nodes[label][self.primary_keys[label]]
        if typ in {"INT64", "INT32", "INT16", "INT8", "SERIAL", "UINT64", "UINT32"} and isinstance(key, str):
            return int(key)
        if typ in {"DOUBLE", "FLOAT"} and isinstance(key, str):
            return float(key)
        return key


_catalogs: dict[int, Catalog] = {}
_catalog_lock = threading.Lock()


def catalog(graph) -> Catalog:
    """The (cached) catalogue of ``graph``, read from its engine's catalogue."""
    cat = _catalogs.get(id(graph))
    if cat is not None and getattr(graph, "_kgqa_catalog", None) is cat:
        return cat
    with _catalog_lock:
        from kgqa.kg.backend import read_catalog

        found = read_catalog(graph)
        cat = Catalog()
        cat.nodes = {label: dict(props) for label, props in found.nodes.items()}
        cat.primary_keys = dict(found.keys)
        cat.rels = {name: list(pairs) for name, pairs in found.rels.items()}
        _catalogs[id(graph)] = cat
        try:
            graph._kgqa_catalog = cat
        except AttributeError:  # pragma: no cover - slotted graph objects
            pass
        return cat


def _ident(name: str, known, what: str) -> str:
    if not isinstance(name, str) or name not in known:
        raise UnknownSchemaItem(f"unknown {what} {name!r}")
    return name


def node_props(value: dict) -> dict[str, Any]:
    """Returns a node's or relationship's own properties (Kuzu's ``_id``/``_label`` dropped), values rendered."""
    from kgqa.kg.db import render_value

    return {k: render_value(v) for k, v in value.items() if not k.startswith("_")}


def _add(sub: Subgraph, cat: Catalog, node: dict) -> str:
    label = node["_label"]
    props = node_props(node)
    return sub.add_node(label, props.get(cat.primary_keys[label]), props)


# -- depth expansion -------------------------------------------------------------------------------
def depth_expand(graph, frontier: list[tuple[str, Any]], rel: str, direction: str = "out", *,
                 k_depth_used: int, k_depth: int = 3, limit: int = 30,
                 timeout_ms: int | None = None) -> Subgraph:
    """Follow ``rel`` one hop from each frontier node; at most ``limit`` edges in all.

    Raises :class:`DepthLimitExceeded` when the plan has already used ``k_depth`` hops, and
    :class:`UnknownSchemaItem` for a relation or label the graph does not have.
    """
    if k_depth_used >= k_depth:
        raise DepthLimitExceeded(f"depth expansion refused: {k_depth_used} of K_depth={k_depth} hops used")
    cat = catalog(graph)
    rel = _ident(rel, cat.rels, "relation")
    dirn = _DIRECTIONS.get(str(direction).lower())
    if dirn is None:
        raise ValueError(f"direction must be out, in or both, not {direction!r}")
    sub = Subgraph()
    budget = max(0, int(limit))
    for label, key in frontier:
        if budget <= 0:
            break
        label = _ident(label, cat.nodes, "label")
        where, params = cat.key_match("a", label, key)
        arrows = [d for d in ("out", "in") if dirn in (d, "both")]
        for d in arrows:
            if budget <= 0:
                break
            if not any((src if d == "out" else dst) == label for src, dst in cat.rels[rel]):
                continue
            pattern = (f"(a:{ident(label)})-[r:{ident(rel)}]->(b)" if d == "out"
                       else f"(a:{ident(label)})<-[r:{ident(rel)}]-(b)")
            res = graph.query(f"MATCH {pattern} WHERE {where} RETURN a, r, b LIMIT {budget}",
                              params, timeout_ms=timeout_ms, row_cap=budget)
            for a, r, b in res.rows:
                ida, idb = _add(sub, cat, a), _add(sub, cat, b)
                src, dst = (ida, idb) if d == "out" else (idb, ida)
                sub.add_edge(src, rel, dst, node_props(r))
            budget -= len(res.rows)
    return sub


# -- breadth expansion -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Predicate:
    kind: Literal["rel", "prop"]
    name: str  # rel type or property name
    direction: str = ""  # "out" | "in" for relations
    other: str = ""  # label at the other end
    text: str = ""  # words embedded for ranking


def humanize(name: str) -> str:
    """ACTED_IN -> "acted in", birthDate -> "birth date"."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)
    return " ".join(name.replace("_", " ").lower().split())


def node_predicates(cat: Catalog, label: str) -> list[Predicate]:
    preds = []
    for rel, d, other in cat.predicates(label):
        words = humanize(rel)
        text = f"{words} {humanize(other)}" if d == "out" else f"{humanize(other)} {words} this {humanize(label)}"
        preds.append(Predicate("rel", rel, d, other, text))
    for prop in cat.nodes[label]:
        preds.append(Predicate("prop", prop, text=f"{humanize(label)} {humanize(prop)}"))
    return preds


_pred_vectors: dict[tuple[str, ...], np.ndarray] = {}


def rank_predicates(preds: list[Predicate], question: str | np.ndarray | None) -> list[Predicate]:
    """Predicates by cosine similarity to the question (schema order when no question is given)."""
    if question is None or (isinstance(question, str) and not question.strip()) or not preds:
        return list(preds)
    from kgqa.kg.embed import embed, embed_one

    qv = embed_one(question) if isinstance(question, str) else np.asarray(question, dtype=np.float32).reshape(-1)
    key = tuple(p.text for p in preds)
    mat = _pred_vectors.get(key)
    if mat is None:
        mat = embed(list(key))
        _pred_vectors[key] = mat
    sims = mat @ qv
    order = sorted(range(len(preds)), key=lambda i: (-float(sims[i]), i))
    return [preds[i] for i in order]


def breadth_expand(graph, node: tuple[str, Any], question: str | np.ndarray | None = None, *,
                   k_degree: int = 30, timeout_ms: int | None = None) -> Subgraph:
    """Star scan around ``node``: top-``k_degree`` predicates by similarity, at most ``k_degree`` edges.

    Kept property predicates become the centre node's properties (its key always stays); kept relation
    predicates share the edge budget: each gets ``ceil(k_degree / n)`` plus whatever earlier, higher
    ranked predicates left unused, and is read with that ``LIMIT``.
    """
    label, key = node
    cat = catalog(graph)
    label = _ident(label, cat.nodes, "label")
    pk = cat.primary_keys[label]
    kd = max(0, int(k_degree))
    where, params = cat.key_match("a", label, key)
    res = graph.query(f"MATCH (a:{ident(label)}) WHERE {where} RETURN a", params, timeout_ms=timeout_ms, row_cap=1)
    sub = Subgraph()
    if not res.rows:
        return sub
    centre = res.rows[0][0]
    kept = rank_predicates(node_predicates(cat, label), question)[:kd]
    kept_props = {p.name for p in kept if p.kind == "prop"} | {pk}
    props = {k: v for k, v in node_props(centre).items() if k in kept_props}
    cid = sub.add_node(label, props.get(pk), props)
    rels = [p for p in kept if p.kind == "rel"]
    if not rels or kd == 0:
        return sub
    share = math.ceil(kd / len(rels))
    budget, carry = kd, 0
    for p in rels:
        if budget <= 0:
            break
        n = min(budget, share + carry)
        pattern = (f"(a:{ident(label)})-[r:{ident(p.name)}]->(b:{ident(p.other)})" if p.direction == "out"
                   else f"(a:{ident(label)})<-[r:{ident(p.name)}]-(b:{ident(p.other)})")
        rows = graph.query(f"MATCH {pattern} WHERE {where} RETURN r, b LIMIT {n}",
                           params, timeout_ms=timeout_ms, row_cap=n).rows
        for r, b in rows:
            bid = _add(sub, cat, b)
            src, dst = (cid, bid) if p.direction == "out" else (bid, cid)
            sub.add_edge(src, p.name, dst, node_props(r))
        budget -= len(rows)
        carry = n - len(rows)
    return sub
