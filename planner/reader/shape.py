"""The shape of the answer, read last: counts ("how many", "the number of"), aggregates ("the average age",
"the minimum, average and maximum credits"), groups ("for each city"), bounds on counts and the columns shown
(:func:`shape`); superlatives and orders are :mod:`~kgqa.planner.reader.order`'s. Orders that text or lists
cannot have, and answers named only by a generated key, are declined.
"""

from __future__ import annotations

from kgqa.planner.query import STRING_OPS, Column, Overall
from kgqa.planner.reader import cues
from kgqa.planner.reader.columns import ROWID, column_of, node_columns, owner_of, type_of
from kgqa.planner.reader.durations import days_between
from kgqa.planner.reader.joins import counted_beside, edge_of, holder_of, join_label, rels_named_by
from kgqa.planner.reader.measures import restated_measure
from kgqa.planner.reader.order import order
from kgqa.planner.reader.per_node import per_node
from kgqa.planner.reader.ranking_words import alphabetical, said_ranked_by
from kgqa.planner.reader.reading import (
    Item,
    Reading,
    aged,
    aggregates_said,
    compound_of_label,
    is_timed,
    item_at,
    pick,
    pick_prop,
)
from kgqa.planner.reader.schema_terms import CODE_WORDS, Term
from kgqa.text import name_words

BOUNDING_OPS = frozenset({"<", ">", "<=", ">=", "BETWEEN", "RANGE"})  # conditions that leave the values open


def _numeric_term(r: Reading, term: Term) -> bool:
    """Whether a node property holds numbers (typed so, or text of numbers)."""
    return not term.on_rel and (r.view.is_number(term.owner, term.prop) or r.view.is_numeric_text(term.owner, term.prop))


def _count_beside(r: Reading, first: int, col: Column, aggs: list[Column]) -> None:
    """"the number and average age of students": a count of the nodes whose property the aggregate after it reads,
    added to ``aggs`` when "number and" (or "count and") opens the list of aggregates at ``first``."""
    lem = r.lemmas
    if first >= 2 and lem[first - 1] in ("and", ",") and lem[first - 2] in ("number", "count") and \
            first - 2 not in r.used and lem[first - 3:first - 2] != ["total"]:
        aggs.append(Column(col.holder, None, "count"))
        r.use((first - 2, first))


def _across(lem: list[str], i: int) -> bool:
    """Whether the word at ``i`` ("different") follows a preposition that spreads a figure over its values ("the
    average for different lots", "the total credits by different department", "for the different states")."""
    before = lem[i - 1:i] if lem[i - 1:i] != ["the"] else lem[i - 2:i - 1]
    return before in (["for"], ["in"], ["across"], ["by"])


def shape(r: Reading) -> None:
    """Counts ("how many", "the number of"), aggregates ("the average age"), groups ("for each city"),
    superlatives ("the highest", "the top 3 by", "the most orders") and orders ("ordered by age"), as a list of
    passes over the reading."""
    if r.target is None:
        return
    label = r.query.nodes[r.target]
    _unbounded_asked(r)
    group = _groups(r, label)
    days = days_between(r)  # "the average number of days between the order date and the ship date"
    aggs = _aggregates(r, label, group)
    if days is not None:
        (aggs if days.is_aggregate else r.query.columns).append(days)
    elif not _counts(r, label, aggs):
        return
    group = per_node(r, aggs, group)
    _bounded(r, aggs, group)
    _columns(r, label, aggs, group)
    order(r, label)
    restated_measure(r)
    _rows(r, label, aggs, group)
    _unnamed(r, label)
    if _typed_orders(r):
        _text_orders(r)
        _counted_once(r)


def _unbounded_asked(r: Reading) -> None:
    """Drops from what is asked a property a condition already bounds ("how many ratings have more than 3 stars":
    no stars shown)."""
    q = r.query
    conditioned = {w.prop for w in q.where}
    r.asked = [x for x in r.asked if x.term is None or x.term.prop not in conditioned or not any(
        x.start <= b and x.end >= a and (a, b) != (0, 0) for a, b in r.where_ends)]  # "how many ratings have more than 3 stars": no stars


