"""Days between two dates: "the number of days between the order date and the ship date" is the later date's
day number minus the earlier's, a computed column (:attr:`~kgqa.planner.query.Query.computed`), figured as any
number is ("the average number of days between ...")."""

from __future__ import annotations

from kgqa.kg.schema import ident
from kgqa.planner.arithmetic import day_number
from kgqa.planner.query import Column
from kgqa.planner.reader import cues
from kgqa.planner.reader.columns import owner_of
from kgqa.planner.reader.joins import holder_of
from kgqa.planner.reader.reading import Reading, pick_prop
from kgqa.planner.reader.times import dated

SPAN_WORDS = ("day",)  # the unit counted between two dates


def days_between(r: Reading) -> Column | None:
    """"(the average) number of days between <date> and <date>", "how many days between ...": the column of the
    second date's day minus the first's (with the aggregate said before "number of"), the words read; else None."""
    lem, q = r.lemmas, r.query
    for i, w in enumerate(lem):
        if w not in SPAN_WORDS or lem[i + 1:i + 2] != ["between"] or not (
                lem[max(0, i - 2):i] == ["number", "of"] or lem[max(0, i - 2):i] == ["how", "many"]):
            continue
        first = next((x for x in r.items if x.start in (i + 2, i + 3) and "prop" in x.kinds()), None)
        second = next((x for x in r.items if first is not None and x.start in (first.end + 1, first.end + 2) and
                       lem[first.end] == "and" and "prop" in x.kinds()), None)
        terms = [pick_prop(x, r) for x in (first, second)] if second is not None else []
        if len(terms) != 2 or any(t is None or not dated(r, t) for t in terms):
            continue
        holders = [holder_of(r, t) for t in terms]
        if None in holders:
            return None
        days = [day_number(r.view, owner_of(r, h), t.prop, f"{h}.{ident(t.prop)}") for h, t in zip(holders, terms)]
        name = f"days between {terms[0].prop} and {terms[1].prop}"
        q.computed[(holders[0], name)] = f"({days[1]} - {days[0]})"
        first.term, second.term = terms
        r.asked = [x for x in r.asked if x is not first and x is not second]
        start = i - 2
        fn = cues.AGGREGATES.get(lem[start - 1]) if start > 0 and lem[start] == "number" else None
        r.use((start - (fn is not None), second.end))
        return Column(holders[0], name, fn, name="days" if fn is None else f"{fn}_days")
    return None
