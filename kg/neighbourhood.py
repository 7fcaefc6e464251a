"""An entity's bounded neighbourhood: the subgraph a description of it is written from.

:func:`entity_neighbourhood` reads, from one centre node, at most ``depth`` hops (``depth <= k_depth``;
descriptions use 2) with at most ``k_degree`` edges per hop level (CacheRAG's K_degree, §4.3), keeping
the most important neighbours first. Importance is a node's degree (GLARE Eq. 5, counted in the graph
for the candidates only) or its PageRank (GLARE Eq. 6, :func:`kgqa.kg.importance.pagerank_scores`,
computed once per graph version and process). Every relationship type of a node keeps at least its most
important edge, so a small relation (one director among twelve films) is not crowded out by a large one.

Nothing here knows a graph: labels, keys and relationship types come from the catalogue.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from typing import Any

from kgqa.kg.cypher import ident
from kgqa.kg.operators import UnknownSchemaItem, catalog, node_props
from kgqa.types import Subgraph

FETCH_CAP = 200  # edges read per node and direction before ranking (bounds super-nodes)


@dataclass
class Neighbourhood:
    """A centre node's bounded subgraph: ``hops`` and ``importance`` of each node id, edges in rank order."""

    centre: str  # node id "Label:key"
    subgraph: Subgraph
    hops: dict[str, int] = field(default_factory=dict)
    importance: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Returns the subgraph as plain data (the chat page's drawing), the centre node first."""
        return self.subgraph.to_dict()


def _own_props(cat, label: str, value: dict) -> dict[str, Any]:
    """A node's or edge's own, non-null properties (Kuzu returns every table's columns for untyped nodes)."""
    props = node_props(value)
    known = cat.nodes.get(label)
    return {k: v for k, v in props.items() if v is not None and v != "" and (known is None or k in known)}


def _edge_props(value: dict) -> dict[str, Any]:
    return {k: v for k, v in node_props(value).items() if v is not None and v != ""}


_pagerank: dict[tuple[int, str], dict[str, float]] = {}
_pagerank_lock = threading.Lock()


def _pagerank_of(graph) -> dict[str, float]:
    """Node id -> PageRank of the whole graph, computed once per graph object and version."""
    key = (id(graph), str(getattr(graph, "version", "")))
    with _pagerank_lock:
        if key not in _pagerank:
            from kgqa.kg.importance import pagerank_scores, read_snapshot

            snap = read_snapshot(graph)
            scores = pagerank_scores(graph, snap)
            _pagerank[key] = {nid: float(s) for nid, s in zip(snap.ids, scores)}
        return _pagerank[key]


def _degrees(graph, cat, ids: list[str]) -> dict[str, float]:
    """Node id -> number of incident edges, for the given nodes only (one query per label)."""
    by_label: dict[str, list[Any]] = {}
    for nid in ids:
        label, key = nid.split(":", 1)
        by_label.setdefault(label, []).append(cat.coerce_key(label, key))
    out: dict[str, float] = {}
    for label, keys in by_label.items():
        pk = cat.primary_keys[label]
        res = graph.query(f"MATCH (c:{ident(label)})-[x]-() WHERE c.{ident(pk)} IN $keys RETURN c.{ident(pk)}, count(x)",
                          {"keys": keys}, row_cap=len(keys) + 1)
        out.update({f"{label}:{k}": float(n) for k, n in res.rows})
    return out


def _incident(graph, cat, nid: str) -> list[tuple[str, str, str, dict, dict]]:
    """(rel type, 'out'|'in', other node id, edge props, other node props) of every edge of ``nid``, at most
    :data:`FETCH_CAP` per direction."""
    label, key = nid.split(":", 1)
    where, params = cat.key_match("a", label, key)
    out = []
    for direction, pattern in (("out", "(a:{l})-[r]->(b)"), ("in", "(a:{l})<-[r]-(b)")):
        res = graph.query(f"MATCH {pattern.format(l=ident(label))} WHERE {where} RETURN r, b LIMIT {FETCH_CAP}",
                          params, row_cap=FETCH_CAP)
        for r, b in res.rows:
            other = b["_label"]
            props = _own_props(cat, other, b)
            bid = f"{other}:{props.get(cat.primary_keys[other])}"
            out.append((r["_label"], direction, bid, _edge_props(r), props))
    return out


def _pick(cands: list[tuple], score: dict[str, float], budget: int) -> list[tuple]:
    """The ``budget`` most important candidates, each relationship type's best one first (ties: read order)."""
    ranked = sorted(range(len(cands)), key=lambda i: (-score.get(cands[i][2], 0.0), i))
    firsts, rest, seen = [], [], set()
    for i in ranked:
        kind = (cands[i][0], cands[i][1])
        (rest if kind in seen else firsts).append(i)
        seen.add(kind)
    keep = sorted((firsts + rest)[:max(0, budget)], key=ranked.index)
    return [cands[i] for i in keep]


def entity_neighbourhood(graph, label: str, key: Any, *, depth: int = 2, k_depth: int = 3, k_degree: int = 30,
                         ranking: str = "degree") -> Neighbourhood | None:
    """Returns the bounded neighbourhood of the node ``label`` with primary key ``key`` (None when there is no
    such node): up to ``min(depth, k_depth)`` hops, ``k_degree`` edges per hop level, the most important
    neighbours first (``ranking`` "degree" or "pagerank"); hop-2 edges are shared among the hop-1 nodes in
    their rank order. Raises :class:`kgqa.kg.operators.UnknownSchemaItem` for a label the graph lacks."""
    cat = catalog(graph)
    if label not in cat.nodes:
        raise UnknownSchemaItem(f"unknown label {label!r}")
    where, params = cat.key_match("a", label, key)
    res = graph.query(f"MATCH (a:{ident(label)}) WHERE {where} RETURN a", params, row_cap=1)
    if not res.rows:
        return None
    sub = Subgraph()
    centre = sub.add_node(label, cat.coerce_key(label, key), _own_props(cat, label, res.rows[0][0]))
    hood = Neighbourhood(centre, sub, {centre: 0})
    pagerank = _pagerank_of(graph) if ranking == "pagerank" else None
    frontier = [centre]
    for hop in range(1, max(0, min(depth, k_depth)) + 1):
        per_node = math.ceil(k_degree / max(len(frontier), 1))
        budget, nxt = k_degree, []
        for nid in frontier:
            if budget <= 0:
                break
            # never back towards the centre: a node already at a lower hop is not a candidate again
            cands = [c for c in _incident(graph, cat, nid) if hood.hops.get(c[2], hop) >= hop]
            if not cands:
                continue
            ids = list(dict.fromkeys(c[2] for c in cands))
            score = ({i: pagerank.get(i, 0.0) for i in ids} if pagerank is not None else _degrees(graph, cat, ids))
            hood.importance.update(score)
            for rel, direction, bid, eprops, bprops in _pick(cands, score, min(per_node, budget)):
                blabel, bkey = bid.split(":", 1)
                if bid not in sub.nodes:
                    sub.add_node(blabel, cat.coerce_key(blabel, bkey), bprops)
                    hood.hops[bid] = hop
                    nxt.append(bid)
                src, dst = (nid, bid) if direction == "out" else (bid, nid)
                sub.add_edge(src, rel, dst, eprops)
                budget -= 1
        frontier = sorted(nxt, key=lambda i: -hood.importance.get(i, 0.0))
        if not frontier:
            break
    return hood