def _groups(r: Reading, label: str) -> list[Column]:
    """The columns the figures are grouped by: "for each city", "per year", "the average for different lots",
    "grouped by appelation"."""
    lem, doc = r.lemmas, r.doc
    group: list[Column] = []
    for i, w in enumerate(lem):
        if any(it.start <= i < it.end for it in r.items):
            continue  # "pages per minute color": a property's own name
        figured = any(x in cues.AGGREGATES or x in ("number", "many", "count") for x in lem)
        if w in cues.GROUP_WORDS and i > 0 and not (i + 2 < len(doc) and doc[i + 2].tag_ == "POS") and (
                doc[i - 1].pos_ == "ADP" or w == "each" and (
                doc[i - 1].pos_ == "VERB" or figured and doc[i - 1].pos_ == "AUX")) \
                or w == "per" or w in cues.DISTINCT_WORDS and figured and _across(lem, i):
            # "for each city", "from each country", "born on each continent", "how many students play each sport",
            # "the average for different lots"
            k = i + 1
            while k < len(lem) and (lem[k] in ("of", "the", "these", "those") or lem[k] in cues.DISTINCT_WORDS):
                k += 1
            it = item_at(r, k) if lem[i - 1] in ("for", "of", "in", "by", "across", "from", "with", "on", "at", "to",
                                                 "within", "among") or w == "per" or \
                w in cues.DISTINCT_WORDS or \
                doc[i - 1].pos_ in ("VERB", "AUX") \
                else None
            if it is None and k < len(lem):  # "the countries and the number of climbers from each country"
                it = next((x for x in r.asked if lem[x.end - 1] == lem[k]), None)
            nxt = next((x for x in r.items if it is not None and x.start == it.end and "prop" in x.kinds()), None)
            if it is not None and nxt is not None and pick(it, "label", None) is not None and \
                    pick(nxt, "prop", pick(it, "label", None).owner) is not None:
                r.use((it.start, it.end))
                it = nxt  # "for each staff rank": the label's property
            if it is not None:
                col = column_of(r, it, label)
                if col is not None:
                    if col not in group:  # "each county ... in each county": one group
                        group.append(col)
                    r.use((i - (w != "per"), k), (it.start, it.end), (k, k + 1))
    for i, w in enumerate(lem):
        if w == "group" and doc[i].pos_ == "VERB":  # "grouped by appelation", "grouped and ordered by languages"
            k = i + 1
            while k < len(lem) and lem[k] in ("by", "and", "the", "order", "sort", "alphabetically"):
                k += 1
            it = item_at(r, k) if "by" in lem[i + 1:k] else None
            col = column_of(r, it, label) if it is not None else None
            if col is not None and col not in group:
                group.append(col)
                r.use((i, i + 1), *[(j, j + 1) for j in range(i + 1, k) if lem[j] in ("by", "and", "the")])
    return group


