"""Superlatives of a grammar reading ("the highest rank", "the 3 oldest", "the top 5 by amount", "the most orders",
"most recently"): what each ranks by, and the query's order and limit it sets (:func:`superlatives`, a pass of
:func:`~kgqa.planner.reader.order.order`)."""

from __future__ import annotations

from dataclasses import dataclass

from kgqa.planner.query import Column, Edge, Overall, Where
from kgqa.planner.reader import cues
from kgqa.planner.reader.columns import column_of, node_columns, owner_of
from kgqa.planner.reader.joins import edge_of, join_label, many_along, path_to
from kgqa.planner.reader.measures import measured_prop, owned_prop, timed_prop, verb_timed
from kgqa.planner.reader.ranking_words import by_what
from kgqa.planner.reader.reading import Item, Reading, compound_of_label, is_timed, pick, pick_prop
from kgqa.planner.reader.schema_terms import Term, count_prop
from kgqa.planner.reader.times import date_prop, year_prop


@dataclass
class _Rank:
    """What a superlative ranks by, read around it before any branch: its direction, number of rows and words,
    the measure it says, the item ranked by (and the aggregate of it said), and whether "by" named that item."""

    word: str  # "highest", "top", "most"
    desc: bool | None
    limit: int
    lspan: tuple[int, int]  # the superlative's words, used once it is read
    measure: str  # what it measures: the word itself, or "expensive" in "the most expensive"
    counted: list  # the number of rows said ("the top 3")
    k: int  # where the words it ranks by start
    fn: str | None  # an aggregate said ("the highest average salary")
    it: Item | None
    ranked_by: bool  # "the top 5 people by LIKES2 weight"


def superlatives(r: Reading, label: str) -> bool:
    """Superlatives: "the highest rank", "the 3 oldest", "top 5 by amount", "the most orders"; the first one read
    sets the order and limit. True where one is read or declined."""
    lem, doc = r.lemmas, r.doc
    for i, w in enumerate(lem):
        done = _first_done(r, i)
        first = done or _first_of(r, i)
        if i in r.used or (w not in cues.SUPERLATIVES and w not in cues.AGE_SUPERLATIVES and not first):
            continue
        if doc[i].tag_ not in ("JJS", "RBS") and w not in ("top", "maximum", "minimum") and not first:
            continue
        after = next((v.end for v in r.values if v.kind == "limit" and v.start == i + 1), None)
        if w == "top" and after is not None and after < len(doc) and doc[after].tag_ in ("JJS", "RBS") and \
                lem[after] in cues.SUPERLATIVES:
            r.use((i, i + 1))  # "the top 3 highest support rates": the superlative after the number ranks
            continue
        if w == "most" and lem[i + 1:i + 2] in (["recently"], ["recent"]) and i + 1 not in r.used:
            _most_recently(r, label, i)
            return True
        if done:
            _by_time_done(r, label, (i, i + 1), doc[i].head, w == "last")
            return True
        rank = _rank(r, label, i)
        if rank is None:
            return True
        for branch in (_by_aggregate, _by_age, _by_values_held, _by_label_count, _by_edge_count, _by_property):
            ranked = branch(r, label, rank)
            if ranked is not None:
                break
        else:
            continue
        if ranked:
            r.query.limit = rank.limit
            r.use(rank.lspan)
        return True
    return False


def _first_of(r: Reading, i: int) -> bool:
    """Whether "first" or "last" at ``i`` says the earliest or latest of the label whose noun it modifies, with no
    number after it ("her first film", "the last prize he won"; not "the first 3 films", "first name")."""
    tok = r.doc[i]
    if r.lemmas[i] not in ("first", "last") or tok.dep_ != "amod" or any(x.start <= i < x.end for x in r.items):
        return False
    if any(v.start == i + 1 for v in r.values):
        return False
    return any(x.start <= tok.head.i < x.end and "label" in x.kinds() for x in r.items)


def _first_done(r: Reading, i: int) -> bool:
    """Whether "first" or "last" at ``i`` says when a verb's relationship was first (or last) had: "When did a
    woman first win a prize?", "the year she last won"."""
    tok = r.doc[i]
    return r.lemmas[i] in ("first", "last") and tok.dep_ == "advmod" and tok.head.pos_ == "VERB" and any(
        x.start <= tok.head.i < x.end and "rel" in x.kinds() for x in r.items)


