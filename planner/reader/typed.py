"""Values read against the types the schema stores (:func:`typed`): a year said of a date is the range of that
year's dates; a number said of a text property that holds numbers is compared and added up as a number; a number
said of any other text property is the text it spells ("post code 255"), declined where no node holds that text;
an average or total of text that holds no numbers is declined."""

from __future__ import annotations

from kgqa.kg.schema import ident
from kgqa.planner.arithmetic import number
from kgqa.planner.query import NUMERIC_FNS, Query, Where, conditions_and_columns
from kgqa.planner.reader.columns import owner_of
from kgqa.planner.reader.reading import Reading


def typed(r: Reading) -> None:
    """Settles each condition's value and each aggregate against its property's stored type; a measure the
    annotations define ("revenue") is written out as its arithmetic wherever the query uses it."""
    q = r.query
    for holder, prop in _used(q):
        owner = owner_of(r, holder)
        if (owner, prop) in r.view.measures:
            q.computed[(holder, prop)] = number(r.view, owner, prop, f"{holder}.{ident(prop)}")
    q.where = [_typed_where(r, w) for w in q.where]
    for a in q.absent:
        a.where = [_typed_where(r, w) for w in a.where]
    for c in q.columns:
        if c.fn in NUMERIC_FNS and c.prop is not None and _stored(r, c.holder, c.prop) == "STRING":
            if _numeric_text(r, c.holder, c.prop):
                q.as_numbers.add((c.holder, c.prop))
            else:
                r.decline(f"the {c.fn} of {c.prop}, which holds text")


def _used(q: Query) -> set[tuple[str, str]]:
    """(holder, property) of every property the query uses."""
    where, columns = conditions_and_columns(q)
    return {(w.holder, w.prop) for w in where if w.op != "OR"} | {(c.holder, c.prop) for c in columns if c.prop}


def _typed_where(r: Reading, w: Where) -> Where:
    """``w`` with a number spelled as text where its property holds text, or its property read as a number."""
    if w.op == "OR":
        return Where(w.holder, w.prop, w.op, tuple(_typed_where(r, x) for x in w.value))
    if w.op == "MONTH" or w.op.startswith("SIZE "):
        return w  # a month's number, compared with the date's month as text; a text's length
    if _years(w.value) and r.view.is_date(owner_of(r, w.holder), w.prop):
        return _of_years(w)
    if _stored(r, w.holder, w.prop) != "STRING" or not _numbers(w.value):
        return w
    if _numeric_text(r, w.holder, w.prop):
        r.query.as_numbers.add((w.holder, w.prop))
        return w
    if w.op in ("=", "<>", "IN"):
        spelled = _spelled(w.value)
        missing = [v for v in (spelled if isinstance(spelled, (list, tuple)) else [spelled])
                   if not r.terms.holds(owner_of(r, w.holder), w.prop, v)]
        if missing:  # "schools whose division is not 1", where divisions are written 'Division 1'
            r.decline(f"no {owner_of(r, w.holder)} has {w.prop} {missing[0]!r}")
        return Where(w.holder, w.prop, w.op, spelled)
    r.decline(f"{w.prop} {w.op} a number, of text")
    return w


def _of_years(w: Where) -> Where:
    """A year (or range or list of years) said of a date: the dates from that year's first day, up to the next
    year's ("in 2015": 2015-01-01 <= date < 2016-01-01). ISO date text and typed dates compare alike so."""
    def first(year: int) -> str:
        return f"{year:04d}-01-01"
    v = w.value
    if w.op == "BETWEEN":
        return Where(w.holder, w.prop, "RANGE", (first(v[0]), first(v[1] + 1)))
    if w.op == "IN":
        return Where(w.holder, w.prop, "OR", tuple(Where(w.holder, w.prop, "RANGE", (first(y), first(y + 1)))
                                                   for y in v))
    op, year = {">": (">=", v + 1), "<=": ("<", v + 1), "=": ("RANGE", v)}.get(w.op, (w.op, v))
    if op == "RANGE":
        return Where(w.holder, w.prop, op, (first(year), first(year + 1)))
    if op == "<>":
        return Where(w.holder, w.prop, "NOT RANGE", (first(year), first(year + 1)))
    return Where(w.holder, w.prop, op, first(year))


def _years(value) -> bool:
    """Whether a condition's value is a year (1000-2999), or a list or range of years."""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_years(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and 1000 <= value <= 2999


def _stored(r: Reading, holder: str | None, prop: str | None) -> str | None:
    """The type ``holder.prop`` is stored as (not as the questions see it: numeric text is STRING here)."""
    if holder is None or prop is None:
        return None
    props = r.view.nodes if holder in r.query.nodes else r.view.rel_props
    return props.get(owner_of(r, holder), {}).get(prop)


def _numeric_text(r: Reading, holder: str, prop: str) -> bool:
    return r.view.is_numeric_text(owner_of(r, holder), prop)


def _numbers(value) -> bool:
    """Whether a condition's value is a number, or a list or range of numbers."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, (list, tuple)) and bool(value) and all(_numbers(v) for v in value)


def _spelled(value):
    """A number (or list of numbers) as the text it is written as: 255, 3.5, not 255.0."""
    if isinstance(value, (list, tuple)):
        return type(value)(_spelled(v) for v in value)
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