def _aggregates(r: Reading, label: str, group: list[Column]) -> list[Column]:
    """The figures asked of properties ("the average age", "the minimum, average and maximum credits", "how much
    ..."); the plain properties asked become columns."""
    q, lem, doc = r.query, r.lemmas, r.doc
    aggs: list[Column] = []
    for it in r.asked:
        i = it.start
        if lem[max(0, i - 2):i] in (["number", "of"], ["amount", "of"]) and it.term is not None and \
                r.view.is_number(it.term.owner, it.term.prop) and any(lem[k] in cues.AGGREGATES for k in range(max(0, i - 4), i - 2)):
            r.use((i - 2, i))  # "the average number of international passengers": of the number a property holds
            i -= 2
        said = aggregates_said(r, i)
        j = i
        while j > 0 and lem[j - 1] in ("all", "the"):
            j -= 1
        if not said and j > 1 and lem[j - 1] == "of" and lem[j - 2] in cues.AGGREGATES and \
                it.term is not None and _numeric_term(r, it.term):
            said = aggregates_said(r, j - 1)  # "the sum and average of all settlement amounts"
            r.use((j - 1, i))
            i = j - 1
        r.use(*[(j, j + 1) for j, _ in said if len(said) > 1 or lem[j] in cues.AGGREGATES])
        fns = [fn for _, fn in said]
        if len(fns) > 1:  # "the minimum, average and maximum age", "the highest, lowest and average cost"
            col = column_of(r, it, label)
            if col is not None:
                _count_beside(r, said[0][0], col, aggs)
                aggs.extend(Column(col.holder, col.prop, fn) for fn in fns)
            continue
        fn = next((cues.AGGREGATES[lem[j]] for j in range(max(0, i - 2), i) if lem[j] in cues.AGGREGATES), None)
        mean = next((k for k in range(it.end, len(lem) - 1) if lem[k:k + 2] == ["on", "average"]), None) \
            if fn is None and lem[i] == "how" else None
        if mean is not None:
            fn = "avg"  # "How old is each gender, on average?"
            r.use((mean, mean + 2))
        if fn is None and lem[max(0, i - 2):i] == ["number", "of"] and it.term is not None and it.term.on_rel and \
                r.view.is_number(it.term.owner, it.term.prop) and any(c.holder == r.target for c in q.columns):
            fn = "sum"  # "the student ids and the number of hours played": each one's edges' hours, added up
            r.use((i - 2, i))
        numeric = it.term is not None and _numeric_term(r, it.term)
        if fn is None and numeric and (lem[max(0, i - 2):i] == ["how", "much"] or lem[max(0, i - 2):i + 1] == [
                "how", "many", "total"]):
            fn = "sum"  # "how many total pounds were purchased": the amount, added up
            r.use((i - 2, i))
        if fn is None and numeric and aggs and i > 0 and lem[i - 1] in ("and", ",") and \
                any(x.end == i - 1 for x in r.asked) and not set(name_words(it.term.prop)) & CODE_WORDS:
            fn = aggs[-1].fn  # "the average rating and resolution": the average of each; not "and department id"
        sup = next(((j, cues.SUPERLATIVES[lem[j]]) for j in range(max(0, i - 2), i) if lem[j] in cues.SUPERLATIVES
                    and doc[j].tag_ in ("JJS", "RBS")), None)
        if (old := aged(r, i, it.term)) is not None:
            sup = (i - 1, old)  # "the oldest age": the highest age
        col = column_of(r, it, label)
        if col is None:
            continue
        if fn is None and sup is not None and (len(r.asked) == 1 and not r.query.where or group) and \
                not any(v.kind == "limit" for v in r.values):
            fn = "max" if sup[1] else "min"
            r.use((sup[0], sup[0] + 1))
        if fn:
            said_at = [j for j in range(max(0, i - 2), i) if lem[j] in cues.AGGREGATES]
            r.use(*[(j, j + 1) for j in said_at])
            if said_at:
                _count_beside(r, said_at[0], col, aggs)
            aggs.append(Column(col.holder, col.prop, fn))
        elif col not in q.columns:  # "Which reviews rated ...? Give ... the rating": one rating column
            q.columns.append(col)
    return aggs


def _counts(r: Reading, label: str, aggs: list[Column]) -> bool:
    """The count asked ("how many", "the number of") added to ``aggs``, or the rows made distinct ("the different
    cities"); False where the label counted joins nothing (the reading stops)."""
    q, lem, doc = r.query, r.lemmas, r.doc
    counting = _counting(r)
    distinct_said = [(i, i + 1) for i, w in enumerate(lem) if w in cues.DISTINCT_WORDS]
    if counting is not None:
        c_item, distinct = counting
        prop = c_item is not None and (c_item.term or pick(c_item, "prop", label)) is not None and \
            "label" not in c_item.kinds()
        col = column_of(r, c_item, label) if prop else None
        counted = pick(c_item, "label", None) if c_item is not None else None
        if col is not None:
            distinct = distinct or doc[c_item.end - 1].tag_ == "NNS" and (
                lem[c_item.end - 1] in cues.PLACE_WORDS or lem[c_item.end - 1] in cues.CATEGORY_WORDS)
            aggs.append(Column(col.holder, col.prop, "count", distinct))  # "in how many cities": each city once
            q.columns = [c for c in q.columns if (c.holder, c.prop) != (col.holder, col.prop)]
        elif not distinct and c_item is not None and c_item.kinds() == {"rel"} and r.doc[c_item.end - 1].pos_ == "NOUN" and \
                {e.rel for e in q.edges} <= {t.owner for t in c_item.terms} and \
                (var := edge_of(r, next(iter(c_item.terms)).owner)) is not None:
            aggs.append(Column(var, None, "count"))  # "the number of purchases": the edges, each one
            c_item.term = next(iter(c_item.terms))
            r.use((c_item.start, c_item.end))
        elif distinct:
            aggs.append(Column(r.target, None, "count", True))  # "how many distinct students": each node once
        elif counted is not None and counted.owner != label:
            var = r.vars.get(counted.owner) or join_label(r, counted.owner)
            if var is None:
                return False
            aggs.append(Column(var, None, "count", True))  # "how many tracks are on each album"
            r.use((c_item.start, c_item.end))
        elif q.edges or q.keyed:
            aggs.append(Column(r.target, None, "count", True))  # "how many artists have volumes": each once
        else:
            aggs.append(Column(None, None, "count"))
        r.use(*distinct_said)
    elif distinct_said:
        q.distinct = True
        r.use(*distinct_said)
    return True