def _most_recently(r: Reading, label: str, i: int) -> None:
    """"the book borrowed most recently", "in the most recent year": by the time said, or the time the nodes the
    verb names were made; else declined."""
    verb = r.doc[i + 1].head if r.doc[i + 1].lower_ == "recently" else None
    _by_time_done(r, label, (i, i + 2), verb, True)


def _by_time_done(r: Reading, label: str, span: tuple[int, int], verb, desc: bool) -> None:
    """The row of the latest (``desc``) or earliest time said after ``span``, or of the time the nodes ``verb``
    names were made; else declined."""
    q, doc = r.query, r.doc
    said = next((x for x in r.items if x.start == span[1] and "prop" in x.kinds()), None)
    said_term = pick(said, "prop", label) or pick_prop(said, r) if said is not None else None
    target = next((x for x in r.items if x.start == span[1] and (t := pick(x, "label", None)) is not None and
                   r.vars.get(t.owner) == r.target), None) or \
        next((x for x in r.items if x.term is not None and x.term.kind == "label" and
              r.vars.get(x.term.owner) == r.target), None)
    if said_term is not None and (is_timed(said_term.prop) or r.view.is_date(said_term.owner, said_term.prop)):
        said.term = said_term  # "in the most recent year": by the year said
        timed = said
    else:
        others = [x for x in r.items if (x.term is None or x.term.kind == "label") and
                  (t := pick(x, "label", None)) is not None and r.vars.get(t.owner) not in (None, r.target)]
        done = [x for x in others if verb is not None and (x.start <= verb.i < x.end or any(
            c.dep_ in ("dobj", "nsubjpass") and x.start <= c.i < x.end for c in verb.children))]
        timed = timed_prop(r, done[0], "recent") if len(done) == 1 else None  # "made an order most recently"
        timed = timed or (timed_prop(r, target, "recent") if target else None)
        timed = timed or (verb_timed(r, verb) if verb is not None and verb.pos_ == "VERB" else None)
    col = column_of(r, timed, label) if timed is not None else None
    if col is None or any(c.is_aggregate for c in q.columns):
        # nor "the maximum stars for the most recent movie"
        r.decline(f"{doc[span[0]:span[1]].text}, by which time")
        return
    q.order.append((col, desc))  # "the book borrowed most recently": by the loan's date
    q.limit = 1
    if col not in q.columns:
        q.columns.append(col)
    r.use(span)


def _on_average(r: Reading) -> int | None:
    """Where "on average" is said ("the most expensive products on average": their average ranks), else None."""
    return next((k for k in range(len(r.lemmas) - 1) if r.lemmas[k:k + 2] == ["on", "average"]), None)


