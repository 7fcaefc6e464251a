"""Which engine serves a registered graph: :func:`open_graph` reads its ``meta.json``."""

from __future__ import annotations

from pathlib import Path

from kgqa.kg.backend import BOLT_KIND
from kgqa.kg.db import META_FILE, Graph, GraphMeta


def is_bolt(meta: GraphMeta | None) -> bool:
    """Whether a registered graph lives on a Bolt server."""
    return meta is not None and (meta.source or {}).get("kind") == BOLT_KIND


def open_graph(graph_dir: str | Path, *, timeout_ms: int = 5000, row_cap: int = 1000, pool_size: int = 4,
               buffer_pool_mb: int = 0, bolt_user: str = "", bolt_password: str = ""):
    """Returns the engine that serves the registered graph in ``graph_dir``, read-only: a
    :class:`~kgqa.kg.bolt_engine.BoltEngine` for a graph registered with ``kgqa load --bolt``, else the
    embedded Kuzu :class:`~kgqa.kg.db.Graph`."""
    graph_dir = Path(graph_dir)
    meta = GraphMeta.read(graph_dir) if (graph_dir / META_FILE).exists() else None
    if is_bolt(meta):
        from kgqa.kg.bolt_engine import BoltEngine

        return BoltEngine.from_meta(graph_dir, meta, timeout_ms=timeout_ms, row_cap=row_cap,
                                    pool_size=pool_size, user=bolt_user, password=bolt_password)
    return Graph(graph_dir, read_only=True, timeout_ms=timeout_ms, row_cap=row_cap, pool_size=pool_size,
                 buffer_pool_mb=buffer_pool_mb)
