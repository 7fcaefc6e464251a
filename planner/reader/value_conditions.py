"""Each value a question states, read into a condition (:func:`each_value`): the property written before it or
the one a verb, a unit or the label before it names, the comparison between, the value as the property holds it,
the node holding it; step by step over a per-value state (``_Said``), in a visible order."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kgqa.kg.derive import is_name_like
from kgqa.planner.query import Column, Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.attach import (
    comparator,
    counted_at,
    denied_after,
    holding,
    label_beside,
    named_before,
    possessed,
    prop_before,
    string_op,
    trailing_comparator,
)
from kgqa.planner.reader.bounds import count_bound, counted_range, edge_bound
from kgqa.planner.reader.columns import own_name, owner_of
from kgqa.planner.reader.compare import (
    age_said,
    aggregate_before,
    governor,
    is_number,
    key_named,
    label_before,
    least_or_most,
    owner_before,
    range_opener,
    refers,
    searched_in,
    season_before,
    total_within,
    verb_measure,
    verb_of_time,
)
from kgqa.planner.reader.joins import by_its_verb, holder_of, other_end, rels_named_by
from kgqa.planner.reader.measures import measured_beside, measured_props, money_prop, said_in_money
from kgqa.planner.reader.reading import (
    Item,
    Reading,
    Value,
    is_timed,
    parse_number,
    pick,
    pick_prop,
    typed_value,
)
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.reader.text_length import length_compared
from kgqa.planner.reader.times import (
    date_prop,
    dated,
    label_modified,
    noun_year,
    said_by,
    value_label_before,
    year_prop,
)


@dataclass
class _Run:
    """What the values read so far leave for the next ones (:func:`_each_value`)."""

    done: set[int] = field(default_factory=set)  # values read already, as the upper end of a range
    last: tuple[Term, int] | None = None  # the property of the last number compared, and where its value ends
    ors: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)  # (holder, prop) -> (its equality's
    # index, value end)
    stopped: bool = False  # a value declined the whole reading: no more conditions are read


@dataclass
class _Said:
    """The ``k``-th value being read into a condition, and what each step finds for the steps after it."""

    run: _Run
    k: int
    v: Value
    gap: int = 0  # where the words after the value and its comparison start (:func:`counted_at`)
    named: Item | None = None  # the property named right after the value
    old: bool = False  # "under 20 years old", "25 years of age"
    prop_item: Item | None = None  # the property named for it
    low: list[str] = field(default_factory=list)  # the question's words, those read already blank
    op: str | None = None
    op_span: list[tuple[int, int]] = field(default_factory=list)
    substring: tuple[str, tuple[int, int]] | None = None  # a substring cue ("contains") and its span
    term: Term | None = None  # the property constrained
    year: bool = False  # a number that may be a year
    value: Any = None  # the value as the property holds it
    holder: str | None = None  # the variable of the node holding the property


def each_value(r: Reading) -> bool:
    """Each value stated, through the steps that read its condition, in order, until one returns True (the value
    done with); True when a value declines the whole reading."""
    run = _Run()
    for k, v in enumerate(r.values):
        if k in run.done or v.kind == "limit":
            continue
        if v.kind == "linked" and r.lemmas[v.end:v.end + 1] == ["in"] and searched_in(r, replace(v, kind="text")):
            v = r.values[k] = replace(v, kind="text")  # "authors with Lee in their name": a part of it searched for
        s = _Said(run, k, v)
        for step in (_counted, _property_named, _comparison, _length, _measured, _property_said, _year_or_again,
                     _property_unnamed, _typed, _range, _holder, _written):
            if step(r, s):
                break
        if run.stopped:
            return True
    return False


def _counted(r: Reading, s: _Said) -> bool:
    """A number before a counted noun: a bound on how many rows ("parties with at least two records") or edges
    ("courses with more than one prerequisite") each asked node has; a count between two numbers stops all."""
    lem, k, v = r.lemmas, s.k, s.v
    gap = s.gap = counted_at(r, v)
    counted = next((it for it in r.items if it.start == gap and "label" in it.kinds()), None)
    if counted is None and v.kind == "number" and lem[gap:gap + 1] and lem[gap] in cues.ROW_WORDS and \
            not any(x.start <= gap < x.end for x in r.items) and r.target is not None:
        named = rels_named_by(r, lem[gap])
        if len(named) == 1 and edge_bound(r, v, Item(gap, gap + 1, {Term("rel", named[0])}),
                                          low_ops=[t.lower_ for t in r.doc]):
            return True  # "pilots with more than one record": the edges of their one relationship named "record"
        if not named:
            counted = Item(gap, gap + 1, {Term("label", r.query.nodes[r.target])})  # "parties with at least two
            # records": their rows
    if counted is not None and r.doc[v.start].dep_ == "nummod" and v.start > 0 and \
            r.doc[v.start - 1].dep_ in ("det", "case") and noun_year(r, v) is not None:
        counted = None  # "who shared the 1990 poetry medal": the medal's year, not 1990 medals
    if v.kind == "linked" and counted is not None and isinstance(parse_number(v.value), int):
        v = s.v = replace(v, kind="number", value=parse_number(v.value))  # "at least two ships", 'two' a ship's id too
    if counted_range(r, k):
        r.decline(f"a count between {v.value} and {r.values[k + 1].value}")  # "between 2 and 30 students"
        s.run.stopped = True
        return True
    if v.kind == "number" and counted is not None and isinstance(v.value, int):
        count_bound(r, v, counted, low_ops=[t.lower_ for t in r.doc])
        r.use(*[(j, j + 2) for j in range(v.end, gap - 1) if lem[j:j + 2] == ["number", "of"]])
        return True
    edges = next((it for it in r.items if it.start == gap and it.kinds() == {"rel"}), None)
    count = v.value if v.kind == "number" else parse_number(v.value) if v.kind == "linked" else None
    if edges is not None and isinstance(count, int) and not isinstance(count, bool):
        if edge_bound(r, replace(v, kind="number", value=count), edges,
                      low_ops=[t.lower_ for t in r.doc]):
            return True  # "courses with more than one prerequisite": a bound on the edges of prereq
    return False


def _property_named(r: Reading, s: _Said) -> bool:
    """The property named for a value: right after it ("earn more than 30000 in salary"), before it
    (:func:`prop_before`), or after a range or an either-or of numbers; a count of words or of what, declined."""
    lem, k, v, gap = r.lemmas, s.k, s.v, s.gap
    named = next((it for it in r.items if it.start == gap and "prop" in it.kinds()), None) or (next(
        (it for it in r.items if it.start == gap + 1 and it.kinds() == {"prop"} and any(
            is_number(r, t) for t in it.terms)), None) if lem[gap:gap + 1] == ["in"] else None)
    if named is not None and named.start == gap + 1:
        r.use((gap, gap + 1))  # "earn more than 30000 in salary"
    if v.kind == "number" and named is not None and lem[gap] not in cues.LENGTH_UNITS and not any(
            is_number(r, t) or r.view.is_numeric_text(t.owner, t.prop) for t in named.terms if t.kind == "prop"):
        r.decline(f"{v.value} {r.doc[named.start:named.end].text}")  # "more than one region": a count of text
        return True
    old = v.kind == "number" and lem[v.end:v.end + 2] in (["year", "old"], ["year", "of"]) and \
        lem[v.end + 1:v.end + 3] != ["of", "service"]  # "under 20 years old", "25 years of age"
    nxt = r.doc[gap] if gap < len(r.doc) else None
    if v.kind == "number" and nxt is not None and nxt.tag_ == "NNS" and not old and not any(
            it.start <= gap < it.end for it in r.items) and nxt.lemma_.lower() not in cues.LENGTH_UNITS:
        r.decline(f"{v.value} {nxt.text}")  # "more than 2 records": a count of what
        return True
    prop_item = prop_before(r, v) if r.doc[v.start].lower_ not in cues.GENDERS else None  # "female students"
    if prop_item is not None and v.kind == "number" and named is not None and all(
            t.kind != "prop" or r.view.prop_type(t.owner, t.prop) == "BOOL" for t in prop_item.terms):
        prop_item = None  # "discontinued and have less than 10 units in stock": no flag holds a number
    hi = r.values[k + 1] if k + 1 < len(r.values) else None
    if prop_item is None and hi is not None and v.kind == hi.kind == "number" and lem[v.start - 1:v.start] == \
            ["between"] and lem[v.end:v.end + 1] == ["and"] and hi.start == v.end + 1:
        # "projects that require between 100 and 300 hours": the property named after the range
        prop_item = next((x for x in r.items if x.start == hi.end and "prop" in x.kinds()), None)
    if prop_item is None and hi is not None and v.kind == hi.kind == "number" and lem[v.end:v.end + 1] == ["or"] \
            and hi.start == v.end + 1:
        # "films that received 3 or 4 stars": the property named after the second
        prop_item = next((x for x in r.items if x.start == counted_at(r, hi) and x.kinds() == {"prop"}), None)
    s.named, s.old, s.prop_item = named, old, prop_item
    return False


def _comparison(r: Reading, s: _Said) -> bool:
    """The comparison said of a value: before it, after it ("100 or higher"), a denial ("did not visit"), around
    its property ("more total passengers than"); a substring cue ("contains") where it orders nothing."""
    lem, v, named, prop_item = r.lemmas, s.v, s.named, s.prop_item
    low = [t.lower_ if t.i not in r.used else "" for t in r.doc]  # words read already compare nothing
    op, op_span = comparator(low, prop_item.end if prop_item and prop_item.end <= v.start else max(0, v.start - 4),
                             v.start)  # "with at least 100000 salary": the comparison before the value
    trailing, tspan = trailing_comparator(low, v.end)
    if trailing and op is None:  # "100 or higher"; not "above 50 or below 46"
        op, op_span = trailing, [tspan]
    if op is None and v.start in r.denied:  # "pupils who do not live in the town with code OSL"
        op, op_span = "<>", r.denied[v.start]
    denied = denied_after(lem, v.start, v.end) if op is None else None
    if denied:  # "the attractions Alison visited but Rosalind did not visit": the verb restated names nothing new
        op, op_span = "<>", denied
        r.items[:] = [x for x in r.items if not denied[-1][0] <= x.start < denied[-1][1]]
    if op is None and prop_item is not None and prop_item.start > 0 and low[prop_item.end:v.start] == ["than"]:
        op, split = comparator([low[prop_item.start - 1], "than"], 0, 2)  # "more total passengers than 10000"
        op_span = [(prop_item.start - 1, prop_item.start), (prop_item.end, v.start)] if split else op_span
    if op is None and prop_item is not None and prop_item.end <= v.start:
        ahead, ahead_span = comparator(low, max(0, prop_item.start - 3), prop_item.start)
        if ahead in ("<", ">", "<=", ">=", "<>"):  # "above age 46", "before the year of 2010", "not in country"
            op, op_span = ahead, op_span + ahead_span
    if op == "BETWEEN_START":
        op = "BETWEEN"
    if v.kind == "number" and named is not None and "label" not in named.kinds() and op in ("<", ">", "<=", ">=") and \
            op_span and \
            (prop_item is None or prop_item.end < min(a for a, _ in op_span)):
        prop_item = named  # "rooms with more than 50 capacity": the property named after the number
    substring = string_op(lem, prop_item.end if prop_item else max(0, v.start - 3), v.start) \
        if op not in ("<", ">", "<=", ">=") else None  # "started working before 1989": no prefix
    s.low, s.op, s.op_span, s.prop_item, s.substring = low, op, op_span, prop_item, substring
    return False


def _length(r: Reading, s: _Said) -> bool:
    """"titles longer than 20 characters": a condition on a text's length (:func:`length_compared`)."""
    return length_compared(r, s.v, s.op, s.gap, s.prop_item, s.op_span)