def _rank(r: Reading, label: str, i: int) -> _Rank | None:
    """What the superlative at ``i`` ranks by, read before any branch (some of its words marked used); None where
    it is declined ("the orders that include the top 3 most expensive products")."""
    lem, doc = r.lemmas, r.doc
    w = lem[i]
    desc = cues.SUPERLATIVES.get(w, cues.AGE_SUPERLATIVES.get(w, w == "last"))  # "first": the earliest
    limit, lspan = 1, (i, i + 1)
    measure = w
    if w in ("most", "least") and lem[i + 1:i + 2] and lem[i + 1] in cues.MEASURES and i + 1 not in r.used:
        measure = lem[i + 1]  # "the three most expensive hotels": by what "expensive" measures
        desc = (w == "most") != (measure in cues.LOW_MEASURES)
        lspan = (i, i + 2)
    elif lem[i + 1:i + 2] and lem[i + 1] in cues.MEASURES and doc[i + 1].tag_ in ("VBN", "VBG") and \
            i + 1 not in r.used:
        measure = lem[i + 1]  # "the highest paid instructor", "the lowest earning one": what the verb measures
        lspan = (i, i + 2)
    counted = [v for v in r.values if v.kind == "limit"]
    if counted:
        limit = counted[0].value
        ranked = next((x for x in r.items if counted[0].end <= x.start <= counted[0].end + 3 and
                       pick(x, "label", None) is not None), None)
        if ranked is not None and pick(ranked, "label", None).owner != label:
            # "the orders that include the top 3 most expensive products": the 3 products first, then orders
            r.decline(f"the top {limit} {pick(ranked, 'label', None).owner} first, then each {label}")
            return None
        r.use(*[(max(0, v.start - 2), v.end) for v in counted[:1]])
    k = i + 1
    if lem[k:k + 2] == ["number", "of"] or lem[k:k + 2] == ["amount", "of"] and doc[k + 2:k + 3].text and \
            doc[k + 2].tag_ == "NNS" and any(x.start == k + 2 and "label" in x.kinds() for x in r.items):
        r.use((k, k + 2))  # "the most number of students", "the fewest amount of amenities": a count
        k += 2
    elif lem[k:k + 1] and lem[k] in cues.DISTINCT_WORDS and doc[k + 1:k + 2].text and doc[k + 1].tag_ == "NNS":
        r.use((k, k + 1))  # "the most distinct customers": each counted once, as every count of nodes is
        k += 1
    elif lem[k:k + 1] and lem[k] in cues.SINGLE_WORDS and doc[k + 1:k + 2].text:
        r.use((k, k + 1))  # "the highest single review rating": one edge's, as a ranking by a property is
        k += 1
    fn = cues.AGGREGATES.get(lem[k]) if k < len(lem) and lem[k] != "overall" and i + 1 == k else None
    it = next((x for x in r.items if k <= x.start <= k + 2 and x.term is None or x.start == k), None)
    if it is not None and compound_of_label(r, it):
        it = next((x for x in r.items if x.start == it.end), it)  # "the most Nobel laureates": the laureates
    named = next((x for x in r.items if k <= x.start <= k + 2 and x.term is not None and x.term.kind == "label"
                  and x.term.owner == label), None)
    if it is None and (measure != w or w in cues.TIME_SUPERLATIVES):
        # "the three most expensive procedures": the procedures, by what "expensive" measures; "the latest
        # winners": by their time
        it = named
    if it is None and measure != w and _on_average(r) is not None:
        # "the menu with the most expensive dishes on average": the dishes, by what "expensive" measures
        it = next((x for x in r.items if x.start == i + 2 and "label" in x.kinds()), None)
    if it is None and measure != w and doc[i].head.dep_ in ("attr", "acomp") and doc[i].head.head.lemma_ == "be":
        # "which dish is the most expensive": the asked label, said before the verb
        it = next((x for x in r.items if x.term is not None and x.term.kind == "label" and x.term.owner == label
                   and x.end <= doc[i].head.head.i), None)
    after = _past_modifiers(r, named.end) if named is not None else 0
    by = by_what(lem, after) if named is not None else 0
    ranked_by = False
    if by and w == "top" and fn is None:  # "the top 3 invoices by amount", "... based on the amount"
        at = after + by
        if at < len(lem) and lem[at] in cues.AGGREGATES and lem[at] != "overall":
            fn, k = cues.AGGREGATES[lem[at]], at  # "the top 5 countries by the total amount of invoices"
            r.use((after, at))
        elif lem[at + 1:at + 2] != ["of"]:  # not "by the number of relationships": a count
            by_item = next((x for x in r.items if x.start == at), None)
            by_item = by_item if by_item is None or "prop" in by_item.kinds() else owned_prop(r, by_item)
            it = by_item or it
            ranked_by = by_item is not None
            r.use((after, at))
    if fn is not None:
        at = k + 1 + (lem[k + 1:k + 2] == ["of"])  # "the highest sum of LIKES weights"
        it = next((x for x in r.items if x.start == at), None)
        if it is not None and "prop" not in it.kinds():
            it = owned_prop(r, it) or _edge_prop_after(r, it)  # "the highest average instructor salary"
        if it is not None:
            r.use((k + 1, at))
    return _Rank(w, desc, limit, lspan, measure, counted, k, fn, it, ranked_by)


def _edge_prop_after(r: Reading, it: Item) -> Item | None:
    """"the highest average movie rating": a label's noun, then the word of a property of a relationship at that
    label's end (the rating of a review of a movie): that property's item, the label's node joined first; else
    None."""
    named = pick(it, "label", None)
    nxt = next((x for x in r.items if x.start == it.end and x.kinds() == {"prop"}), None)
    if named is None or nxt is None:
        return None
    held = [t for t in nxt.terms if t.on_rel and any(named.owner in pair for pair in r.view.rels.get(t.owner, []))]
    var = (r.vars.get(named.owner) or join_label(r, named.owner)) if len(held) == 1 else None
    if var is None:
        return None
    rel = held[0].owner
    if rel not in r.rel_var:  # the movie's reviews, not the asked person's own
        src, dst = next(p for p in r.view.rels[rel] if named.owner in p)
        q = r.query
        n = len(q.edges) + sum(len(a.edges) for a in q.absent)
        if dst == named.owner:
            edge = Edge(f"r{n}", rel, r.var_for(src, f"{rel}<{src}"), var)
        else:
            edge = Edge(f"r{n}", rel, var, r.var_for(dst, f"{rel}>{dst}"))
        q.edges.append(edge)
        r.rel_var[rel] = edge.var
    it.term = named
    r.use((it.start, it.end))
    nxt.term = held[0]
    return nxt