def _bounded(r: Reading, aggs: list[Column], group: list[Column]) -> None:
    """Bounds on counts ("students with at least two pets"): per asked node, the count bounded."""
    q = r.query
    if not r.bounds:
        return
    if not q.columns:
        q.columns.extend(node_columns(r, r.target))
    for col, op, value in r.bounds:
        if col not in aggs:
            aggs.append(col)
        q.having.append((col, op, value))
    if not group and all(c.holder == r.target and c.prop for c in q.columns) and \
            all(col.holder in r.rel_var.values() for col, _, _ in r.bounds):
        q.one_per = r.target  # "courses with two prerequisites": their edges counted per course, not per title


def _columns(r: Reading, label: str, aggs: list[Column], group: list[Column]) -> None:
    """The columns shown: the asked nodes where a name is asked or nothing else is, the groups first, the
    figures last."""
    q = r.query
    if r.name_asked and not q.columns and any(c.holder not in (None, r.target) for c in aggs):
        q.columns.extend(node_columns(r, r.target))  # "the company name with the number of gas stations"
    if r.name_asked and q.columns and all(c.holder != r.target for c in q.columns):
        q.columns.extend(node_columns(r, r.target))  # "the protein name and the institution name"
    if r.show_target and not aggs:  # "... ? Return the city and its GDP."
        q.columns[:0] = [c for c in node_columns(r, r.target) if c not in q.columns]
    if r.all_props and not aggs:
        q.columns = [Column(r.target, p) for p in r.view.nodes[label]]
    if not q.columns and not aggs:
        q.columns.extend(node_columns(r, r.target))
    if not aggs:
        for var in r.shown:
            col = Column(var, r.view.display(q.nodes[var]))
            if col not in q.columns:
                q.columns.append(col)
    if group:
        q.columns = group + [c for c in q.columns if c not in group]
    q.columns.extend(aggs)
    if aggs and (q.edges or q.keyed) and not group and not r.bounds and all(c.holder == r.target and c.prop for c in q.columns):
        q.one_per = r.target  # "the average credit score of customers who have a loan": each customer once


def _rows(r: Reading, label: str, aggs: list[Column], group: list[Column]) -> None:
    """Each row once where repeats say nothing ("Who are all the directors?", "which customers ordered Chai"), one
    row per asked node, and the edges' own columns shown."""
    q, lem, doc = r.query, r.lemmas, r.doc
    counted = {c.holder for c in q.columns if c.fn == "count" and c.distinct and c.prop is None} & set(r.shown)
    if counted:  # "the actors in the most films, with their film counts": the films counted, not shown one by one
        q.columns = [c for c in q.columns if c.is_aggregate or c.holder not in counted]
    if not q.edges and not any("label" in it.kinds() for it in r.items) and q.columns and not any(
            c.is_aggregate or c.prop in (r.view.key(label), r.view.display(label)) for c in q.columns):
        q.distinct = True  # "Who are all the directors?", "classrooms used by grade 4": each value once
    if not aggs and not group and r.asked and all(doc[it.end - 1].tag_ == "NNS" and (
            lem[it.end - 1] in cues.CATEGORY_WORDS or lem[it.end - 1] in cues.PLACE_WORDS) for it in r.asked) and \
            all(c.holder == r.target and c.prop not in (r.view.key(label), r.view.display(label)) for c in q.columns) \
            and not any(w.holder == r.target for w in q.where):
        q.distinct = True  # "all the types of forms", "the cities where students live": each once (not "the statuses
        # of coasters longer than 3300")
    if group and q.limit is not None and not any(c.is_aggregate for c, _ in q.order):
        r.decline(f"the top {label} within each group")  # "the highest salary in every department": one per group
    if not any(c.is_aggregate for c in q.columns) and not q.distinct:
        _edge_columns(r)
    node_cols = node_columns(r, r.target)
    if (q.edges or q.keyed) and not any(c.is_aggregate for c in q.columns):
        if q.columns[:len(node_cols)] == node_cols and len(q.columns) == len(node_cols):
            q.distinct = True  # "which customers ordered Chai": each customer once, however many orders
        elif all(c.holder == r.target for c in q.columns) and all(c.holder == r.target for c, _ in q.order):
            q.one_per = r.target  # "the names of the customers with orders 'Packing'": one row per customer


