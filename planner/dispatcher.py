"""Dispatcher (CacheRAG §4.3, Algorithm 3): is the evidence complete? Deterministic: no LLM is asked here.

:func:`judge` decides from the query's outcome alone: COMPLETE when it ran and returned rows that are not
all nulls and no more of them than the plan's outline asks for; INCOMPLETE otherwise, with the reason.
:func:`grounded` says whether an empty result of a rules frame is itself the answer ("none");
:func:`plainly_stated` and :func:`presupposed` say it of a query tree on a graph whose annotations say it is
complete (``DomainSpec.complete``): one that only ties stated values to properties, whose pattern and text values
the graph holds. On graphs that do not say so a "none" is never given: there an empty result is as often a
misreading (on Spider's databases, whose answers are never empty, each such "none" was wrong).

What the pipeline does with the verdict (``planner/pipeline.py``): INCOMPLETE on a frame that is not
grounded runs bounded expansion (``Pipeline._expand``, where the LLM picks which of the anchor's real
relationships to follow); COMPLETE with rows lets the plan cache learn the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgqa.planner.frame import Frame
from kgqa.planner.outline import Outline
from kgqa.planner.query import Column, Edge, Overall, Query, Where, to_cypher
from kgqa.protocols import GraphBackend

COMPLETE, INCOMPLETE = "COMPLETE", "INCOMPLETE"
STATED_OPS = frozenset({"=", "<", ">", "<=", ">=", "BETWEEN", "RANGE"})  # a property compared with a value said
MAX_EDGES = 2  # a longer pattern found empty may have taken a wrong path


@dataclass
class Verdict:
    status: str
    reason: str


def judge(outline: Outline, rows: list[list[Any]], error: str | None) -> Verdict:
    """COMPLETE or INCOMPLETE for a query's rendered rows (or its error), with a short reason."""
    if error:
        return Verdict(INCOMPLETE, f"query failed: {error[:120]}")
    if not rows:
        return Verdict(INCOMPLETE, "no rows")
    if all(all(v is None for v in r) for r in rows):
        return Verdict(INCOMPLETE, "only nulls")
    if outline.limit and len(rows) > outline.limit:
        return Verdict(INCOMPLETE, "more rows than asked")
    return Verdict(COMPLETE, f"{len(rows)} rows")


def grounded(frame: Frame | None) -> bool:
    """A frame whose every piece is tied to the schema: an empty result then means 'none'."""
    if frame is None or frame.target is None or frame.notes:
        return False
    return bool(frame.anchors or frame.conds) and not frame.agg


def plainly_stated(q: Query) -> bool:
    """Whether the tree only ties values the question states to properties along a short pattern, so that no rows
    can mean "none" ("which films did Ann Lee direct?"): conditions joined by AND, each comparing one property
    with a stated value; at most :data:`MAX_EDGES` relationships, never two between the same two nodes; no
    aggregate, bound on one, negation, comparison of counts or limit; no text searched for a part (it may be in
    another property); no property of one label set equal to two values (an "and" that may mean either)."""
    if not q.where or q.having or q.absent or q.versus is not None or q.limit is not None or q.keyed:
        return False
    if len(q.edges) > MAX_EDGES or any(c.is_aggregate for c in q.columns):
        return False
    pairs = [frozenset((e.src, e.dst)) for e in q.edges]
    if len(pairs) != len(set(pairs)):
        return False
    if any(w.op not in STATED_OPS or isinstance(w.value, (Column, Overall, list, set, dict)) for w in q.where):
        return False
    said = [(_label(q, w.holder), w.prop) for w in q.where if w.op == "="]
    return len(said) == len(set(said))


def presupposed(q: Query, graph: GraphBackend) -> bool:
    """Whether the graph holds what a plainly stated tree (:func:`plainly_stated`) takes for granted: matches of
    its pattern with no conditions, and each text value it sets a property equal to, in that property of that
    label or relationship type. Then no rows is "none", not a misreading."""
    bare = Query(nodes=dict(q.nodes), edges=list(q.edges), columns=[Column(next(iter(q.nodes)), None)], limit=1)
    checks = [bare] + [_holding(q, w) for w in q.where if w.op == "=" and isinstance(w.value, str)]
    for check in checks:
        cypher, params = to_cypher(check)
        if not graph.query(cypher, params, row_cap=1).rows:
            return False
    return True


def _label(q: Query, holder: str) -> str:
    """The label or relationship type of a node or edge variable."""
    return q.nodes.get(holder) or next((e.rel for e in q.edges if e.var == holder), holder)


def _holding(q: Query, w: Where) -> Query:
    """A tree finding a node (or edge) of ``w``'s holder's label (or type) whose property equals its value."""
    if w.holder in q.nodes:
        nodes, edges = {"n0": q.nodes[w.holder]}, []
        holder = "n0"
    else:
        e = next(e for e in q.edges if e.var == w.holder)
        nodes, edges, holder = {"n0": q.nodes[e.src], "n1": q.nodes[e.dst]}, [Edge("r0", e.rel, "n0", "n1")], "r0"
    return Query(nodes=nodes, edges=edges, where=[Where(holder, w.prop, "=", w.value)],
                 columns=[Column(holder, None)], limit=1)
