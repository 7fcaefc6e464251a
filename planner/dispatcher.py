"""Dispatcher (CacheRAG §4.3, Algorithm 3): is the evidence complete? Deterministic: no LLM is asked here.

:func:`judge` decides from the query's outcome alone: COMPLETE when it ran and returned rows that are not
all nulls and no more of them than the frame's ``LIMIT`` asks; INCOMPLETE otherwise, with the reason.
:func:`grounded` says whether an empty result is itself the answer ("none").

What the pipeline does with the verdict (``planner/pipeline.py``): INCOMPLETE on a frame that is not
grounded runs bounded expansion (``Pipeline._expand``, where the LLM picks which of the anchor's real
relationships to follow); COMPLETE with rows lets the plan cache learn the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgqa.planner.frame import Frame
from kgqa.planner.query import STRING_OPS, Absent, Column, Overall, Query, Where

COMPLETE, INCOMPLETE = "COMPLETE", "INCOMPLETE"


@dataclass
class Verdict:
    status: str
    reason: str


def judge(frame: Frame | None, rows: list[list[Any]], error: str | None) -> Verdict:
    """COMPLETE or INCOMPLETE for a query's rendered rows (or its error), with a short reason."""
    if error:
        return Verdict(INCOMPLETE, f"query failed: {error[:120]}")
    if not rows:
        return Verdict(INCOMPLETE, "no rows")
    if all(all(v is None for v in r) for r in rows):
        return Verdict(INCOMPLETE, "only nulls")
    if frame is not None and frame.limit and len(rows) > frame.limit:
        return Verdict(INCOMPLETE, "more rows than asked")
    return Verdict(COMPLETE, f"{len(rows)} rows")


def grounded(frame: Frame | None, query: Query | None = None) -> bool:
    """A plan whose every piece is tied to the schema, so that an empty result means 'none': a query tree (the
    grammar reader's, ``query``) or a frame with conditions on its nodes and no aggregate; in a tree, besides, no two
    relationships between one pair of nodes, no text searched for a part, no property equal to two values and no
    comparison with a computed value."""
    if query is not None:
        pairs = [frozenset((e.src, e.dst)) for e in query.edges]
        # not two relationships between the same two nodes: a reading that may have taken two nodes for one ("who
        # reviewed movies that Tom Hanks starred in": the reviewer is not Tom Hanks)
        return bool(query.where or query.absent) and not any(c.is_aggregate for c in query.columns) and \
            len(pairs) == len(set(pairs)) and not any(_contradicted(query, a) for a in query.absent) and \
            not _searched(query.where) and not _two_values(query.where) and not _computed(query.where)
    if frame is None or frame.target is None or frame.notes:
        return False
    return bool(frame.anchors or frame.conds) and not frame.agg


def _contradicted(q: Query, a: Absent) -> bool:
    """Whether the pattern that must not exist, with no conditions of its own, is one the match already has (movies
    Tom Hanks reviewed that "have never been reviewed"): the rows are empty whatever the graph holds."""
    return not a.where and any(e.rel == p.rel and (e.src == p.src and e.src not in a.own or
                                                   e.dst == p.dst and e.dst not in a.own)
                               for e in a.edges for p in q.edges)


def _searched(where: list[Where]) -> bool:
    """Whether a condition searches text for a part ("a name that contains 'Smith'"): finding none may mean the
    text was looked for in the wrong property."""
    return any(w.op.removeprefix("NOT ") in STRING_OPS or w.op == "OR" and _searched(list(w.value)) for w in where)


def _two_values(where: list[Where]) -> bool:
    """Whether one property is set equal to two values at once, or an either-or only to values other than the one
    it is set to ("city = 'A' AND (city = 'B' OR ...)"): no node has both; a misreading."""
    said = [(w.holder, w.prop, w.value) for w in where if w.op == "=" and not isinstance(w.value, (Column, Overall))]
    if len({(h, p) for h, p, _ in said}) < len(set(said)):
        return True
    fixed = {(h, p): v for h, p, v in said}
    return any(w.op == "OR" and all(x.op == "=" and (x.holder, x.prop) in fixed and fixed[(x.holder, x.prop)] != x.value
                                    for x in w.value) for w in where)


def _computed(where: list[Where]) -> bool:
    """Whether a condition compares with a value computed or held, not stated ("a price above the average price",
    "shipped after it was required"): an empty result may be the comparison misread."""
    return any(isinstance(w.value, (Column, Overall)) or w.op == "OR" and _computed(list(w.value)) for w in where)