def _measured(r: Reading, s: _Said) -> bool:
    """The property a number measures: the year of the label it modifies ("the 1903 physics prize"), what a
    comparative ("older than 21"), "years old" or a verb ("earn below 6000") measures."""
    lem, v, low, old = r.lemmas, s.v, s.low, s.old
    prop_item, op, op_span = s.prop_item, s.op, s.op_span
    aged = [t for t in r.doc[max(0, v.start - 3):v.start] if t.tag_ in ("JJR", "RBR") and
            t.lemma_.lower() in cues.MEASURES and t.i not in r.used]
    term = None
    found: list[str] = []
    if (term := noun_year(r, v)) is not None:
        prop_item = None  # "the share of the 1903 physics prize": the prize's year, whatever is named before
    if aged and v.kind == "number" and (prop_item is None or aged[0].lower_ in ("older", "younger")):
        # "older than 21", "taller than 200", "heavier than 90": what the adjective measures
        said = next((t for x in r.items if x.end == aged[0].i and (t := pick(x, "label", None)) is not None), None)
        label = said.owner if said is not None else r.query.nodes[r.target]  # "courses with students older than"
        found = measured_props(r, label, aged[0].lemma_.lower())
        beside = measured_beside(r, label, aged[0].lemma_.lower()) if not found and said is None else None
        if beside is not None:  # "entrepreneurs taller than 1.85": of the one label beside it that measures
            label, found = beside[0], [beside[1]]
        if len(found) != 1 and aged[0].lower_ in ("older", "younger"):
            r.decline(f"{aged[0].text} by what")
            return True
    if aged and len(found) == 1:
        term = Term("prop", label, found[0])
        if prop_item is None or not any((t.owner, t.prop) == (label, found[0]) for t in prop_item.terms):
            prop_item = None  # "whose age is older than 18": the age said, and what "older" measures
        op, op_span = comparator(low[:aged[0].i] + ["more"] + low[aged[0].i + 1:], aged[0].i, v.start)
        op = op if aged[0].lemma_.lower() not in cues.LOW_MEASURES else \
            {">": "<", ">=": "<=", "<": ">", "<=": ">="}.get(op, op)  # "younger than 20": a lower age
    if old and term is None and (lem[v.end + 1] == "old" or lem[v.end + 2:v.end + 3] == ["age"]):
        said = next((t for x in r.items if x.end <= v.start and v.start - x.end <= 4 and
                     (t := pick(x, "label", None)) is not None), None)  # "students under 20 years old"
        label = said.owner if said is not None else r.query.nodes[r.target]
        found = measured_props(r, label, "old")
        if len(found) != 1:
            r.decline(f"{v.value} years old, by what")
            return True
        term, prop_item = Term("prop", label, found[0]), None
        trailing, tspan = trailing_comparator(low, v.end + 2 + (lem[v.end + 1] == "of"))
        if op is None and trailing:
            op, op_span = trailing, [tspan]
        op_span = op_span + [(v.end, v.end + 2 + (lem[v.end + 1] == "of"))]
    measuring = [t for t in r.doc[max(0, v.start - 4):v.start] if t.pos_ == "VERB" and t.i not in r.used and
                 t.lemma_.lower() in cues.MEASURES]
    if term is None and prop_item is None and measuring and v.kind == "number" and op in ("<", ">", "<=", ">="):
        found = measured_props(r, r.query.nodes[r.target], measuring[-1].lemma_.lower())
        if len(found) == 1:  # "employees who earn below 6000", "rooms that cost more than 200": what the verb measures
            term = Term("prop", r.query.nodes[r.target], found[0])
            op_span = op_span + [(measuring[-1].i, measuring[-1].i + 1)]
    s.term, s.prop_item, s.op, s.op_span = term, prop_item, op, op_span
    return False


