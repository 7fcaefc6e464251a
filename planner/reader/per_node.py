"""Figures of counts made per node: "the average number of tracks per album" is each album's count of tracks
first, then their average (:attr:`~kgqa.planner.query.Column.per`)."""

from __future__ import annotations

from dataclasses import replace

from kgqa.planner.query import Column
from kgqa.planner.reader import cues
from kgqa.planner.reader.reading import Reading, item_at, pick

OF_EACH = ("per", "each", "every")  # "per album", "in each album", "for every album"


def per_node(r: Reading, aggs: list[Column], group: list[Column]) -> list[Column]:
    """"the average (highest, lowest, total) number of tracks per album": the one count asked, grouped by the
    nodes named after "per" (a group :func:`~kgqa.planner.reader.shape` read), becomes a figure of the counts of
    each such node; the groups left are returned. Nothing changes where no aggregate word comes before "number
    of", or the group is not of another node than the one counted."""
    lem = r.lemmas
    if len(aggs) != 1 or aggs[0].fn != "count" or aggs[0].per:
        return group
    at = next((i for i in range(1, len(lem) - 1) if lem[i:i + 2] == ["number", "of"]), None)
    fn = cues.AGGREGATES.get(lem[at - 1]) if at is not None else None
    if fn is None or fn == "sum":  # "the total number of tracks": a count
        return group
    for i, w in enumerate(lem):
        k = i + 1
        while w in OF_EACH and k < len(lem) and lem[k] in ("the", "a", "an", "single", "one"):
            k += 1
        it = item_at(r, k) if w in OF_EACH and k < len(lem) else None
        lab = pick(it, "label", None) if it is not None and it.start == k else None
        var = r.vars.get(lab.owner) if lab is not None else None
        col = next((c for c in group if c.holder == var and not c.is_aggregate), None)
        if col is not None and var != aggs[0].holder:
            aggs[0] = replace(aggs[0], per=var, then=fn)
            r.use((at - 1, at))
            return [c for c in group if c != col]
    return group
