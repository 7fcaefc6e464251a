"""Building the vector memory: pooling a whole graph, or sampling the top anchors' neighbourhoods of a large one."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.kg.cypher import ident
from kgqa.kg.importance import DEFAULT_RANKING, Snapshot, rank_order, read_snapshot, scores_for
from kgqa.kg.vector_memory import MemoryMeta, VectorMemory, load_memory, memory_dir


# -- pooling ----------------------------------------------------------------------------------------
def pool(neighbours: list[set[int]], scores: np.ndarray, m: int) -> list[list[int]]:
    """Importance-aware pooling: up to ``m`` disjoint node lists, each [anchor, its uncovered 1-hop neighbours]."""
    covered = np.zeros(len(neighbours), dtype=bool)
    out: list[list[int]] = []
    order = rank_order(scores)
    i = 0
    while len(out) < max(0, m):
        while i < len(order) and covered[order[i]]:
            i += 1
        if i >= len(order):
            break
        anchor = int(order[i])
        members = [anchor] + sorted(n for n in neighbours[anchor] if not covered[n])
        covered[members] = True
        out.append(members)
    return out


def node_text(label: str, name: str) -> str:
    """The text a node is encoded by: its display name and its label."""
    return f"{name} ({_words(label)})"


def _words(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").lower()


def _evidence(snap: Snapshot, members: list[int], incident: list[list[int]]) -> dict[str, Any]:
    """The members with their properties, and every edge touching a member (outside ends as stubs)."""
    from kgqa.types import Subgraph

    sub = Subgraph()
    for n in members:
        sub.add_node(snap.labels[n], snap.ids[n].split(":", 1)[1], snap.props[n])
    seen: set[int] = set()
    for n in members:
        for e in incident[n]:
            if e in seen:
                continue
            seen.add(e)
            s, rel, t, props = snap.edges[e]
            for end in (s, t):
                if snap.ids[end] not in sub.nodes:
                    sub.nodes[snap.ids[end]] = {"_label": snap.labels[end], "_name": snap.names[end]}
            sub.edges.append({"src": snap.ids[s], "rel": rel, "dst": snap.ids[t], "props": props})
    for n in members:
        sub.nodes[snap.ids[n]]["_name"] = snap.names[n]
    return sub.to_dict()


def embed_nodes(snap: Snapshot, nodes: list[int] | None = None) -> np.ndarray:
    """Sentence embeddings of the nodes' texts (all nodes, or ``nodes``), rows aligned with the indexes."""
    from kgqa.kg.embed import DIM, embed

    idx = range(len(snap)) if nodes is None else nodes
    texts = [node_text(snap.labels[n], snap.names[n]) for n in idx]
    return embed(texts) if texts else np.zeros((0, DIM), dtype=np.float32)


def build_memory(graph, spec=None, *, m: int = 300, ranking: str = DEFAULT_RANKING,
                 snapshot: Snapshot | None = None, node_vectors: np.ndarray | None = None) -> VectorMemory:
    """Pool ``graph`` into at most ``m`` subgraph vectors (see :mod:`kgqa.kg.vector_memory`).

    ``snapshot`` and ``node_vectors`` (:func:`embed_nodes` of every node) may be passed in to build
    several memories of one graph (e.g. both rankings) reading and encoding it once.
    """
    from kgqa.kg.embed import MODEL_NAME

    t0 = time.perf_counter()
    snap = snapshot or read_snapshot(graph, spec)
    scores = scores_for(graph, snap, ranking)
    groups = pool(snap.neighbours(), scores, m)
    incident = snap.incident()
    flat = [n for g in groups for n in g]
    emb = node_vectors[flat] if node_vectors is not None else embed_nodes(snap, flat)
    vectors, start = [], 0
    for g in groups:
        v = emb[start:start + len(g)].mean(axis=0)
        start += len(g)
        vectors.append(v / (np.linalg.norm(v) or 1.0))
    covered = np.zeros(len(snap), dtype=bool)
    covered[flat] = True
    meta = MemoryMeta(domain=getattr(graph, "domain", ""), version=getattr(graph, "version", "unversioned"),
                      ranking=ranking, m=m, subgraphs=len(groups), nodes=len(snap), covered_nodes=int(covered.sum()),
                      edges=len(snap.edges),
                      covered_edges=sum(1 for s, _, t, _ in snap.edges if covered[s] or covered[t]),
                      model=MODEL_NAME)
    memory = VectorMemory(meta, np.asarray(vectors, dtype=np.float32).reshape(len(groups), emb.shape[1]),
                          [snap.ids[g[0]] for g in groups], [[snap.ids[n] for n in g] for g in groups],
                          [_evidence(snap, g, incident) for g in groups])
    memory.meta.built_s = round(time.perf_counter() - t0, 3)
    return memory


