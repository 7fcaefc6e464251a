"""Node importance over a whole-graph snapshot: degree centrality and PageRank (GLARE Eqs. 5 and 6)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgqa.kg.cypher import ident

RANKINGS = ("degree", "pagerank")
DEFAULT_RANKING = "degree"  # GLARE-Deg; "pagerank" is GLARE-PgRank
DAMPING = 0.85
_PROJECTED = "kgqa_vm"


# -- reading the graph -------------------------------------------------------------------------------
@dataclass
class Snapshot:
    """The whole graph as plain lists: node i is ``ids[i]`` ("Label:key"); edges index into them."""

    ids: list[str]
    labels: list[str]
    names: list[str]  # display value of each node
    props: list[dict[str, Any]]
    edges: list[tuple[int, str, int, dict[str, Any]]]  # (src, rel type, dst, props)

    def __len__(self) -> int:
        return len(self.ids)

    def neighbours(self) -> list[set[int]]:
        adj: list[set[int]] = [set() for _ in self.ids]
        for s, _, t, _ in self.edges:
            if s != t:
                adj[s].add(t)
                adj[t].add(s)
        return adj

    def incident(self) -> list[list[int]]:
        """Edge indexes touching each node."""
        inc: list[list[int]] = [[] for _ in self.ids]
        for e, (s, _, t, _) in enumerate(self.edges):
            inc[s].append(e)
            if t != s:
                inc[t].append(e)
        return inc


def read_snapshot(graph, spec=None) -> Snapshot:
    """Every node and edge of ``graph`` (read-only queries, ordered by key so builds are deterministic)."""
    from kgqa.kg.operators import catalog, node_props

    cat = catalog(graph)
    big = {"row_cap": 10**9, "timeout_ms": 600_000}
    ids, labels, names, props = [], [], [], []
    index: dict[tuple[str, Any], int] = {}
    for label in sorted(cat.nodes):
        pk = cat.primary_keys[label]
        shown = spec.display_prop(label) if spec is not None and label in spec.primary_keys else pk
        for (node,) in graph.query(f"MATCH (n:{ident(label)}) RETURN n ORDER BY n.{ident(pk)}", **big).rows:
            p = node_props(node)
            index[(label, node[pk])] = len(ids)
            ids.append(f"{label}:{p.get(pk)}")
            labels.append(label)
            names.append(str(p.get(shown) if p.get(shown) is not None else p.get(pk)))
            props.append(p)
    edges = []
    for rel in sorted(cat.rels):
        for src, dst in cat.rels[rel]:
            ks, kd = cat.primary_keys[src], cat.primary_keys[dst]
            rows = graph.query(f"MATCH (a:{ident(src)})-[r:{ident(rel)}]->(b:{ident(dst)}) RETURN a.{ident(ks)}, b.{ident(kd)}, r "
                               f"ORDER BY a.{ident(ks)}, b.{ident(kd)}", **big).rows
            edges.extend((index[(src, a)], rel, index[(dst, b)], node_props(r)) for a, b, r in rows)
    return Snapshot(ids, labels, names, props, edges)


# -- importance scores -------------------------------------------------------------------------------
def degree_scores(snap: Snapshot) -> np.ndarray:
    """Centrality, GLARE Eq. 5: in-degree + out-degree of every node (parallel edges count)."""
    deg = np.zeros(len(snap), dtype=np.float64)
    for s, _, t, _ in snap.edges:
        deg[s] += 1
        deg[t] += 1
    return deg


def pagerank_scores(graph, snap: Snapshot, *, damping: float = DAMPING, max_iterations: int = 100) -> np.ndarray:
    """PageRank, GLARE Eq. 6, from Kuzu's ``page_rank`` over a projection of every node and rel table.

    Kuzu 0.11.3 refuses ``project_graph`` on a database opened read-only ("Cannot execute write operations
    in a read-only database"), and the served graph is only ever opened read-only; so the projection runs
    on a temporary read-write copy of the database file, which is deleted afterwards. The served graph is
    never written. Kuzu's result is Eq. 6 as written: ``(1 - d) / N + d * sum(score_j / outdeg_j)``.
    """
    from kgqa.kg.operators import catalog, node_props

    cat = catalog(graph)
    nodes = ", ".join(f"'{n}'" for n in sorted(cat.nodes))
    rels = ", ".join(f"'{r}'" for r in sorted(cat.rels))
    pos = {ident: i for i, ident in enumerate(snap.ids)}
    scores = np.zeros(len(snap), dtype=np.float64)
    with _writable_copy(graph) as conn:
        conn.execute(f"CALL project_graph('{_PROJECTED}', [{nodes}], [{rels}])")
        res = conn.execute(f"CALL page_rank('{_PROJECTED}', dampingFactor := {float(damping)}, "
                           f"maxIterations := {int(max_iterations)}) RETURN node, rank")
        while res.has_next():
            node, rank = res.get_next()
            label = node["_label"]
            scores[pos[f"{label}:{node_props(node).get(cat.primary_keys[label])}"]] = float(rank)
        res.close()
        _drop_projection(conn)
    return scores


@contextmanager
def _writable_copy(graph) -> Iterator:
    """A connection to a throw-away read-write copy of ``graph``'s database file (and its WAL, if any)."""
    import kuzu

    from kgqa.kg.db import DB_FILE, open_database

    src = Path(graph.dir) / DB_FILE if Path(graph.dir).is_dir() else Path(graph.dir)
    with tempfile.TemporaryDirectory(prefix="kgqa-pagerank-") as tmp:
        dst = Path(tmp) / DB_FILE
        shutil.copyfile(src, dst)
        wal = src.with_name(src.name + ".wal")
        if wal.exists():
            shutil.copyfile(wal, dst.with_name(dst.name + ".wal"))
        db = open_database(dst)
        conn = kuzu.Connection(db)
        try:
            yield conn
        finally:
            conn.close()
            db.close()


def _drop_projection(conn) -> None:
    try:
        conn.execute(f"CALL drop_projected_graph('{_PROJECTED}')")
    except RuntimeError:
        pass  # none to drop


def scores_for(graph, snap: Snapshot, ranking: str) -> np.ndarray:
    if ranking == "degree":
        return degree_scores(snap)
    if ranking == "pagerank":
        return pagerank_scores(graph, snap)
    raise ValueError(f"unknown ranking {ranking!r}; choose one of {', '.join(RANKINGS)}")


def rank_order(scores: np.ndarray) -> np.ndarray:
    """Node indexes by decreasing score; ties keep key order (deterministic)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
