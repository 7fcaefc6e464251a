"""What a plan's rows are, as the plan says it: an :class:`Outline`, read from the query tree (:func:`of_query`).

Everything after compiling that needs to know how the rows were made (whether they come in an order, which
column a ``LIMIT`` ranks by, which columns are evidence or were fixed by the question, which relationships the
plan walks) reads the outline, never the Cypher. Cypher that no tree wrote (the rules generator's, a language
model's, a plan-cache template's) is outlined by :mod:`kgqa.planner.cypher_outline`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgqa.planner.query import Column, Overall, Query, Tally, returned


@dataclass(frozen=True)
class Outline:
    """How a plan's rows are made. Column names are the names the engine returns them under."""

    target: str | None = None  # the label asked for
    ordered: bool = False  # the rows come in an order the plan sets (else any order: they are sorted to compare)
    cut: tuple[str, int] | None = None  # (column ranked by, rows kept): a ranking cut by a final LIMIT (ties looked for)
    limit: int | None = None  # how many rows the question asks for
    unranked: bool = False  # "the top 5 X" with nothing to rank by: an answer only when no more than ``limit`` match
    lists: frozenset[str] = frozenset()  # columns (case-folded) of evidence lists, beside the rows they explain
    fixed: frozenset[tuple[str, str]] = frozenset()  # (column, property) the plan sets equal to one value
    counted: str | None = None  # the label counted, when the rows are the group tied at the top of a count
    rels: frozenset[str] = frozenset()  # the relationship types the plan walks
    shown: tuple[tuple[str, str], ...] = ()  # (variable, property) of each returned column ("" for a computed one)
    grounded: bool = False  # every piece is tied to the schema and the graph: no rows means "none"


def of_query(q: Query, target: str | None = None) -> Outline:
    """Returns the outline of the rows ``q`` gives (``target``: the label asked for)."""
    columns, names = returned(q)
    named = dict(zip(columns, names))
    first = q.order[0][0] if q.order else None
    ranked = first is not None and q.limit is not None and not q.unranked and first in named
    shown = [("", "")] * (q.versus is not None) + [("", "") if c.is_aggregate else (c.holder or "", c.prop or "")
                                                   for c in columns]
    lists = frozenset(n.casefold() for c, n in named.items() if c.fn == "collect")
    return Outline(target=target, ordered=bool(q.order), cut=(named[first], q.limit) if ranked else None,
                   limit=q.limit, unranked=q.unranked, lists=lists, fixed=frozenset(_fixed(q, named)),
                   rels=frozenset(_rels(q)), shown=tuple(shown))


def _fixed(q: Query, named: dict[Column, str]) -> list[tuple[str, str]]:
    """(name, property) of the returned properties a condition of ``q`` sets equal to one value."""
    one = {(w.holder, w.prop) for w in q.where if w.op == "=" and _constant(w.value)}
    return [(n, c.prop) for c, n in named.items() if not c.is_aggregate and (c.holder, c.prop) in one]


def _constant(value: Any) -> bool:
    return not isinstance(value, (Column, Overall, tuple, list, set))


def _rels(q: Query) -> list[str]:
    rels = [e.rel for e in q.edges] + [e.rel for a in q.absent for e in a.edges]
    if q.versus is not None:
        rels += [rel for t in (q.versus.left, q.versus.right) if isinstance(t, Tally) for rel, _, _ in t.path]
    return rels