def build_memory_sampled(graph, spec=None, *, m: int = 300, members: int = 30, embedded: int = 1) -> VectorMemory:
    """The degree-ranked memory of a graph too large to read whole (``kgqa load`` above
    ``KGQA_VECTOR_MEMORY_FULL_MAX`` relationships), read through bounded queries instead of a snapshot.

    Degrees are counted by Kuzu; the ``m`` highest-degree nodes not yet covered become anchors, in order,
    as in :func:`pool`, each with at most ``members`` of its uncovered neighbours (in relationship type order,
    then key order). The neighbourhoods of the next anchors are read together, one query per relationship
    type and direction (:func:`_neighbourhoods`). Each subgraph's evidence is its members and the anchor's
    edges to them (not every edge touching a member), and its vector is the mean of its first ``embedded``
    members' embeddings (the anchor's by default): a sample, said in the meta (``sampled``) and the load output.
    """
    from kgqa.kg.backend import read_catalog
    from kgqa.kg.embed import MODEL_NAME
    from kgqa.kg.operators import catalog

    t0 = time.perf_counter()
    cat = catalog(graph)
    rel_props = {rel: dict(props) for rel, props in read_catalog(graph).rel_props.items()}
    big = {"row_cap": 10**9, "timeout_ms": 600_000}
    total_nodes = _node_count(graph, cat)
    total_edges = _edge_count(graph)
    limit = m * (members + 1)  # no more nodes than this can be anchors or covered before m anchors are found
    candidates: list[tuple[int, str, Any]] = []
    linked = {end for pairs in cat.rels.values() for pair in pairs for end in pair}
    for label in sorted(linked):
        pk = cat.primary_keys[label]
        rows = graph.query(f"MATCH (n:`{label}`)-[r]-() RETURN n.`{pk}`, count(r) AS d ORDER BY d DESC, "
                           f"n.`{pk}` LIMIT {limit}", **big).rows
        candidates += [(int(d), label, key) for key, d in rows]
    candidates.sort(key=lambda c: (-c[0], c[1], str(c[2])))
    ids: list[str] = []
    labels: list[str] = []
    names: list[str] = []
    props: list[dict[str, Any]] = []
    edges: list[tuple[int, str, int, dict[str, Any]]] = []
    index: dict[str, int] = {}

    def add(label: str, p: dict[str, Any]) -> int:
        nid = f"{label}:{p.get(cat.primary_keys[label])}"
        if nid not in index:
            shown = spec.display_prop(label) if spec is not None and label in spec.primary_keys else \
                cat.primary_keys[label]
            index[nid] = len(ids)
            ids.append(nid)
            labels.append(label)
            names.append(str(p.get(shown) if p.get(shown) is not None else p.get(cat.primary_keys[label])))
            props.append(p)
        return index[nid]

    covered: set[str] = set()
    groups: list[list[int]] = []
    pos = 0
    while len(groups) < m and pos < len(candidates):
        batch = []  # the next anchors, as far as is known before their neighbourhoods are read
        while pos < len(candidates) and len(batch) < m - len(groups):
            if f"{candidates[pos][1]}:{candidates[pos][2]}" not in covered:
                batch.append(candidates[pos])
            pos += 1
        own, hoods = _neighbourhoods(graph, cat, rel_props, [(label, key) for _, label, key in batch])
        for _, label, key in batch:
            if len(groups) >= m:
                break
            if f"{label}:{key}" in covered or (label, key) not in own:
                continue
            anchor = add(label, own[(label, key)])
            group = [anchor]
            for rel, outgoing, other, rows in hoods.get((label, key), ()):
                okey = cat.primary_keys[other]
                for b, r in rows:
                    if len(group) > members:
                        break
                    if f"{other}:{b.get(okey)}" in covered:
                        continue
                    n = add(other, b)
                    if n not in group:
                        group.append(n)
                    edges.append((anchor, rel, n, r) if outgoing else (n, rel, anchor, r))
            covered.update(ids[n] for n in group)
            groups.append(group)
    snap = Snapshot(ids, labels, names, props, edges)
    incident = snap.incident()
    sample = [g[:embedded] for g in groups]
    emb = embed_nodes(snap, [n for g in sample for n in g])
    vectors, start = [], 0
    for g in sample:
        v = emb[start:start + len(g)].mean(axis=0)
        start += len(g)
        vectors.append(v / (np.linalg.norm(v) or 1.0))
    meta = MemoryMeta(domain=getattr(graph, "domain", ""), version=getattr(graph, "version", "unversioned"),
                      ranking="degree", m=m, subgraphs=len(groups), nodes=total_nodes,
                      covered_nodes=len(covered), edges=total_edges, covered_edges=len(edges), model=MODEL_NAME,
                      sampled=True)
    memory = VectorMemory(meta, np.asarray(vectors, dtype=np.float32).reshape(len(groups), emb.shape[1]),
                          [ids[g[0]] for g in groups], [[ids[n] for n in g] for g in groups],
                          [_evidence(snap, g, incident) for g in groups])
    memory.meta.built_s = round(time.perf_counter() - t0, 3)
    return memory


