"""Extension points declared as interfaces: what one layer asks of an object that a higher layer passes in.

The planner takes its plan cache as a :class:`PlanStore`; ``kgqa.cache.plan_cache.PlanCache`` is the
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
