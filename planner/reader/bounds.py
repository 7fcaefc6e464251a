"""Bounds on how many nodes of another label each asked node reaches, for the grammar reader's conditions: "users
who tweeted more than once" (:func:`repeated`), "students with at least two pets" (:func:`count_bound`), "courses with
more than one prerequisite" (:func:`edge_bound`)."""

from __future__ import annotations

from kgqa.planner.query import Column, Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.attach import comparator, counted_at, trailing_comparator
from kgqa.planner.reader.joins import edge_of, join_label
from kgqa.planner.reader.reading import Item, Reading, Value, pick
from kgqa.planner.reader.schema_terms import Term, count_prop


def repeated(r: Reading) -> None:
    """"users who tweeted more than once", "services used at least 3 times in claims": a lower bound on how many
    nodes of the label the verb (or the words after it) names each asked node reaches. An upper bound ("at most
    once") would count the nodes that reach none, which a join cannot; it is left unread, but where the values of
    asked properties are counted ("codes used less than 5 times"), each value held at least once."""
    low = [t.lower_ for t in r.doc]
    label = r.query.nodes[r.target]
    for i, w in enumerate(low):
        number = next((v for v in r.values if v.kind == "number" and v.end == i and isinstance(v.value, int)), None)
        times = cues.TIMES.get(w) if w in cues.TIMES else number.value if number is not None and \
            r.lemmas[i] == "time" else None
        if times is None or i in r.used:
            continue
        start = number.start if number is not None else i
        op, spans = comparator(low, max(0, start - 3), start)
        trailing, tspan = trailing_comparator(low, i + 1)
        op, spans = (trailing, [tspan]) if op is None and trailing else (op, spans)
        near = [x for x in r.items if x.end <= start and start - x.end <= 3 or x.start > i and x.start - i <= 3]
        counted = [t for x in near if (t := pick(x, "label", None)) is not None and t.owner != label]
        if not counted and op is not None and values_asked(r) and not r.bounds:
            # "event names used more than twice": each value the asked properties take, held that many times
            r.bounds.append((Column(r.target, None, "count", True), op, times))
            r.use(*spans, (start, i + 1), *[(j, j + 1) for j in range(max(0, start - 4), start)
                                            if r.lemmas[j] in cues.OCCUR_VERBS])  # "appear more than twice"
            if number is not None:
                r.values.remove(number)
            continue
        if op not in (">", ">=") or len({t.owner for t in counted}) != 1:
            continue
        var = r.vars.get(counted[0].owner) or join_label(r, counted[0].owner)
        if var is None:
            return
        for x in near:
            if pick(x, "label", None) == counted[0]:
                x.term = counted[0]
                r.use((x.start, x.end))
        r.bounds.append((Column(var, None, "count", True), op, times))
        r.use(*spans, (start, i + 1))
        if number is not None:
            r.values.remove(number)


def _clause_of_other(r: Reading, v: Value) -> str | None:
    """The label of the noun whose relative clause says the bounded number, where that is not the asked label
    ("products ordered by customers who have placed more than 5 orders": Customer); else None."""
    verb = next((t for t in r.doc[v.start].ancestors if t.dep_ == "relcl"), None)
    noun = verb.head if verb is not None else None
    named = next((pick(x, "label", None) for x in r.items if noun is not None and x.start <= noun.i < x.end), None)
    if named is None or r.target is None or named.owner == r.query.nodes[r.target]:
        return None
    return named.owner


