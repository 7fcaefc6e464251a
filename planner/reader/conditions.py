"""The conditions of a question, for the grammar reader (:func:`conditions`), as passes in order: flags, each
value on the property written before it with the comparison between (:mod:`~kgqa.planner.reader.value_conditions`),
either-or and both-and of values, bounds on counts and on aggregates per asked node."""

from __future__ import annotations

from dataclasses import replace

from kgqa.planner.query import Where
from kgqa.planner.reader.both import conjunctions, two_nodes
from kgqa.planner.reader.bounds import repeated
from kgqa.planner.reader.flags import flags
from kgqa.planner.reader.joins import many_along, path_to
from kgqa.planner.reader.reading import Reading
from kgqa.planner.reader.value_conditions import each_value


def conditions(r: Reading) -> None:
    """Each value constrains the property written before it (with the comparison between), else the property
    it was linked to; "between A and B" is a range; a quoted text after "contains/starts/ends" a substring.
    The passes run in order; one that returns True ends the reading's conditions there."""
    if r.target is None:
        return
    for step in (flags, _alternatives, repeated, each_value, _disjunctions, _bounds_crossed, conjunctions,
                 _denied_of_others):
        if step(r):
            return


def _bounds_crossed(r: Reading) -> bool:
    """A lower bound over an upper one on one property ("more than 50 and less than 20"): of two nodes where
    :func:`two_nodes` finds them, else declined; True either way (no more passes)."""
    for ka, a in enumerate(r.query.where):
        for kb, b in enumerate(r.query.where):
            if (a.holder, a.prop) == (b.holder, b.prop) and a.op in (">", ">=") and b.op in ("<", "<=") and \
                    isinstance(a.value, (int, float)) and isinstance(b.value, (int, float)) and a.value >= b.value:
                if not two_nodes(r, a.holder, a.prop, sorted((ka, kb))):
                    r.decline(f"{a.prop} {a.op} {a.value} and {b.op} {b.value} at once (of two nodes?)")
                return True
    return False


def _denied_of_others(r: Reading) -> None:
    """"not 'X'" of a node other than the asked one, where no path reaches it or many do along the path: none of
    them, or one that is not; declined."""
    for w in r.query.where:
        if w.op == "<>" and w.holder != r.target and (
                (path := path_to(r.query, r.target, w.holder)) is None or many_along(r.view, r.query, path, r.target)):
            r.decline(f"not {w.value!r} (none of them, or one that is not)")


def _disjunctions(r: Reading) -> None:
    """"a height over 5000 or a prominence over 1000": conditions written with "or" between them hold either."""
    w = r.query.where
    ends = r.where_ends
    for k in range(len(w) - 1, 0, -1):
        a_end, b_start = ends[k - 1][1], ends[k][0]
        if a_end <= b_start and "or" in r.lemmas[a_end:b_start + 1] and w[k].op != "IN" and w[k - 1].op != "IN":
            either = Where(w[k - 1].holder, "", "OR", (w[k - 1], w[k]))
            w[k - 1:k + 1] = [either]
            ends[k - 1:k + 1] = [(ends[k - 1][0], ends[k][1])]
            r.use((a_end, b_start))


def _alternatives(r: Reading) -> None:
    """"parking or shopping as their feature details": two graph values joined by "or", linked to different
    properties, are values of the one property that holds both, where one does."""
    for k in range(len(r.values) - 1):
        a, b = r.values[k], r.values[k + 1]
        if a.kind != "linked" or b.kind != "linked" or (a.label, a.prop) == (b.label, b.prop) or \
                "or" not in r.lemmas[a.end:b.start] or \
                any(w not in ("or", ",", "either") for w in r.lemmas[a.end:b.start]):
            continue
        shared = (set(a.options) | {(a.label, a.prop)}) & (set(b.options) | {(b.label, b.prop)})
        if len(shared) == 1:
            (label, prop), = shared
            r.values[k], r.values[k + 1] = (replace(v, label=label, prop=prop, options=((label, prop),),
                                                    value=r.terms.spelled(label, prop, v.value)) for v in (a, b))