def _unnamed(r: Reading, label: str) -> None:
    """Declines counts of the one node named, of each node's own value, and answers named only by a generated
    key."""
    q = r.query
    shown = [c for c in q.columns if not c.is_aggregate]
    counts = [c for c in q.columns if c.fn == "count"]
    named = any(w.holder == r.target and w.op == "=" and w.prop in (r.view.display(label), r.view.key(label))
                for w in q.where)
    if any(c.holder == r.target and c.prop is None for c in counts) and named:
        r.decline(f"a count of the one {label} named")  # "how many reviews has X written": not X
    if shown and any(c.holder == r.target and c.prop and c.distinct for c in counts) and \
            any(c.holder == r.target for c in shown):
        r.decline(f"a count of each {label}'s own {counts[0].prop}")  # one each: "cities they supply to" is not it
    if shown and all(c.prop == ROWID for c in shown):
        r.decline(f"what names a {label} (it has only a generated key)")


def _typed_orders(r: Reading) -> bool:
    """An order on dates written as text goes to the property typed as a time ("Apr 1, 2010" has no order; a
    TIMESTAMP has); False, declined, where there is none."""
    q = r.query
    for k, (col, desc) in enumerate(q.order):
        if col.fn is None and col.holder in q.nodes and type_of(r, col) == "STRING" and is_timed(col.prop or "") \
                and not r.view.is_date(q.nodes[col.holder], col.prop):
            typed = _typed_time(r, q.nodes[col.holder], col.prop)  # "Apr 1, 2010" has no order; a TIMESTAMP has
            if typed is None:
                r.decline(f"an order on {col.prop}, dates written as text")
                return False
            q.order[k] = (Column(col.holder, typed), desc)
            q.columns = [Column(col.holder, typed) if c == col else c for c in q.columns]
    return True


def _text_orders(r: Reading) -> None:
    """Declines orders that words or lists cannot have: the highest of a text ("the highest quantity per unit"),
    the values of a list beside a figure ("the most common role")."""
    q, lem = r.query, r.lemmas
    shown = [c for c in q.columns if not c.is_aggregate]
    grouped = any(c.is_aggregate for c in q.columns)
    for col, _desc in q.order:
        typ = type_of(r, col)
        lettered = alphabetical(lem) and (any(w in cues.ORDER_WORDS or w in cues.ALPHABETICAL for w in lem) or
                                          bool({"name", "title"} & set(name_words(col.prop or ""))))
        if col.fn is None and typ == "STRING" and not is_timed(col.prop or "") and not r.view.is_numeric_text(
                owner_of(r, col.holder), col.prop) and not lettered and \
                (col.holder, col.prop) not in q.as_numbers:  # keys listed in the order of their numbers
            r.decline(f"an order on the text {col.prop}")  # "the highest quantity per unit", "the party that has
            # the most delegates" (a name asked elsewhere): words have no size
    for col in shown if grouped else []:
        if (type_of(r, col) or "").endswith("[]"):
            r.decline(f"the values of the list {col.prop}")  # "the most common role": roles are lists