def _by_aggregate(r: Reading, label: str, s: _Rank) -> bool | None:
    """"the department with the highest average salary": each row's aggregate of a property, ranked. None where
    no aggregate of a property is said; True where ranked (its limit follows), False where declined."""
    q, lem, w, k, it = r.query, r.lemmas, s.word, s.k, s.it
    if s.fn is None or it is None or "prop" not in it.kinds():
        return None
    # "the department with the highest average salary": each row's aggregate, ranked
    col = column_of(r, it, label)
    if col is None or not r.view.is_number(owner_of(r, col.holder), col.prop or ""):
        r.decline(f"the {w} {lem[k]} {r.doc[it.start:it.end].text}, of what")
        return False
    agg = Column(col.holder, col.prop, s.fn)
    if col.holder == r.target or any(c.is_aggregate for c in q.columns):
        r.decline(f"the {w} {lem[k]} {col.prop} of each what")
        return False
    q.columns = [c for c in q.columns if c.holder == r.target] + [agg]  # per asked node, not per one shown
    q.order.append((agg, s.desc))
    r.use((k, k + 1))
    return True


def _by_age(r: Reading, label: str, s: _Rank) -> bool | None:
    """"the oldest", "the youngest": by the asked label's age, else the time it was made, earliest first. None
    for other superlatives; True where ranked, False where declined."""
    q, w = r.query, s.word
    if w not in cues.AGE_SUPERLATIVES:
        return None
    if (other := _aged_other(r, label, s)) is not None:
        return other
    ages = [p for p in r.view.nodes.get(label, {}) if p.lower() in cues.AGE_WORDS]
    born = (year_prop(r, label) or date_prop(r, label)) if not ages else None
    if len(ages) != 1 and (born is None or any(c.is_aggregate for c in q.columns)):
        r.decline(f"the {w}, by what")
        return False
    if ages:
        q.order.append((Column(r.target, ages[0]), s.desc))
    else:  # "the oldest movie", "the youngest organization": by the one time it holds, earliest first
        q.order.append((Column(r.target, born.prop), not s.desc))
    return True


def _aged_other(r: Reading, label: str, s: _Rank) -> bool | None:
    """"Who directed the oldest movie?": "oldest" modifies the noun of another label joined, so that node is the
    one of the highest age or the earliest time of its label (of those the conditions said of it), shown beside
    each row (False: read whole).
    None where the superlative is said of the asked nodes or a number of rows is said."""
    q, tok = r.query, r.doc[s.lspan[0]]
    it = next((x for x in r.items if x.start <= tok.head.i < x.end), None) if tok.dep_ == "amod" else None
    other = pick(it, "label", None) if it is not None else None
    var = r.vars.get(other.owner) if other is not None and other.owner != label else None
    if var is None or var == r.target or var not in q.nodes or s.counted:
        return None
    ages = [p for p in r.view.nodes.get(other.owner, {}) if p.lower() in cues.AGE_WORDS]
    born = (year_prop(r, other.owner) or date_prop(r, other.owner)) if not ages else None
    if len(ages) != 1 and born is None:
        return None
    prop, fn = (ages[0], "max" if s.desc else "min") if ages else (born.prop, "min" if s.desc else "max")
    among = tuple((w.prop, w.value) for w in q.where if w.holder == var and w.op == "=" and
                  not isinstance(w.value, (Column, Overall)))  # "the oldest Economics prize": of those prizes
    q.where.append(Where(var, prop, "=", Overall(fn, other.owner, prop, among)))
    shown = r.view.display(other.owner)
    if shown and Column(var, shown) not in q.evidence:
        q.evidence.append(Column(var, shown))  # "the oldest movie": which movie
    r.use(s.lspan)
    return False


