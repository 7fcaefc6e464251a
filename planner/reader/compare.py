"""What the words around a value of a question say, for the grammar reader's conditions
(:mod:`~kgqa.planner.reader.conditions`): the label named before it (:func:`label_before`, :func:`owner_before`,
:func:`governor`), the property left unnamed (a label's key, an age, a season's year, a text searched in), whether
a property holds numbers or refers to a node, and the aggregate, bound or range said with the value."""

from __future__ import annotations

from kgqa.planner.reader import cues
from kgqa.planner.reader.bounds import values_asked
from kgqa.planner.reader.columns import ROWID, naming_prop
from kgqa.planner.reader.measures import measured_props
from kgqa.planner.reader.reading import Item, Reading, Value, pick, pick_prop
from kgqa.planner.reader.schema_terms import Term
from kgqa.planner.reader.times import year_prop
from kgqa.text import name_words


def age_said(r: Reading, v: Value, op_span: list[tuple[int, int]]) -> Term | None:
    """"people who are under 40", "students over 20": a bare bound said of a label (after "be" or "aged") is its
    one property that says how old (:func:`measured_props` of "old"): of the label named just before, else of the
    asked one; else None."""
    start = op_span[-1][0]  # the comparison's own words (those before it are quiet ones)
    if r.lemmas[start:v.start] not in (["under"], ["over"], ["above"], ["below"]) or \
            r.lemmas[max(0, start - 1)] not in ("be", "aged", "and") or v.end < len(r.doc) and r.doc[v.end].pos_ == "NOUN":
        return None
    for label in dict.fromkeys(x for x in (label_before(r, start, 5), r.query.nodes[r.target]) if x):
        found = measured_props(r, label, "old")
        if len(found) == 1:
            return Term("prop", label, found[0])
    return None


def aggregate_before(r: Reading, it: Item | None, term: Term) -> str | None:
    """The aggregate written just before a numeric property ("whose average salary", "a total amount"), when the
    property is not the asked node's own (one value each: nothing to aggregate) or the rows are values the asked
    nodes' properties take ("the studios whose average gross"), else None."""
    if it is None or it.start == 0 or not is_number(r, term):
        return None
    k = it.start - 1
    if any(x.end == it.start and pick(x, "label", None) is not None and pick(x, "label", None).owner == term.owner
           for x in r.items):  # "the average course credits"
        k = next(x.start for x in r.items if x.end == it.start) - 1
    word = r.lemmas[k] if k >= 0 else ""
    if word not in cues.AGGREGATES or word == "overall" or term.owner == r.query.nodes.get(r.target) and (
            not values_asked(r) or any(x.term == term for x in r.asked)):
        return None  # "studios whose average gross ...": per value asked, the aggregate over its nodes
    return cues.AGGREGATES[word]


def total_within(r: Reading, it: Item | None, term: Term) -> str | None:
    """The aggregate word among a property's own words that its name does not hold ("a total value": a word an
    annotations file gives one value), else None."""
    if it is None:
        return None
    return next((r.lemmas[k] for k in range(it.start, it.end) if r.lemmas[k] in cues.AGGREGATES and
                 r.lemmas[k] not in name_words(term.prop)), None)


def least_or_most(r: Reading, it: Item | None, v: Value) -> tuple[str, list[tuple[int, int]]] | None:
    """"a minimum stock of 50", "a maximum weight of 3": the bound on each value (">=", "<="), with the words that
    say it; not "whose minimum stock is 50" (the least of them). None where not said so."""
    if it is None:
        return None
    lem = r.lemmas
    at = next((j for j in range(it.start - 1, max(-1, it.start - 3), -1) if lem[j] in cues.AGGREGATES), None)
    if at is None or cues.AGGREGATES[lem[at]] not in ("min", "max") or lem[at - 1:at] not in (["a"], ["an"]) or \
            lem[v.start - 1:v.start] != ["of"]:
        return None
    return (">=" if cues.AGGREGATES[lem[at]] == "min" else "<="), [(at - 1, at + 1), (v.start - 1, v.start)]


