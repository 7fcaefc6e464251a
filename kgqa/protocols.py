"""Extension points declared as interfaces: what one layer asks of an object that a higher layer passes in.

Graphs are :class:`GraphBackend` engines. The planner takes its plan cache as a :class:`PlanStore`; ``kgqa.cache.plan_cache.PlanCache`` is the
built-in one. Any object with these methods serves (an in-memory store in a test, a shared store later).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class PlanStore(Protocol):
    """A plan cache as the planner uses it: exemplars out, verified plans in, templates reused."""

    def retrieve(self, question: str, domain: str, aspect: str | None = None, k: int = 5, lam: float = 0.5,
                 sim: str = "bm25") -> list[Any]:
        """Returns up to ``k`` cached plans for the question, chosen by MMR (objects with ``cypher`` and
        ``kg_version``)."""

    def top_k_bm25(self, question: str, domain: str, aspect: str | None = None, k: int = 5,
                   sim: str = "bm25") -> list[Any]:
        """Returns the ``k`` most relevant cached plans, without diversification."""

    def reuse(self, question: str, d: Any, isr: Any, mentions: list[Any]) -> tuple[str, dict] | None:
        """Returns (cypher, params) of a cached template the question fills exactly, else None."""

    def invalidate(self, domain: str, keep_version: str) -> int:
        """Drops the plans of ``domain`` made on any other graph version; returns how many."""

    def learn(self, question: str, isr: Any, d: Any, cypher: str, params: dict, r: Any) -> Any:
        """Stores a verified plan (the pipeline calls it only after a complete, non-empty answer); returns
        the stored entry or None."""


@runtime_checkable
class GraphBackend(Protocol):
    """A graph engine as every layer uses it (``kgqa.kg.db.Graph``: embedded Kuzu;
    ``kgqa.kg.bolt_engine.BoltEngine``: a Neo4j-compatible server). Queries are written in the canonical
    (Kuzu) dialect; the engine's ``dialect`` rewrites them, and its read-only guard checks every query."""

    domain: str
    version: str
    engine: str  # "kuzu" or "bolt"
    dialect: Any  # kgqa.kg.backend.Dialect: ``name``, ``translate(cypher)``, ``explain(cypher)``

    def query(self, cypher: str, params: dict | None = None, *, timeout_ms: int | None = None,
              row_cap: int | None = None) -> Any:
        """Returns the rows of a guarded read-only query (QueryResult), bounded by a timeout and a row cap."""

    def explain(self, cypher: str, params: dict | None = None) -> str | None:
        """Returns None when the query compiles on the engine, else the engine's error text."""

    def execute_unchecked(self, cypher: str, params: dict | None = None) -> Any:
        """Returns all the rows of a build-time or introspection read (no row cap)."""

    def catalog(self) -> Any:
        """Returns the graph's schema (kgqa.kg.backend.Catalog): labels, typed properties, keys, endpoints."""

    def close(self) -> None:
        """Releases the engine's connections."""
