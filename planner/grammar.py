"""Reading a question by its grammar against the graph's own schema, into a :class:`~kgqa.planner.query.Query`.

The question is parsed (:mod:`kgqa.planner.parse`); runs of its words are mapped onto labels, node and
relationship properties and relationship types by their forms (:mod:`kgqa.planner.schema_terms`); values
(linked graph values, quoted literals, numbers) are attached to the property written before them, with the
comparison written between (:mod:`kgqa.planner.cues`). Then :data:`COMPONENTS` run in order over one
:class:`Reading`, each filling part of the query: what is asked (:func:`focus`), the conditions
(:func:`conditions`), the pattern that joins every label used (:func:`pattern`), and counts, aggregates,
groups, superlatives and orders (:func:`shape`). :func:`coverage` last: a content word nothing explained
makes the reading decline, listing the words, and so does a choice the schema leaves open (two labels
that own a property, two paths between labels): nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kgqa.planner import cues
from kgqa.planner.frame import Mention
from kgqa.planner.parse import parse, quoted_spans, quoted_value
from kgqa.planner.query import Absent, Column, Edge, Query, Where
from kgqa.planner.schema_terms import SchemaTerms, Term
from kgqa.planner.schema_view import SchemaView
from kgqa.text import name_words


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
    kind: str  # "number" | "text" | "linked" | "limit"
    label: str = ""
    prop: str = ""
    options: tuple[tuple[str, str], ...] = ()  # every (label, prop) holding a linked value


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
    declined: list[str] = field(default_factory=list)
    all_props: bool = False  # "all the information about": every property of the asked node
    where_ends: list[tuple[int, int]] = field(default_factory=list)  # token span of each main condition
    negated: dict[str, Absent] = field(default_factory=dict)  # a label (or relationship) said not to be there
    absent_of: dict[str, Absent] = field(default_factory=dict)  # variable -> the absent pattern it belongs to
    bounds: list[tuple[Column, str, Any]] = field(default_factory=list)  # bounds on counts per asked node
    rels_hinted: list[str] = field(default_factory=list)  # relationships a word shares a stem with ("beneficiary")
    choices: dict[Any, Term] = field(default_factory=dict)  # item start (or "path:<label>") -> the term chosen
    open: list[tuple[Any, list[Term]]] = field(default_factory=list)  # choices left open, in the order met

    def choose(self, key: Any, terms: list[Term], what: str) -> Term | None:
        """Returns this reading's choice among ``terms`` for ``key`` (an item's start, or a path's name);
        without one, records the open choice and declines (the reader then tries each)."""
        if key in self.choices and self.choices[key] in terms:
            return self.choices[key]
        self.open.append((key, terms))
        self.decline(f"which of {' or '.join(sorted({_name(t) for t in terms}))} {what}")
        return None

    @property
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


# -- reading the words -----------------------------------------------------------------------------
def values(r: Reading) -> None:
    """Linked values and quoted literals (from the lexicon's mentions), then numbers, become :class:`Value`s."""
    doc = r.doc
    for m in r.mentions:
        span = doc.char_span(m.start, m.end, alignment_mode="expand")
        if span is None or (not m.label and len(span) > 1):
            continue  # a quoted schema name ('book 45'), read as words
        kind = "linked" if m.label else "text"
        options = tuple(dict.fromkeys([(m.label, m.prop)] + [(a[0], a[1]) for a in m.alternatives])) if m.label else ()
        r.values.append(Value(span.start, span.end, m.value, kind, m.label, m.prop, options))
    linked = sorted((v for v in r.values if v.kind == "linked"), key=lambda v: v.start)
    for a, b in zip(linked, linked[1:]):
        if b.start == a.end:
            common = [o for o in a.options if o[0] in {lb for lb, _ in b.options}]
            if common:
                a.label, a.prop = common[0]
                b.label, b.prop = next(o for o in b.options if o[0] == a.label)
                a.options = (common[0],)
                b.options = ((b.label, b.prop),)
    taken = {i for v in r.values for i in range(v.start, v.end)}
    for t in doc:
        if t.i in taken:
            continue
        q = quoted_value(t)
        if q is not None:
            r.values.append(Value(t.i, t.i + 1, q, "text"))
        elif t.like_num and t.pos_ in ("NUM", "PROPN", "NOUN", "ADJ"):
            number = _number(t.text)
            if number is not None and not (t.lower_ == "one" and t.i + 1 < len(doc) and doc[t.i + 1].lower_ in ("of", "or")):
                r.values.append(Value(t.i, t.i + 1, number, "number"))
    r.values.sort(key=lambda v: v.start)
    low = [t.lower_ for t in doc]
    for v in r.values:
        # "the top 5", "the 3 oldest", "limit to 10": how many rows, not a condition
        if v.kind == "number" and isinstance(v.value, int) and (
                low[max(0, v.start - 1):v.start] and low[v.start - 1] in cues.TOP_WORDS | {"limit", "last"}
                or low[max(0, v.start - 2):v.start] == ["limit", "to"]
                or (v.end < len(doc) and doc[v.end].tag_ in ("JJS", "RBS"))):
            v.kind = "limit"
    ranked = any(t.tag_ in ("JJS", "RBS") or t.lower_ in cues.TOP_WORDS for t in doc)
    for v in r.values:
        nxt = doc[v.end] if v.end < len(doc) else None
        if ranked and v.kind == "number" and isinstance(v.value, int) and nxt is not None and nxt.tag_ == "NNS" \
                and v.start > 0 and doc[v.start - 1].pos_ in ("DET", "VERB", "AUX", "PRON", "PUNCT") \
                or (v.kind == "number" and v.start == 1 and doc[0].lower_ in ("list", "show", "find", "name", "give")):
            v.kind = "limit"  # "Which three countries have the most ...", "List 5 filings ..."

def schema(r: Reading) -> None:
    """Runs of words outside the values that name labels, properties or relationship types."""
    blocked = {i for v in r.values for i in range(v.start, v.end)}
    words = ["" if t.i in blocked or t.is_punct else t.lower_ for t in r.doc]
    quiet = cues.FILLER - cues.NAMING_FILLER
    r.items = [Item(a, b, terms) for a, b, terms in r.terms.match(words)
               if not all(w in quiet for w in words[a:b]) or any(t.exact for t in terms)]
    for it in r.items:
        rels = {t.owner for t in it.terms if t.kind == "rel"}
        if rels and it.kinds() == {"rel"}:
            r.rels_named.extend(sorted(rels))
    # weak evidence for a path: a word that shares its first five letters with a relationship's name
    stems = {w[:5] for w in words if len(w) >= 5}
    r.rels_hinted = [rel for rel in r.view.rels if any(len(w) >= 5 and w[:5] in stems for w in name_words(rel))]


# -- what is asked ---------------------------------------------------------------------------------
def focus(r: Reading) -> None:
    """The label asked about and the properties asked for: the first label named, or the label the first
    named properties belong to ("the names of the heads"); "who" asks for the graph's person label."""
    lem = r.lemmas
    labels = [it for it in r.items if "label" in it.kinds()]
    label = None
    if labels:
        first = labels[0]
        term = _pick(first, "label", None) or r.choose(
            first.start, sorted((t for t in first.terms if t.kind == "label"), key=_name), "is asked about")
        if term is None:
            return
        label = term.owner
        first.term = term
        r.use((first.start, first.end))
    elif lem and lem[0] == "who" and r.view.spec.who:
        label = r.view.spec.who
        r.use((0, 1))
    else:
        owners = _common_owners([it for it in r.items if "prop" in it.kinds()], r.view)
        if len(owners) == 1:
            label = owners[0]
        elif owners:
            r.decline(f"which of {', '.join(owners)} is asked about")
            return
    if label is None:
        rels = {t.owner for it in r.items for t in it.terms if t.kind in ("rel", "prop") and t.on_rel or t.kind == "rel"}
        ends = {src for rel in rels for src, _ in r.view.rels.get(rel, [])}
        if len(ends) == 1:
            label = ends.pop()
    if label is None:
        r.decline("what is asked about")
        return
    r.target = r.var_for(label)
    info = [i for i, w in enumerate(lem) if w in ("information", "detail", "everything", "info", "attribute")]
    if info and (lem[info[0] - 1:info[0]] in (["all"], ["the"]) or lem[info[0] - 2:info[0] - 1] == ["all"]):
        r.all_props = True
        r.use((info[0], info[0] + 1))
    # the properties asked for: the run of property words before the first label or condition word
    first_label = labels[0].start if labels else len(r.doc)
    for it in r.items:
        if it.start >= first_label and not (labels and it.start > labels[0].end + 1):
            break
        if it.start >= first_label:
            break
        term = _pick(it, "prop", label)
        if term is None or _value_after(r, it) or _bound_prop(r, it):
            continue
        it.term = term
        r.asked.append(it)


# -- negation --------------------------------------------------------------------------------------
def negation(r: Reading) -> None:
    """"dorms that do not have a TV Lounge", "instructors who did not teach", "courses without prerequisites":
    the label or relationship named after a negation (before any value) must have no such node or edge from
    the asked one: a NOT EXISTS of the path to it, the conditions on that node inside it."""
    if r.target is None:
        return
    label = r.query.nodes[r.target]
    for i, t in enumerate(r.doc):
        if t.lower_ not in cues.NEGATIONS:
            continue
        value_at = next((v.start for v in r.values if v.start > i and v.kind != "limit"), len(r.doc))
        it = next((x for x in r.items if i < x.start <= i + 5 and x.start < value_at
                   and x.kinds() & {"label", "rel"}), None)
        if it is None:
            continue
        if r.negated:
            r.decline("two negations")
            return
        term = _pick(it, "label", None)
        if term is not None and term.owner != label:
            r.negated[term.owner] = Absent()
            it.term = term
        elif it.kinds() == {"rel"}:
            rels = [t.owner for t in it.terms if any(label in pair for pair in r.view.rels.get(t.owner, []))]
            if len(rels) != 1:
                continue
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
        else:
            continue
        r.use((i, i + 1), (it.start, it.end))
        if t.lower_ in ("not", "n't", "never"):
            r.use(*[(k, k + 1) for k in range(max(0, i - 2), i) if r.doc[k].lemma_ in ("do", "be", "have")])
        if term is not None and term.owner in r.negated:
            _join(r, term.owner)


# -- conditions ------------------------------------------------------------------------------------
def conditions(r: Reading) -> None:
    """Each value constrains the property written before it (with the comparison between), else the property
    it was linked to; "between A and B" is a range; a quoted text after "contains/starts/ends" a substring."""
    if r.target is None:
        return
    lem = r.lemmas
    done: set[int] = set()
    ors: dict[tuple[str, str], tuple[int, int]] = {}  # (holder, prop) -> (its equality's index, value end)
    for k, v in enumerate(r.values):
        if k in done or v.kind == "limit":
            continue
        gap = v.end
        while gap < len(lem) and (lem[gap] in ("or", "more", "less", "fewer", "different", "distinct", "unique")):
            gap += 1
        counted = next((it for it in r.items if it.start == gap and "label" in it.kinds()), None)
        if v.kind == "number" and counted is not None and isinstance(v.value, int):
            _count_bound(r, v, counted, low_ops=[t.lower_ for t in r.doc])
            continue
        prop_item = _prop_before(r, v)
        low = [t.lower_ if t.i not in r.used else "" for t in r.doc]  # words read already compare nothing
        op, op_span = _comparator(low, prop_item.end if prop_item else max(0, v.start - 4), v.start)
        trailing, tspan = _trailing(low, v.end)
        if trailing:
            op, op_span = trailing, [tspan]
        if op == "BETWEEN_START":
            op = "BETWEEN"
        string_op = _string_op(lem, prop_item.end if prop_item else max(0, v.start - 3), v.start)
        aged = [t.lower_ for t in r.doc[max(0, v.start - 3):v.start] if t.lower_ in ("older", "younger")]
        if aged and v.kind == "number":
            ages = [p for p in r.view.nodes.get(r.query.nodes[r.target], {}) if p.lower() in cues.AGE_WORDS]
            if len(ages) != 1:
                r.decline(f"{aged[0]} by what")
                continue
            prop_item = None
            term = Term("prop", r.query.nodes[r.target], ages[0])
        else:
            term = None
        if term is None and prop_item is not None:
            term = _pick(prop_item, "prop", r.query.nodes.get(r.target))
            if term is None:
                term = _pick_any_prop(prop_item, r)
        if term is not None and v.kind in ("linked", "text") and not term.on_rel and not string_op \
                and not r.terms.holds(term.owner, term.prop, v.value):
            # "a beneficiary bank from 'Singapore'": the property named does not hold the value; one that holds
            # it and whose name extends the words written does (beneficiary_bank_country)
            term = _holding(r, term, v, prop_item)
            if term is None:
                continue
        year = v.kind == "number" and isinstance(v.value, int) and 1800 <= v.value <= 2100
        if year and term is not None and not term.on_rel and not _timed(term.prop) and \
                r.view.prop_type(term.owner, term.prop) not in ("INT16", "INT32") and \
                any(w in ("after", "before", "since", "in", "during") for w in low[max(0, v.start - 3):v.start]):
            term = _year_prop(r, term.owner)  # "a host city after 2010": the year the hosting holds
            prop_item = None
        if term is None and year:
            term = _year_prop(r)  # "opened between 2000 and 2005", "wines made before 2000"
        if term is None and v.kind == "linked":
            term = Term("prop", v.label, v.prop)
        if term is None and v.kind == "text" and _named(lem, v.start):
            label = r.query.nodes[r.target]
            term = Term("prop", label, r.view.display(label))
        if term is None:
            r.decline(f"what {r.doc[v.start:v.end].text} is")
            continue
        value = v.value
        if term.kind == "prop" and not term.on_rel:
            value = _typed(r.view.prop_type(term.owner, term.prop), value)
        if string_op and isinstance(value, str):
            op = string_op[0]
            r.use(string_op[1])
        # "between 10 and 20"
        if k + 1 < len(r.values) and lem[v.start - 1:v.start] == ["between"] and \
                lem[v.end:v.end + 1] == ["and"] and r.values[k + 1].start == v.end + 1:
            hi = r.values[k + 1]
            done.add(k + 1)
            op, value = "BETWEEN", (value, _typed(r.view.prop_type(term.owner, term.prop), hi.value))
            r.use((v.start - 1, hi.end))
        holder = _holder(r, term)
        if holder is None:
            continue
        if isinstance(value, str) and op in ("<", ">", "<=", ">=") and not any(c.isdigit() for c in value):
            op = "="  # "courses under the 'Computer Science' subject": words have no order
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
            continue
        if (op or "=") == "=":
            ors[(holder, term.prop)] = (len(r.query.where), v.end)
        if holder in r.absent_of:
            r.absent_of[holder].where.append(Where(holder, term.prop, op or "=", value))
        else:
            r.query.where.append(Where(holder, term.prop, op or "=", value))
            r.where_ends.append((prop_item.start if prop_item else v.start, v.end))
        if prop_item is not None:
            prop_item.term = term
            r.use((prop_item.start, prop_item.end))
        r.use((v.start, v.end), *op_span)
    _disjunctions(r)
    seen: dict[tuple[str, str], int] = {}
    for w in r.query.where:
        if w.op == "=":
            seen[(w.holder, w.prop)] = seen.get((w.holder, w.prop), 0) + 1
        if w.op == "<>" and w.holder != r.target:
            r.decline(f"not {w.value!r} (none of them, or one that is not)")
    if any(n > 1 for n in seen.values()):
        r.decline("two values of one property at once (both)")


def _timed(prop: str) -> bool:
    from kgqa.planner.lexicon import is_time_like

    return is_time_like(prop) or "year" in prop.lower()


def _disjunctions(r: Reading) -> None:
    """"a height over 5000 or a prominence over 1000": conditions written with "or" between them hold either."""
    w = r.query.where
    ends = r.where_ends
    for k in range(len(w) - 1, 0, -1):
        a_end, b_start = ends[k - 1][1], ends[k][0]
        if a_end <= b_start and "or" in r.lemmas[a_end:b_start] and w[k].op != "IN" and w[k - 1].op != "IN":
            either = Where(w[k - 1].holder, "", "OR", (w[k - 1], w[k]))
            w[k - 1:k + 1] = [either]
            ends[k - 1:k + 1] = [(ends[k - 1][0], ends[k][1])]
            r.use((a_end, b_start))


def _year_prop(r: Reading, label: str | None = None) -> Term | None:
    """The one property of ``label`` (default: the asked one) that holds years or dates, by its name."""
    label = label or r.query.nodes[r.target]
    props = [p for p in r.view.nodes.get(label, {}) if _timed(p)]
    return Term("prop", label, props[0]) if len(props) == 1 else None


def _count_bound(r: Reading, v: Value, it: Item, low_ops: list[str]) -> None:
    """"students with at least two allergies": a bound on how many nodes of that label each row reaches."""
    term = _pick(it, "label", None)
    if term is None or term.owner == r.query.nodes.get(r.target):
        r.decline(f"{v.value} {r.doc[it.start:it.end].text} of what")
        return
    op, span = _comparator(low_ops, max(0, v.start - 4), v.start)
    trailing, tspan = _trailing(low_ops, v.end)
    if trailing:
        op, span = trailing, span + [tspan]
    span.append((v.end, it.start))
    var = r.vars.get(term.owner) or _join(r, term.owner)
    if var is None:
        return
    it.term = term
    r.bounds.append((Column(var, None, "count", True), op or "=", v.value))
    r.use((v.start, v.end), (it.start, it.end), *span)


# -- joining the labels ----------------------------------------------------------------------------
def pattern(r: Reading) -> None:
    """Every other label, property owner and relationship the question names is joined to the asked label
    along the shortest schema path (relationships the question names preferred); two such paths and no word
    to choose between them is a decline."""
    if r.target is None:
        return
    target_label = r.query.nodes[r.target]
    # relationships named by a verb or noun, or owning a property used: an edge from the asked label
    for it in r.items:
        if it.term is None and it.kinds() == {"rel"}:  # a word that may also name a property is not read as a verb
            rels = [t.owner for t in it.terms if t.kind == "rel"]
            exact = [t.owner for t in it.terms if t.kind == "rel" and t.exact]
            touching = [x for x in (exact or rels) if any(target_label in pair for pair in r.view.rels.get(x, []))]
            joined = [x for x in rels if x in r.rel_var]
            if len(joined) == 1:
                touching = joined  # "interact ... in book 1": the relationship whose property is already used
            if len(touching) > 1:
                term = r.choose(it.start, [Term("rel", x) for x in touching], f"'{r.doc[it.start:it.end].text}' means")
                touching = [term.owner] if term else []
            if len(touching) == 1:
                it.term = Term("rel", touching[0])
                _edge(r, touching[0])
                r.use((it.start, it.end))
    for it in r.items:
        if it.term is None and "label" in it.kinds() and it not in r.asked:
            term = _pick(it, "label", None)
            if term is None:
                continue
            it.term = term
            if term.owner != target_label:
                _join(r, term.owner)
            r.use((it.start, it.end))


# -- counts, aggregates, order ---------------------------------------------------------------------
def shape(r: Reading) -> None:
    """Counts ("how many", "the number of"), aggregates ("the average age"), groups ("for each city"),
    superlatives ("the highest", "the top 3 by", "the most filings") and orders ("ordered by age")."""
    if r.target is None:
        return
    q, lem, doc = r.query, r.lemmas, r.doc
    label = q.nodes[r.target]
    group: list[Column] = []
    for i, w in enumerate(lem):
        if w in cues.GROUP_WORDS and i > 0 and lem[i - 1] in ("for", "of", "in", "by") or w == "per":
            k = i + 1
            while k < len(lem) and lem[k] in ("of", "the", "these", "those"):
                k += 1
            it = _item_at(r, k)
            if it is not None:
                col = _column_of(r, it, label)
                if col is not None:
                    group.append(col)
                    r.use((i - (w != "per"), k), (it.start, it.end))
    aggs: list[Column] = []
    for it in r.asked:
        i = it.start
        j = i - 1
        fns = []
        while j >= 0 and (lem[j] in cues.AGGREGATES or lem[j] in (",", "and", "the")):
            if lem[j] in cues.AGGREGATES:
                fns.insert(0, cues.AGGREGATES[lem[j]])
                r.use((j, j + 1))
            j -= 1
        if len(fns) > 1:  # "the minimum, average and maximum age"
            col = _column_of(r, it, label)
            if col is not None:
                aggs.extend(Column(col.holder, col.prop, fn) for fn in fns)
            continue
        fn = next((cues.AGGREGATES[lem[j]] for j in range(max(0, i - 2), i) if lem[j] in cues.AGGREGATES), None)
        sup = next(((j, lem[j]) for j in range(max(0, i - 2), i) if lem[j] in cues.SUPERLATIVES
                    and doc[j].tag_ in ("JJS", "RBS")), None)
        col = _column_of(r, it, label)
        if col is None:
            continue
        if fn is None and sup is not None and len(r.asked) == 1 and not r.query.where and \
                not any(v.kind == "limit" for v in r.values):
            fn = "max" if cues.SUPERLATIVES[sup[1]] else "min"
            r.use((sup[0], sup[0] + 1))
        if fn:
            r.use(*[(j, j + 1) for j in range(max(0, i - 2), i) if lem[j] in cues.AGGREGATES])
            aggs.append(Column(col.holder, col.prop, fn))
        else:
            q.columns.append(col)
    counting = _counting(r)
    distinct_said = [(i, i + 1) for i, w in enumerate(lem) if w in cues.DISTINCT_WORDS]
    if counting is not None:
        c_item, distinct = counting
        prop = c_item is not None and (c_item.term or _pick(c_item, "prop", label)) is not None and \
            "label" not in c_item.kinds()
        col = _column_of(r, c_item, label) if prop else None
        if col is not None:
            aggs.append(Column(col.holder, col.prop, "count", distinct))
            q.columns = [c for c in q.columns if (c.holder, c.prop) != (col.holder, col.prop)]
        elif distinct:
            aggs.append(Column(r.target, r.view.display(label), "count", True))
        else:
            aggs.append(Column(None, None, "count"))  # rows, as SQL's count(*) over the joins
        r.use(*distinct_said)
    elif distinct_said:
        q.distinct = True
        r.use(*distinct_said)
    if r.bounds:
        # "students with at least two allergies": per asked node, the count bounded
        if not q.columns:
            q.columns.extend(_node_columns(r, r.target))
        for col, op, value in r.bounds:
            aggs.append(col)
            q.having.append((col, op, value))
    if r.all_props and not aggs:
        q.columns = [Column(r.target, p) for p in r.view.nodes[label]]
    if not q.columns and not aggs:
        q.columns.extend(_node_columns(r, r.target))
    if group:
        q.columns = group + [c for c in q.columns if c not in group]
    q.columns.extend(aggs)
    _order(r, label)
    if not any(c.is_aggregate for c in q.columns) and not q.distinct:
        _edge_columns(r)
    shown = [c for c in q.columns if not c.is_aggregate]
    if shown and all(c.prop == ROWID for c in shown):
        r.decline(f"what names a {label} (it has only a generated key)")
    grouped = any(c.is_aggregate for c in q.columns)
    for col, _desc in q.order:
        typ = _type_of(r, col)
        if col.fn is None and typ == "STRING" and not _timed(col.prop or "") and not r.view.is_numeric_text(
                q.nodes.get(col.holder) or _rel_of(r, col.holder), col.prop) and not _alphabetical(lem, col, r):
            r.decline(f"an order on the text {col.prop}")  # "the highest quantity per unit": words have none
    for col in shown if grouped else []:
        if (_type_of(r, col) or "").endswith("[]"):
            r.decline(f"the values of the list {col.prop}")  # "the most common role": roles are lists


def _rel_of(r: Reading, var: str | None) -> str:
    return next((e.rel for e in r.query.edges if e.var == var), "")


def _type_of(r: Reading, col: Column) -> str | None:
    """The schema type of a column's property (of a node or an edge)."""
    if col.prop is None or col.holder is None:
        return None
    if col.holder in r.query.nodes:
        return r.view.prop_type(r.query.nodes[col.holder], col.prop)
    return r.view.rel_props.get(_rel_of(r, col.holder), {}).get(col.prop)


def _alphabetical(lem: list[str], col: Column, r: Reading) -> bool:
    """Whether the question orders text by its letters ("ordered by name", "in alphabetical order")."""
    return any(w in ("alphabetical", "alphabetically", "name", "title", "lexicographical") for w in lem) or \
        any(w in cues.ORDER_WORDS for w in lem)


def _edge_columns(r: Reading) -> None:
    """Rows about edges ("characters that interact with a weight over 50"): each edge's far end and the edge
    properties the question uses are shown beside the asked node, one row per edge."""
    q = r.query
    for e in q.edges:
        used = [w.prop for w in q.where if w.holder == e.var] + [c.prop for c, _ in q.order if c.holder == e.var]
        if not used:
            continue
        far = e.dst if e.src == r.target else e.src if e.dst == r.target else None
        extra = ([Column(far, r.view.display(q.nodes[far]))] if far else []) + [Column(e.var, p) for p in used]
        q.columns.extend(c for c in dict.fromkeys(extra) if c not in q.columns)


def coverage(r: Reading) -> None:
    """Declines when a content word is left unexplained: a plan that ignores it answers another question."""
    left = [t.text for t in r.doc if t.i not in r.used and not t.is_punct and t.lower_ not in cues.FILLER
            and t.lemma_.lower() not in cues.FILLER and t.pos_ not in ("DET", "ADP", "PRON", "AUX", "CCONJ", "SCONJ", "PART")
            and not (t.is_stop and t.pos_ not in ("NOUN", "VERB", "ADJ", "PROPN", "NUM") and t.lower_ not in cues.NEGATIONS)]
    left += [t.text for t in r.doc if t.i not in r.used and t.lower_ in cues.NEGATIONS]
    joined = r.query.edges or r.query.absent
    restating = {t.text for t in r.doc if t.pos_ == "VERB" and joined and t.i not in r.used and any(
        c.dep_ in ("prep", "agent", "dative") and any(g.i in r.used for g in c.children) for c in t.children)}
    left = [w for w in left if w not in restating]  # "wines produced in Sonoma": the verb of the join
    if left:
        r.decline(", ".join(repr(w) for w in dict.fromkeys(left)))


Component = Callable[[Reading], None]
COMPONENTS: tuple[Component, ...] = (values, schema, focus, negation, conditions, pattern, shape, coverage)


ROWID = "_rowid"  # the generated key of a table that had none: no name to show
MAX_READINGS = 8  # readings tried for one question when the schema leaves choices open


def read_query(question: str, view: SchemaView, terms: SchemaTerms, mentions: list[Mention]) -> list[Reading]:
    """Returns the readings of ``question`` that explain it, one per way of settling the choices the schema
    leaves open (at most :data:`MAX_READINGS`), or the one reading that declines, saying what was not
    understood."""
    doc = parse(question, _literals(question, terms))
    todo: list[dict[Any, Term]] = [{}]
    done: list[Reading] = []
    first: Reading | None = None
    tried = 0
    while todo and tried < MAX_READINGS:
        choices = todo.pop(0)
        tried += 1
        r = Reading(view, terms, doc, list(mentions), choices=dict(choices))
        for component in COMPONENTS:
            component(r)
            if r.declined and component is not coverage:
                break
        first = first or r
        if not r.declined:
            done.append(r)
        elif r.open:
            start, options = r.open[0]
            todo.extend(choices | {start: t} for t in sorted(options, key=_name))
    return done or [first]


def _literals(question: str, terms: SchemaTerms) -> tuple[tuple[int, int], ...]:
    """The quoted spans that are values: not those that quote a schema name ('INTERACTS1', 'book 45')."""
    out = []
    for a, b, text in quoted_spans(question):
        words = [w for w in text.lower().split() if not w.isdigit()]
        if words and all(terms.lookup([w]) for w in words):
            continue
        out.append((a, b))
    return tuple(out)


# -- helpers ---------------------------------------------------------------------------------------
def _number(text: str) -> int | float | None:
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


def _typed(typ: str | None, value: Any) -> Any:
    """Returns a value as the property's type holds it: numbers of a text property as text ("id 3" of a
    STRING id), numeric text of a number property as a number."""
    if typ == "STRING" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if typ and typ.startswith(("INT", "DOUBLE", "FLOAT", "DECIMAL")) and isinstance(value, str):
        n = _number(value)
        return n if n is not None else value
    return value


def _pick(it: Item, kind: str, label: str | None) -> Term | None:
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


def _holding(r: Reading, term: Term, v: Value, it: Item | None) -> Term | None:
    """The property holding value ``v`` whose name starts with the words of the one written (``term``), else
    a decline saying that none holds it."""
    from kgqa.text import name_words

    said = name_words(term.prop or "")
    fits = [(lb, p) for lb, p in v.options if name_words(p)[:len(said)] == said and p != term.prop
            and (lb == term.owner or lb in r.query.nodes.values())]
    if len(fits) == 1:
        return Term("prop", fits[0][0], fits[0][1])
    r.decline(f"no {term.owner} has {term.prop} {v.value!r}")
    return None


def _pick_any_prop(it: Item, r: Reading) -> Term | None:
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
    props = [t for t in it.terms if t.kind == "prop"]
    if len({t.owner for t in props}) == 1:
        return props[0]
    if props:
        return r.choose(it.start, props, f"'{r.doc[it.start:it.end].text}' is")
    return None


def _name(t: Term) -> str:
    return f"{t.owner}.{t.prop}" if t.prop else t.owner


def _common_owners(items: list[Item], view: SchemaView) -> list[str]:
    owners = None
    for it in items:
        mine = {t.owner for t in it.terms if t.kind == "prop" and not t.on_rel}
        owners = mine if owners is None else (owners & mine or owners)
    return sorted(owners or [])


def _value_after(r: Reading, it: Item) -> bool:
    """Whether a value follows the item closely (it is a condition's property, not one asked for)."""
    return any(it.end <= v.start <= it.end + 4 and not any(x.start < v.start and x.start >= it.end for x in r.items)
               for v in r.values)


def _bound_prop(r: Reading, it: Item) -> bool:
    lem = r.lemmas
    return it.start > 0 and lem[it.start - 1] in ("whose", "where", "with", "by") and _value_after(r, it)


def _prop_before(r: Reading, v: Value) -> Item | None:
    """The property item written closest before a value, with only comparison words between."""
    before = [it for it in r.items if it.end <= v.start and "prop" in it.kinds()]
    after = [it for it in r.items if it.start == v.end and "prop" in it.kinds() and v.kind == "number"]
    if after and (not before or any(x.end <= v.start and x.start >= before[-1].end for x in r.items
                                    if x is not before[-1]) or v.start - before[-1].end > 4):
        return after[0]  # "with more than 2000 outstanding balance"
    if not before:
        return None
    it = before[-1]
    between = [t for t in r.doc[it.end:v.start]]
    if len(between) > 6 or any(x.start >= it.end and x.end <= v.start for x in r.items if x is not it):
        return None
    return it


def _comparator(lem: list[str], a: int, b: int) -> tuple[str | None, list[tuple[int, int]]]:
    """The comparison written in tokens ``[a, b)`` (longest phrase), with its span."""
    words = lem[a:b]
    quiet = [(a + i, a + i + 1) for i, w in enumerate(words) if w in cues.FILLER or w in ("be", "is", "are", "was",
                                                                                          "were", "=", "equal")]
    for phrase, op in sorted(cues.COMPARATORS, key=lambda p: -len(p[0])):
        n = len(phrase)
        for i in range(len(words) - n + 1):
            if tuple(words[i:i + n]) == phrase:
                return op, quiet + [(a + i, a + i + n)]
    return None, quiet


def _trailing(lem: list[str], end: int) -> tuple[str | None, tuple[int, int]]:
    for phrase, op in cues.TRAILING_COMPARATORS:
        if tuple(lem[end:end + len(phrase)]) == phrase:
            return op, (end, end + len(phrase))
    return None, (end, end)


def _string_op(lem: list[str], a: int, b: int) -> tuple[str, tuple[int, int]] | None:
    for i in range(max(0, a), b):
        if lem[i] in cues.STRING_CUES:
            return cues.STRING_CUES[lem[i]], (i, b)
    return None


def _named(lem: list[str], start: int) -> bool:
    return start > 0 and lem[start - 1] in ("name", "named", "call", "called", "title", "titled")


def _holder(r: Reading, term: Term) -> str | None:
    """The variable that holds a property term's value, joining its owner (or relationship) to the query."""
    if term.on_rel:
        return _edge(r, term.owner)
    if term.owner == r.query.nodes.get(r.target):
        return r.target
    return _join(r, term.owner)


def _edge(r: Reading, rel: str) -> str | None:
    """The edge variable of relationship ``rel`` from the asked node (made once)."""
    if rel in r.rel_var:
        return r.rel_var[rel]
    label = r.query.nodes[r.target]
    pairs = r.view.rels.get(rel, [])
    pair = next((p for p in pairs if p[0] == label), None) or next((p for p in pairs if p[1] == label), None)
    if pair is None:
        r.decline(f"how {label} is joined by {rel}")
        return None
    src, dst = pair
    if src == label:
        far = r.var_for(dst, f"{rel}>{dst}" if dst == label else dst)
        edge = Edge(f"r{len(r.rel_var)}", rel, r.target, far)
    else:
        far = r.var_for(src, f"{rel}<{src}" if src == label else src)
        edge = Edge(f"r{len(r.rel_var)}", rel, far, r.target)
    r.rel_var[rel] = edge.var
    r.query.edges.append(edge)
    return edge.var


def _join(r: Reading, label: str) -> str | None:
    """The node variable of ``label``, joined to the asked node along the one shortest schema path."""
    if label in r.vars:
        return r.vars[label]
    start = r.query.nodes[r.target]
    paths = r.view.paths(start, label, max_hops=3, prefer=set(r.rels_named))
    if not paths:
        r.decline(f"how {start} and {label} are joined")
        return None
    best = [p for p in paths if len(p) == len(paths[0])]
    named = [p for p in best if any(step[0] in r.rels_named for step in p)]
    hinted = [p for p in best if any(step[0] in r.rels_hinted for step in p)]
    best = named or hinted or best
    ways = list(dict.fromkeys("/".join(s[0] for s in p) for p in best))
    if len(ways) > 1:
        term = r.choose(f"path:{label}", [Term("path", w) for w in ways[:MAX_READINGS]],
                        f"joins {start} and {label}")
        if term is None:
            return None
        best = [p for p in best if "/".join(s[0] for s in p) == term.owner]
    cur = r.target
    absent = r.negated.get(label)
    if absent is not None:
        r.query.absent.append(absent)
    for rel, direction, other in best[0]:
        nxt = r.var_for(other, f"not:{other}" if absent is not None else None)
        n = len(r.query.edges) + sum(len(a.edges) for a in r.query.absent)
        edge = Edge(f"r{n}", rel, cur, nxt) if direction == "out" else Edge(f"r{n}", rel, nxt, cur)
        if absent is not None:
            absent.edges.append(edge)
            r.absent_of[nxt] = absent
            absent.own.add(nxt)
        else:
            r.query.edges.append(edge)
            r.rel_var.setdefault(rel, edge.var)
        cur = nxt
    if absent is not None:
        r.vars[label] = cur
    return cur


def _item_at(r: Reading, i: int) -> Item | None:
    return next((it for it in r.items if it.start <= i < it.end or it.start == i + 1), None)


def _column_of(r: Reading, it: Item, label: str) -> Column | None:
    """The column an item shows: a property (of the asked label, else of a label or edge joined), or a label's
    naming property."""
    term = it.term or _pick(it, "prop", label) or _pick_any_prop(it, r)
    if term is not None and term.kind == "prop":
        holder = _holder(r, term)
        if holder is None:
            return None
        it.term = term
        r.use((it.start, it.end))
        return Column(holder, term.prop)
    lab = _pick(it, "label", None)
    if lab is not None:
        var = r.vars.get(lab.owner) or _join(r, lab.owner)
        if var is None:
            return None
        it.term = lab
        r.use((it.start, it.end))
        return Column(var, r.view.display(lab.owner))
    return None


def _node_columns(r: Reading, var: str) -> list[Column]:
    """A node shown: its naming property, and its key when that is another property."""
    label = r.query.nodes[var]
    shown, key = r.view.display(label), r.view.key(label)
    return [Column(var, shown)] + ([Column(var, key)] if key and key != shown else [])


def _counting(r: Reading) -> tuple[Item | None, bool] | None:
    """"how many X", "the number of X", "count the X": (the counted item, distinct), else None."""
    lem = r.lemmas
    for i, w in enumerate(lem):
        ranked = i > 0 and lem[i - 1] in cues.SUPERLATIVES
        if (w == "how" and lem[i + 1:i + 2] in (["many"], ["much"])) or (w == "number" and lem[i + 1:i + 2] == ["of"]
                                                                         and not ranked) or (w == "count" and i == 0):
            j = i + 2 if w != "count" else i + 1
            if w == "count" and lem[j:j + 3] == ["the", "number", "of"]:
                j += 3
            r.use((i, j))
            distinct = any(lem[k] in cues.DISTINCT_WORDS for k in range(j, min(j + 2, len(lem))))
            counted = next((it for it in r.items if it.start >= j), None)
            return counted, distinct
    return None


def _order(r: Reading, label: str) -> None:
    """Superlatives and explicit orders set the query's order and limit."""
    q, lem, doc = r.query, r.lemmas, r.doc
    low = [t.lower_ for t in doc]
    for i, w in enumerate(lem):
        if w in cues.ORDER_WORDS and lem[i + 1:i + 2] == ["by"]:
            it = _item_at(r, i + 2)
            if it is None:
                continue
            col = _column_of(r, it, label)
            if col is None:
                continue
            tail = lem[it.end:it.end + 6]
            desc = any(x in ("descending", "decreasing", "desc", "reverse", "descend", "decrease")
                       for x in tail + lem[max(0, i - 3):i] + low[max(0, i - 3):it.end + 6])
            if "from" in tail and tail.index("from") + 1 < len(tail):
                desc = desc or tail[tail.index("from") + 1] in cues.DESCENDING
            q.order.append((col, desc))
            r.use((i, i + 2), *[(k, k + 1) for k in range(it.end, min(len(lem), it.end + 6))
                               if lem[k] in cues.DESCENDING | cues.ASCENDING | {"order", "in", "of", "from", "to"}])
    if not q.order and any(w in cues.ORDER_ADVERBS for w in low):
        k = next(i for i, w in enumerate(low) if w in cues.ORDER_ADVERBS)
        col = next((c for c in q.columns if not c.is_aggregate), None)
        if col is not None:
            said = {t.lower_ for t in doc} | set(lem)
            q.order.append((col, bool(said & {"descending", "reverse", "decreasing"})))
            end = k
            while end < len(low) and (low[end] in cues.ORDER_ADVERBS or low[end] in ("order", "and", "by")):
                end += 1
            r.use((max(0, k - 2) if low[max(0, k - 1)] in ("in", "an") or low[max(0, k - 2)] == "in" else k, end))
    # "the most common reign": the property's value that most nodes have
    for i, w in enumerate(lem):
        if w in ("most", "least") and lem[i + 1:i + 2] and lem[i + 1] in cues.FREQUENT:
            it = next((x for x in r.items if x.start in (i + 2, i + 3) and x.term is None), None) or \
                next((x for x in r.asked), None)
            col = _column_of(r, it, label) if it is not None else None
            if col is None:
                r.decline(f"the {w} {lem[i + 1]} what")
                return
            cnt = Column(None, None, "count")
            q.columns = [col, cnt]
            q.order.append((cnt, w == "most"))
            q.limit = next((v.value for v in r.values if v.kind == "limit"), 1)
            r.use((i, i + 2), *[(max(0, v.start - 1), v.end) for v in r.values if v.kind == "limit"][:1])
            return
    # superlatives: "the highest rank", "the 3 oldest", "top 5 by amount", "the most filings"
    for i, w in enumerate(lem):
        if i in r.used or (w not in cues.SUPERLATIVES and w not in cues.AGE_SUPERLATIVES):
            continue
        if doc[i].tag_ not in ("JJS", "RBS") and w not in ("top", "maximum", "minimum"):
            continue
        desc = cues.SUPERLATIVES.get(w, cues.AGE_SUPERLATIVES.get(w))
        limit, lspan = 1, (i, i + 1)
        counted = [v for v in r.values if v.kind == "limit"]
        if counted:
            limit = counted[0].value
            r.use(*[(max(0, v.start - 2), v.end) for v in counted[:1]])
        k = i + 1
        if lem[k:k + 2] == ["number", "of"]:  # "the most number of students"
            r.use((k, k + 2))
            k += 2
        it = next((x for x in r.items if k <= x.start <= k + 2 and x.term is None or x.start == k), None)
        if w in cues.AGE_SUPERLATIVES:
            ages = [p for p in r.view.nodes.get(label, {}) if p.lower() in cues.AGE_WORDS]
            if len(ages) != 1:
                r.decline(f"the {w}, by what")
                return
            q.order.append((Column(r.target, ages[0]), desc))
        elif it is not None and "label" in it.kinds() and _pick(it, "label", None) is not None \
                and _pick(it, "label", None).owner == label and w in ("most", "fewest", "least"):
            # "the advisor with the most students": the asked property's values ranked by how many have each
            shown = [c for c in q.columns if not c.is_aggregate]
            if not r.asked or not shown:
                r.decline(f"the {w} {r.doc[it.start:it.end].text} by what")
                return
            cnt = Column(None, None, "count")
            q.columns = shown + [cnt]
            q.order.append((cnt, desc))
            it.term = _pick(it, "label", None)
            r.use((it.start, it.end))
        elif it is not None and "label" in it.kinds() and _pick(it, "label", None) is not None \
                and _pick(it, "label", None).owner != label and w in ("most", "fewest", "least"):
            far = _pick(it, "label", None).owner
            var = r.vars.get(far) or _join(r, far)
            if var is None:
                return
            it.term = _pick(it, "label", None)
            cnt = Column(var, None, "count", True)
            if not any(c.is_aggregate for c in q.columns):
                q.columns.append(cnt)
            q.order.append((cnt, desc))
            r.use((it.start, it.end))
        elif it is not None:
            if "prop" not in it.kinds():
                r.decline(f"the {w} {r.doc[it.start:it.end].text}, by what")
                return
            col = _column_of(r, it, label)
            if col is None:
                return
            if col in q.columns and len([c for c in q.columns if not c.is_aggregate]) == 1 and limit == 1 \
                    and not q.where:
                q.columns = [Column(col.holder, col.prop, "max" if desc else "min")]
                r.use(lspan)
                return
            q.order.append((col, desc))
            if col not in q.columns:
                q.columns.append(col)
        else:
            continue
        q.limit = limit
        r.use(lspan)
        return