def owner_before(r: Reading, it: Item) -> str | None:
    """The label named just before a property item, with only "with"/"whose"/"the"/"of" between, that owns the
    property ("the customer with the first name Ray": the customer's), else None."""
    k = it.start
    while k > 0 and r.lemmas[k - 1] in ("with", "whose", "the", "a", "an", "have", "has", "of", "'s", "its", "their"):
        k -= 1
    lab = next((pick(x, "label", None) for x in r.items if x.end == k and x is not it), None)
    if lab is not None and k < it.start and any(t.kind == "prop" and t.owner == lab.owner for t in it.terms):
        return lab.owner
    return None


def governor(r: Reading, it: Item) -> str | None:
    """The label of the noun a property word modifies in the parse ("the customer with id 10": customer), when
    that noun names a label that owns the property."""
    tok = r.doc[it.end - 1]
    for _ in range(3):
        if tok.head is tok:
            return None
        tok = tok.head
        owner = next((x for x in r.items if x.start <= tok.i < x.end and "label" in x.kinds()), None)
        if owner is not None:
            lab = pick(owner, "label", None)
            if lab is not None and any(t.kind == "prop" and t.owner == lab.owner for t in it.terms):
                return lab.owner
            return None
    return None


def searched_in(r: Reading, v: Value) -> tuple[Item, Term] | None:
    """A quoted text followed by "in (part of) their/its/the <property>": that property's item and term, else None."""
    lem = r.lemmas
    if lem[v.end:v.end + 1] != ["in"]:
        return None
    k = v.end + 1
    while k < len(lem) and lem[k] in ("part", "of", "the", "their", "its", "his", "her", "a"):
        k += 1
    it = next((x for x in r.items if x.start == k and "prop" in x.kinds()), None)
    owner = next((x for x in r.items if x.start == k and x.kinds() <= {"label", "rel"}), None) if it is None else None
    nxt = next((x for x in r.items if owner is not None and x.start == owner.end and "prop" in x.kinds()), None)
    holder = nxt is not None and bool({t.owner for t in owner.terms} & {t.owner for t in nxt.terms if t.kind == "prop"})
    it = nxt if holder else it  # "'compelling' in their review summary": the summary of a review
    label = r.query.nodes[r.target]
    term = pick(it, "prop", label) if it is not None else None
    if term is None and owner is None and (it is None or it.end - it.start == 1) and lem[k:k + 1] == ["name"] \
            and (own := naming_prop(r, label)) is not None:
        term = Term("prop", label, own)  # "authors with Lee in their name": what names them (knownName)
        it = Item(k, k + 1, {term}, term)
    term = term or (pick_prop(it, r) if it is not None else None)
    if term is None or r.view.prop_type(term.owner, term.prop) != "STRING":
        return None
    if holder:
        r.use((owner.start, owner.end))  # the word naming the property's holder
    return it, term


def label_before(r: Reading, at: int, within: int) -> str | None:
    """The label named closest before token ``at``, ending at most ``within`` tokens before it, else None."""
    named = next((x for x in reversed(r.items) if x.end <= at and at - x.end <= within and
                  pick(x, "label", None) is not None), None)
    return pick(named, "label", None).owner if named is not None else None


def range_opener(before: list[str], ordered: bool) -> tuple[int, list[list[str]]] | None:
    """The words that open a range ending just before a value (how many, and the words that may close it): "between"
    (and, to), "the range of" (and, to), "from" a number or date (to), or none before a number or date (to); else
    None."""
    if before[-1:] == ["between"]:
        return 1, [["and"], ["to"]]  # "between 2 to 4 staff"
    if before[-2:] == ["range", "of"]:
        return 2, [["and"], ["to"]]
    if before[-1:] == ["from"] and ordered:
        return 1, [["to"]]
    if ordered:
        return 0, [["to"]]  # "students in age 20 to 25", "rooms which can sit 50 to 100 students"
    return None