def evidence(r: Reading) -> None:
    """Rows of the asked nodes show, after what is asked, the property each is ranked by and those a range
    bounds ("products with a unit price above 10": their prices; "the oldest movie": its release year), the flags
    a condition sets ("discontinued products": true), and the extreme value they are found by ("who placed the earliest order": its date, one value for every row): the
    evidence the answer rests on, one value per node, so the rows stay one per node; and the node "the same" says two
    relationships reach ("who wrote and directed the same film": a row per film)."""
    q = r.query
    if r.declined or r.target is None:
        return
    _edge_ends(r)
    label = q.nodes[r.target]
    if q.having or any(c.is_aggregate for c in q.columns) or r.all_props or \
            not any(c.holder == r.target and c.prop in (r.view.display(label), r.view.key(label)) for c in q.columns):
        return
    ranked = [c for c, _ in q.order if c.holder == r.target and c.fn is None and c.prop]
    bounded = [Column(r.target, w.prop) for w in q.where if w.holder == r.target and w.op in BOUNDING_OPS and
               not isinstance(w.value, (Column, Overall))]
    # "orders shipped after their required date": both dates
    bounded += [c for w in q.where if w.holder == r.target and w.op in BOUNDING_OPS and isinstance(w.value, Column)
                and w.value.holder == r.target for c in (Column(r.target, w.prop), w.value)]
    # "the customer who placed the order with the earliest order date": the one value every row holds
    extreme = [Column(w.holder, w.prop) for w in q.where if w.op == "=" and isinstance(w.value, Overall) and
               w.value.fn in ("min", "max") and w.holder in q.nodes]
    # "products that are discontinued": the flag, one value for every row (the sentence leaves it out)
    flagged = [Column(r.target, w.prop) for w in q.where if w.holder == r.target and w.op == "=" and
               isinstance(w.value, bool)]
    # "who wrote and directed the same film": the film (a row for each)
    shared = [Column(v, r.view.display(q.nodes[v])) for v in r.shared if r.view.display(q.nodes[v])]
    for col in [*ranked, *bounded, *extreme, *flagged, *shared]:
        if not any((c.holder, c.prop) == (col.holder, col.prop) for c in [*q.columns, *q.evidence]):
            q.evidence.append(col)
    _listed_beside(r)


def _listed_beside(r: Reading) -> None:
    """"suppliers that provide products priced under 10": which products, at what prices, listed beside each
    supplier, one row per supplier (a list of one is read as its item:
    :func:`~kgqa.planner.summarizer.evidence_items`). Where the asked nodes are shown alone, unranked and uncut,
    and the values one other node of theirs is bounded by (a range, a text search) leave them open."""
    q = r.query
    beyond = {e.var for e in q.edges if r.target not in (e.src, e.dst)}  # "orders with a discount": of their lines
    near = [w for w in q.where if (w.holder in q.nodes or w.holder in beyond) and w.holder != r.target and
            (w.op in BOUNDING_OPS or w.op in STRING_OPS) and not isinstance(w.value, (Column, Overall))]
    if not near or q.limit is not None or q.order or q.absent or len({w.holder for w in near}) > 1 or \
            any(c.holder != r.target for c in q.columns) or any(w in cues.DISTINCT_WORDS for w in r.lemmas):
        return  # not "the distinct names of ...": each name once
    var = near[0].holder
    shown = r.view.display(q.nodes[var]) if var in q.nodes else None
    props = list(dict.fromkeys([shown, *(w.prop for w in near if w.prop != shown)]))
    if props == [shown]:
        return
    props = [p for p in props if p not in (None, ROWID)]  # a generated key names nothing
    q.evidence.extend(Column(var, p, "collect", name=p) for p in props)
    q.distinct, q.one_per = False, None


def _edge_ends(r: Reading) -> None:
    """"Which roles did Ann Lee play in shows staged by Bob Roe?": what is asked is held by edges (the roles), one
    row each; the nodes each joins that no value fixed (the show) are shown beside it."""
    q = r.query
    holders = {c.holder for c in q.columns}
    edge = next((e for e in q.edges if holders == {e.var}), None)
    if edge is None or q.having or any(c.is_aggregate for c in q.columns):
        return
    fixed = {w.holder for w in q.where if w.op == "=" and not isinstance(w.value, (Column, Overall))}
    for end in (edge.src, edge.dst):
        shown = r.view.display(q.nodes[end])
        if end not in fixed and shown and Column(end, shown) not in q.evidence:
            q.evidence.append(Column(end, shown))


