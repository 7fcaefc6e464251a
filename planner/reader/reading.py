"""One question being read by the grammar reader: the :class:`Reading` its components fill (the parse, the
:class:`Item` runs of words that name schema elements, the :class:`Value` s it states, the query being built,
the choices taken and left open), and choosing among the terms a word names (:func:`pick`, :func:`pick_prop`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from kgqa.planner.frame import Mention
from kgqa.planner.query import Absent, Column, Query
from kgqa.planner.reader import cues
from kgqa.planner.reader.schema_terms import SchemaTerms, Term
from kgqa.planner.schema_view import SchemaView
from kgqa.text import name_words

MAX_READINGS = 8  # readings tried for one question when the schema leaves choices open


@dataclass
class Item:
    """A run of tokens ``[start, end)`` that names schema elements (``terms``); ``term`` once chosen."""

    start: int
    end: int
    terms: set[Term]
    term: Term | None = None

    def kinds(self) -> set[str]:
        return {t.kind for t in self.terms}


@dataclass
class Value:
    """A value the question states at tokens ``[start, end)``: a number, a quoted text, or a graph value linked
    to ``label.prop``."""

    start: int
    end: int
    value: Any
    kind: str  # "number" | "text" | "linked" | "limit" | "date" (ISO date text) | "month" (its number)
    label: str = ""
    prop: str = ""
    options: tuple[tuple[str, str], ...] = ()  # every (label, prop) holding a linked value
    noun: bool = False  # a linked value written as a noun for the nodes that hold it ("engineers", "females")


@dataclass
class Reading:
    """One question being read: the parse, what its words name, and the query being filled."""

    view: SchemaView
    terms: SchemaTerms
    doc: Any
    mentions: list[Mention]
    items: list[Item] = field(default_factory=list)
    values: list[Value] = field(default_factory=list)
    used: set[int] = field(default_factory=set)  # token indices explained
    query: Query = field(default_factory=Query)
    target: str | None = None  # the variable asked about
    asked: list[Item] = field(default_factory=list)  # property items asked to be shown
    counted: bool = False
    vars: dict[str, str] = field(default_factory=dict)  # label or relationship-end key -> variable
    rel_var: dict[str, str] = field(default_factory=dict)  # relationship -> edge variable
    rels_named: list[str] = field(default_factory=list)
    shared: list[str] = field(default_factory=list)  # nodes "the same" said two relationships reach: shown too
    declined: list[str] = field(default_factory=list)
    show_target: bool = False  # a later sentence names the asked label among what to show
    name_asked: bool = False  # "the company name": what names the asked label is asked for
    all_props: bool = False  # "all the information about": every property of the asked node
    shown: list[str] = field(default_factory=list)  # variables of other labels shown beside the asked one
    flags: list[tuple[Item, Term]] = field(default_factory=list)  # boolean properties said as adjectives
    where_ends: list[tuple[int, int]] = field(default_factory=list)  # token span of each main condition
    negated: dict[str, Absent] = field(default_factory=dict)  # a label (or relationship) said not to be there
    absent_of: dict[str, Absent] = field(default_factory=dict)  # variable -> the absent pattern it belongs to
    bounds: list[tuple[Column, str, Any]] = field(default_factory=list)  # bounds on counts per asked node
    rels_hinted: list[str] = field(default_factory=list)  # relationships a word shares a stem with ("recipient")
    hints: dict[str, list[int]] = field(default_factory=dict)  # such a relationship -> the tokens that hint it
    unsaid: dict[int, str] = field(default_factory=dict)  # a value's start -> the property it was put on unnamed
    denied: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # a value's start -> the negated verb's
    # words that deny it ("pupils who do not live in the town with code OSL": town_code <> 'OSL')
    paired: list[tuple[Item, Item]] = field(default_factory=list)  # items shown together or not at all ("full name")
    choices: dict[Any, Term] = field(default_factory=dict)  # item start (or "path:<label>") -> the term chosen
    open: list[tuple[Any, list[Term]]] = field(default_factory=list)  # choices left open, in the order met
    decades: set[int] = field(default_factory=set)  # number values written as a decade ("the 1920s"): ten years
    settled: bool = False  # one component read the question whole: the others add nothing (coverage still checks)

    def choose(self, key: Any, terms: list[Term], what: str) -> Term | None:
        """Returns this reading's choice among ``terms`` for ``key`` (an item's start, or a path's name);
        without one, records the open choice and declines (the reader then tries each)."""
        if key in self.choices and self.choices[key] in terms:
            return self.choices[key]
        self.open.append((key, terms))
        self.decline(f"which of {' or '.join(sorted({term_name(t) for t in terms}))} {what}")
        return None

    @cached_property
    def lemmas(self) -> list[str]:
        return [t.lemma_.lower() for t in self.doc]

    def use(self, *spans: tuple[int, int]) -> None:
        for a, b in spans:
            self.used.update(range(a, b))

    def decline(self, why: str) -> None:
        if why not in self.declined:
            self.declined.append(why)

    def var_for(self, label: str, key: str | None = None) -> str:
        """Returns the node variable of ``label`` (or of ``key``, a second node of one label), made once."""
        key = key or label
        if key not in self.vars:
            self.vars[key] = f"n{len(self.vars)}"
            self.query.nodes[self.vars[key]] = label
        return self.vars[key]


def parse_number(text: str) -> int | float | None:
    from kgqa.planner.lexicon import NUMBER_WORDS

    t = text.replace(",", "").lstrip("$").rstrip("%").lower()
    if t in NUMBER_WORDS:
        return NUMBER_WORDS[t]
    try:
        return int(t)
    except ValueError:
        try:
            return float(t)
        except ValueError:
            return None


def typed_value(typ: str | None, value: Any) -> Any:
    """Returns a value as the property's type holds it: numbers of a text property as text ("id 3" of a
    STRING id), numeric text of a number property as a number."""
    if typ == "STRING" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if typ and typ.startswith(("INT", "DOUBLE", "FLOAT", "DECIMAL")) and isinstance(value, str):
        n = parse_number(value)
        return n if n is not None else value
    return value


def pick(it: Item, kind: str, label: str | None) -> Term | None:
    """Returns the item's term of ``kind`` (owned by ``label`` when several are), else None."""
    terms = [t for t in it.terms if t.kind == kind]
    if label is not None and len(terms) > 1:
        terms = [t for t in terms if t.owner == label] or terms
    exact = [t for t in terms if t.exact]
    terms = exact or terms
    if len(terms) == 1:
        return terms[0]
    if kind == "label" and terms:
        return sorted(terms, key=lambda t: t.owner)[0] if len({t.owner for t in terms}) == 1 else None
    return None