def refers(r: Reading, term: Term) -> bool:
    """Whether a property's name says it refers to a node (a key or code, or another label's name: host_city),
    not a quantity."""
    words = name_words(term.prop)
    labels = {w for lb in r.view.nodes if lb != term.owner for w in name_words(lb)}
    return bool(words) and (words[-1] in ("id", "code", "key") or words[-1] in labels)


def is_number(r: Reading, term: Term) -> bool:
    """Whether a property term holds numbers (of a node or a relationship)."""
    typ = r.view.rel_props.get(term.owner, {}).get(term.prop) if term.on_rel else r.view.prop_type(term.owner, term.prop)
    return bool(typ) and typ.startswith(("INT", "UINT", "DOUBLE", "FLOAT", "DECIMAL", "SERIAL"))


def key_named(r: Reading, v: Value) -> Term | None:
    """The numeric key of the label written just before a number ("advises student 1004"), else None."""
    named = next((x for x in r.items if x.end == v.start and "label" in x.kinds()), None)
    term = pick(named, "label", None) if named is not None else None
    if term is None:
        return None
    key = r.view.key(term.owner)
    if not key or key == ROWID or not (r.view.is_number(term.owner, key) or r.view.is_numeric_text(term.owner, key)):
        return None
    named.term = term
    r.use((named.start, named.end))
    return Term("prop", term.owner, key)


def season_before(r: Reading, v: Value) -> Term | None:
    """The one year property of the label holding the value said just before a year ("the Fall of 2010",
    "Spring 2009"), else None."""
    prev = next((u for u in r.values if u.kind == "linked" and u.end <= v.start and
                 all(w in ("of", ",") for w in r.lemmas[u.end:v.start])), None)
    if prev is None:
        return None
    if (own := year_prop(r, prev.label)) is not None:
        return own
    owners = {lb for lb, _ in prev.options}
    found = [t for lb in owners if (t := year_prop(r, lb)) is not None]
    return found[0] if len(found) == 1 else None


def verb_of_time(r: Reading, it: Item) -> Term | None:
    """"orders required by a date earlier than ...": a bare time noun (:data:`cues.TIME_HEADS`) said after a verb
    naming a property that ends in it (requiredDate) is that property; the verb read. Else None."""
    head = r.lemmas[it.start]
    if it.end - it.start != 1 or head not in cues.TIME_HEADS:
        return None
    for x in r.items:
        if it.start - 3 <= x.end <= it.start and r.doc[x.start].pos_ == "VERB" and x.end - x.start == 1:
            said = [t for t in x.terms if t.kind == "prop" and name_words(t.prop)[-1:] == [head] and
                    any(t.owner == u.owner for u in it.terms if u.kind == "prop")]
            if len(said) == 1:
                r.use((x.start, x.end))
                return said[0]
    return None


def verb_measure(r: Reading, v: Value) -> Term | None:
    """"Who rated a movie above 80?": a number compared with no property named, under a verb that names one number
    property (the rating), is that property's; the verb read. Else None."""
    prep = r.doc[v.start].head  # the preposition the number is the object of ("above 80")
    verb = prep.head if prep.dep_ == "prep" and prep.head.pos_ == "VERB" and prep.head.dep_ != "acl" else None
    # "rated a movie above 80"; not "games played for students under 20", a participle's
    it = next((x for x in r.items if verb is not None and x.start <= verb.i < x.end), None)
    held = [t for t in it.terms if t.kind == "prop" and is_number(r, t)] if it is not None else []
    if len(held) != 1 or len(it.terms) != 1:
        return None
    r.use((it.start, it.end))
    it.term = held[0]
    r.asked = [x for x in r.asked if x is not it]  # the verb compares, it asks for nothing
    return held[0]