def _counted_once(r: Reading) -> None:
    """"the code and the count of each service type": rows of one label grouped by its own key would count one
    node each; the count is of the nodes of the one label joined to it (the services of each type), else
    declined."""
    q = r.query
    label = q.nodes[r.target]
    counts = [c for c in q.columns if c.fn == "count" and c.prop is None and c.holder in (None, r.target)]
    if q.edges or len(q.nodes) != 1 or not counts or Column(r.target, r.view.key(label)) not in q.columns:
        return
    cnt = counted_beside(r, label)
    if cnt is None:
        r.decline(f"a count of each {label}, one node each")
        return
    q.columns = [cnt if c == counts[0] else c for c in q.columns]
    q.order = [(cnt if c == counts[0] else c, desc) for c, desc in q.order]


def _typed_time(r: Reading, label: str, prop: str) -> str | None:
    """The one DATE or TIMESTAMP property of ``label`` whose name starts as ``prop``'s does (``opening`` for the
    text ``opening_date``), else None."""
    head = prop.lower().replace("-", "_").split("_")[0]
    found = [p for p, typ in r.view.nodes.get(label, {}).items() if typ in ("DATE", "TIMESTAMP")
             and p.lower().split("_")[0] == head]
    return found[0] if len(found) == 1 else None


def _edge_columns(r: Reading) -> None:
    """Rows about the asked node's edges ("people who visit with a count over 50"): each edge's far end and the
    edge properties the question uses are shown beside the asked node, one row per edge."""
    q = r.query
    for e in q.edges:
        used = [w.prop for w in q.where if w.holder == e.var] + [c.prop for c, _ in q.order if c.holder == e.var]
        if not used:
            continue
        far = e.dst if e.src == r.target else e.src if e.dst == r.target else None
        if far is None:
            continue  # "customers whose orders hold a discount": a row per customer, the discounts listed beside
        extra = [Column(far, r.view.display(q.nodes[far]))] + [Column(e.var, p) for p in used]
        q.columns.extend(c for c in dict.fromkeys(extra) if c not in q.columns)


