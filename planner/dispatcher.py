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
from kgqa.planner.query import Column, Overall, Query

COMPLETE, INCOMPLETE = "COMPLETE", "INCOMPLETE"
PLAIN_JOINS = 2  # relationships a grammar reading may follow and still read an empty result as "none"
PLAIN_OPS = frozenset({"=", "<", ">", "<=", ">=", "<>", "BETWEEN", "RANGE", "IN"})


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


def _plain(q: Query) -> bool:
    """Whether a grammar reading is simple enough that finding nothing means "none": it filters its rows by
    equalities or ranges on values the question states, each property once, along at most :data:`PLAIN_JOINS`
    relationships, no two of them on one pair of nodes or of one type, with nothing absent and nothing aggregated.
    Found empty, a cycle ("acted in and reviewed the same movie"), two values joined by "and" that may mean either
    ("who take Canoeing and Kayaking"), a substring, one property asked twice ("in Austin, Texas or in Reno") or a
    longer path is more likely a misreading than none."""
    pairs = [frozenset((e.src, e.dst)) for e in q.edges]
    props = [(w.holder, w.prop) for w in q.where]
    rels = [e.rel for e in q.edges]
    return bool(q.where) and len(q.edges) <= PLAIN_JOINS and len(set(pairs)) == len(pairs) and \
        len(set(rels)) == len(rels) and \
        len(set(props)) == len(props) and all(w.op in PLAIN_OPS and not isinstance(w.value, (Overall, Column))
                                              for w in q.where) and \
        not (q.absent or q.having or q.keyed or any(c.is_aggregate for c in q.columns))


def grounded(frame: Frame | None, tree: Query | None = None) -> bool:
    """A plan whose every piece is tied to the schema: an empty result then means 'none'. A grammar reading's
    query tree (``tree``) explains every word of the question: it is grounded when it is plain (:func:`_plain`); a frame of the rules reader, when it is
    anchored or filtered, aggregates nothing and left no note."""
    if tree is not None:
        return _plain(tree)
    if frame is None or frame.target is None or frame.notes:
        return False
    return bool(frame.anchors or frame.conds) and not frame.agg