def _property_said(r: Reading, s: _Said) -> bool:
    """The property of the item named for a value, of the label that owns it; of a linked value, the one a
    possessive names, or one holding the value where the one named does not."""
    v, term, prop_item, substring = s.v, s.term, s.prop_item, s.substring
    if term is None and prop_item is not None:
        term = verb_of_time(r, prop_item)  # "required by a date": requiredDate
    if term is None and prop_item is not None:
        term = own_name(r, prop_item)  # "the products whose name contains 'Scanner'": the product's own name
    if term is None and prop_item is not None:
        term = pick(prop_item, "prop", governor(r, prop_item) or owner_before(r, prop_item) or
                    r.query.nodes.get(r.target))
        if term is None:
            term = pick_prop(prop_item, r)
    owned = possessed(r, prop_item, v) if v.kind == "linked" else None
    if owned is not None:
        term = owned  # "the sender bank's country is 'X'": sender_bank_country, not a country's
    elif term is not None and v.kind in ("linked", "text") and not term.on_rel and not substring \
            and not r.terms.holds(term.owner, term.prop, v.value):
        # "a receiver bank from 'Oslo'": the property named does not hold the value; one that holds
        # it and whose name extends the words written does (receiver_bank_country)
        term = holding(r, term, v, prop_item)
        if term is None:
            return True
    s.term = term
    return False