def _by_values_held(r: Reading, label: str, s: _Rank) -> bool | None:
    """"the advisor with the most students": the asked property's values ranked by how many nodes hold each.
    None where the asked label is not what is counted; True where ranked, False where declined."""
    q, w, it = r.query, s.word, s.it
    if not (it is not None and "label" in it.kinds() and pick(it, "label", None) is not None
            and pick(it, "label", None).owner == label and w in cues.COUNT_SUPERLATIVES and s.measure == w):
        return None
    # "the advisor with the most students": the asked property's values ranked by how many have each
    shown = [c for c in q.columns if not c.is_aggregate]
    if not r.asked or not shown:
        r.decline(f"the {w} {r.doc[it.start:it.end].text} by what")
        return False
    other = next((lb for v, lb in q.nodes.items() if lb != label and _said_of(r, it, lb)), None)
    if other is not None:  # "the projects launched by the organization with the most projects"
        r.decline(f"the {other} with the {w} {label} first, then its {label}")
        return False
    cnt = Column(None, None, "count")
    q.columns = shown + [cnt]
    q.order.append((cnt, s.desc))
    it.term = pick(it, "label", None)
    r.use((it.start, it.end))
    return True


def _by_label_count(r: Reading, label: str, s: _Rank) -> bool | None:
    """"the most actors", "the largest cast": ranked by a count of another label's nodes, or the number each
    holds of them. None where no other label is counted; True where ranked, False where declined or not joined."""
    q, w, it = r.query, s.word, s.it
    if not (it is not None and "label" in it.kinds() and pick(it, "label", None) is not None
            and pick(it, "label", None).owner != label and s.measure == w and (
                w in cues.COUNT_SUPERLATIVES or w in cues.SIZE_SUPERLATIVES and pick(it, "label", None).via)):
        return None
    # "the most actors", "the largest cast" (a noun for the nodes at one end of a relationship: a group)
    far = pick(it, "label", None).owner
    if (held := count_prop(r.view, label, far)) is not None:  # "the party with the most guests": Number_of_guests
        col = Column(r.target, held)
        if col not in q.columns:
            q.columns.append(col)
        q.order.append((col, s.desc))
        it.term = Term("prop", label, held)
    else:
        between = next((lb for v, lb in q.nodes.items() if v != r.target and lb not in (far, label) and
                        _said_of(r, it, lb)), None)
        if between is not None:  # "students who live in the dorm with the most amenities": that dorm first
            r.decline(f"the {between} with the {w} {far} first, then its {label}")
            return False
        var = r.vars.get(far) or join_label(r, far)
        if var is None:
            return False
        it.term = pick(it, "label", None)
        _rank_by_count(r, var, s)
    r.use((it.start, it.end))
    return True


def _by_edge_count(r: Reading, label: str, s: _Rank) -> bool | None:
    """"the department with the fewest members": ranked by a count of the edges of the one relationship named
    that touches the asked label. None where none is named; True where ranked, False where it has no edge."""
    w, it = s.word, s.it
    if not (it is not None and it.kinds() == {"rel"} and w in cues.COUNT_SUPERLATIVES and s.measure == w and
            len(touching := [t.owner for t in it.terms if any(label in p for p in r.view.rels.get(t.owner, []))]) == 1):
        return None
    var = edge_of(r, touching[0])  # "the department with the fewest members": its membership edges counted
    if var is None:
        return False
    it.term = Term("rel", touching[0])
    _rank_by_count(r, var, s)
    r.use((it.start, it.end))
    return True


def _rank_by_count(r: Reading, var: str, s: _Rank) -> None:
    """Ranks by how many of ``var`` (nodes or edges) each row reaches, the count shown unless a figure already is."""
    cnt = Column(var, None, "count", True)
    if not any(c.is_aggregate for c in r.query.columns):
        r.query.columns.append(cnt)
    r.query.order.append((cnt, s.desc))