def _neighbourhoods(graph, cat, rel_props: dict[str, dict[str, str]], anchors: list[tuple[str, Any]]):
    """Returns ({(label, key): the anchor's properties}, {(label, key): [(rel, outgoing, other label, rows)]}) for
    ``anchors``, where ``rows`` yields (neighbour's properties, relationship's properties) in the neighbour's key
    order, read lazily; steps in relationship type order, outgoing before incoming. One query per label and one
    per relationship type and direction, for all the anchors of a label together."""
    from kgqa.kg.db import render_value

    by_label: dict[str, list[Any]] = {}
    for label, key in anchors:
        by_label.setdefault(label, []).append(key)
    own: dict[tuple[str, Any], dict[str, Any]] = {}
    hoods: dict[tuple[str, Any], list] = {}
    for label, keys in by_label.items():
        pk, cols = cat.primary_keys[label], list(cat.nodes[label])
        ret = ", ".join(f"n.{ident(c)} AS c{i}" for i, c in enumerate(cols))
        got = _ordered(graph, f"MATCH (n:{ident(label)}) WHERE n.{ident(pk)} IN $keys RETURN n.{ident(pk)} AS k, {ret}",
                       {"keys": keys}, [0], list(cat.nodes[label].values()))
        for key, (start, end) in got.spans.items():
            own[(label, key)] = {c: render_value(v) for c, v in zip(cols, got.rows(start, end)[0][1:])}
        for rel in sorted(cat.rels):
            for src, dst in cat.rels[rel]:
                for outgoing, other in ((True, dst), (False, src)):
                    if (src if outgoing else dst) != label:
                        continue
                    okey, ocols, rcols = cat.primary_keys[other], list(cat.nodes[other]), list(rel_props.get(rel, {}))
                    pattern = f"(a:{ident(label)})-[r:{ident(rel)}]->(b:{ident(other)})" if outgoing else \
                        f"(b:{ident(other)})-[r:{ident(rel)}]->(a:{ident(label)})"
                    ret = ", ".join([f"a.{ident(pk)} AS k"] + [f"b.{ident(c)} AS b{i}" for i, c in enumerate(ocols)]
                                    + [f"r.{ident(c)} AS r{i}" for i, c in enumerate(rcols)])
                    got = _ordered(graph, f"MATCH {pattern} WHERE a.{ident(pk)} IN $keys RETURN {ret}",
                                   {"keys": keys}, [0, 1 + ocols.index(okey)],
                                   [*cat.nodes[other].values(), *rel_props.get(rel, {}).values()])
                    for key, span in got.spans.items():
                        hoods.setdefault((label, key), []).append(
                            (rel, outgoing, other, _pairs(got, span, ocols, rcols)))
    return own, hoods


def _pairs(got: _Ordered, span: tuple[int, int], ocols: list[str], rcols: list[str]) -> Iterator:
    """(neighbour's properties, relationship's properties) of the rows in ``span``, read 64 at a time."""
    from kgqa.kg.db import render_value

    for i in range(span[0], span[1], 64):
        for row in got.rows(i, min(i + 64, span[1])):
            yield ({c: render_value(v) for c, v in zip(ocols, row[1:1 + len(ocols)])},
                   {c: render_value(v) for c, v in zip(rcols, row[1 + len(ocols):])})


