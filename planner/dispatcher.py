"""Heuristic dispatcher (CacheRAG §4.3, Algorithm 3): is the evidence complete, and if not, where next?

The verdict is deterministic — rows that answer the asked shape are COMPLETE — and the LLM is consulted
only to pick the next relation for depth expansion among the frontier's real relationships.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgqa.planner.compiler import Frame

COMPLETE, INCOMPLETE = "COMPLETE", "INCOMPLETE"


@dataclass
class Verdict:
    status: str
    reason: str


def judge(frame: Frame | None, rows: list[list[Any]], error: str | None) -> Verdict:
    if error:
        return Verdict(INCOMPLETE, f"query failed: {error[:120]}")
    if not rows:
        return Verdict(INCOMPLETE, "no rows")
    if all(all(v is None for v in r) for r in rows):
        return Verdict(INCOMPLETE, "only nulls")
    if frame is not None and frame.limit and len(rows) > frame.limit:
        return Verdict(INCOMPLETE, "more rows than asked")
    return Verdict(COMPLETE, f"{len(rows)} rows")


def grounded(frame: Frame | None) -> bool:
    """A frame whose every piece is tied to the schema: an empty result then means 'none'."""
    if frame is None or frame.target is None or frame.notes:
        return False
    return bool(frame.anchors or frame.conds) and not frame.agg
