"""The plan a question is answered with, wherever it came from (:class:`Plan`): a compiled reading, a filled
plan-cache template, a language model's Cypher."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kgqa.planner.cypher_outline import of_cypher, past_cut
from kgqa.planner.frame import Compiled, Frame
from kgqa.planner.outline import Outline
from kgqa.planner.query import Query, to_cypher


@dataclass
class Plan:
    """Cypher and its parameters, with how its rows are made (``outline``) and what it was written from: the
    query tree (``tree``), or the rules reader's frame (``frame``), or neither (a template's, a model's)."""

    cypher: str
    params: dict[str, Any] = field(default_factory=dict)
    outline: Outline = field(default_factory=Outline)
    frame: Frame | None = None
    tree: Query | None = None

    @classmethod
    def compiled(cls, c: Compiled) -> Plan:
        return cls(c.cypher, c.params, c.outline or of_cypher(c.cypher), c.frame, c.query)

    @classmethod
    def written(cls, cypher: str, params: dict[str, Any] | None = None) -> Plan:
        """A plan no tree or frame wrote (a filled template, a model's Cypher): outlined from its text."""
        return cls(cypher, dict(params or {}), of_cypher(cypher))

    def rewritten(self, cypher: str) -> Plan:
        """The same plan after its Cypher was changed (repaired): outlined again from the text, keeping what the
        text does not say; no longer the tree's."""
        if cypher == self.cypher:
            return self
        o = self.outline
        outline = of_cypher(cypher, target=o.target, limit=o.limit, unranked=o.unranked, grounded=o.grounded)
        return replace(self, cypher=cypher, outline=outline, tree=None)

    def past_cut(self, skip: int, bound: int) -> tuple[str, dict[str, Any]]:
        """(cypher, params) giving the ``bound`` rows of a ranking past its first ``skip`` (:attr:`Outline.cut`)."""
        if self.tree is not None:
            return to_cypher(replace(self.tree, skip=skip, limit=bound))
        return past_cut(self.cypher, skip, bound), self.params