@dataclass
class _Ordered:
    """A query result ordered by its first column: ``spans`` maps each first-column value to its rows' [start,
    end), and ``rows(start, end)`` returns those rows as lists."""

    spans: dict[Any, tuple[int, int]]
    rows: Callable[[int, int], list[list[Any]]]


def _ordered(graph, cypher: str, params: dict[str, Any], by: list[int], types: list[str]) -> _Ordered:
    """Runs a builder's query and orders its rows by the columns at positions ``by`` (the first one first); read
    as an Arrow table (values converted only when asked for) where the engine gives one and the Kuzu ``types``
    of the columns read the same that way, else as rows. Sorted here, not by ``ORDER BY``: Kuzu 0.11.3 returned
    rows of ``ORDER BY k, b`` out of ``b`` order."""
    from kgqa.kg.arrow_tables import reads_as_rows

    table = getattr(graph, "table", None)
    result = None
    if table is not None and reads_as_rows(types):
        try:
            result = table(cypher, params, in_order=False)
            result = result.sort_by([(result.column_names[i], "ascending") for i in by])
            firsts = result.column(0).to_pylist()
            rows = lambda i, j: [list(r) for r in zip(*(c.to_pylist() for c in result.slice(i, j - i).columns))]  # noqa: E731
        except (RuntimeError, ValueError, TypeError):  # a value Arrow does not carry: read as rows below
            result = None
    if result is None:
        plain = sorted(graph.query(cypher, params, row_cap=10**9, timeout_ms=600_000).rows,
                       key=lambda r: [r[i] for i in by])
        firsts = [r[0] for r in plain]
        rows = lambda i, j: plain[i:j]  # noqa: E731
    spans: dict[Any, tuple[int, int]] = {}
    for i, value in enumerate(firsts):
        start = spans.get(value, (i, i))[0]
        spans[value] = (start, i + 1)
    return _Ordered(spans, rows)


def ensure_memory(graph, spec, state_dir: str | Path, *, m: int, ranking: str = DEFAULT_RANKING,
                  force: bool = False, full_max: int | None = None, members: int = 30) -> tuple[VectorMemory, Path, bool]:
    """(memory, its folder, built?): load the current version's memory, else build and store it: from the
    whole graph, or, for degree ranking on a graph of more than ``full_max`` relationships, from the top
    anchors' neighbourhoods (:func:`build_memory_sampled`, at most ``members`` per subgraph). ``spec`` may be
    a future of the graph's spec (a graph still being built): the embedder starts loading before it is awaited.

    Memories of other KG versions of the domain are removed.
    """
    path = memory_dir(state_dir, graph.domain, graph.version, m=m, ranking=ranking)
    memory = None if force else load_memory(state_dir, graph.domain, graph.version, m=m, ranking=ranking)
    built = memory is None
    if built:  # the embedder loads while the graph is read (Kuzu's queries run without Python's lock)
        from kgqa.kg.embed import preload

        preload()
    if isinstance(spec, Future):
        spec = spec.result()
    if memory is None and full_max is not None and ranking == "degree" and _edge_count(graph) > full_max:
        memory = build_memory_sampled(graph, spec, m=m, members=members)
        memory.save(path)
    elif memory is None:
        memory = build_memory(graph, spec, m=m, ranking=ranking)
        memory.save(path)
    for old in path.parent.glob("*"):
        if old.is_dir() and not old.name.startswith(graph.version[:16]) and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
    return memory, path, built


def _node_count(graph, cat) -> int:
    meta = getattr(graph, "meta", None)
    if meta is not None and getattr(meta, "node_counts", None):
        return sum(meta.node_counts.values())
    return sum(graph.query(f"MATCH (n:`{lb}`) RETURN count(n)").rows[0][0] for lb in cat.nodes)


def _edge_count(graph) -> int:
    meta = getattr(graph, "meta", None)
    if meta is not None and getattr(meta, "rel_counts", None):
        return sum(meta.rel_counts.values())
    from kgqa.kg.operators import catalog

    return sum(graph.query(f"MATCH ()-[r:`{r}`]->() RETURN count(r)").rows[0][0] for r in catalog(graph).rels)
