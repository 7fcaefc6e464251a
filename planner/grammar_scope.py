"""Comparisons with an overall figure ("above the average budget", :func:`overall`) and negations ("hotels that do
not have a Sauna", :func:`negation`), for the grammar reader."""

from __future__ import annotations

from kgqa.planner import cues
from kgqa.planner.attach import (
    comparator,
)
from kgqa.planner.grammar_measures import measured_props
from kgqa.planner.joins import holder_of, join_label
from kgqa.planner.query import Absent, Edge, Overall, Where
from kgqa.planner.reading import (
    Item,
    Reading,
    pick,
    pick_prop,
)
from kgqa.planner.schema_terms import Term


def overall(r: Reading) -> None:
    """"whose height is lower than the average", "budgets above the average budget": the property written before
    the comparison against its own average over every node of its label. An average of part of them ("the average
    salary of the instructors in Physics") is declined."""
    if r.target is None:
        return
    lem, low = r.lemmas, [t.lower_ for t in r.doc]
    for i, w in enumerate(lem):
        if w not in cues.OVERALL or i in r.used:
            continue
        before = [it for it in r.items if it.end <= i and "prop" in it.kinds()]
        after = next((x for x in r.items if x.start == i + 1 and "prop" in x.kinds()), None)
        if before and i - before[-1].end <= 6 and not any(x.start >= before[-1].end and x.end <= i for x in r.items):
            it = before[-1]
            op, spans = comparator(low, it.end, i)
        elif after is not None:  # "with greater than average budget"
            it = after
            op, spans = comparator(low, max([x.end for x in r.items if x.end <= i] + [i - 4, 0]), i)
        elif (it := _measured(r, i)) is not None:  # "students younger than average": their age
            op, spans = comparator(low, it.start, i)
        else:
            continue
        if op not in ("<", ">", "<=", ">="):
            continue
        term = pick(it, "prop", r.query.nodes[r.target]) or pick_prop(it, r)
        if term is None or term.on_rel or not r.view.is_number(term.owner, term.prop):
            continue
        end = i + 1
        nxt = next((x for x in r.items if x.start == end), None)
        if nxt is not None and any(t.kind == "prop" and (t.owner, t.prop) == (term.owner, term.prop) for t in nxt.terms):
            end = nxt.end  # "the average budget"
        if lem[end:end + 1] == ["of"]:
            k = end + 1
            while k < len(lem) and lem[k] in ("all", "the", "every"):
                k += 1
            whole = next((x for x in r.items if x.start == k and any(
                t.kind == "label" and t.owner == term.owner for t in x.terms)), None)
            if whole is None or (whole.end < len(lem) and lem[whole.end] in ("in", "of", "from", "with", "who", "that")):
                r.decline(f"the {w} of which {term.owner} nodes")
                return
            end = whole.end
        holder = holder_of(r, term)
        if holder is None:
            continue
        r.query.where.append(Where(holder, term.prop, op, Overall(cues.OVERALL[w], term.owner, term.prop)))
        first = min(it.start, i)
        r.values = [v for v in r.values if not first <= v.start < end]  # "more" is no value here
        r.where_ends.append((it.start, end))
        it.term = term
        r.use(*spans, (it.start, it.end), (i - (lem[i - 1:i] == ["overall"]), max(end, it.end)))


def _measured(r: Reading, i: int) -> Item | None:
    """The asked label's one number property that the word before "than" measures ("younger than average": age,
    "products that cost more than the average": price; :data:`cues.MEASURES`), as an item over that word."""
    label = r.query.nodes[r.target]
    for c in range(i - 2, max(-1, i - 5), -1):
        found = measured_props(r, label, r.lemmas[c]) if c not in r.used else []
        between = [w for w in r.lemmas[c + 1:i] if w != "the"]
        if len(found) == 1 and between in (["than"], ["more", "than"], ["less", "than"]):
            term = Term("prop", label, found[0])
            return Item(c, c + 1, {term}, term)
    return None


def negation(r: Reading) -> None:
    """"hotels that do not have a Sauna", "instructors who did not teach", "courses without prerequisites":
    the label or relationship named after a negation (before any value) must have no such node or edge from
    the asked one: a NOT EXISTS of the path to it, the conditions on that node inside it."""
    if r.target is None:
        return
    label = r.query.nodes[r.target]
    for i, t in enumerate(r.doc):
        if t.lower_ not in cues.NEGATIONS:
            continue
        value_at = next((v.start for v in r.values if v.start > i and v.kind != "limit"), len(r.doc))
        found = [x for x in r.items if i < x.start <= i + 5 and x.start < value_at and x.kinds() & {"label", "rel"}]
        if found and r.negated:
            r.decline("two negations")
            return
        # "coaches who do not take part in any event": the verb may name another label's relationship;
        # then the label after it says what is not there
        for it in found:
            term = _negate(r, it, label)
            if term is None:
                continue
            r.use((i, i + 1), (it.start, it.end))
            if t.lower_ in ("not", "n't", "never"):
                r.use(*[(k, k + 1) for k in range(max(0, i - 2), i) if r.doc[k].lemma_ in ("do", "be", "have")])
            if term.kind == "label":
                join_label(r, term.owner)
            break


def _negate(r: Reading, it: Item, label: str) -> Term | None:
    """Records the label or relationship ``it`` names as not there from the asked node, returning its term;
    None when it names neither as such (a relationship that does not touch the asked label)."""
    term = pick(it, "label", None)
    if term is not None and term.owner != label:
        r.negated[term.owner] = Absent()
        it.term = term
        return term
    if it.kinds() != {"rel"}:
        return None
    rels = [t.owner for t in it.terms if any(label in pair for pair in r.view.rels.get(t.owner, []))]
    if len(rels) != 1:
        return None
    a = Absent()
    pair = next(p for p in r.view.rels[rels[0]] if label in p)
    far = r.var_for(pair[1] if pair[0] == label else pair[0], f"not:{rels[0]}")
    a.edges.append(Edge(f"r{len(r.query.edges) + 9}", rels[0], *((r.target, far) if pair[0] == label
                                                                 else (far, r.target))))
    r.negated[rels[0]] = a
    r.absent_of[far] = a
    a.own.add(far)
    r.query.absent.append(a)
    it.term = Term("rel", rels[0])
    far_label = r.query.nodes[far]
    obj = next((x for x in r.items if it.end <= x.start <= it.end + 3 and pick(x, "label", None) is not None
                and pick(x, "label", None).owner == far_label), None)
    if obj is not None:  # "not enrolled in any course": the course is the one not there, not another joined
        obj.term = pick(obj, "label", None)
        r.use((obj.start, obj.end))
    return it.term