def _by_property(r: Reading, label: str, s: _Rank) -> bool | None:
    """"the highest rank", "the heaviest", "the dorm with the largest capacity": ranked by a property (or one the
    words measure). None where nothing is named; True where ranked, False where read whole or declined."""
    q, w, it, desc = r.query, s.word, s.it, s.desc
    if it is None:
        return None
    of_node = "prop" not in it.kinds()  # "the highest roller coaster": one node's measure
    if of_node:
        # "the highest LIKES2 weight", "the heaviest", "the latest book"
        it = owned_prop(r, it) or measured_prop(r, it, s.measure) or timed_prop(r, it, w)
    if it is None:
        r.decline(f"the {w} {r.doc[s.k:s.k + 3].text}, by what")
        return False
    col = column_of(r, it, label)
    if col is None:
        return False
    mean = _on_average(r)
    if col.holder in q.nodes and col.holder != r.target and not s.counted and mean is None and \
            _said_of(r, it, q.nodes[col.holder]):
        # "the students living in the dorm with the largest capacity": that dorm, then its students
        top = Where(col.holder, col.prop, "=", Overall("max" if desc else "min", q.nodes[col.holder], col.prop))
        absent = r.absent_of.get(col.holder)  # "not working on the project with the most hours": inside
        (absent.where if absent is not None else q.where).append(top)
        r.use(s.lspan)
        return False
    path = path_to(q, r.target, col.holder) if col.holder in q.nodes and col.holder != r.target else None
    if path and (not of_node or mean is not None) and many_along(r.view, q, path, r.target) and not s.ranked_by and \
            r.view.is_number(q.nodes[col.holder], col.prop):
        if w not in cues.COUNT_SUPERLATIVES and mean is None:  # "the department with the highest credits": of one
            r.decline(f"the {label} with the {w} {col.prop} of one {q.nodes[col.holder]}, or of all added up")
            return False
        # "the department with the most credits": its courses' credits, added up; "the categories with the most
        # expensive products on average", "the highest credits on average": their average
        col = Column(col.holder, col.prop, "sum" if mean is None else "avg")
        if mean is not None:
            r.use((mean, mean + 2))
        q.columns = [c for c in q.columns if not c.is_aggregate and c.holder == r.target] or \
            node_columns(r, r.target)
    if col.holder not in q.nodes and _ranks_asked(r, s.counted[:1]):
        if not s.ranked_by:  # "the 3 characters with the highest weight": of one edge, or of all added up
            r.decline(f"the {label} with the {w} {col.prop} of one edge, or of their edges added up")
            return False
        # "the top 5 people by LIKES2 weight": each person's edges' weights, added up
        col = Column(col.holder, col.prop, "sum")
        q.columns = [c for c in q.columns if not c.is_aggregate] or node_columns(r, r.target)
    if col in q.columns and len([c for c in q.columns if not c.is_aggregate]) == 1 and s.limit == 1 \
            and not q.where:
        q.columns = [Column(col.holder, col.prop, "max" if desc else "min")]
        r.use(s.lspan)
        return False
    q.order.append((col, desc))
    if col not in q.columns:
        q.columns.append(col)
    return True


def _said_of(r: Reading, it, label: str) -> bool:
    """Whether the superlative's property is said of a noun naming ``label`` ("the dorm with the largest
    capacity", "the dorm that has the largest capacity"), not of the asked nodes; a verb naming it says nothing of
    it ("products ordered by the most customers")."""
    head = r.doc[it.end - 1].head
    at = {head.i}
    if head.pos_ == "ADP":
        at = {head.head.i, head.i - 1}  # "live in the dorm with the largest ...": "with" read as the verb's
    elif head.lemma_.lower() in cues.LIGHT_VERBS and head.dep_ == "relcl":
        at = {head.head.i}
    return any(x.start <= i < x.end and r.doc[i].pos_ in ("NOUN", "PROPN") and (t := x.term or pick(x, "label", None))
               is not None and t.kind == "label" and t.owner == label for x in r.items for i in at)


def _ranks_asked(r: Reading, limits: list) -> bool:
    """Whether the number of rows is said of the asked label itself ("the top 5 characters", "the 3
    characters"), not of edges ("the 3 heaviest relationships")."""
    if not limits:
        return False
    v = limits[0]
    nxt = next((x for x in r.items if x.start == v.end), None)
    return nxt is not None and nxt.term is not None and nxt.term.kind == "label" and \
        r.vars.get(nxt.term.owner) == r.target


def _past_modifiers(r: Reading, at: int) -> int:
    """Where the words that rank the label named before ``at`` may start: at ``at``, or past a phrase of nouns that
    modifies it ("the top 5 products in the 'Beverages' category by unit price"), no verb between."""
    for k in range(at, min(len(r.doc), at + 8)):
        t = r.doc[k]
        if by_what(r.lemmas, k) and t.dep_ != "agent":  # not "supplied by 'Exotic Liquids'": who supplied them
            return k
        if t.pos_ in ("VERB", "AUX") or t.lower_ in cues.RELATIVES or t.dep_ == "agent":
            return at
    return at