def count_bound(r: Reading, v: Value, it: Item, low_ops: list[str]) -> None:
    """"students with at least two pets": a bound on how many nodes of that label each row reaches."""
    term = pick(it, "label", None)
    label = r.query.nodes.get(r.target)
    # "the headquarters shared by two companies": the values the asked properties take
    grouped = term is not None and term.owner == label and values_asked(r)
    if term is None or term.owner == label and not grouped:
        r.decline(f"{v.value} {r.doc[it.start:it.end].text} of what")
        return
    other = _clause_of_other(r, v)
    if other is not None:  # "products ordered by customers who placed more than 5 orders": each customer's
        r.decline(f"{v.value} {r.doc[it.start:it.end].text} of each {other}, not of each {label}")
        return
    op, span = _bound_said(v, it, low_ops)
    if grouped and any(w in ("many", "count", "number") for w in r.lemmas[:v.start]):
        r.decline(f"the count of the values held by {v.value} {r.doc[it.start:it.end].text}")  # a count of groups
        return
    if grouped:
        it.term = term  # each value the asked properties take, held by a bounded number of the label's nodes
        r.bounds.append((Column(r.target, None, "count", True), op or "=", v.value))
        r.use((v.start, v.end), (it.start, it.end), *span)
        return
    held = count_prop(r.view, label, term.owner) if label else None
    if held is not None:  # "parties with more than 20 guests": the number each party holds (Number_of_guests)
        it.term = Term("prop", label, held)
        r.query.where.append(Where(r.target, held, op or "=", v.value))
        r.where_ends.append((min(v.start, *(a for a, _ in span)), it.end))
        r.use((v.start, v.end), (it.start, it.end), *span)
        verb = r.doc[it.end - 1].head
        if verb.pos_ == "VERB":  # "customers who have taken out more than one loan": the verb says the count
            r.use((verb.i, verb.i + 1), *[(c.i, c.i + 1) for c in verb.children if c.dep_ == "prt"])
        return
    var = r.vars.get(term.owner) or join_label(r, term.owner)
    if var is None:
        return
    it.term = term
    if (op, v.value) in ((">=", 1), (">", 0)):  # "at least one entity": there is one, the join says it
        r.use((v.start, v.end), (it.start, it.end), *span)
        return
    if any(c.holder != var and c.fn == "count" for c, _, _ in r.bounds) and \
            "or" in r.lemmas[max(0, v.start - 4):v.start]:
        r.decline("one count or another (either bound)")  # "two bridges or one mill": not both at once
        return
    r.bounds.append((Column(var, None, "count", True), op or "=", v.value))
    r.use((v.start, v.end), (it.start, it.end), *span)


def counted_range(r: Reading, k: int) -> bool:
    """Whether values ``k`` and ``k + 1`` are "between A and B" before a label: a count between two numbers
    ("the major that has between 2 and 30 students"), which no property's range reads."""
    if k + 1 >= len(r.values):
        return False
    v, hi = r.values[k], r.values[k + 1]
    return r.lemmas[v.start - 1:v.start] == ["between"] and hi.start == v.end + 1 and \
        r.lemmas[v.end:v.end + 1] == ["and"] and any(
            x.start == counted_at(r, hi) and "label" in x.kinds() for x in r.items)


def edge_bound(r: Reading, v: Value, it: Item, low_ops: list[str]) -> bool:
    """"courses with more than one prerequisite": a bound on how many edges of the relationship a word names
    (``it``, naming relationships alone) each asked node has; False when none of them touches the asked label."""
    label = r.query.nodes.get(r.target)
    rels = [t.owner for t in it.terms if any(label in pair for pair in r.view.rels.get(t.owner, []))]
    if len(rels) != 1:
        return False
    var = edge_of(r, rels[0])
    if var is None:
        return True
    it.term = Term("rel", rels[0])
    op, span = _bound_said(v, it, low_ops)
    if (op, v.value) not in ((">=", 1), (">", 0)):  # "at least one prerequisite": there is one, the join says it
        r.bounds.append((Column(var, None, "count", True), op or "=", v.value))
    r.use((v.start, v.end), (it.start, it.end), *span)
    return True


def values_asked(r: Reading) -> bool:
    """True when what is asked is only properties of the asked label other than its key ("the studios", "the
    headquarters"): the rows are the values they take, each a group of the label's nodes."""
    label = r.query.nodes.get(r.target)
    return bool(r.asked) and all(x.term is not None and x.term.kind == "prop" and x.term.owner == label and
                                 not x.term.on_rel and x.term.prop != r.view.key(label) for x in r.asked)


def _bound_said(v: Value, it: Item, low_ops: list[str]) -> tuple[str | None, list[tuple[int, int]]]:
    """The comparison bounding a count said around the number ``v`` before ``it`` ("at least 2", "2 or more"), and
    the spans of its words, the number's own gap to the noun among them."""
    op, span = comparator(low_ops, max(0, v.start - 4), v.start)
    trailing, tspan = trailing_comparator(low_ops, v.end)
    if trailing:
        op, span = trailing, span + [tspan]
    span.append((v.end, it.start))
    return op, span