def _year_or_again(r: Reading, s: _Said) -> bool:
    """A year said of a property that holds none: its holder's year or date; a number with no property: the one
    compared just before ("300 or less than 100"), else a year (of a season, of the label named, of the verb)."""
    lem, v, low, op, op_span, last = r.lemmas, s.v, s.low, s.op, s.op_span, s.run.last
    term, prop_item = s.term, s.prop_item
    year = v.kind == "number" and isinstance(v.value, int) and 1800 <= v.value <= 2100
    said_year = v.start - 1 - (lem[v.start - 1:v.start] == ["of"])  # "before the year (of) 1850": its unit
    if year and lem[said_year:said_year + 1] == ["year"] and not any(x.start <= said_year < x.end for x in r.items):
        r.use((said_year, v.start))
    if year and term is not None and not term.on_rel and not is_timed(term.prop) and not dated(r, term) and \
            r.view.prop_type(term.owner, term.prop) not in ("INT16", "INT32") and \
            any(w in ("after", "before", "since", "in", "during") for w in low[max(0, v.start - 3):v.start]):
        timed = year_prop(r, term.owner) or date_prop(r, term.owner)  # "a host city after 2010": the hosting's year
        if not is_number(r, term) or refers(r, term) or timed is not None and op not in ("<", ">", "<=", ">="):
            term, prop_item = timed, None  # not "founded before 1850": a number of years itself
            if timed is not None:
                r.unsaid[v.start] = timed.prop
    if term is None and last is not None and v.kind == "number" and op in ("<", ">", "<=", ">=") and \
            lem[last[1]:last[1] + 1] in (["or"], ["and"], [","]) and all(
                w in ("or", "and", ",", "than", "be", "either") or year and w in ("the", "year", "of") or
                any(a <= i < b for a, b in op_span)
                for i, w in enumerate(lem[last[1]:v.start], start=last[1])):
        term = last[0]  # "a capacity greater than 300 or less than 100": the same property again
    month = next((w for w in reversed(r.query.where) if w.op == "MONTH"), None) if s.k and \
        r.values[s.k - 1].kind == "month" and r.values[s.k - 1].end == v.start else None
    if term is None and year and month is not None:
        term = Term("prop", r.query.nodes[month.holder], month.prop)  # "in July 1996": the year of July's date
    if term is None and year and (season := season_before(r, v)) is not None:
        term = season  # "in the Fall of 2010": the year of what holds 'Fall'
    if term is None and last is not None and v.kind == "number" and (op or "=") == "=" and \
            lem[last[1]:v.start] in (["or"], [","], ["or", "in"], [",", "or"]):
        term = last[0]  # "in department 70 or 90": the same property again
        r.use((last[1], v.start))
    if term is None and year:
        # "opened between 2000 and 2005", "wines made before 2000"; "an exhibition in 2004": the label's named
        owner = label_modified(r, v) or label_before(r, v.start, 2) or value_label_before(r, v)
        term = (year_prop(r, owner, v.start) or date_prop(r, owner, v.start)) if owner else None
        term = term or year_prop(r, at=v.start) or date_prop(r, at=v.start)
        if term is not None:
            r.unsaid[v.start] = term.prop  # which time: the verb must say it, or nothing else may
            said_by(r, term, v.start)
    s.year, s.term, s.prop_item = year, term, prop_item
    return False