def _counting(r: Reading) -> tuple[Item | None, bool] | None:
    """"how many X", "the number of X", "count the X": (the counted item, distinct), else None."""
    lem = r.lemmas
    for i, w in enumerate(lem):
        ranked = i > 0 and (lem[i - 1] in cues.SUPERLATIVES or lem[i - 1] in ("by", "on") or
                            r.doc[i - 1].tag_ in ("JJS", "RBS") or said_ranked_by(lem, i))
        if any(it.start <= i < it.end and (it.end - it.start > 1 or any(t.exact for t in it.terms)) for it in r.items):
            continue  # "the number of hosts" that a property is named ("Number_of_guests")
        if w == "number" and (r.doc[i].tag_ == "NNS" or any(c.dep_ == "compound" for c in r.doc[i].children)):
            continue  # "the numbers of all flights", "the phone number of X": a property, not a count
        if w == "number" and i in r.used and i > 0 and r.doc[i - 1].like_num:
            continue  # "more than 30 number of students": the bound's count, read
        if w == "count" and _names_a_count(r, r.doc[i]):
            continue  # "a death count of at least 10": the number a property holds
        if (w == "how" and lem[i + 1:i + 2] in (["many"], ["much"])) or (w in ("number", "count") and lem[i + 1:i + 2]
                                                                         == ["of"] and not ranked) or (w == "count" and i == 0):
            j = i + 2 if w != "count" else i + 1
            if w == "count":  # "count the (total) number of clubs"
                k = j
                while k < len(lem) and lem[k] in ("the", "total", "overall"):
                    k += 1
                if lem[k:k + 2] == ["number", "of"]:
                    j = k + 2
            if w == "how" and lem[j:j + 1] == ["time"] and not any(x.start <= j < x.end for x in r.items):
                j += 1  # "how many times has the Physics prize been awarded": the nodes (or edges) named after
            r.use((i, j))
            distinct = any(lem[k] in cues.DISTINCT_WORDS for k in range(j, min(j + 2, len(lem)))) or \
                w == "number" and lem[i - 1:i] and lem[i - 1] in cues.DISTINCT_WORDS  # "the distinct number of votes"
            rows = j + (lem[j:j + 1] == ["the"])
            if lem[rows:rows + 1] and lem[rows] in cues.ROW_WORDS and not any(x.start <= rows < x.end for x in r.items):
                named = rels_named_by(r, lem[rows])
                if len(named) == 1:  # "the number of records they have": the edges of their one "record" link
                    return Item(rows, rows + 1, {Term("rel", named[0])}), False
            flagged = [f for f, _ in r.flags]  # "the number of discontinued products": the products
            counted = next((it for it in r.items if it.start >= j and not compound_of_label(r, it) and
                            not any(it is f for f in flagged)), None)
            edges = next((x for x in r.items if counted is not None and x.start == counted.end and
                          x.kinds() == {"rel"} and r.doc[x.end - 1].tag_ == "NNS"), None)
            if edges is not None and pick(counted, "label", None) is not None and \
                    pick(counted, "label", None).owner == r.query.nodes[r.target]:
                r.use((counted.start, counted.end))  # "how many hotel reviews": the reviews, edges of the hotels
                return edges, False
            prop = next((x for x in r.items if counted is not None and x.start == counted.end and "prop" in x.kinds()), None)
            if prop is not None and pick(counted, "label", None) is not None and \
                    all(t.pos_ != "VERB" for t in r.doc[prop.start:prop.end]) and \
                    pick(prop, "prop", pick(counted, "label", None).owner) is not None and \
                    pick(counted, "label", None).owner == r.query.nodes[r.target]:
                r.use((counted.start, counted.end))  # "how many movie directors": the directors, each once
                r.asked = [x for x in r.asked if x is not prop]
                return prop, True
            holds = pick(counted, "prop", r.query.nodes[r.target]) if counted is not None and \
                "label" not in counted.kinds() else None
            if holds is not None and (lem[counted.end:counted.end + 2] == ["be", "there"] or lem[counted.end:counted.end + 1] == ["exist"]) and \
                    not holds.on_rel and holds.prop != r.view.key(holds.owner):
                return counted, True  # "how many advisors are there": the values Advisor takes, each once
            if holds is not None and r.view.is_number(holds.owner, holds.prop) and (
                    name_words(holds.prop)[-1:] in (["count"], ["number"]) or
                    counted.start == j and w == "how" and (holds.on_rel or holds.prop != r.view.key(holds.owner)) and
                    lem[j] not in cues.AGGREGATES):
                holder = holder_of(r, holds)
                if holder is None:
                    return None
                counted.term = holds  # "how many pages does it have", "how many kids stay": the number it holds
                if counted not in r.asked:
                    r.asked.append(counted)
                if Column(holder, holds.prop) not in r.query.columns:
                    r.query.columns.append(Column(holder, holds.prop))
                r.use((i, j), (counted.start, counted.end))
                return None
            amount = w != "how" or lem[i + 1] == "much" or lem[j:j + 1] and lem[j] in cues.AGGREGATES
            if counted is not None and amount and "label" not in counted.kinds():
                term = pick(counted, "prop", r.query.nodes[r.target]) or pick_prop(counted, r)
                if term is not None and r.view.is_number(term.owner, term.prop) and not distinct:
                    return None  # "the number of hours played": a number the property holds, not a count
            return counted, distinct
    for t in r.doc:  # "the categories and the count", "each test result and its count": the rows of each
        if t.lemma_.lower() == "count" and t.pos_ == "NOUN" and lem[t.i + 1:t.i + 2] != ["of"] and r.asked and \
                not any(it.start <= t.i < it.end for it in r.items) and not _names_a_count(r, t) and \
                any(c.dep_ in ("det", "poss") for c in t.children):
            r.use((t.i, t.i + 1))
            return None, False
    return None


def _names_a_count(r: Reading, count) -> bool:
    """Whether the word "count" ends a property's name written before it ("a death count"): a word of an item is
    its compound."""
    return any(c.dep_ == "compound" and any(it.start <= c.i < it.end for it in r.items) for c in count.children)
