"""Dispatcher (CacheRAG §4.3, Algorithm 3): is the evidence complete? Deterministic: no LLM is asked here.

:func:`judge` decides from the query's outcome alone: COMPLETE when it ran and returned rows that are not
all nulls and no more of them than the plan's outline asks for; INCOMPLETE otherwise, with the reason.
:func:`grounded` says whether an empty result is itself the answer ("none").

What the pipeline does with the verdict (``planner/pipeline.py``): INCOMPLETE on a frame that is not
grounded runs bounded expansion (``Pipeline._expand``, where the LLM picks which of the anchor's real
relationships to follow); COMPLETE with rows lets the plan cache learn the plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgqa.planner.frame import Frame
from kgqa.planner.outline import Outline

COMPLETE, INCOMPLETE = "COMPLETE", "INCOMPLETE"


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