def _property_unnamed(r: Reading, s: _Said) -> bool:
    """A value with no property named: a date's, a label's key, an amount of money, an age, the label's before a
    linked value, the property a quoted text is searched in."""
    lem, v, op, op_span = r.lemmas, s.v, s.op, s.op_span
    term, prop_item, substring = s.term, s.prop_item, s.substring
    if v.kind == "date" and (term is None or not dated(r, term)):
        # "orders placed between 2009-01-01 and 2010-01-01": the date of the label named before, else the asked
        owner = label_before(r, v.start, 3)
        term = date_prop(r, owner) or year_prop(r, owner)  # a date named as such, not held as ISO text
        prop_item = None
        if term is not None:
            r.unsaid[v.start] = term.prop
            r.use(*[(j, j + 1) for j in range(max(0, v.start - 4), v.start) if lem[j] in cues.TIME_HEADS and
                    not any(x.start <= j < x.end for x in r.items)])  # "required by a date earlier than"
    if v.kind == "month" and (term is None or not dated(r, term)):
        # "orders shipped in August": the date of the label named before, else the asked label's, a verb's cue first
        owner = label_before(r, v.start, 4)
        term, prop_item = date_prop(r, owner, v.start), None
        if term is not None:
            r.unsaid[v.start] = term.prop
    if term is None and v.kind == "number":
        term = key_named(r, v)  # "student 1004", "department 520": the key of the label named just before
    if term is None and v.kind == "number" and said_in_money(r, v):
        term = money_prop(r)  # "transactions above $10 million": the one amount the labels hold
        if term is not None:
            r.unsaid[v.start] = term.prop
    if term is None and v.kind == "number" and op in ("<", ">", "<=", ">=") and op_span:
        term = age_said(r, v, op_span)  # "students who are under 20": what ages them
    if term is None and v.kind == "number" and op in ("<", ">", "<=", ">=") and op_span:
        term = verb_measure(r, v)  # "Who rated a movie above 80?": the rating
    if term is None and v.kind == "linked":
        at = v.start - (named_before(lem, v.start) and r.doc[v.start - 1].tag_ == "VBN")
        before = next((pick(x, "label", None) for x in r.items if x.end == at), None)
        if before is None or before.owner not in {lb for lb, _ in v.options}:
            before = label_beside(r, v)
        asked = r.query.nodes[r.target]
        owner = before.owner if before is not None and any(lb == before.owner for lb, _ in v.options) else \
            asked if v.kind == "linked" and [lb for lb, _ in v.options].count(asked) == 1 else v.label
        term = Term("prop", owner, next(p for lb, p in v.options if lb == owner) if owner != v.label else v.prop)
        # "the album 'Blue Hours'": the value of the label named just before it
    if term is None and v.kind == "text" and (inside := searched_in(r, v)) is not None:
        prop_item, term = inside  # "customers who have 'Diana' in part of their names": a text searched for
        prop_item.term = term
        if substring:  # "have the letter 'a' in their names": the cue before, "in their" after
            r.use((v.end, prop_item.start))
        else:
            substring = ("CONTAINS", (v.end, prop_item.start))
        if lem[v.start - 1:v.start] in (["word"], ["string"], ["phrase"]):
            r.use((v.start - 1, v.start))  # "the word 'journey' in their summary"
    if term is None and v.kind == "text" and substring and not any(
            v.start - 4 <= x.start < v.start and "prop" in x.kinds() for x in r.items):
        # "the tracks that contain the word 'you'": searched for in what names the asked nodes
        label = r.query.nodes[r.target]
        term = Term("prop", label, r.view.display(label))
        if term.prop == r.view.key(label) or not is_name_like(term.prop):
            term = None
        elif lem[v.start - 1:v.start] in (["word"], ["string"], ["phrase"]):
            r.use((v.start - 1, v.start))
    if term is None and v.kind == "text" and named_before(lem, v.start):
        label = r.query.nodes[r.target]
        term = Term("prop", label, r.view.display(label))
    s.term, s.prop_item, s.substring = term, prop_item, substring
    return False