def pick_prop(it: Item, r: Reading) -> Term | None:
    """A property term of an item: the one owned by a label or relationship already in the query, or named by
    the question (an exact relationship type), or the only one; several: an open choice of the reading."""
    inq = set(r.query.nodes.values()) | {e.rel for e in r.query.edges}
    terms = [t for t in it.terms if t.kind == "prop" and t.owner in inq]
    if len(terms) == 1:
        return terms[0]
    exact_rels = {t.owner for x in r.items for t in x.terms if t.kind == "rel" and t.exact}
    named = [t for t in it.terms if t.kind == "prop" and t.on_rel and t.owner in exact_rels]
    if len(named) == 1:
        return named[0]
    props = sorted((t for t in it.terms if t.kind == "prop"), key=lambda t: (len(name_words(t.prop)), t.prop))
    if len({t.owner for t in props}) == 1 and (len(props) == 1 or len(name_words(props[0].prop)) <
                                               len(name_words(props[1].prop))):
        return props[0]  # "the banks": bank, not bank_id: the property of no more words than said
    said = _unit_said(r, props)
    if said is not None:
        return said
    if props:
        return r.choose(it.start, props, f"'{r.doc[it.start:it.end].text}' is")
    return None


def units_of(words: list[str]) -> set[str]:
    """Returns the units that ``words`` (lower case) name, each in its forms and its one name ("USD": dollar)."""
    from kgqa.planner.reader.schema_terms import UNIT_WORDS
    from kgqa.planner.reader.word_forms import forms

    found = {f for w in words for f in forms(w)} & UNIT_WORDS
    return found | {cues.UNIT_NAMES[u] for u in found | set(words) if u in cues.UNIT_NAMES}