def _typed(r: Reading, s: _Said) -> bool:
    """The value as its property holds it (declined where no property was found, or none or no such value is
    held), and the comparison a substring cue or a decade makes."""
    lem, v, term, prop_item = r.lemmas, s.v, s.term, s.prop_item
    op, substring, year = s.op, s.substring, s.year
    if term is None:
        r.decline(f"what {r.doc[v.start:v.end].text} is")
        return True
    if term.kind == "prop" and not term.on_rel and r.view.is_empty(term.owner, term.prop):
        r.decline(f"no {term.owner} has any {term.prop}")  # "items with more than 100 votes": none has votes
        return True
    if isinstance(v.value, str) and parse_number(v.value) is None and is_number(r, term):
        # "a hotel with a Sauna" read onto hotel_ref: a word is no number; the value's own property, if linked
        if v.kind != "linked" or is_number(r, Term("prop", v.label, v.prop)):
            r.decline(f"{v.value!r} as {term.owner}.{term.prop}")
            return True
        term, prop_item = Term("prop", v.label, v.prop), None
    if v.kind == "month":
        if not dated(r, term):
            r.decline(f"the month of {term.prop}, which holds no dates")
            return True
        j = v.start
        while j > 0 and lem[j - 1] in ("the", "month", "of", "in", "during"):
            j -= 1
        r.use((j, v.start))  # "in the month of August"
        s.op, s.value = "MONTH", v.value
        return False
    value = v.value
    if v.kind == "linked" and isinstance(value, str) and term.kind == "prop" and not term.on_rel:
        value = r.terms.spelled(term.owner, term.prop, value)  # linked to another property's spelling
    if term.kind == "prop" and not term.on_rel and not (year and dated(r, term)):  # a year of a date: typed later
        value = typed_value(r.view.prop_type(term.owner, term.prop), value)
        if v.kind == "number" and isinstance(value, str) and op in (None, "=", "<>") and \
                not r.terms.holds(term.owner, term.prop, value):
            r.decline(f"no {term.owner} has {term.prop} {value!r}")  # divisions written 'Division 1', not 1
            return True
    lacking = next((i for i in range(max(0, substring[1][0] - 2), substring[1][0]) if lem[i] == "without"),
                   None) if substring and op is None else None
    if lacking is not None:  # "employees without the letter M in their first name"
        op = "<>"
        r.use((lacking, substring[1][0]))
    if substring and isinstance(value, str):
        op = ("NOT " if op == "<>" else "") + substring[0]  # "whose name does not contain the letter M"
        r.use(substring[1])
    op, value = ("BETWEEN", (value, value + 9)) if v.start in r.decades and op in (None, "=") else (op, value)
    s.term, s.prop_item, s.op, s.value = term, prop_item, op, value
    return False


def _range(r: Reading, s: _Said) -> bool:
    """A value that opens a range ("between 10 and 20", "from 2000 to 2005"): with the next one, read here and
    not again."""
    lem, k, v, term, op, value, done = r.lemmas, s.k, s.v, s.term, s.op, s.value, s.run.done
    if v.kind == "month":
        return False  # "between August and October": no range of months is read
    # "between 10 and 20", "between $60 and $120", "in the range of 8000 and 12000", "from 2000 to 2005"
    sign = v.start > 0 and r.doc[v.start - 1].lower_ in cues.CURRENCY_SIGNS
    opener = range_opener(lem[:v.start - sign], v.kind in ("number", "date"))
    if k + 1 < len(r.values) and opener and lem[v.end:v.end + 1] in opener[1] and \
            r.values[k + 1].start in (v.end + 1, v.end + 2) and r.values[k + 1].kind == v.kind:
        hi = r.values[k + 1]
        done.add(k + 1)
        high = hi.value if dated(r, term) and isinstance(hi.value, int) else \
            typed_value(r.view.prop_type(term.owner, term.prop), hi.value)  # years of a date: its days, later
        op, value = "BETWEEN", (value, high)
        r.use((v.start - opener[0] - sign, hi.end))
    s.op, s.value = op, value
    return False


def _holder(r: Reading, s: _Said) -> bool:
    """The node holding the property (the other end of an edge of the asked label to itself), else a bound on an
    aggregate per asked node; an order on words, an equality where the value is words, else declined."""
    lem, v, term, prop_item = r.lemmas, s.v, s.term, s.prop_item
    op, op_span, value = s.op, s.op_span, s.value
    holder = (v.kind == "linked" and not term.on_rel and by_its_verb(r, v, term.owner)) or holder_of(r, term)
    if holder is None:
        return True
    fn = aggregate_before(r, prop_item, term)
    total = total_within(r, prop_item, term)
    if total is not None and holder != r.target:
        # "orders with a total value over 1000": the values of each order's lines added up, not one line's
        r.decline(f"the {total} {term.prop} of each {owner_of(r, r.target)}'s what")
        return True
    bound = least_or_most(r, prop_item, v) if op is None and not isinstance(value, str) else None
    if bound is not None:  # "products with a minimum stock of 50": each a stock of at least 50
        op, fn = bound[0], None
        r.use(*bound[1])
    if fn is not None and op in ("<", ">", "<=", ">=", "=", None) and not isinstance(value, str):
        # "departments whose average salary is above 42000": a bound on the aggregate per asked node
        r.bounds.append((Column(holder, term.prop, fn), op or "=", value))
        prop_item.term = term
        k = next((j for j in range(prop_item.start - 1, -1, -1) if r.lemmas[j] in cues.AGGREGATES), prop_item.start)
        r.use((k, prop_item.end), (v.start, v.end), *op_span)
        return True
    verbs = [it for it in r.items if it.kinds() == {"rel"}]
    root = r.doc[v.start:v.end].root
    apposed = any(it.end == v.start and "label" in it.kinds() for it in r.items) and not (
        root.dep_ == "nsubj" and root.head.pos_ == "VERB")  # "the dept 'History'", not "the films Ann acted in"
    apposed = apposed or root.dep_ == "compound" and root.head.i == v.end and any(
        it.start == v.end and any(t.kind == "label" and t.owner == v.label for t in it.terms)
        for it in r.items)  # "What Chemistry prizes did X win?": the prizes', said before their noun
    beside = root.dep_ == "pobj" and any(it.start <= root.head.head.i < it.end for it in verbs) and not any(
        c.dep_ == "conj" for c in root.children)  # "friends with Bob", not "a friend of Dan or Alice"
    names = v.kind == "linked" and not term.on_rel and (term.prop in (
        r.view.display(term.owner), r.view.key(term.owner)) or is_name_like(term.prop))  # 'Bob', not the country 'UK'
    if v.kind == "linked" and prop_item is None and holder == r.target and (not r.asked or beside) and verbs and \
            not apposed and not v.noun and names and \
            not (root.dep_ in ("nsubj", "nsubjpass", "attr") and lem[0] not in ("who", "which", "what") and
                 lem[:2] != ["how", "many"]):
        # "Who does Cy Dale follow?", "Who acted alongside Ann Lee?": the named node is not the one
        # asked for; along a relationship of the label to itself it is the edge's other end
        holder = other_end(r, v)
        if holder is None:
            return True
    if isinstance(value, str) and op in ("<", ">", "<=", ">=") and not any(c.isdigit() for c in value):
        op = "="  # "courses under the 'Computer Science' subject": words have no order
    elif op in ("<", ">", "<=", ">=") and term.kind == "prop" and not is_number(r, term) and not \
            r.view.is_numeric_text(term.owner, term.prop) and not r.view.is_date(term.owner, term.prop) and \
            not is_timed(term.prop):
        r.decline(f"{term.prop} {op} {value}: its values are words")  # "type greater than 32"
        return True
    s.holder, s.op = holder, op
    return False