def unit_pick(r: Reading, it: Item) -> Term | None:
    """Returns the property term of ``it`` that the unit the question says picks among its owner's properties
    (:func:`_unit_said`), else None."""
    return _unit_said(r, [t for t in it.terms if t.kind == "prop"])


def _unit_said(r: Reading, props: list[Term]) -> Term | None:
    """The one property among ``props`` (of one owner) whose name holds a unit the question says ("the fare (in
    Euro)": fare_in_euros beside fare_in_dollars; "the feet height": height_feet), else None."""
    if len(props) < 2 or len({t.owner for t in props}) != 1:
        return None
    said = units_of([t.lower_ for t in r.doc])
    units = [(t, units_of(name_words(t.prop))) for t in props]
    if not said or not all(u for _, u in units):
        return None
    hits = [t for t, u in units if u & said]
    return hits[0] if len(hits) == 1 else None


def term_name(t: Term) -> str:
    return f"{t.owner}.{t.prop}" if t.prop else t.owner


def item_at(r: Reading, i: int) -> Item | None:
    return next((it for it in r.items if it.start <= i < it.end or it.start == i + 1), None)


def is_timed(prop: str) -> bool:
    from kgqa.planner.lexicon import is_time_like

    return is_time_like(prop) or "year" in prop.lower()


def of_a_life(prop: str) -> bool:
    """Whether a time property is a birth's or a death's (``birthYear``, ``date_of_death``)."""
    from kgqa.planner.reader import cues

    return bool({w.lower() for w in name_words(prop)} & (cues.BIRTH_WORDS | cues.DEATH_WORDS | {"dob"}))


def aggregates_said(r: Reading, i: int) -> list[tuple[int, str]]:
    """Returns (position, function) for the aggregates said right before the word at ``i``, in order, joined by
    commas and "and" ("the minimum, average and maximum"); a superlative ("the highest and lowest") counts only
    beside another."""
    lem, doc = r.lemmas, r.doc
    out: list[tuple[int, str]] = []
    joined = True  # a comma or "and" since the last one
    j = i - 1
    while j >= 0 and (lem[j] in cues.AGGREGATES or lem[j] in (",", "and", "the") or
                      doc[j].text.lower() in cues.SUPERLATIVES and doc[j].tag_ in ("JJS", "RBS")):
        if lem[j] in (",", "and"):
            joined = True
        elif lem[j] != "the":
            if not joined and (lem[j] not in cues.AGGREGATES or lem[out[0][0]] not in cues.AGGREGATES):
                break  # "the average minimum" is two; "the highest average" one
            fn = cues.AGGREGATES.get(lem[j]) or ("max" if cues.SUPERLATIVES[doc[j].text.lower()] else "min")
            out.insert(0, (j, fn))
            joined = False
        j -= 1
    if len(out) == 1 and lem[out[0][0]] not in cues.AGGREGATES:
        return []
    return out


def aged(r: Reading, i: int, term: Term | None) -> bool | None:
    """Whether the word before ``i`` is "oldest" (True) or "youngest" (False) said of ``term``, an age property
    itself ("the oldest age": its highest value); None when it is not."""
    if i == 0 or term is None or term.kind != "prop" or (term.prop or "").lower() not in cues.AGE_WORDS:
        return None
    return cues.AGE_SUPERLATIVES.get(r.doc[i - 1].lower_) if r.doc[i - 1].tag_ == "JJS" else None


def compound_of_label(r: Reading, it: Item) -> bool:
    """Whether ``it`` is one noun naming a label that modifies the noun of another label ("Nobel laureates", "product
    categories"): the head's nodes are asked."""
    t = r.doc[it.end - 1]
    own = {z.owner for z in it.terms}
    return it.end - it.start == 1 and t.dep_ == "compound" and t.head.i >= it.end and any(
        x.start <= t.head.i < x.end and any(y.kind == "label" and y.owner not in own and
                                            t.lemma_.lower().rstrip("s") not in
                                            {w.rstrip("s") for w in name_words(y.owner)} for y in x.terms)
        for x in r.items if x is not it)  # not "course" of "course authors" (Course_Authors): a word of its name