def _written(r: Reading, s: _Said) -> bool:
    """The condition written: one more value of an equality said just before with "or", else a condition of its
    own; the words read marked used."""
    lem, v, named, term, prop_item = r.lemmas, s.v, s.named, s.term, s.prop_item
    op, op_span, value, holder, ors = s.op, s.op_span, s.value, s.holder, s.run.ors
    prev = ors.get((holder, term.prop))
    if (op or "=") == "=" and prev is not None and "or" in lem[prev[1]:v.start] and \
            all(w in ("or", ",", "either", "'", '"', "the", "be") for w in lem[prev[1]:v.start]):
        # "whose residence is either 'Brandon' or 'Birtle'": one of the values
        w0 = r.query.where[prev[0]]
        listed = list(w0.value) if w0.op == "IN" else [w0.value]
        r.query.where[prev[0]] = Where(holder, term.prop, "IN", listed + [value])
        r.where_ends[prev[0]] = (r.where_ends[prev[0]][0], v.end)
        ors[(holder, term.prop)] = (prev[0], v.end)
        r.use((prev[1], v.end))
        return True
    if term.on_rel and isinstance(value, str) and (op or "=") == "=":
        value = r.view.edge_value(term.owner, term.prop, value) or value  # "a result of 'win'": the edges' 'Win'
    if (op or "=") == "=":
        ors[(holder, term.prop)] = (len(r.query.where), v.end)
    s.run.last = (term, v.end) if v.kind == "number" else None
    if holder in r.absent_of:
        r.absent_of[holder].where.append(Where(holder, term.prop, op or "=", value))
    else:
        r.query.where.append(Where(holder, term.prop, op or "=", value))
        said = prop_item.start if prop_item and not any(e[1] > prop_item.start for e in r.where_ends) else \
            min(v.start, op_span[-1][0] if op and op_span else v.start)  # "height over 200 or under 190"
        r.where_ends.append((said, max([v.end] + [b for _, b in op_span])))  # "2001 or before": its own "or"
    if prop_item is None and named is not None and v.kind == "linked" and term in named.terms:
        prop_item = named  # "in the fall election cycle": the value's property named right after it
    if prop_item is not None:
        prop_item.term = term
        r.use((prop_item.start, prop_item.end))
    r.use((v.start, v.end), *op_span)
    if named_before(lem, v.start) and lem[v.start - 1] in ("name", "call", "title", "named", "called", "titled") \
            and r.doc[v.start - 1].tag_ == "VBN":
        r.use((v.start - 1, v.start))  # "the employee called Ines"
    return False
